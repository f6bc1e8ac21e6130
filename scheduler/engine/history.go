package engine

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

// Histories returns the history of every pod that went through the queue
// (it arrived pending, or was attempted), sorted by namespace/name.
func (e *Engine) Histories() []PodHistory {
	byPod := map[string]*PodHistory{}
	events := map[string][]string{}
	get := func(pod string) *PodHistory {
		h := byPod[pod]
		if h == nil {
			h = &PodHistory{Pod: pod}
			byPod[pod] = h
		}
		return h
	}
	for _, ev := range e.Timeline().All() {
		switch ev.Kind {
		case EventQueueMove:
			h := get(ev.Pod)
			if ev.Reason != queue.PopLabel && ev.Reason != queue.ScheduleAttemptFailure && ev.Reason != "" {
				events[h.Pod] = append(events[h.Pod], ev.Reason)
			}
		case EventAttempt:
			h := get(ev.Pod)
			a := e.attemptAt(ev.Attempt)
			h.Attempts = append(h.Attempts, PodAttempt{N: len(h.Attempts) + 1, Index: ev.Attempt, Time: a.Time, Events: events[h.Pod], Attempt: a})
			events[h.Pod] = nil
		}
	}
	q := e.Queue()
	for _, list := range [][]QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
			h := get(p.Pod)
			h.Queue, h.GatingPlugin, h.GatingMessage = p.Queue, p.GatingPlugin, p.GatingMessage
			h.NominatedNode, h.UnschedulablePlugins = p.NominatedNode, p.UnschedulablePlugins
		}
	}
	out := make([]PodHistory, 0, len(byPod))
	for _, h := range byPod {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}

// History is one pod's history; ok is false when the pod never went
// through the queue.
func (e *Engine) History(pod string) (PodHistory, bool) {
	for _, h := range e.Histories() {
		if h.Pod == pod {
			return h, true
		}
	}
	return PodHistory{}, false
}
