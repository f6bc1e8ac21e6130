// Package history is what a run leaves behind: the attempts and the
// timeline's events, written by the engine (scheduler/engine) and read by
// the views (the TUI's world, the CLI) through AttemptLog and EventLog, the
// archive that keeps their lines past the detailed window in a few dozen
// bytes each (archive.go), the retention that decides what stays whole
// (log.go), and per-pod histories (pods.go).
package history

import "time"

// QueueName names where a pending pod waits.
type QueueName string

const (
	ActiveQ       QueueName = "Active"
	BackoffQ      QueueName = "Backoff"
	Unschedulable QueueName = "Unschedulable"
	// Gated pods sit with the unschedulable ones upstream; schedtui lists
	// them apart because users ask about them apart.
	Gated    QueueName = "Gated"
	InFlight QueueName = "InFlight"
)

// EventKind classifies timeline entries.
type EventKind string

const (
	// EventQueueMove: a pod moved between queues; Reason says why
	// (BackoffComplete, UnschedulableTimeout, change.NodeAdd, AssignedPodDelete,
	// ScheduleAttemptFailure, PopFromBackoffQ, ForceActivate, ...).
	EventQueueMove EventKind = "queue"
	// EventAttempt: a scheduling attempt; Attempt indexes the attempts (AttemptLog).
	EventAttempt EventKind = "attempt"
	// EventPreemption: a preemptor nominated to a node with victims.
	EventPreemption EventKind = "preemption"
	// EventEviction: a victim finished terminating and left the cluster.
	EventEviction EventKind = "eviction"
	// EventBinding: a binding cycle parked in PreBind (the attempt
	// Waiting: a device's binding conditions) ended; Attempt indexes the
	// attempt that parked it, Reason is its outcome (Scheduled or Error),
	// Node the node it waited on, Message PreBind's or Bind's error.
	EventBinding EventKind = "binding"
	// EventCluster: a cluster change (node added or cordoned, pod added or
	// deleted, a PersistentVolume created, ...) from a recording or from a
	// live cluster: Reason is its change.Kind, Object what it is about, and
	// Message "not applied: ..." when the engine refused it. The engine's
	// own API calls (Reason "Preempted": a victim marked for deletion) are
	// cluster events too, and so is a scheduler cache mutation that failed
	// (Reason SchedulerCacheError), which upstream logs.
	EventCluster EventKind = "cluster"
)

// KeptByCompaction says whether compaction archives the event (attempts,
// preemptions, evictions, bindings, observations) rather than drop it
// (queue moves and cluster changes).
func (ev Event) KeptByCompaction() bool {
	return ev.Kind != EventQueueMove && ev.Kind != EventCluster
}

// EventObserved: the cluster's scheduler decided about a pod (bound it,
// or reported it unschedulable); Node is where it was bound ("" for
// unschedulable), Predicted what schedtui chose ("" for no node), Reason
// the Verdict, Message why, Attempt the attempt that made the prediction
// (-1 when it was made when the binding arrived).
const EventObserved EventKind = "observed"

// JudgedOn is the state a shadow-mode observation was judged on: Bound
// pods on nodes, and the pods in flight (assumed by the cluster's
// scheduler, not bound yet) counted on their node, "ns/pod→node".
type JudgedOn struct {
	Bound    int      `json:"bound"`
	InFlight []string `json:"inFlight"`
	// AsOf, when set, says the state is the one when the pod went in
	// flight (its PreBind nomination or its claim's selected node), not
	// the one when its binding arrived.
	AsOf string `json:"asOf,omitempty"`
}

// Event is one entry of the timeline.
type Event struct {
	Seq    int
	Time   time.Time
	Kind   EventKind
	Pod    string // namespace/name, when about a pod
	From   QueueName
	To     QueueName
	Reason string
	// Attempt is the index into Attempts for EventAttempt, and of the
	// attempt that made the prediction for EventObserved; else -1.
	Attempt int
	// Node is the node involved (nomination, eviction, cluster event).
	Node    string
	Victims []string
	Message string
	// Preemptor is the pod that preempted the victim (EventEviction, and
	// the EventCluster marking the victim "Preempted", whose message names
	// the preemptor by UID as upstream's does).
	Preemptor string
	// Predicted is the node schedtui chose for a pod the cluster's
	// scheduler decided about (EventObserved; "" for none).
	Predicted string `json:",omitempty"`
	// Object names what a cluster change (EventCluster with a change.Kind
	// as Reason) is about: "Node name", "Pod namespace/name",
	// "PersistentVolumeClaim namespace/name".
	Object string `json:",omitempty"`
	// Judged is the state a shadow-mode observation was judged on (see
	// scheduler/engine/shadow_judge.go); nil otherwise.
	Judged *JudgedOn `json:",omitempty"`
	// Uncertain says why the reconstruction of that state may differ
	// from what the cluster's scheduler had ("" when it does not).
	Uncertain string `json:",omitempty"`
	// ClusterMessage is the message of the cluster's scheduler for an
	// observation of an unschedulable decision.
	ClusterMessage string `json:",omitempty"`
}
