package dynamicresources

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// groupFixture is a pod group "train" of members on nodes a and b, the
// claim "c" allocated on b (so node a cannot use it), a PodGroup claim
// "shared" allocated and reserved for the group.
type groupFixture struct {
	pl       *DynamicResources
	h        *frameworktest.Handle
	nodes    []*v1.Node
	podGroup *schedulingv1beta1.PodGroup
	// groupState is the pod-group cycle's state.
	groupState *framework.CycleState
}

func allocatedOn(c *resourcev1.ResourceClaim, node string) *resourcev1.ResourceClaim {
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: driver, Pool: node, Device: "gpu-0"}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}},
	}
	return c
}

func newGroupFixture(t *testing.T, gates func(*features.Features), objs ...any) *groupFixture {
	t.Helper()
	f := &groupFixture{nodes: []*v1.Node{node("a"), node("b")}}
	f.podGroup = &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "train", UID: "uid-train"}}
	f.podGroup.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}
	objs = append(objs, class("gpu", ""), slice("b", "a100"), f.podGroup)
	f.h = frameworktest.NewHandle(f.nodes, nil, objs...)
	f.h.Gates.EnableDRAWorkloadResourceClaims = true
	if gates != nil {
		gates(&f.h.Gates)
	}
	p, err := New(nil, f.h)
	if err != nil {
		t.Fatal(err)
	}
	f.pl = p.(*DynamicResources)
	f.groupState = framework.NewCycleState()
	return f
}

func member(name string, claims ...string) *v1.Pod {
	p := pod(name, claims...)
	group := "train"
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	return p
}

// tryOn runs a member's PreFilter in the group cycle and Filter on the
// node, as the pod-group algorithm would.
func (f *groupFixture) tryOn(t *testing.T, p *v1.Pod, n *v1.Node) {
	t.Helper()
	cs := framework.NewCycleState()
	cs.SetPodGroupCycle(f.groupState)
	ctx := context.Background()
	if _, s := f.pl.PreFilter(ctx, cs, p, nil); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreFilter(%s) = %v", p.Name, s)
	}
	if s := f.pl.Filter(ctx, cs, p, nodeInfo(n)); !s.IsSuccess() && !s.IsRejected() {
		t.Fatalf("Filter(%s, %s) = %v", p.Name, n.Name, s)
	}
}

func (f *groupFixture) postFilter(members ...*v1.Pod) *framework.Status {
	g := &framework.PodGroupInfo{Namespace: "default", Name: "train", PodGroup: f.podGroup, UnscheduledPods: members}
	_, s := f.pl.PodGroupPostFilter(context.Background(), f.groupState, g, nil)
	return s
}

// A member's claim no node but b can use is deallocated, as PostFilter
// would for the pod, and the group's answer is upstream's message.
func TestPodGroupPostFilterDeallocatesMemberClaim(t *testing.T) {
	f := newGroupFixture(t, nil, allocatedOn(claim("c", "gpu", 1), "b"))
	p := member("w-0", "c")
	f.tryOn(t, p, f.nodes[0])
	s := f.postFilter(p)
	if s.Code() != framework.Unschedulable || s.Message() != "deallocation and deletion of ResourceClaims completed" {
		t.Fatalf("PodGroupPostFilter = %v", s)
	}
	w := f.pl.TakeClaimWrites(f.groupState)
	if len(w) != 1 || w[0].Name != "c" || w[0].Status.Allocation != nil {
		t.Errorf("writes = %v, want c deallocated", w)
	}
}

// Members without claims: the plugin still answers (its reason joins
// DefaultPreemption's), with nothing written.
func TestPodGroupPostFilterMembersWithoutClaims(t *testing.T) {
	f := newGroupFixture(t, nil)
	p0, p1 := member("w-0"), member("w-1")
	f.tryOn(t, p0, f.nodes[0])
	f.tryOn(t, p1, f.nodes[0])
	s := f.postFilter(p0, p1)
	if s.Code() != framework.Unschedulable || s.Message() != "deallocation and deletion of ResourceClaims completed" {
		t.Fatalf("PodGroupPostFilter = %v", s)
	}
	if w := f.pl.TakeClaimWrites(f.groupState); len(w) != 0 {
		t.Errorf("writes = %v, want none", w)
	}
}

// A member with nothing to deallocate releases the PodGroup's own claim
// reserved for the group (DRAWorkloadResourceClaims): UnschedulableAndUnresolvable.
func TestPodGroupPostFilterUnreservesGroupClaim(t *testing.T) {
	shared := allocatedOn(claim("shared", "gpu", 1), "b")
	shared.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "train", UID: "uid-train"}}
	sharedName := "shared"
	f := newGroupFixture(t, nil, shared)
	f.podGroup.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: "gpu", ResourceClaimName: &sharedName}}
	p := member("w-0")
	f.tryOn(t, p, f.nodes[0])
	s := f.postFilter(p)
	if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "ResourceClaim unreserved for PodGroup" {
		t.Fatalf("PodGroupPostFilter = %v", s)
	}
	w := f.pl.TakeClaimWrites(f.groupState)
	if len(w) != 1 || w[0].Name != "shared" || len(w[0].Status.ReservedFor) != 0 || w[0].Status.Allocation == nil {
		t.Errorf("writes = %v, want shared unreserved, still allocated", w)
	}

	// With the gate off, the group's claims are left alone.
	f = newGroupFixture(t, func(g *features.Features) { g.EnableDRAWorkloadResourceClaims = false }, shared)
	f.podGroup.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: "gpu", ResourceClaimName: &sharedName}}
	f.tryOn(t, p, f.nodes[0])
	if s := f.postFilter(p); s.Code() != framework.Unschedulable || s.Message() != "deallocation and deletion of ResourceClaims completed" {
		t.Errorf("gate off: PodGroupPostFilter = %v", s)
	}
}

// One member's claim deallocated, another member with nothing to give:
// the group's pass over the members' claims finds the first one again,
// and upstream's update from PreFilter's copy conflicts.
func TestPodGroupPostFilterStaleClaimConflicts(t *testing.T) {
	f := newGroupFixture(t, nil, allocatedOn(claim("c", "gpu", 1), "b"))
	p0, p1 := member("w-0", "c"), member("w-1")
	f.tryOn(t, p0, f.nodes[0])
	f.tryOn(t, p1, f.nodes[0])
	s := f.postFilter(p0, p1)
	want := `Operation cannot be fulfilled on resourceclaims.resource.k8s.io "c": the object has been modified; please apply your changes to the latest version and try again`
	if !s.IsError() || s.Message() != want {
		t.Fatalf("PodGroupPostFilter = %v, want Error %q", s, want)
	}
}

// A group with a topology constraint (TopologyAwareWorkloadScheduling) is
// not this plugin's, nor a group none of whose members reached PreFilter
// (upstream's read error).
func TestPodGroupPostFilterSkips(t *testing.T) {
	f := newGroupFixture(t, func(g *features.Features) { g.EnableTopologyAwareWorkloadScheduling = true })
	f.podGroup.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "zone"}}}
	if s := f.postFilter(member("w-0")); s.Code() != framework.Unschedulable || s.Message() != "" {
		t.Errorf("topology constraint: PodGroupPostFilter = %v", s)
	}
	f = newGroupFixture(t, nil)
	if s := f.postFilter(member("w-0")); !s.IsError() || s.Message() != "not found" {
		t.Errorf("no PreFilter: PodGroupPostFilter = %v, want Error %q", s, "not found")
	}
}

// Outside a pod-group cycle PreFilter keeps nothing for a group.
func TestPreFilterOutsidePodGroupCycle(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	cs := framework.NewCycleState()
	pl.PreFilter(context.Background(), cs, member("w-0"), nil)
	if cs.PodGroupCycle() != nil {
		t.Fatal("a pod's cycle state points to a pod-group cycle")
	}
	if _, err := podGroupState(cs); err == nil {
		t.Error("PreFilter wrote a pod group's state into a pod's cycle state")
	}
}

// After a failed pod-group cycle, PodGroupPostFilter deallocates each
// member's unavailable claim reserved for nobody, as PostFilter does for a
// pod, and leaves upstream's reason; the writes come off the group's state.
func TestPodGroupPostFilterDeallocatesMembersClaims(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)}}
	}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ns"},
		Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{}}}
	w0, w1 := pod("w0"), pod("w1")
	root := framework.NewCycleState()
	for _, p := range []*v1.Pod{w0, w1} {
		cs := framework.NewCycleState()
		cs.SetPodGroupCycle(root)
		s := &stateData{ext: extendedState{index: -1}, unavailable: map[int]bool{}}
		if p == w0 {
			s.claims, s.unavailable[0] = []*resourcev1.ResourceClaim{claim}, true
		}
		joinPodGroupState(cs, p, s)
	}
	group := &framework.PodGroupInfo{Namespace: "ns", Name: "job", PodGroup: &schedulingv1beta1.PodGroup{}, UnscheduledPods: []*v1.Pod{w0, w1}}
	_, st := pl.PodGroupPostFilter(context.Background(), root, group, nil)
	if st.Code() != framework.Unschedulable || st.Message() != "deallocation and deletion of ResourceClaims completed" {
		t.Errorf("status %v %q", st.Code(), st.Message())
	}
	writes := pl.TakeClaimWrites(root)
	if len(writes) != 1 || writes[0].Name != "gpu" || writes[0].Status.Allocation != nil {
		t.Fatalf("writes: %+v", writes)
	}
	// No member state (no PreFilter ran): upstream's read error.
	if _, st := pl.PodGroupPostFilter(context.Background(), framework.NewCycleState(), group, nil); !st.IsError() {
		t.Errorf("without the group's state: %v", st)
	}
}
