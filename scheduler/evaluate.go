package scheduler

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Evaluation says how far an attempt without effects (Evaluate) goes.
type Evaluation uint8

const (
	// Prediction runs the scheduling algorithm only: PreFilter, Filter
	// with nominated pods, Score and host selection. A pod that fits
	// nowhere ends Unschedulable with the FitError's message, without
	// PostFilter. The attempt is numbered as the next one but not
	// counted, and draws nothing from the random source: a simulation
	// that puts its prediction next to a binding of the cluster's own
	// scheduler (engine/observe.go) goes on making the attempts it
	// would have made without it.
	Prediction Evaluation = iota
	// Judgement is the scheduling cycle's whole algorithm: Prediction's
	// part, then, when no node fits, the PostFilter plugins (preemption)
	// evaluated but not actuated. The attempt records the candidates,
	// the victims and the nomination preemption would make, and its
	// Message is the FitError message with PostFilter's part, as the
	// pod's PodScheduled condition carries it. The attempt is counted
	// (the attempt counter advances) and may draw from the random source
	// (preemption's candidate offset), as an attempt does. Shadow mode
	// judges the cluster's decisions with it (engine/shadow_judge.go).
	Judgement
)

// Evaluate makes an attempt for pod on the current state with no
// effects, as far as how says: no victim is marked or deleted, no
// nomination changes, no pod is assumed, reserved or bound, and the
// rotating start index is left as it was. ScheduleOne is the attempt with
// its effects. The attempt's Outcome is Scheduled (Node set),
// Unschedulable, Error, or Skipped for a pod no profile schedules.
func (s *Scheduler) Evaluate(pod *v1.Pod, how Evaluation) (a *record.Attempt) {
	start, seq := s.nextStartNodeIndex, s.seq
	defer func() {
		s.nextStartNodeIndex = start
		if how == Prediction {
			s.seq = seq
		}
	}()
	defer func() { s.takeExtenderCalls(a) }()
	s.seq++
	state := framework.NewCycleState()
	a, fwk, rec, err := s.algorithm(pod, s.seq, state)
	if a.Outcome == record.Skipped || err == nil {
		return a
	}
	if how == Prediction {
		var fitErr *framework.FitError
		switch {
		case errors.As(err, &fitErr), errors.Is(err, framework.ErrNoNodesAvailable):
			a.Outcome, a.Message = record.Unschedulable, err.Error()
		default:
			a.Outcome, a.Message = record.Error, err.Error()
		}
		return a
	}
	// actuatePreemption hands the decision to the hook: a no-op here.
	saved := s.hooks.preempt
	s.hooks.preempt = func(Preemptor, *record.Preemption) {}
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

// algorithm runs the scheduling algorithm (schedulePod) for pod as
// attempt seq; a Scheduled attempt has its node, a failed one err. A pod
// without a profile is Skipped, with the message upstream's
// frameworkForPod gives (as ScheduleOne's).
func (s *Scheduler) algorithm(pod *v1.Pod, seq int, state *framework.CycleState) (*record.Attempt, *runtime.Framework, *recorder, error) {
	a := s.newAttempt(pod, seq)
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		a.Outcome = record.Skipped
		a.Message = profileNotFound(pod)
		return a, nil, nil, nil
	}
	rec := &recorder{a: a, index: map[string]uint16{}}
	host, err := s.schedulePod(s.ctx(), fwk, state, pod, rec)
	if err == nil {
		a.Outcome, a.Node, a.Chosen = record.Scheduled, host, s.nodeList.Index(host)
	}
	return a, fwk, rec, err
}

// profileNotFound is upstream's error for a pod whose scheduler name no
// profile has.
func profileNotFound(pod *v1.Pod) string {
	return fmt.Sprintf("profile not found for scheduler name %q", pod.Spec.SchedulerName)
}
