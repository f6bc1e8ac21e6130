package engine

import (
	"time"
)

// The JSON lines `schedtui run -o json` prints besides attempts (README,
// "run -o json"). Every line has a "kind"; times are virtual, RFC 3339
// with nanoseconds, UTC.

// QueueMoveJSON is a pod moving between queues (kind "queue").
type QueueMoveJSON struct {
	Kind string `json:"kind"`
	Time string `json:"time"`
	Pod  string `json:"pod"`
	// From and To are Active, Backoff, Unschedulable, Gated or InFlight;
	// "" is outside the queue (a pod entering or being deleted).
	From string `json:"from"`
	To   string `json:"to"`
	// Event is upstream's label of what moved the pod
	// (UnscheduledPodAdd, ScheduleAttemptFailure, BackoffComplete,
	// PopFromBackoffQ, UnschedulableTimeout, ForceActivate, NodeAdd,
	// AssignedPodDelete, ...), or Pop for a plain pop from activeQ.
	Event string `json:"event"`
	// Message is the gating plugin and its message when To is Gated.
	Message string `json:"message"`
}

// PreemptionJSON is a preemption decision (kind "preemption"): the
// preemptor is nominated to Node and Victims will be evicted.
type PreemptionJSON struct {
	Kind    string   `json:"kind"`
	Time    string   `json:"time"`
	Pod     string   `json:"pod"`
	Node    string   `json:"node"`
	Victims []string `json:"victims"`
}

// EvictionJSON is a victim leaving the cluster after its grace period
// (kind "eviction").
type EvictionJSON struct {
	Kind      string `json:"kind"`
	Time      string `json:"time"`
	Pod       string `json:"pod"`
	Node      string `json:"node"`
	Preemptor string `json:"preemptor"`
}

// FormatTime renders a virtual time for JSON.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// EventJSON renders a timeline event as its JSON line; ok is false for
// kinds that have none (attempts render through record.Attempt.JSON,
// cluster events are not part of the machine interface).
func EventJSON(ev Event) (any, bool) {
	switch ev.Kind {
	case EventQueueMove:
		return QueueMoveJSON{Kind: "queue", Time: FormatTime(ev.Time), Pod: ev.Pod, From: string(ev.From), To: string(ev.To),
			Event: ev.Reason, Message: ev.Message}, true
	case EventPreemption:
		v := ev.Victims
		if v == nil {
			v = []string{}
		}
		return PreemptionJSON{Kind: "preemption", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Victims: v}, true
	case EventEviction:
		return EvictionJSON{Kind: "eviction", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Preemptor: ev.Preemptor}, true
	}
	return nil, false
}
