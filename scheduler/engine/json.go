package engine

import (
	"time"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
)

// The JSON lines `schedtui run -o json` prints besides attempts (docs/commands.md,
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
	// PopFromBackoffQ, UnschedulableTimeout, ForceActivate, change.NodeAdd,
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

// BindingJSON is the end of a binding cycle that waited in PreBind (kind
// "binding"): Outcome Scheduled (bound to Node) or Error (Message), for
// the attempt numbered Attempt (1-based), whose line said Waiting.
type BindingJSON struct {
	Kind    string `json:"kind"`
	Time    string `json:"time"`
	Pod     string `json:"pod"`
	Node    string `json:"node"`
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	Attempt int    `json:"attempt"`
}

// ClusterJSON is a cluster change applied to the engine (kind
// "cluster"): a change of a recording being replayed, or of a live
// cluster. The engine's own API calls (a preemption victim marked for
// deletion) are not cluster lines: the preemption line implies them.
type ClusterJSON struct {
	Kind string `json:"kind"`
	Time string `json:"time"`
	// Change is change.NodeAdd, change.NodeUpdate, change.NodeDelete, change.PodAdd, change.PodUpdate,
	// change.PodDelete, change.ObjectAdd, change.ObjectUpdate or change.ObjectDelete.
	Change string `json:"change"`
	// Object is what changed: "Node name", "Pod namespace/name",
	// "PersistentVolumeClaim namespace/name", ...
	Object string `json:"object"`
	// Pod is the pod of a pod change (namespace/name), else "".
	Pod string `json:"pod"`
	// Node is the node of a node change, or the node a changed pod is
	// bound to, else "".
	Node string `json:"node"`
	// Message is "" when the change was applied, else "not applied: "
	// and why (e.g. an update of an object the cluster does not hold).
	Message string `json:"message"`
}

// FormatTime renders a virtual time for JSON.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// EventJSON renders a timeline event as its JSON line; ok is false for
// kinds that have none (attempts render through record.Attempt.JSON; of
// the cluster events only the changes applied have a line).
func EventJSON(ev history.Event) (any, bool) {
	switch ev.Kind {
	case history.EventQueueMove:
		return QueueMoveJSON{Kind: "queue", Time: FormatTime(ev.Time), Pod: ev.Pod, From: string(ev.From), To: string(ev.To),
			Event: ev.Reason, Message: ev.Message}, true
	case history.EventPreemption:
		v := ev.Victims
		if v == nil {
			v = []string{}
		}
		return PreemptionJSON{Kind: "preemption", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Victims: v}, true
	case history.EventEviction:
		return EvictionJSON{Kind: "eviction", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Preemptor: ev.Preemptor}, true
	case history.EventObserved:
		return ObservationJSON{Kind: "observed", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Predicted: ev.Predicted,
			Verdict: ev.Reason, Message: ev.Message, JudgedOn: ev.Judged, Uncertain: ev.Uncertain, Attempt: ev.Attempt + 1}, true
	case history.EventBinding:
		return BindingJSON{Kind: "binding", Time: FormatTime(ev.Time), Pod: ev.Pod, Node: ev.Node, Outcome: ev.Reason,
			Message: ev.Message, Attempt: ev.Attempt + 1}, true
	case history.EventCluster:
		if !change.IsKind(ev.Reason) {
			return nil, false
		}
		return ClusterJSON{Kind: "cluster", Time: FormatTime(ev.Time), Change: ev.Reason, Object: ev.Object, Pod: ev.Pod,
			Node: ev.Node, Message: ev.Message}, true
	}
	return nil, false
}
