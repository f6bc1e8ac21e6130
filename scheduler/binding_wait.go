package scheduler

import (
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Parked binding cycles. Upstream's binding cycle runs in a goroutine, and
// a PreBind plugin may block it (DynamicResources waiting for a device's
// binding conditions) while later pods are scheduled; the pod stays
// assumed in the cache all that time. schedtui runs the binding cycle at
// once, so such a PreBind returns Wait (framework.PreBindWaiterPlugin)
// and the cycle is parked here, the pod assumed on its node (its
// resources and its claims' allocation counted), its attempt Waiting.
// Whoever drives time (the engine: scheduler/engine/binding_wait.go) polls it
// at upstream's poll instants with PollBinding, which ends the cycle as
// the wait ends: bound, or failed as handleBindingCycleError does.
//
// A binding cycle also waits before PreBind, in WaitOnPermit, when a
// Permit plugin said Wait: a gang's member (GangScheduling) until a later
// member's Permit finds the gang's quorum and allows it, or until the
// plugin's timeout rejects it. Such a cycle is parked the same way; the
// member that allows it hands it to the engine (TakeReleasedBindings),
// which polls it at once; the timeout is the wait's only poll.

// waitingBinding is a parked binding cycle.
type waitingBinding struct {
	fwk     *runtime.Framework
	state   *framework.CycleState
	pod     *v1.Pod // as popped
	assumed *v1.Pod
	host    string
	rec     *recorder
	// plugin is the PreBind plugin that waits; skip the plugins the
	// preflights skipped.
	plugin string
	skip   sets.Set[string]
	// permit, while the cycle waits at Permit, holds the plugins it waits
	// on and their timeouts; allowed says the gang's quorum let it go on.
	permit  map[string]time.Duration
	allowed bool
}

func (s *Scheduler) park(w *waitingBinding) {
	if s.waiting == nil {
		s.waiting = map[types.UID]*waitingBinding{}
	}
	s.waiting[w.pod.UID] = w
}

// parkAtPermit parks a binding cycle that waits at Permit (st, the
// waiting status) and records its attempt a as Waiting on its host.
func (s *Scheduler) parkAtPermit(w *waitingBinding, st *framework.Status, a *record.Attempt) {
	s.park(w)
	a.Outcome = record.Waiting
	a.Message = st.Message()
	a.Node = w.host
	a.Chosen = s.nodeList.Index(w.host)
}

// allowPermitWaits is GangScheduling's Permit finding its quorum: every
// pod waiting at Permit that inGang says belongs to the gang is allowed,
// and handed to the engine.
func (s *Scheduler) allowPermitWaits(inGang func(pod *v1.Pod) bool) {
	for _, uid := range s.WaitingBindings() {
		if w := s.waiting[uid]; w.permit != nil && !w.allowed && inGang(w.pod) {
			w.allowed = true
			s.released = append(s.released, uid)
		}
	}
}

// WaitsAtPermit says whether pod's parked binding cycle waits at Permit
// (not yet allowed, or allowed and not yet polled).
func (s *Scheduler) WaitsAtPermit(uid types.UID) bool {
	w := s.waiting[uid]
	return w != nil && w.permit != nil
}

// TakeReleasedBindings returns the parked binding cycles a Permit allowed
// since the last call, by UID, in the order allowed: each goes on when
// polled (PollBinding).
func (s *Scheduler) TakeReleasedBindings() []types.UID {
	out := s.released
	s.released = nil
	return out
}

// permitTimeout is the wait at Permit's end: the first of its plugins'
// timeouts (by name among equal ones), which rejects the pod.
func (w *waitingBinding) permitTimeout() (plugin string, timeout time.Duration) {
	for name, t := range w.permit {
		if plugin == "" || t < timeout || t == timeout && name < plugin {
			plugin, timeout = name, t
		}
	}
	return plugin, timeout
}

// BindingWait is how the wait of pod's parked binding cycle goes: a poll
// every interval from PreBind on, for timeout at most (at Permit: no
// poll, the timeout); ok is false when none is parked.
func (s *Scheduler) BindingWait(uid types.UID) (interval, timeout time.Duration, ok bool) {
	w := s.waiting[uid]
	if w == nil {
		return 0, 0, false
	}
	if w.permit != nil {
		_, timeout = w.permitTimeout()
		return 0, timeout, true
	}
	waiter, ok := w.fwk.Plugin(w.plugin).(framework.PreBindWaiterPlugin)
	if !ok {
		return 0, 0, false
	}
	interval, timeout = waiter.BindingWait()
	return interval, timeout, true
}

// WaitingBindings lists the pods whose binding cycle is parked, by UID.
func (s *Scheduler) WaitingBindings() []types.UID {
	out := make([]types.UID, 0, len(s.waiting))
	for uid := range s.waiting {
		out = append(out, uid)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// PollBinding polls the wait of pod's parked binding cycle (expired: its
// timeout has passed). While it still waits, done is false. Otherwise the
// cycle is over and its attempt (the one that parked it) updated: on
// success the remaining PreBind plugins, Bind and PostBind ran and the
// pod is bound (Scheduled); on failure it was unreserved and forgotten
// and the failure handled as ScheduleOne's (Error, the nomination
// cleared). ok is false when no binding cycle of pod is parked.
func (s *Scheduler) PollBinding(uid types.UID, expired bool) (a *record.Attempt, done, ok bool) {
	w := s.waiting[uid]
	if w == nil {
		return nil, false, false
	}
	if w.permit != nil {
		return s.pollPermit(uid, w, expired)
	}
	waiter, isWaiter := w.fwk.Plugin(w.plugin).(framework.PreBindWaiterPlugin)
	if !isWaiter {
		return nil, false, false
	}
	ctx := s.ctx()
	finished, st := waiter.PollBindingWait(ctx, w.state, w.assumed, expired)
	if !finished {
		return w.rec.a, false, true
	}
	delete(s.waiting, uid)
	st = w.fwk.RunPreBindPluginsAfter(ctx, w.state, w.assumed, w.host, w.skip, w.plugin, st)
	s.storeClaimWrites(w.fwk, w.state)
	cur, present := s.pendingPod(w.pod)
	a = w.rec.a
	if st.IsSuccess() && !present {
		// Deleted (or recreated) while its binding waited: the binding
		// API call finds no such pod.
		w.rec.phase(record.PhasePreBind, nil)
		st = framework.AsStatus(fmt.Errorf("pods %q not found", w.pod.Name))
		w.rec.phase(record.PhaseBind, st)
		s.unreserveAndForget(ctx, w.fwk, w.state, w.assumed, w.host)
	} else {
		st = s.finishBinding(ctx, w.fwk, w.state, w.assumed, w.host, w.rec, st)
	}
	switch {
	case present:
		s.endBindingCycle(cur, w.host, st, a)
	default:
		// No pod left to requeue or to change the nomination of.
		a.Outcome, a.Message = record.Error, st.Message()
	}
	s.takeExtenderCalls(a)
	return a, true, true
}

// pendingPod is the stored version of a pending pod; present is false
// when it is gone or was recreated.
func (s *Scheduler) pendingPod(pod *v1.Pod) (cur *v1.Pod, present bool) {
	if cur, err := s.objects.Pod(pod.Namespace, pod.Name); err == nil && cur.UID == pod.UID && cur.Spec.NodeName == "" {
		return cur, true
	}
	return pod, false
}

// pollPermit is PollBinding for a cycle waiting at Permit: allowed, it goes
// on from PreBind (and may park there in turn: not done); at its timeout
// it is rejected as upstream's waiting pod is, in its words, unreserved
// and forgotten, and the failure handled as a rejected group member's. A
// pod deleted meanwhile is rejected as upstream rejects a waiting pod on
// its deletion ("removed"), with nobody left to requeue.
func (s *Scheduler) pollPermit(uid types.UID, w *waitingBinding, expired bool) (a *record.Attempt, done, ok bool) {
	a = w.rec.a
	cur, present := s.pendingPod(w.pod)
	if present && !w.allowed && !expired {
		return a, false, true
	}
	ctx := s.ctx()
	if present && w.allowed {
		w.permit, w.allowed = nil, false
		w.rec.phase(record.PhasePermit, nil)
		st, skip := s.bindingCycle(ctx, w.fwk, w.state, w.assumed, w.host, w.rec)
		defer s.takeExtenderCalls(a)
		if st.IsWait() {
			w.plugin, w.skip = st.Plugin(), skip
			a.Message = st.Message()
			return a, false, true
		}
		delete(s.waiting, uid)
		s.endBindingCycle(cur, w.host, st, a)
		return a, true, true
	}
	delete(s.waiting, uid)
	var st *framework.Status
	if present {
		plugin, timeout := w.permitTimeout()
		st = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", timeout, plugin)).WithPlugin(plugin)
	} else {
		st = framework.NewStatus(framework.Unschedulable, "removed")
	}
	s.unreserveAndForget(ctx, w.fwk, w.state, w.assumed, w.host)
	a.Node, a.Chosen = "", -1
	if !present {
		a.Outcome, a.Message = record.Unschedulable, st.Message()
		return a, true, true
	}
	s.podGroupMemberFailed(&memberResult{pod: cur}, st, clearNominatedNode, a)
	return a, true, true
}
