package dynamicresources

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

const driver = "gpu.example.com"

func node(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func class(name, expr string) *resourcev1.DeviceClass {
	c := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if expr != "" {
		c.Spec.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}
	}
	return c
}

func slice(node string, models ...string) *resourcev1.ResourceSlice {
	n := node
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"}}
	s.Spec = resourcev1.ResourceSliceSpec{Driver: driver, NodeName: &n, Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}}
	for i, m := range models {
		m := m
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{
			Name:       "gpu-" + string(rune('0'+i)),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: &m}},
		})
	}
	return s
}

func claim(name, class string, count int64) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	c.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}}}
	return c
}

func pod(name string, claims ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	for _, c := range claims {
		c := c
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: c, ResourceClaimName: &c})
	}
	return p
}

func newPlugin(t *testing.T, nodes []*v1.Node, objs ...any) (*DynamicResources, *frameworktest.Handle) {
	t.Helper()
	h := frameworktest.NewHandle(nodes, nil, objs...)
	p, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*DynamicResources), h
}

func nodeInfo(n *v1.Node) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return ni
}

func TestNewArgs(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil)
	if _, err := New(&configv1.DynamicResourcesArgs{}, h); err != nil {
		t.Errorf("New(DynamicResourcesArgs): %v", err)
	}
	if _, err := New(&configv1.NodeAffinityArgs{}, h); err == nil || !strings.Contains(err.Error(), "want *DynamicResourcesArgs") {
		t.Errorf("wrong args: err = %v", err)
	}
}

func TestPodWithoutClaimsSkips(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	cs := framework.NewCycleState()
	if _, s := pl.PreFilter(context.Background(), cs, pod("p"), nil); !s.IsSkip() {
		t.Fatalf("PreFilter = %v, want Skip", s)
	}
	if r, s := pl.PostFilter(context.Background(), cs, pod("p"), nil); r != nil || s.Code() != framework.Unschedulable || s.Message() != "" {
		t.Errorf("PostFilter = %v, %v", r, s)
	}
}

// PostFilter without PreFilter's state is upstream's "not found" Error.
func TestPostFilterWithoutState(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	_, s := pl.PostFilter(context.Background(), framework.NewCycleState(), pod("p", "c"), nil)
	if !s.IsError() || s.Message() != "not found" {
		t.Errorf("PostFilter = %v, want Error %q", s, "not found")
	}
}

func TestPreEnqueueGatesMissingClaims(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	s := pl.PreEnqueue(context.Background(), pod("p", "c"))
	if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != `could not find ResourceClaim "default/c"` {
		t.Errorf("missing claim: %v", s)
	}
	tmpl := "t"
	p := pod("p")
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmpl}}
	if s := pl.PreEnqueue(context.Background(), p); s.Message() != `pod "default/p": ResourceClaim not created yet` {
		t.Errorf("template claim not generated: %v", s)
	}
}

func TestPreFilterMissingClass(t *testing.T) {
	pl, _ := newPlugin(t, nil, claim("c", "tpu", 1))
	_, s := pl.PreFilter(context.Background(), framework.NewCycleState(), pod("p", "c"), nil)
	if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "request gpu: device class tpu does not exist" {
		t.Errorf("PreFilter = %v", s)
	}
}

// Filter allocates with the real allocator: the CEL selector of the class
// picks the model, the count must fit, and an allocated device is taken.
func TestFilterAllocates(t *testing.T) {
	a, b := node("a"), node("b")
	taken := claim("taken", "gpu", 1)
	taken.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: driver, Pool: "b", Device: "gpu-0"}}}}
	pl, _ := newPlugin(t, []*v1.Node{a, b},
		class("gpu", `device.driver == "gpu.example.com"`),
		class("a100", `device.attributes["gpu.example.com"].model == "a100"`),
		slice("a", "a100", "l4"), slice("b", "a100"), taken, claim("c", "a100", 1), claim("two", "a100", 2))
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	if _, s := pl.PreFilter(ctx, cs, p, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter = %v", s)
	}
	if s := pl.Filter(ctx, cs, p, nodeInfo(a)); !s.IsSuccess() {
		t.Errorf("Filter(a) = %v", s)
	}
	if s := pl.Filter(ctx, cs, p, nodeInfo(b)); s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "cannot allocate all claims" {
		t.Errorf("Filter(b), device taken = %v", s)
	}
	cs2 := framework.NewCycleState()
	p2 := pod("p2", "two")
	pl.PreFilter(ctx, cs2, p2, nil)
	if s := pl.Filter(ctx, cs2, p2, nodeInfo(a)); s.Message() != "cannot allocate all claims" {
		t.Errorf("Filter(a), two a100 on a node with one = %v", s)
	}
}

// An allocated claim is usable only where its node selector matches, and
// PostFilter then deallocates it when no other pod reserved it.
func TestAllocatedClaimElsewhereAndDeallocation(t *testing.T) {
	a, b := node("a"), node("b")
	c := claim("c", "gpu", 1)
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: driver, Pool: "b", Device: "gpu-0"}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"b"}}}}}},
	}
	pl, _ := newPlugin(t, []*v1.Node{a, b}, class("gpu", ""), slice("b", "a100"), c)
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	if _, s := pl.PreFilter(ctx, cs, p, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter = %v", s)
	}
	if s := pl.Filter(ctx, cs, p, nodeInfo(b)); !s.IsSuccess() {
		t.Errorf("Filter(b) = %v", s)
	}
	if s := pl.Filter(ctx, cs, p, nodeInfo(a)); s.Message() != "resourceclaim not available on the node" {
		t.Errorf("Filter(a) = %v", s)
	}
	_, s := pl.PostFilter(ctx, cs, p, nil)
	if s.Code() != framework.Unschedulable || s.Message() != "deallocation of ResourceClaim completed" {
		t.Fatalf("PostFilter = %v", s)
	}
	w := pl.TakeClaimWrites(cs)
	if len(w) != 1 || w[0].Status.Allocation != nil {
		t.Errorf("writes = %v, want the claim deallocated", w)
	}
	if len(pl.TakeClaimWrites(cs)) != 0 {
		t.Error("writes taken twice")
	}
}

// Reserve holds the allocation in flight (another pod sharing the claim
// waits), PreBind writes allocation and reservation and ends the flight.
func TestReservePreBind(t *testing.T) {
	a := node("a")
	pl, h := newPlugin(t, []*v1.Node{a}, class("gpu", ""), slice("a", "a100"), claim("c", "gpu", 1))
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	pl.PreFilter(ctx, cs, p, nil)
	if s := pl.Filter(ctx, cs, p, nodeInfo(a)); !s.IsSuccess() {
		t.Fatalf("Filter = %v", s)
	}
	if s := pl.Reserve(ctx, cs, p, "a"); !s.IsSuccess() {
		t.Fatalf("Reserve = %v", s)
	}
	_, s := pl.PreFilter(ctx, framework.NewCycleState(), pod("q", "c"), nil)
	if s.Message() != "resource claim default/c is in the process of being allocated" {
		t.Errorf("sharer's PreFilter while in flight = %v", s)
	}
	if s := pl.PreBind(ctx, cs, p, "a"); !s.IsSuccess() {
		t.Fatalf("PreBind = %v", s)
	}
	w := pl.TakeClaimWrites(cs)
	if len(w) != 1 || w[0].Status.Allocation == nil || len(w[0].Status.ReservedFor) != 1 || w[0].Status.ReservedFor[0].UID != p.UID ||
		w[0].Status.Allocation.Devices.Results[0].Device != "gpu-0" || len(w[0].Finalizers) != 1 {
		t.Fatalf("PreBind writes = %+v", w)
	}
	if pl.pendingAllocation("uid-c") != nil {
		t.Error("still in flight after PreBind")
	}
	h.Store.Add(w[0])
	cs2 := framework.NewCycleState()
	q := pod("q", "c")
	if _, s := pl.PreFilter(ctx, cs2, q, nil); !s.IsSuccess() {
		t.Fatalf("sharer's PreFilter after PreBind = %v", s)
	}
	if s := pl.Filter(ctx, cs2, q, nodeInfo(a)); !s.IsSuccess() {
		t.Errorf("sharer's Filter = %v", s)
	}
}

func TestUnreserveEndsFlight(t *testing.T) {
	a := node("a")
	pl, _ := newPlugin(t, []*v1.Node{a}, class("gpu", ""), slice("a", "a100"), claim("c", "gpu", 1))
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	pl.PreFilter(ctx, cs, p, nil)
	pl.Filter(ctx, cs, p, nodeInfo(a))
	pl.Reserve(ctx, cs, p, "a")
	pl.Unreserve(ctx, cs, p, "a")
	if pl.pendingAllocation("uid-c") != nil {
		t.Error("still in flight after Unreserve")
	}
}

// Score prefers nodes where a prioritized list got an earlier choice.
func TestScorePrioritizedList(t *testing.T) {
	a, b := node("a"), node("b")
	c := claim("c", "", 0)
	c.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
		{Name: "big", DeviceClassName: "a100", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		{Name: "small", DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
	}}}
	pl, _ := newPlugin(t, []*v1.Node{a, b}, class("gpu", ""), class("a100", `device.attributes["gpu.example.com"].model == "a100"`),
		slice("a", "a100"), slice("b", "l4"), c)
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	pl.PreFilter(ctx, cs, p, nil)
	pl.Filter(ctx, cs, p, nodeInfo(a))
	pl.Filter(ctx, cs, p, nodeInfo(b))
	sa, _ := pl.Score(ctx, cs, p, nodeInfo(a))
	sb, _ := pl.Score(ctx, cs, p, nodeInfo(b))
	if sa != 8 || sb != 7 {
		t.Errorf("scores a=%d b=%d, want 8 and 7", sa, sb)
	}
}

// A DeviceTaintRule's taint makes the device unusable without a toleration;
// with DRADeviceTaintRules off the rules are not read and the device is
// allocated.
func TestDeviceTaintRule(t *testing.T) {
	a := node("a")
	d := "gpu-0"
	rule := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"}}
	rule.Spec.DeviceSelector = &resourcev1.DeviceTaintSelector{Device: &d}
	rule.Spec.Taint = resourcev1.DeviceTaint{Key: "broken", Effect: resourcev1.DeviceTaintEffectNoSchedule}
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle([]*v1.Node{a}, nil, class("gpu", ""), slice("a", "a100"), claim("c", "gpu", 1), rule)
		h.Gates.EnableDRADeviceTaintRules = on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*DynamicResources)
		ctx := context.Background()
		cs := framework.NewCycleState()
		pod := pod("p", "c")
		pl.PreFilter(ctx, cs, pod, nil)
		s := pl.Filter(ctx, cs, pod, nodeInfo(a))
		if on && s.Message() != "cannot allocate all claims" || !on && !s.IsSuccess() {
			t.Errorf("DRADeviceTaintRules=%v: Filter with a tainted device = %v", on, s)
		}
	}
}

// A pod listing the same claim twice: the second write conflicts with the
// first, as on the API server, and PreBind fails.
func TestPreBindSameClaimTwice(t *testing.T) {
	a := node("a")
	pl, _ := newPlugin(t, []*v1.Node{a}, class("gpu", ""), slice("a", "a100", "l4"), claim("c", "gpu", 1))
	ctx := context.Background()
	cs := framework.NewCycleState()
	p := pod("p", "c")
	n := "c"
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: "again", ResourceClaimName: &n})
	pl.PreFilter(ctx, cs, p, nil)
	if s := pl.Filter(ctx, cs, p, nodeInfo(a)); !s.IsSuccess() {
		t.Fatalf("Filter = %v", s)
	}
	pl.Reserve(ctx, cs, p, "a")
	if s := pl.PreBind(ctx, cs, p, "a"); !s.IsError() || s.Message() != "claim default/c got allocated elsewhere in the meantime" {
		t.Errorf("PreBind = %v", s)
	}
}

// With InPlacePodVerticalScalingSchedulerPreemption, a pod whose resize is
// deferred is skipped; without it, its missing class rejects it.
func TestResizeDeferredSkips(t *testing.T) {
	p := pod("p", "c")
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}}
	for _, gate := range []bool{false, true} {
		h := frameworktest.NewHandle(nil, nil, claim("c", "tpu", 1))
		h.Gates.EnableInPlacePodVerticalScalingSchedulerPreemption = gate
		pl, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		_, s := pl.(*DynamicResources).PreFilter(context.Background(), framework.NewCycleState(), p, nil)
		if gate != s.IsSkip() {
			t.Errorf("gate %v: PreFilter = %v", gate, s)
		}
	}
}

// An allocated claim whose device reports a binding failure is unusable on
// every node, and PostFilter deallocates it; a device still waiting, or a
// failure behind a device without status (upstream stops at that one),
// leaves it usable; without the gates nothing is checked.
func TestBindingFailureMakesClaimUnavailable(t *testing.T) {
	a := node("a")
	result := func(dev string) resourcev1.DeviceRequestAllocationResult {
		return resourcev1.DeviceRequestAllocationResult{Request: "gpu", Driver: driver, Pool: "a", Device: dev,
			BindingConditions: []string{"attached"}, BindingFailureConditions: []string{"failed"}}
	}
	status := func(dev string, failed metav1.ConditionStatus) resourcev1.AllocatedDeviceStatus {
		return resourcev1.AllocatedDeviceStatus{Driver: driver, Pool: "a", Device: dev, Conditions: []metav1.Condition{
			{Type: "failed", Status: failed, Reason: "NoFabric", Message: "fabric down"}, {Type: "attached", Status: metav1.ConditionFalse}}}
	}
	for _, tc := range []struct {
		name        string
		results     []resourcev1.DeviceRequestAllocationResult
		devices     []resourcev1.AllocatedDeviceStatus
		gatesOff    bool
		unavailable bool
	}{
		{"failed", []resourcev1.DeviceRequestAllocationResult{result("gpu-0")}, []resourcev1.AllocatedDeviceStatus{status("gpu-0", metav1.ConditionTrue)}, false, true},
		{"waiting", []resourcev1.DeviceRequestAllocationResult{result("gpu-0")}, []resourcev1.AllocatedDeviceStatus{status("gpu-0", metav1.ConditionFalse)}, false, false},
		{"no status", []resourcev1.DeviceRequestAllocationResult{result("gpu-0")}, nil, false, false},
		{"failure behind a device without status", []resourcev1.DeviceRequestAllocationResult{result("gpu-0"), result("gpu-1")},
			[]resourcev1.AllocatedDeviceStatus{status("gpu-1", metav1.ConditionTrue)}, false, false},
		{"failure behind a ready device", []resourcev1.DeviceRequestAllocationResult{result("gpu-0"), result("gpu-1")},
			[]resourcev1.AllocatedDeviceStatus{{Driver: driver, Pool: "a", Device: "gpu-0", Conditions: []metav1.Condition{{Type: "attached", Status: metav1.ConditionTrue}}},
				status("gpu-1", metav1.ConditionTrue)}, false, true},
		{"gates off", []resourcev1.DeviceRequestAllocationResult{result("gpu-0")}, []resourcev1.AllocatedDeviceStatus{status("gpu-0", metav1.ConditionTrue)}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := claim("c", "gpu", 1)
			c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: tc.results}}
			c.Status.Devices = tc.devices
			h := frameworktest.NewHandle([]*v1.Node{a}, nil, class("gpu", ""), slice("a", "a100", "a100"), c)
			if tc.gatesOff {
				h.Gates.EnableDRADeviceBindingConditions = false
			}
			pl, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			cs := framework.NewCycleState()
			p := pod("p", "c")
			if _, s := pl.(*DynamicResources).PreFilter(ctx, cs, p, nil); !s.IsSuccess() {
				t.Fatalf("PreFilter = %v", s)
			}
			s := pl.(*DynamicResources).Filter(ctx, cs, p, nodeInfo(a))
			if !tc.unavailable {
				if !s.IsSuccess() {
					t.Errorf("Filter = %v, want success", s)
				}
				return
			}
			if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "resourceclaim not available on the node" {
				t.Errorf("Filter = %v", s)
			}
			if _, s := pl.(*DynamicResources).PostFilter(ctx, cs, p, nil); s.Message() != "deallocation of ResourceClaim completed" {
				t.Errorf("PostFilter = %v", s)
			}
			w := pl.(*DynamicResources).TakeClaimWrites(cs)
			if len(w) != 1 || w[0].Status.Allocation != nil || w[0].Status.Devices != nil {
				t.Errorf("writes = %v, want the claim deallocated", w)
			}
		})
	}
}
