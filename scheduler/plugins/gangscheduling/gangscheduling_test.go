package gangscheduling

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func member(name, group string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	if group != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

func group(name string, minCount int32) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	if minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	}
	return pg
}

func newPlugin(t *testing.T, objs ...any) (*GangScheduling, *frameworktest.Handle) {
	t.Helper()
	h := frameworktest.NewHandle(nil, nil, objs...)
	h.GroupStates = map[string]*framework.PodGroupState{}
	p, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*GangScheduling), h
}

func TestPreEnqueue(t *testing.T) {
	pl, h := newPlugin(t, group("gang", 3), group("basic", 0))
	h.GroupStates["ns/gang"] = &framework.PodGroupState{Unscheduled: []*v1.Pod{member("a", "gang"), member("b", "gang")}}
	for _, tc := range []struct {
		pod  *v1.Pod
		code framework.Code
		msg  string
	}{
		{member("solo", ""), framework.Success, ""},
		{member("m", "missing"), framework.UnschedulableAndUnresolvable, `waiting for pods's pod group "missing" to appear in scheduling queue`},
		{member("a", "gang"), framework.UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue"},
		{member("x", "basic"), framework.Success, ""},
	} {
		st := pl.PreEnqueue(context.Background(), tc.pod)
		if st.Code() != tc.code || st.Message() != tc.msg {
			t.Errorf("%s: %v %q, want %v %q", tc.pod.Name, st.Code(), st.Message(), tc.code, tc.msg)
		}
	}
	h.GroupStates["ns/gang"].Assigned = []*v1.Pod{member("c", "gang")}
	if st := pl.PreEnqueue(context.Background(), member("a", "gang")); !st.IsSuccess() {
		t.Errorf("gang at minCount: %v", st)
	}
}

func TestPlacementFeasible(t *testing.T) {
	pl, _ := newPlugin(t)
	g := &framework.PodGroupInfo{Namespace: "ns", Name: "gang", PodGroup: group("gang", 8)}
	for _, tc := range []struct {
		progress framework.PlacementProgress
		code     framework.Code
		msg      string
	}{
		{framework.PlacementProgress{Remaining: 3, Scheduled: 4}, framework.Unschedulable, "minCount (8) cannot be satisfied: 4 scheduled, 3 remaining"},
		{framework.PlacementProgress{Remaining: 4, Scheduled: 4}, framework.Wait, "minCount (8) is not yet satisfied: 4 scheduled, 4 remaining"},
		{framework.PlacementProgress{Remaining: 0, Scheduled: 8}, framework.Success, ""},
	} {
		st := pl.PlacementFeasible(context.Background(), nil, g, tc.progress)
		if st.Code() != tc.code || st.Message() != tc.msg {
			t.Errorf("%+v: %v %q, want %v %q", tc.progress, st.Code(), st.Message(), tc.code, tc.msg)
		}
	}
	basic := &framework.PodGroupInfo{Namespace: "ns", Name: "b", PodGroup: group("b", 0)}
	if st := pl.PlacementFeasible(context.Background(), nil, basic, framework.PlacementProgress{Remaining: 0, Scheduled: 1}); !st.IsSuccess() {
		t.Errorf("basic group with one scheduled: %v", st)
	}
}

func TestPermitWaitsForQuorum(t *testing.T) {
	pl, h := newPlugin(t, group("gang", 2))
	h.GroupStates["ns/gang"] = &framework.PodGroupState{Assumed: []*v1.Pod{member("a", "gang")}, Unscheduled: []*v1.Pod{member("b", "gang")}}
	if st, d := pl.Permit(context.Background(), nil, member("a", "gang"), "n1"); !st.IsWait() || d != permitTimeoutDuration || st.Message() != "waiting for minCount pods from a gang to be scheduled" {
		t.Errorf("below quorum: %v %v", st, d)
	}
	h.GroupStates["ns/gang"].Assumed = append(h.GroupStates["ns/gang"].Assumed, member("b", "gang"))
	if st, _ := pl.Permit(context.Background(), nil, member("b", "gang"), "n1"); !st.IsSuccess() {
		t.Errorf("at quorum: %v", st)
	}
}

func TestQueueingHints(t *testing.T) {
	pl, _ := newPlugin(t)
	waiting := member("a", "gang")
	if h, _ := pl.isSchedulableAfterPodAdded(waiting, nil, member("b", "gang")); h != framework.Queue {
		t.Error("a member added: skipped")
	}
	if h, _ := pl.isSchedulableAfterPodAdded(waiting, nil, member("c", "other")); h != framework.QueueSkip {
		t.Error("another group's pod added: queued")
	}
	if h, _ := pl.isSchedulableAfterPodGroupAdded(waiting, nil, group("gang", 2)); h != framework.Queue {
		t.Error("its PodGroup added: skipped")
	}
	if h, _ := pl.isSchedulableAfterPodGroupUpdated(waiting, group("gang", 3), group("gang", 2)); h != framework.Queue {
		t.Error("minCount lowered: skipped")
	}
	if h, _ := pl.isSchedulableAfterPodGroupUpdated(waiting, group("gang", 2), group("gang", 3)); h != framework.QueueSkip {
		t.Error("minCount raised: queued")
	}
}

// TestHierarchy: with CompositePodGroup, a PodGroup below a
// CompositePodGroup is held at PreEnqueue until its root's tree meets its
// quorum (minGroupCount children with minCount pods each), or, with a
// parent not observed, as upstream's hierarchy snapshot fails; Permit
// waits for the tree's pods scheduled; PlacementFeasible counts children;
// a CompositePodGroup added requeues the pods of its hierarchy only.
func TestHierarchy(t *testing.T) {
	job := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns"}}
	job.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}
	a, b, orphan := group("a", 1), group("b", 2), group("orphan", 1)
	parent, missing := "job", "gone"
	a.Spec.ParentCompositePodGroupName, b.Spec.ParentCompositePodGroupName, orphan.Spec.ParentCompositePodGroupName = &parent, &parent, &missing
	pl, h := newPlugin(t, job, a, b, orphan, group("flat", 1))
	h.Gates.EnableGenericWorkload, h.Gates.EnableTopologyAwareWorkloadScheduling, h.Gates.EnableCompositePodGroup = true, true, true
	h.GroupStates["ns/a"] = &framework.PodGroupState{Unscheduled: []*v1.Pod{member("a0", "a")}}
	h.GroupStates["ns/b"] = &framework.PodGroupState{Unscheduled: []*v1.Pod{member("b0", "b")}}
	const quorum = `waiting for composite pod group "job" tree to meet quorum`
	if st := pl.PreEnqueue(context.Background(), member("a0", "a")); st.Code() != framework.UnschedulableAndUnresolvable || st.Message() != quorum {
		t.Errorf("a0 with b short of its minCount: %v %q", st.Code(), st.Message())
	}
	if st := pl.PreEnqueue(context.Background(), member("o0", "orphan")); st.Message() != "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/ns/gone" {
		t.Errorf("a member below a CompositePodGroup not observed: %q", st.Message())
	}
	h.GroupStates["ns/b"].Unscheduled = append(h.GroupStates["ns/b"].Unscheduled, member("b1", "b"))
	if st := pl.PreEnqueue(context.Background(), member("a0", "a")); !st.IsSuccess() {
		t.Errorf("a0 with the tree ready: %v", st)
	}
	h.GroupStates["ns/a"] = &framework.PodGroupState{Assumed: []*v1.Pod{member("a0", "a")}}
	if st, _ := pl.Permit(context.Background(), nil, member("a0", "a"), "n1"); st.Code() != framework.Wait || st.Message() != quorum {
		t.Errorf("Permit with b unscheduled: %v %q", st.Code(), st.Message())
	}
	h.GroupStates["ns/b"] = &framework.PodGroupState{Assumed: []*v1.Pod{member("b0", "b"), member("b1", "b")}}
	if st, _ := pl.Permit(context.Background(), nil, member("a0", "a"), "n1"); !st.IsSuccess() {
		t.Errorf("Permit with the tree scheduled: %v", st)
	}
	root := framework.NewCompositePodGroupInfo(job)
	if st := pl.PlacementFeasible(context.Background(), nil, root, framework.PlacementProgress{Scheduled: 1, Remaining: 0}); st.Message() != "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining" {
		t.Errorf("PlacementFeasible of the root: %q", st.Message())
	}
	for _, tc := range []struct {
		pod  *v1.Pod
		want framework.QueueingHint
	}{
		{member("a0", "a"), framework.Queue},
		{member("f0", "flat"), framework.QueueSkip},
	} {
		if hint, err := pl.isSchedulableAfterCompositePodGroupAdded(tc.pod, nil, job); err != nil || hint != tc.want {
			t.Errorf("%s after job added: %v %v", tc.pod.Name, hint, err)
		}
	}
}
