package engine

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// The pod conditions the scheduler writes (PodScheduled=False after a
// failed attempt, DisruptionTarget on a preemption victim) follow
// upstream's podutil.UpdatePodCondition and
// CalculatePodConditionObservedGeneration (pkg/api/v1/pod/util.go), so
// that a pod's status reads as the API server would store it.

// conditionObservedGeneration is the observedGeneration the scheduler
// writes into a condition of type t on pod: the pod's generation when
// PodObservedGenerationTracking is on (GA and locked from 1.35), or when a
// condition of that type already carries one (so that turning the gate
// off does not fight the API server, which keeps old values).
func conditionObservedGeneration(pod *v1.Pod, t v1.PodConditionType, tracking bool) int64 {
	if tracking {
		return pod.Generation
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == t && c.ObservedGeneration != 0 {
			return pod.Generation
		}
	}
	return 0
}

// updatePodCondition sets cond in status at now as UpdatePodCondition
// does: appended when the type is new; otherwise it replaces the first
// condition of its type, keeping that one's lastTransitionTime when the
// status is unchanged. It reports whether the condition changed, which
// decides whether the status patch is sent; observedGeneration alone is
// not a change.
func updatePodCondition(status *v1.PodStatus, cond v1.PodCondition, now time.Time) bool {
	cond.LastTransitionTime.Time = now
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if cond.Status == old.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		same := cond.Status == old.Status && cond.Reason == old.Reason && cond.Message == old.Message &&
			cond.LastProbeTime.Equal(&old.LastProbeTime) && cond.LastTransitionTime.Equal(&old.LastTransitionTime)
		*old = cond
		return !same
	}
	status.Conditions = append(status.Conditions, cond)
	return true
}
