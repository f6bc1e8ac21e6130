// Package engine drives the scheduler through time: the scheduling queue
// (activeQ, backoffQ, unschedulable pods, gating), a virtual clock, cluster
// events, preemption's graceful termination, breakpoints and rewind. The
// TUI and `schedtui run` talk to the scheduler only through this API.
package engine

import (
	"context"
	"time"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// QueuedPod is one pending pod as the queue holds it.
type QueuedPod struct {
	Pod      string // namespace/name
	UID      string
	Priority int32
	Queue    history.QueueName
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
	// MissingGroup is, for a member waiting for its group
	// (WaitingForPodGroup), the CompositePodGroup above its PodGroup that
	// is not observed (CompositePodGroup), "" when its PodGroup is the one
	// missing.
	MissingGroup string
}

// QueuedGroup is a pod group as the queue holds it (GenericWorkload): one
// entry for its queued members, with the group's own bookkeeping.
type QueuedGroup struct {
	Group    string // namespace/name
	Policy   string // "Gang" or "Basic"
	MinCount int
	Priority int32
	Queue    history.QueueName
	// Timestamp, Attempts and BackoffExpiration are the group's, as for a
	// pod; UnschedulablePlugins are the members' rejector plugins.
	Timestamp            time.Time
	Attempts             int
	BackoffExpiration    time.Time
	UnschedulablePlugins []string
	// GatingPlugin holds the group back (a member PreEnqueue rejected),
	// with its message.
	GatingPlugin  string
	GatingMessage string
	// Members are the queued members (namespace/name), in member order.
	Members []string
	// Scheduled counts the members already assumed or bound.
	Scheduled int
	// Composite is set for a hierarchy's root (CompositePodGroup): Policy
	// and MinCount are the CompositePodGroup's (minCount counts groups),
	// Groups its PodGroups (namespace/name), depth first.
	Composite bool
	Groups    []string
}

// QueueSnapshot is the queue at one moment; ActiveQ is in pop order.
// Every pending pod the queue holds is in one of the four pod lists: a
// pod group's members where their group is (and the group in Groups), a
// member waiting for its PodGroup among the unschedulable ones (its Queue
// WaitingForPodGroup, and in WaitingForGroup).
type QueueSnapshot struct {
	Now           time.Time
	ActiveQ       []QueuedPod
	BackoffQ      []QueuedPod
	Unschedulable []QueuedPod
	Gated         []QueuedPod
	// Groups are the queued pod groups: the active ones in pop order,
	// then backoff, unschedulable and gated ones.
	Groups []QueuedGroup
	// WaitingForGroup are the pods whose PodGroup has not been observed:
	// never attempted until it is (upstream's incompletePodGroupPods).
	WaitingForGroup []QueuedPod
}

// SchedulerCacheError is the Reason of an EventCluster reporting a
// scheduler cache mutation that failed (Message "scheduler cache
// RemovePod failed: ..."); the engine carries on, as upstream does after
// logging it.
const SchedulerCacheError = "SchedulerCacheError"

// Breakpoint stops Continue. A zero field matches nothing; a breakpoint
// with several fields set stops when any of them matches (see Matches).
type Breakpoint struct {
	// PodPattern is a glob (path.Match) over namespace/name.
	PodPattern    string
	Unschedulable bool
	Preemption    bool
	// Node stops when this node is chosen.
	Node string
	// Group is a glob (path.Match) over the namespace/name of a PodGroup:
	// it stops at an attempt of one of the group's members, the first one
	// in the group's cycle (GenericWorkload).
	Group string
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
	Timeline() history.EventLog
	Attempts() history.AttemptLog
	// Groups are the pod-group cycles made (GenericWorkload), in order;
	// each member's attempt is in Attempts (record.GroupAttempt.FirstAttempt
	// on). The slice is the caller's to read.
	Groups() []*record.GroupAttempt
	// GroupOf is the pod-group cycle the attempt at index i of Attempts
	// was made in, if any.
	GroupOf(i int) (*record.GroupAttempt, bool)
	Cursor() Cursor
	// Shadowing reports whether the engine runs in shadow mode
	// (Options.Shadow): it makes no attempt of its own, only judges the
	// decisions of the cluster's scheduler as they arrive.
	Shadowing() bool
}
