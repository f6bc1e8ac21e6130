package gangscheduling

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
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
