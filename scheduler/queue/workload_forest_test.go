package queue_test

import (
	"testing"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/queue"
)

func compositeEnv(t *testing.T) *env {
	t.Helper()
	f := features.Default()
	f.EnableGenericWorkload, f.EnableTopologyAwareWorkloadScheduling, f.EnableCompositePodGroup = true, true, true
	return newEnvWithGates(t, f)
}

func compositeGang(name string, minGroupCount int32) *schedulingv1alpha3.CompositePodGroup {
	return &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}}}}
}

// observeComposite is the CompositePodGroup add handler: cache, queue,
// event.
func (e *env) observeComposite(cpg *schedulingv1alpha3.CompositePodGroup) {
	e.sched.Objects().Add(cpg)
	e.q.AddCompositePodGroup(cpg)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventCompositePodGroupAdd, nil, cpg, nil)
}

// A hierarchy is one queue entry, its root's: its members wait until the
// root is observed, then at PreEnqueue until minGroupCount children have
// their pods; popped whole; back where they waited when the root goes.
func TestCompositePodGroupQueuedAsItsRoot(t *testing.T) {
	e := compositeEnv(t)
	a, b := gang("a", 1), gang("b", 1)
	parent := "job"
	a.Spec.ParentCompositePodGroupName, b.Spec.ParentCompositePodGroupName = &parent, &parent
	e.observe(a)
	e.observe(b)
	a0, b0 := member("a0", "a"), member("b0", "b")
	e.addMember(a0)
	if w := e.q.WaitingForPodGroup(); len(w) != 1 || w[0].Pod.Name != "a0" || e.where(a0) != queue.NotQueued {
		t.Fatalf("a0 before its root is observed: %s, waiting %v", e.where(a0), w)
	}
	job := compositeGang("job", 2)
	e.observeComposite(job)
	if got := e.where(a0); got != queue.Gated {
		t.Fatalf("a0 with one child of two ready: %s", got)
	}
	if m := e.lastMove(a0); m.GatingMessage != `waiting for composite pod group "job" tree to meet quorum` {
		t.Errorf("a0's move: %+v", m)
	}
	e.addMember(b0)
	if e.where(a0) != queue.Active || e.where(b0) != queue.Active {
		t.Fatalf("both children ready: a0 %s, b0 %s", e.where(a0), e.where(b0))
	}
	g := e.popGroup()
	if !g.Composite || g.Key() != "default/job" || len(g.Members) != 2 || len(g.Children) != 2 ||
		len(g.LeafMembers(g.Children[0])) != 1 || len(g.Children[0].UnscheduledPods) != 1 {
		t.Fatalf("popped: composite %v %s, %d members, %d children", g.Composite, g.Key(), len(g.Members), len(g.Children))
	}
	e.rejectGroup(g)
	if e.where(a0) != queue.Backoff || e.where(b0) != queue.Backoff {
		t.Fatalf("after a rejection: a0 %s, b0 %s", e.where(a0), e.where(b0))
	}
	e.sched.Objects().Delete(job)
	e.q.DeleteCompositePodGroup(job)
	if e.where(a0) != queue.NotQueued || e.where(b0) != queue.NotQueued {
		t.Errorf("root deleted: a0 %s, b0 %s", e.where(a0), e.where(b0))
	}
	if n := len(e.q.WaitingForPodGroup()); n != 2 {
		t.Errorf("%d members wait for their groups, want 2", n)
	}
}
