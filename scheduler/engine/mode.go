package engine

import (
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The engine is the simulation core: the queue, the clock and its
// timers, applying cluster changes (applyNow), an attempt and what
// follows it (attempt, failed, bound, binding waits), the op log and the
// checkpoints. What a step does, and what the cluster's own scheduler's
// decisions mean, is its mode's:
//
//   - simulate (simulate.go): schedtui is the scheduler. A step pops a
//     pod and makes an attempt with its effects; a decision of the
//     cluster's scheduler (a live cluster, a recording) is observed
//     against schedtui's prediction (observe.go). A forecast
//     (forecast.go) is an engine in this mode forked from a live one.
//   - shadow (shadow.go): the cluster's scheduler decides; a step only
//     applies the changes due, and each decision is judged by an attempt
//     without effects on the state that scheduler had (shadow_judge.go),
//     the state tracked from the changes (shadow_track.go), uncertain
//     verdicts revised as later changes explain them (shadow_revise.go).
//
// The mode is built with the engine (New), kept in every checkpoint
// (save) and built again, bound to the engine restored, from it (resume).
type mode interface {
	// step makes at most one attempt (Engine.step).
	step(limit time.Time, strict, stopBeforeAttempt bool) (*record.Attempt, framework.QueuedEntity, error)
	// quiescent reports that step would make no attempt without an
	// external event (Engine.quiescent).
	quiescent() bool

	// The cluster's changes, as applyNow applies them. arriving: c is
	// about to be applied. pendingAdded: a pending pod the engine
	// schedules joined the queue (initial: one of New's). podUpdated
	// applies the update of pod old to c.Pod (neither terminal).
	// podDeleted: old's deletion was applied. claimUpdated: a claim's
	// update is about to be stored; it returns what to do once it is
	// (nil for nothing).
	arriving(c change.Change)
	pendingAdded(p *v1.Pod, initial bool)
	podUpdated(c change.Change, old *v1.Pod)
	podDeleted(old *v1.Pod)
	claimUpdated(old, cur *v1.PersistentVolumeClaim) func()

	// save is the mode's state for a checkpoint.
	save() modeState
	// forget forgets what the mode keeps of a pod the engine no longer
	// holds (forgetPod); forgetBefore what it keeps for the attempts
	// before first, which no fork reaches any more.
	forget(uid types.UID)
	forgetBefore(first int)
	// revisable is the number (history.Log.EventNumber) of the first event the mode
	// may still rewrite in place: handing events out and compacting the
	// timeline stop before it. ok is false when there is none.
	revisable() (ev int, ok bool)
	// rewrites is the number of the first event at or after first that a
	// restore may put back as it was, math.MaxInt when none does; ok is
	// false when the mode never rewrites an event (Timeline copies from
	// there).
	rewrites(first int) (ev int, ok bool)
	// dropsEmitted: a headless engine drops the events it handed out
	// (Options.OnEvent), as nothing of the mode reads them back.
	dropsEmitted() bool

	// fork is Engine.Fork: a separate scheduler holding the cluster as
	// attempt i saw it, and the pod attempted.
	fork(i int) (*scheduler.Scheduler, *v1.Pod, error)
	// popped is a separate engine replayed to the start of attempt i,
	// its pod popped and not yet scheduled (Engine.StateAt).
	popped(i int) (*Engine, *framework.QueuedPodInfo, error)
	// bindRefused is why the mode cannot bind pods in a real cluster
	// (Options.Bind), nil when it can.
	bindRefused() error
}

// modeState is a mode's part of a checkpoint. resume builds the mode
// again on engine e, being restored at the checkpoint (its attempts and
// timeline already cut back); revisable is mode.revisable's as the
// checkpoint holds it (the oldest checkpoint bounds compaction too).
type modeState interface {
	resume(e *Engine) mode
	revisable() (ev int, ok bool)
}

// newMode is the mode Options choose for e: simulate, or shadow
// (Options.Shadow), which cannot bind.
func newMode(e *Engine) (mode, error) {
	if !e.opts.Shadow {
		return &simulation{e: e}, nil
	}
	if e.opts.Bind != nil {
		return nil, errors.New("shadow mode follows the cluster's scheduler: it cannot bind")
	}
	return newShadow(e), nil
}
