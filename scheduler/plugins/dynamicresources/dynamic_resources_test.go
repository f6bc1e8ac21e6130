package dynamicresources

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func claimPod() *v1.Pod {
	name := "my-claim"
	return &v1.Pod{Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}}}
}

func nodeInfo() *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{})
	return ni
}

func TestNew(t *testing.T) {
	if _, err := New(nil, nil); err != nil {
		t.Errorf("New(nil): %v", err)
	}
	if _, err := New(&configv1.DynamicResourcesArgs{}, nil); err != nil {
		t.Errorf("New(DynamicResourcesArgs): %v", err)
	}
	if _, err := New(&configv1.NodeAffinityArgs{}, nil); err == nil || !strings.Contains(err.Error(), "want *DynamicResourcesArgs") {
		t.Errorf("wrong args: err = %v", err)
	}
}

func TestPodWithoutClaims(t *testing.T) {
	ctx := context.Background()
	p, _ := New(nil, nil)
	pl := p.(*DynamicResources)
	pod := &v1.Pod{}
	if s := pl.PreEnqueue(ctx, pod); s != nil {
		t.Errorf("PreEnqueue = %v", s)
	}
	cs := framework.NewCycleState()
	if r, s := pl.PreFilter(ctx, cs, pod, nil); r != nil || !s.IsSkip() {
		t.Fatalf("PreFilter = (%v, %v), want (nil, Skip)", r, s)
	}
	if s := pl.Filter(ctx, cs, pod, nodeInfo()); s != nil {
		t.Errorf("Filter = %v", s)
	}
	if score, s := pl.Score(ctx, cs, pod, nodeInfo()); score != 0 || s != nil {
		t.Errorf("Score = (%d, %v)", score, s)
	}
	scores := framework.NodeScoreList{{Name: "a"}, {Name: "b"}}
	if s := pl.ScoreExtensions().NormalizeScore(ctx, cs, pod, scores); s != nil || scores[0].Score != 0 || scores[1].Score != 0 {
		t.Errorf("NormalizeScore = %v, %v", s, scores)
	}
	r, s := pl.PostFilter(ctx, cs, pod, framework.NewDefaultNodeToStatus())
	if r != nil || s.Code() != framework.Unschedulable || s.Message() != "" {
		t.Errorf("PostFilter = (%v, %v %q), want (nil, Unschedulable \"\")", r, s.Code(), s.Message())
	}
	if s := pl.Reserve(ctx, cs, pod, "n"); s != nil {
		t.Errorf("Reserve = %v", s)
	}
	pl.Unreserve(ctx, cs, pod, "n")
	if s := pl.PreBindPreFlight(ctx, cs, pod, "n"); !s.IsSkip() {
		t.Errorf("PreBindPreFlight = %v, want Skip", s)
	}
	if s := pl.PreBind(ctx, cs, pod, "n"); s != nil {
		t.Errorf("PreBind = %v", s)
	}
}

func TestPodWithClaims(t *testing.T) {
	ctx := context.Background()
	pl := &DynamicResources{}
	pod := claimPod()
	if s := pl.PreEnqueue(ctx, pod); s != nil {
		t.Errorf("PreEnqueue = %v, want nil (rejection happens at PreFilter)", s)
	}
	cs := framework.NewCycleState()
	r, s := pl.PreFilter(ctx, cs, pod, nil)
	if r != nil || s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != NotSimulatedReason {
		t.Fatalf("PreFilter = (%v, %v %q)", r, s.Code(), s.Message())
	}
	if s.Message() != "schedtui: DynamicResources (resource claims) is not simulated" {
		t.Errorf("reason changed: %q", s.Message())
	}
	if s := pl.Filter(ctx, cs, pod, nodeInfo()); s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != NotSimulatedReason {
		t.Errorf("Filter = %v", s)
	}
	r2, s := pl.PostFilter(ctx, cs, pod, framework.NewDefaultNodeToStatus())
	if r2 != nil || s.Code() != framework.Unschedulable || s.Message() != "" {
		t.Errorf("PostFilter = (%v, %v %q)", r2, s.Code(), s.Message())
	}
}

// Without PreFilter state (an earlier PreFilter plugin rejected the pod),
// every later extension point reports the read error, as upstream.
func TestMissingState(t *testing.T) {
	ctx := context.Background()
	pl := &DynamicResources{}
	cs := framework.NewCycleState()
	pod := &v1.Pod{}
	check := func(what string, s *framework.Status) {
		t.Helper()
		if s.Code() != framework.Error || s.Message() != "not found" {
			t.Errorf("%s = (%v, %q), want (Error, \"not found\")", what, s.Code(), s.Message())
		}
	}
	_, s := pl.PostFilter(ctx, cs, pod, framework.NewDefaultNodeToStatus())
	check("PostFilter", s)
	check("Filter", pl.Filter(ctx, cs, pod, nodeInfo()))
	_, s = pl.Score(ctx, cs, pod, nodeInfo())
	check("Score", s)
	check("Reserve", pl.Reserve(ctx, cs, pod, "n"))
	check("PreBindPreFlight", pl.PreBindPreFlight(ctx, cs, pod, "n"))
	check("PreBind", pl.PreBind(ctx, cs, pod, "n"))
}

func TestEventsToRegister(t *testing.T) {
	events, _ := (&DynamicResources{}).EventsToRegister(context.Background())
	want := []struct {
		ev      framework.ClusterEvent
		hasHint bool
	}{
		{framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}, false},
		{framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, true},
		{framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodGeneratedResourceClaim}, true},
		{framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}, false},
		{framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add | framework.Update}, false},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i, w := range want {
		if events[i].Event != w.ev || (events[i].QueueingHintFn != nil) != w.hasHint {
			t.Errorf("event %d = %+v (hint %v), want %+v (hint %v)", i, events[i].Event, events[i].QueueingHintFn != nil, w.ev, w.hasHint)
		}
	}
}

func TestHints(t *testing.T) {
	pl := &DynamicResources{}
	if h, err := pl.isSchedulableAfterClaimChange(&v1.Pod{}, nil, nil); h != framework.Queue || err != nil {
		t.Errorf("claim change = (%v, %v)", h, err)
	}
	if h, err := pl.isSchedulableAfterTargetPodUpdate(&v1.Pod{}, &v1.Pod{}, claimPod()); h != framework.QueueSkip || err != nil {
		t.Errorf("pod with claims = (%v, %v), want QueueSkip", h, err)
	}
	if h, err := pl.isSchedulableAfterTargetPodUpdate(&v1.Pod{}, &v1.Pod{}, &v1.Pod{}); h != framework.Queue || err != nil {
		t.Errorf("pod without claims = (%v, %v), want Queue", h, err)
	}
	if h, err := pl.isSchedulableAfterTargetPodUpdate(&v1.Pod{}, nil, "x"); h != framework.Queue || err == nil {
		t.Errorf("wrong type = (%v, %v), want Queue with error", h, err)
	}
}
