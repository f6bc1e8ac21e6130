package engine

import (
	"maps"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// simulation is the simulate mode (mode.go): schedtui schedules. A step
// pops the next pod and makes an attempt with its effects; the cluster's
// pod updates are applied as the event handlers apply them, a decision of
// the cluster's own scheduler observed against schedtui's (observe.go).
type simulation struct {
	e *Engine
	// seenUnschedulable is the last unschedulable message of the
	// cluster's scheduler seen per pod (newUnschedulable).
	seenUnschedulable map[types.UID]string
}

// simulationState is the simulate mode's part of a checkpoint: the
// cluster's unschedulable messages observed so far, so that one arriving
// again after a rewind is observed again.
type simulationState struct {
	seenUnschedulable map[types.UID]string
}

func (s *simulationState) resume(e *Engine) mode {
	return &simulation{e: e, seenUnschedulable: maps.Clone(s.seenUnschedulable)}
}

func (*simulationState) revisable() (int, bool) { return 0, false }

// forecastState is the mode a forecast forked from a checkpoint holding
// st runs in: the simulate mode, with the observations made so far when
// the mirror simulates, afresh when it shadows the cluster's scheduler.
func forecastState(st modeState) modeState {
	if s, ok := st.(*simulationState); ok {
		return s
	}
	return &simulationState{}
}

func (m *simulation) save() modeState {
	return &simulationState{seenUnschedulable: maps.Clone(m.seenUnschedulable)}
}

// step pops the next pod and attempts it, first running whatever is due
// and, if nothing is poppable, jumping to the next due event (see
// Engine.step).
func (m *simulation) step(limit time.Time, strict bool, stopBeforeAttempt bool) (*record.Attempt, framework.QueuedEntity, error) {
	e := m.e
	for jumps := 0; ; jumps++ {
		e.settle()
		if e.q.Poppable() {
			break
		}
		if strict && m.quiescent() {
			return nil, nil, errQuiescent
		}
		t, ok := e.nextDue()
		if !ok || (!limit.IsZero() && t.After(limit)) || jumps >= maxIdleJumps {
			return nil, nil, errQuiescent
		}
		e.now = t
	}
	popped := e.pop()
	if stopBeforeAttempt {
		return nil, popped, nil
	}
	var a *record.Attempt
	switch en := popped.(type) {
	case *framework.QueuedPodGroupInfo:
		a = e.attemptGroup(en)
	case *framework.QueuedPodInfo:
		a = e.attempt(en)
	}
	if d := e.opts.AttemptDuration; d > 0 {
		end := e.now.Add(d)
		for {
			t, ok := e.nextDue()
			if !ok || t.After(end) {
				break
			}
			e.now = t
			e.settle()
		}
		e.now = end
	}
	return a, nil, nil
}

// quiescent: nothing is poppable, no timer (victim termination,
// preemption API calls, scheduled change, the poll of a binding that
// waits, unless the wait repeats one that ran out: see repeatingWait) is
// pending, and every pod left in the unschedulable pool or the error
// backoff heap was last attempted (or, if gated, last evaluated by
// PreEnqueue) with the cluster exactly as it is now. Scheduling is a
// deterministic function of the cluster, the pod and its nomination, so
// a retry would fail again and the flushes would repeat forever. Pods
// gated by SchedulingGates are settled whatever changed: only an update
// of the pod itself can ungate them.
func (m *simulation) quiescent() bool {
	e := m.e
	// Without SchedulerPopFromBackoffQ a pod backing off is not poppable,
	// but its flush is still to come.
	if e.q.Poppable() || e.q.BackoffHeapLen() > 0 {
		return false
	}
	for _, t := range e.timers {
		if !e.repeatingWait(t) {
			return false
		}
	}
	settled := true
	check := func(pi *framework.QueuedPodInfo) {
		if !settled {
			return
		}
		// A gated pod waits for an event its gating plugin registered
		// (a scheduling gate removed, a claim created): the periodic
		// flush gates it again and changes nothing.
		if pi.Gated() {
			return
		}
		if g, ok := e.lastGen[pi.Pod.UID]; !ok || g != e.gen {
			settled = false
		}
	}
	e.q.ForEachUnschedulable(check)
	e.q.ForEachErrorBackoff(check)
	return settled
}

func (*simulation) arriving(change.Change)                             {}
func (*simulation) pendingAdded(*v1.Pod, bool)                         {}
func (*simulation) claimUpdated(_, _ *v1.PersistentVolumeClaim) func() { return nil }

// podDeleted: no controller runs in a simulation, so the engine plays the
// resourceclaim controller's release of the pod's claims
// (claim_release.go).
func (m *simulation) podDeleted(old *v1.Pod) { m.e.releaseClaims(old) }

// podUpdated observes a decision of the cluster's scheduler in the
// update (observe.go), then applies it as the event handlers do, unless
// it is the cluster catching up with a binding of schedtui's.
func (m *simulation) podUpdated(c change.Change, old *v1.Pod) {
	e := m.e
	if m.observeUpdate(old, c.Pod) {
		return
	}
	e.bump()
	e.clusterEvent(c, "")
	e.updatePod(old, c.Pod)
}

func (m *simulation) forget(uid types.UID) { delete(m.seenUnschedulable, uid) }
func (*simulation) forgetBefore(int)       {}

func (*simulation) revisable() (int, bool)   { return 0, false }
func (*simulation) rewrites(int) (int, bool) { return math.MaxInt, false }
func (*simulation) dropsEmitted() bool       { return false }
func (*simulation) bindRefused() error       { return nil }

func (m *simulation) fork(i int) (*scheduler.Scheduler, *v1.Pod, error) {
	f, pi, err := m.e.forkAt(i)
	if err != nil {
		return nil, nil, err
	}
	// The fork is handed out on its own: detach the engine's hooks.
	s := f.sched
	s.SetPreemptionActuator(nil)
	s.SetBindObserver(nil)
	s.SetCacheErrorReporter(nil)
	s.Nominator().SetResolver(nil)
	detachBinder(s)
	return s, pi.Pod, nil
}

func (m *simulation) popped(i int) (*Engine, *framework.QueuedPodInfo, error) { return m.e.forkAt(i) }
