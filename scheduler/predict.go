package scheduler

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Predict runs the scheduling algorithm for pod against the current state
// (PreFilter, Filter with nominated pods, Score, host selection) and
// changes nothing: no PostFilter, no Reserve, no binding, and the
// rotating start index and attempt counter are left as they were. It is
// what schedtui puts next to a binding the cluster's own scheduler made.
// The attempt's Outcome is Scheduled (Node set), Unschedulable or Error.
func (s *Scheduler) Predict(pod *v1.Pod) *record.Attempt {
	start, seq := s.nextStartNodeIndex, s.seq
	defer func() { s.nextStartNodeIndex, s.seq = start, seq }()
	a := s.newAttempt(pod, s.seq+1)
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		a.Outcome = record.Skipped
		a.Message = "profile not found for scheduler name " + pod.Spec.SchedulerName
		return a
	}
	rec := &recorder{a: a, index: map[string]uint16{}}
	host, err := s.schedulePod(s.ctx(), fwk, framework.NewCycleState(), pod, rec)
	var fitErr *framework.FitError
	switch {
	case err == nil:
		a.Outcome, a.Node, a.Chosen = record.Scheduled, host, s.nodeList.Index(host)
	case errors.As(err, &fitErr), errors.Is(err, framework.ErrNoNodesAvailable):
		a.Outcome, a.Message = record.Unschedulable, err.Error()
	default:
		a.Outcome, a.Message = record.Error, err.Error()
	}
	return a
}
