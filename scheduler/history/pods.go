package history

import (
	"sort"
	"time"

	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// PodAttempt is one scheduling attempt of a pod, with what brought the pod
// to it.
type PodAttempt struct {
	// N counts the pod's attempts from 1; Index is the attempt's index in
	// Attempts.
	N, Index int
	Time     time.Time
	// Events are the queue moves that led to this attempt since the
	// pod's previous one (or its arrival), in order, with upstream's
	// labels: UnscheduledPodAdd, the cluster event whose queueing hint
	// let it through (AssignedPodDelete, change.NodeAdd, ...), BackoffComplete,
	// UnschedulableTimeout, PopFromBackoffQ, ... A plain pop from activeQ
	// and the requeue after a failure (ScheduleAttemptFailure) are left
	// out: every retry has them.
	Events  []string
	Attempt *record.Attempt
}

// PodHistory is what the engine did with one pod ("namespace/name"):
// every attempt, and where the pod waits now.
type PodHistory struct {
	Pod      string
	Attempts []PodAttempt
	// Queue is where the pod waits now; "" when it is not in the queue
	// (bound, deleted, or never queued).
	Queue QueueName
	// GatingPlugin and GatingMessage hold a gated pod back.
	GatingPlugin, GatingMessage string
	// NominatedNode is the pod's nomination now.
	NominatedNode string
	// UnschedulablePlugins rejected it in its last attempt
	// (Unschedulable pods).
	UnschedulablePlugins []string
}

// Last is the pod's last attempt, or nil when it was never attempted.
func (h PodHistory) Last() *PodAttempt {
	if len(h.Attempts) == 0 {
		return nil
	}
	return &h.Attempts[len(h.Attempts)-1]
}

// Waiting is where a pod waits now, as the queue says.
type Waiting struct {
	Pod                         string
	Queue                       QueueName
	GatingPlugin, GatingMessage string
	NominatedNode               string
	UnschedulablePlugins        []string
}

// Pods is the history of every pod that went through the queue (it
// arrived pending, or was attempted) in events and attempts, with where
// the waiting pods wait now, sorted by namespace/name.
func Pods(events EventLog, attempts AttemptLog, waiting []Waiting) []PodHistory {
	byPod := map[string]*PodHistory{}
	moves := map[string][]string{}
	get := func(pod string) *PodHistory {
		h := byPod[pod]
		if h == nil {
			h = &PodHistory{Pod: pod}
			byPod[pod] = h
		}
		return h
	}
	for _, ev := range events.All() {
		switch ev.Kind {
		case EventQueueMove:
			h := get(ev.Pod)
			if ev.Reason != queue.PopLabel && ev.Reason != queue.ScheduleAttemptFailure && ev.Reason != "" {
				moves[h.Pod] = append(moves[h.Pod], ev.Reason)
			}
		case EventAttempt:
			h := get(ev.Pod)
			a := attempts.At(ev.Attempt)
			h.Attempts = append(h.Attempts, PodAttempt{N: len(h.Attempts) + 1, Index: ev.Attempt, Time: a.Time, Events: moves[h.Pod], Attempt: a})
			moves[h.Pod] = nil
		}
	}
	for _, w := range waiting {
		h := get(w.Pod)
		h.Queue, h.GatingPlugin, h.GatingMessage = w.Queue, w.GatingPlugin, w.GatingMessage
		h.NominatedNode, h.UnschedulablePlugins = w.NominatedNode, w.UnschedulablePlugins
	}
	out := make([]PodHistory, 0, len(byPod))
	for _, h := range byPod {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}
