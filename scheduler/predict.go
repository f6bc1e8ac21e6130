package scheduler

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Predict runs the scheduling algorithm for pod against the current state
// (PreFilter, Filter with nominated pods, Score, host selection) and
// changes nothing: no PostFilter, no Reserve, no binding, and the
// rotating start index and attempt counter are left as they were. It is
// what schedtui puts next to a binding the cluster's own scheduler made.
// The attempt's Outcome is Scheduled (Node set), Unschedulable or Error.
func (s *Scheduler) Predict(pod *v1.Pod) (a *record.Attempt) {
	start, seq := s.nextStartNodeIndex, s.seq
	defer func() { s.nextStartNodeIndex, s.seq = start, seq }()
	defer func() { s.takeExtenderCalls(a) }()
	a, _, _, err := s.algorithm(pod, s.seq+1, framework.NewCycleState())
	if a.Outcome == record.Skipped || err == nil {
		return a
	}
	var fitErr *framework.FitError
	switch {
	case errors.As(err, &fitErr), errors.Is(err, framework.ErrNoNodesAvailable):
		a.Outcome, a.Message = record.Unschedulable, err.Error()
	default:
		a.Outcome, a.Message = record.Error, err.Error()
	}
	return a
}

// algorithm runs the scheduling algorithm (schedulePod) for pod as
// attempt seq; a Scheduled attempt has its node, a failed one err. A pod
// without a profile is Skipped.
func (s *Scheduler) algorithm(pod *v1.Pod, seq int, state *framework.CycleState) (*record.Attempt, *runtime.Framework, *recorder, error) {
	a := s.newAttempt(pod, seq)
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		a.Outcome = record.Skipped
		a.Message = "profile not found for scheduler name " + pod.Spec.SchedulerName
		return a, nil, nil, nil
	}
	rec := &recorder{a: a, index: map[string]uint16{}}
	host, err := s.schedulePod(s.ctx(), fwk, state, pod, rec)
	if err == nil {
		a.Outcome, a.Node, a.Chosen = record.Scheduled, host, s.nodeList.Index(host)
	}
	return a, fwk, rec, err
}

// Evaluate is the scheduling cycle's algorithm for pod on the current
// state, with nothing carried out: PreFilter, Filter with nominated pods,
// Score and host selection as Predict, then, when no node fits, the
// PostFilter plugins (preemption) evaluated but not actuated. The attempt
// records the candidates, the victims and the nomination preemption would
// make, and its Message is the FitError message with PostFilter's part, as
// the pod's PodScheduled condition carries it. No victim is marked or
// deleted, no nomination changes, no pod is assumed or bound; the rotating
// start index is left as it was. The attempt is numbered (the attempt
// counter advances) and may draw from the random source (preemption's
// candidate offset), as an attempt does. Shadow mode judges the cluster's
// decisions with it (scheduler/engine/shadow.go).
func (s *Scheduler) Evaluate(pod *v1.Pod) (a *record.Attempt) {
	start := s.nextStartNodeIndex
	defer func() { s.nextStartNodeIndex = start }()
	defer func() { s.takeExtenderCalls(a) }()
	s.seq++
	state := framework.NewCycleState()
	a, fwk, rec, err := s.algorithm(pod, s.seq, state)
	if a.Outcome == record.Skipped || err == nil {
		return a
	}
	// actuatePreemption hands the decision to the hook: a no-op here.
	saved := s.hooks.preempt
	s.hooks.preempt = func(*v1.Pod, *record.Preemption) {}
	defer func() { s.hooks.preempt = saved }()
	result, status := s.handleSchedulePodError(s.ctx(), fwk, state, pod, err, rec)
	a.Outcome = record.Error
	if status.IsRejected() {
		a.Outcome = record.Unschedulable
	}
	a.Message = status.Message()
	a.Nominated = pod.Status.NominatedNodeName
	if ni := result.nominatingInfo; ni.Mode() == framework.ModeOverride {
		a.Nominated = ni.NominatedNodeName
	}
	return a
}
