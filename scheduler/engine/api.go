// Package engine drives the scheduler through time: the scheduling queue
// (activeQ, backoffQ, unschedulable pods, gating), a virtual clock, cluster
// events, preemption's graceful termination, breakpoints and rewind. The
// TUI and `schedtui run` talk to the scheduler only through this API.
package engine

import (
	"context"
	"time"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/record"
)

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

// QueuedPod is one pending pod as the queue holds it.
type QueuedPod struct {
	Pod      string // namespace/name
	UID      string
	Priority int32
	Queue    QueueName
	// Timestamp is the queue's ordering timestamp (refreshed on failure).
	Timestamp time.Time
	Attempts  int
	// BackoffExpiration is when a backoffQ pod may move to activeQ.
	BackoffExpiration time.Time
	// UnschedulablePlugins rejected the pod in its last attempt.
	UnschedulablePlugins []string
	// GatingPlugin holds a gated pod back, with its message.
	GatingPlugin  string
	GatingMessage string
	NominatedNode string
}

// QueueSnapshot is the queue at one moment; ActiveQ is in pop order.
type QueueSnapshot struct {
	Now           time.Time
	ActiveQ       []QueuedPod
	BackoffQ      []QueuedPod
	Unschedulable []QueuedPod
	Gated         []QueuedPod
}

// EventKind classifies timeline entries.
type EventKind string

const (
	// EventQueueMove: a pod moved between queues; Reason says why
	// (BackoffComplete, UnschedulableTimeout, change.NodeAdd, AssignedPodDelete,
	// ScheduleAttemptFailure, PopFromBackoffQ, ForceActivate, ...).
	EventQueueMove EventKind = "queue"
	// EventAttempt: a scheduling attempt; Attempt indexes Engine.Attempts.
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

// SchedulerCacheError is the Reason of an EventCluster reporting a
// scheduler cache mutation that failed (Message "scheduler cache
// RemovePod failed: ..."); the engine carries on, as upstream does after
// logging it.
const SchedulerCacheError = "SchedulerCacheError"

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
	// shadow.go); nil otherwise.
	Judged *JudgedOn `json:",omitempty"`
	// Uncertain says why the reconstruction of that state may differ
	// from what the cluster's scheduler had ("" when it does not).
	Uncertain string `json:",omitempty"`
	// ClusterMessage is the message of the cluster's scheduler for an
	// observation of an unschedulable decision.
	ClusterMessage string `json:",omitempty"`
}

// Breakpoint stops Continue. A zero field matches nothing; a breakpoint
// with several fields set stops when any of them matches (see Matches).
type Breakpoint struct {
	// PodPattern is a glob (path.Match) over namespace/name.
	PodPattern    string
	Unschedulable bool
	Preemption    bool
	// Node stops when this node is chosen.
	Node string
}

// Cursor says where stepping by phase stands inside the current attempt.
type Cursor struct {
	// Attempt indexes Attempts; -1 before the first.
	Attempt int
	// Phase is the last phase revealed (record.PhasePop .. PhaseBind).
	Phase record.Phase
}

// API is what the TUI and the CLI use.
type API interface {
	// Step makes one scheduling attempt (advancing virtual time to the
	// next due event when nothing is poppable) and returns it; ok is false
	// when the engine is quiescent: nothing is poppable, nothing is
	// scheduled to happen (victim terminations, preemption API calls,
	// scheduled changes), and every waiting pod was last tried (gated
	// pods: last checked by PreEnqueue) against the cluster as it is now,
	// so the periodic flushes would only repeat known failures.
	Step() (a *record.Attempt, ok bool)
	// StepPhase reveals the next phase of the current attempt, starting a
	// new attempt when the current one is fully revealed.
	StepPhase() Cursor
	// Continue steps until a breakpoint matches or the engine is quiescent;
	// it returns the matching breakpoint's index or -1.
	Continue(bps []Breakpoint) int
	// ContinueCtx is Continue reporting its progress to p and stopping
	// after the attempt in progress once ctx is done (its error).
	ContinueCtx(ctx context.Context, bps []Breakpoint, p progress.Reporter) (int, error)
	// Rewind undoes n attempts by deterministic replay from checkpoints.
	Rewind(n int) error
	// RunUntil runs until virtual time reaches d from the start, flush
	// retries past quiescence included, and leaves the clock there; it
	// stops early only when nothing at all can happen any more.
	RunUntil(d time.Duration)
	Now() time.Time
	Queue() QueueSnapshot
	// QueueAtPop is the queue as the cursor's attempt popped its pod,
	// while that attempt is stepped by phase and not fully revealed (ok
	// false otherwise: Queue is the queue to show).
	QueueAtPop() (q QueueSnapshot, ok bool)
	Timeline() EventLog
	Attempts() AttemptLog
	Cursor() Cursor
	// Shadowing reports whether the engine runs in shadow mode
	// (Options.Shadow): it makes no attempt of its own, only judges the
	// decisions of the cluster's scheduler as they arrive.
	Shadowing() bool
}
