package engine

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// victimWith is a bound pod of generation 3 with the given conditions.
func victimWith(conds ...v1.PodCondition) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "victim", Generation: 3}}
	p.Spec.NodeName = "node-1"
	p.Status.Conditions = conds
	return p
}

func conditionOf(t *testing.T, p *v1.Pod, ct v1.PodConditionType) v1.PodCondition {
	t.Helper()
	for _, c := range p.Status.Conditions {
		if c.Type == ct {
			return c
		}
	}
	t.Fatalf("%s has no %s condition: %+v", p.Name, ct, p.Status.Conditions)
	return v1.PodCondition{}
}

// The DisruptionTarget condition as the preemption executor writes it:
// podutil.UpdatePodCondition after CalculatePodConditionObservedGeneration.
func TestWithDisruptionTarget(t *testing.T) {
	const msg = "default-scheduler: preempting to accommodate a higher priority pod"
	now := time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Minute))
	target := func(status v1.ConditionStatus, message string, gen int64) v1.PodCondition {
		return v1.PodCondition{Type: v1.DisruptionTarget, Status: status, Reason: v1.PodReasonPreemptionByScheduler,
			Message: message, ObservedGeneration: gen, LastTransitionTime: earlier}
	}
	ready := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, ObservedGeneration: 2, LastTransitionTime: earlier}
	for _, tc := range []struct {
		name      string
		pod       *v1.Pod
		tracking  bool
		unchanged bool // no patch: the pod itself comes back
		wantGen   int64
		wantLTT   time.Time
	}{
		{name: "new, gate on", pod: victimWith(ready), tracking: true, wantGen: 3, wantLTT: now},
		{name: "new, gate off", pod: victimWith(ready), wantGen: 0, wantLTT: now},
		{name: "gate off, the condition already tracks", pod: victimWith(target(v1.ConditionTrue, "older", 1)), wantGen: 3, wantLTT: earlier.Time},
		{name: "same status, new message: the transition time stays", pod: victimWith(target(v1.ConditionTrue, "older", 1)), tracking: true, wantGen: 3, wantLTT: earlier.Time},
		{name: "status flips: a new transition", pod: victimWith(target(v1.ConditionFalse, msg, 1)), tracking: true, wantGen: 3, wantLTT: now},
		{name: "already says so: only observedGeneration differs", pod: victimWith(target(v1.ConditionTrue, msg, 1)), tracking: true, unchanged: true, wantGen: 1, wantLTT: earlier.Time},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			got := withDisruptionTarget(tc.pod, msg, now, tc.tracking)
			if (got == tc.pod) != tc.unchanged {
				t.Fatalf("pod returned unchanged = %t, want %t", got == tc.pod, tc.unchanged)
			}
			if !apiequality.Semantic.DeepEqual(tc.pod, before) {
				t.Fatalf("the input pod was modified: %+v", tc.pod.Status.Conditions)
			}
			c := conditionOf(t, got, v1.DisruptionTarget)
			if c.Status != v1.ConditionTrue && !tc.unchanged {
				t.Errorf("status %s, want True", c.Status)
			}
			if c.ObservedGeneration != tc.wantGen {
				t.Errorf("observedGeneration %d, want %d", c.ObservedGeneration, tc.wantGen)
			}
			if !c.LastTransitionTime.Time.Equal(tc.wantLTT) {
				t.Errorf("lastTransitionTime %s, want %s", c.LastTransitionTime.Time, tc.wantLTT)
			}
			if !tc.unchanged && c.Message != msg {
				t.Errorf("message %q, want %q", c.Message, msg)
			}
		})
	}
}

// The failure handler's PodScheduled=False patch (updatePod): sent when
// the condition changes or the nomination is patched; observedGeneration
// alone does not send it, but rides along with a nomination.
func TestWithScheduledCondition(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Minute))
	failed := v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
		Message: "0/1 nodes are available", ObservedGeneration: 1, LastTransitionTime: earlier}
	pod := victimWith(failed)
	pod.Spec.NodeName = ""

	if got := withScheduledCondition(pod, failed.Reason, failed.Message, now, true, false); got != pod {
		t.Errorf("same condition, no nomination: the status patch was sent: %+v", got.Status.Conditions)
	}
	got := withScheduledCondition(pod, failed.Reason, failed.Message, now, true, true)
	if got == pod {
		t.Fatal("with a nomination patched, the condition's new observedGeneration was not written")
	}
	if c := conditionOf(t, got, v1.PodScheduled); c.ObservedGeneration != 3 || !c.LastTransitionTime.Equal(&earlier) {
		t.Errorf("got observedGeneration %d at %s, want 3 at %s", c.ObservedGeneration, c.LastTransitionTime.Time, earlier.Time)
	}
	got = withScheduledCondition(pod, failed.Reason, "0/2 nodes are available", now, true, false)
	if c := conditionOf(t, got, v1.PodScheduled); got == pod || c.Message != "0/2 nodes are available" || !c.LastTransitionTime.Equal(&earlier) || c.ObservedGeneration != 3 {
		t.Errorf("new message: got %+v, want it written with the old transition time and generation 3", c)
	}
	fresh := victimWith()
	fresh.Spec.NodeName = ""
	got = withScheduledCondition(fresh, v1.PodReasonSchedulerError, "boom", now, false, false)
	if c := conditionOf(t, got, v1.PodScheduled); c.ObservedGeneration != 0 || !c.LastTransitionTime.Time.Equal(now) || c.Reason != v1.PodReasonSchedulerError {
		t.Errorf("first failure, gate off: got %+v", c)
	}
}
