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
}

func (s *Scheduler) park(w *waitingBinding) {
	if s.waiting == nil {
		s.waiting = map[types.UID]*waitingBinding{}
	}
	s.waiting[w.pod.UID] = w
}

// BindingWait is how the wait of pod's parked binding cycle goes: a poll
// every interval from PreBind on, for timeout at most; ok is false when
// none is parked.
func (s *Scheduler) BindingWait(uid types.UID) (interval, timeout time.Duration, ok bool) {
	w := s.waiting[uid]
	if w == nil {
		return 0, 0, false
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
