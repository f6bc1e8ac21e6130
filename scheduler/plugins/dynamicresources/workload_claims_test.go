package dynamicresources

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// memberCycle is one member's pass through PreFilter, Filter on node and
// Reserve in the fixture's group cycle; its cycle state.
func (f *groupFixture) memberCycle(t *testing.T, p *v1.Pod, n *v1.Node) *framework.CycleState {
	t.Helper()
	cs := framework.NewCycleState()
	cs.SetPodGroupCycle(f.groupState)
	ctx := context.Background()
	if _, s := f.pl.PreFilter(ctx, cs, p, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter(%s) = %v", p.Name, s)
	}
	if s := f.pl.Filter(ctx, cs, p, nodeInfo(n)); !s.IsSuccess() {
		t.Fatalf("Filter(%s, %s) = %v", p.Name, n.Name, s)
	}
	if s := f.pl.Reserve(ctx, cs, p, n.Name); !s.IsSuccess() {
		t.Fatalf("Reserve(%s) = %v", p.Name, s)
	}
	return cs
}

// Two members of one cycle name the PodGroup's claim: the second reuses
// the allocation the first one's Reserve left in flight (one device, so
// allocating again would fail), PreBind reserves the claim for the
// PodGroup, and the second member's PreBind, from its PreFilter's copy
// of the claim, finds it allocated in the meantime, as upstream's update
// does after the API server's conflict.
func TestGroupClaimSharedInCycle(t *testing.T) {
	name := "shared"
	f := newGroupFixture(t, nil, claim(name, "gpu", 1))
	f.podGroup.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: name, ResourceClaimName: &name}}
	w0, w1 := member("w-0", name), member("w-1", name)
	cs0 := f.memberCycle(t, w0, f.nodes[1])
	cs1 := f.memberCycle(t, w1, f.nodes[1])
	if got := f.pl.inFlight["uid-shared"]; got == nil || got.sharers != 2 {
		t.Fatalf("in flight: %+v, want the claim shared by 2", got)
	}

	ctx := context.Background()
	if s := f.pl.PreBind(ctx, cs0, w0, "b"); !s.IsSuccess() {
		t.Fatalf("PreBind(w-0) = %v", s)
	}
	w := f.pl.TakeClaimWrites(cs0)
	if len(w) != 1 || w[0].Status.Allocation == nil || len(w[0].Status.ReservedFor) != 1 {
		t.Fatalf("PreBind writes %v", w)
	}
	if r := w[0].Status.ReservedFor[0]; r.APIGroup != "scheduling.k8s.io" || r.Resource != "podgroups" || r.Name != "train" || r.UID != "uid-train" {
		t.Errorf("reserved for %+v, want PodGroup train", r)
	}
	if f.pl.pendingAllocation("uid-shared") != nil {
		t.Error("the written claim is still in flight")
	}
	f.h.Store.Add(w[0])
	s := f.pl.PreBind(ctx, cs1, w1, "b")
	if want := "claim default/shared got allocated elsewhere in the meantime"; !s.IsError() || s.Message() != want {
		t.Errorf("PreBind(w-1) = %v, want Error %q", s, want)
	}
}

// A member unreserved leaves the allocation in flight for the other
// sharer; the last one takes it out of flight and out of the cycle's
// pending claims.
func TestGroupClaimUnreserveKeepsSharedAllocation(t *testing.T) {
	name := "shared"
	f := newGroupFixture(t, nil, claim(name, "gpu", 1))
	w0, w1 := member("w-0", name), member("w-1", name)
	cs0 := f.memberCycle(t, w0, f.nodes[1])
	cs1 := f.memberCycle(t, w1, f.nodes[1])
	ctx := context.Background()
	f.pl.Unreserve(ctx, cs0, w0, "b")
	if f.pl.pendingAllocation("uid-shared") == nil {
		t.Fatal("unreserving one sharer took the allocation out of flight")
	}
	f.pl.Unreserve(ctx, cs1, w1, "b")
	if f.pl.pendingAllocation("uid-shared") != nil {
		t.Error("the last sharer unreserved: still in flight")
	}
	if gs := cycleGroupState(cs1); len(gs.pending) != 0 {
		t.Errorf("cycle's pending claims: %v", gs.pending)
	}
}

// Outside the group cycle a pod naming a claim in flight waits for it.
func TestClaimInFlightOutsideCycle(t *testing.T) {
	name := "shared"
	f := newGroupFixture(t, nil, claim(name, "gpu", 1))
	f.memberCycle(t, member("w-0", name), f.nodes[1])
	_, s := f.pl.PreFilter(context.Background(), framework.NewCycleState(), pod("other", name), nil)
	if want := "resource claim default/shared is in the process of being allocated"; s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != want {
		t.Errorf("PreFilter(other) = %v, want %q", s, want)
	}
}

// A claim reserved for the member's PodGroup counts as the member's with
// the gate on (PreBind leaves it); off, PreBind adds the pod.
func TestGroupReservationCountsForMember(t *testing.T) {
	name := "shared"
	c := allocatedOn(claim(name, "gpu", 1), "b")
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "train", UID: "uid-train"}}
	for _, on := range []bool{true, false} {
		f := newGroupFixture(t, func(g *features.Features) { g.EnableDRAWorkloadResourceClaims = on }, c)
		f.podGroup.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: name, ResourceClaimName: &name}}
		p := member("w-0", name)
		cs := f.memberCycle(t, p, f.nodes[1])
		if s := f.pl.PreBind(context.Background(), cs, p, "b"); !s.IsSuccess() {
			t.Fatalf("gate %v: PreBind = %v", on, s)
		}
		w := f.pl.TakeClaimWrites(cs)
		switch {
		case on && len(w) != 0:
			t.Errorf("gate on: writes %v, want none", w)
		case !on && (len(w) != 1 || len(w[0].Status.ReservedFor) != 2 || w[0].Status.ReservedFor[1].UID != p.UID):
			t.Errorf("gate off: writes %v, want the pod added", w)
		}
	}
}

// A member whose PodGroup does not exist cannot be bound to it: PreFilter
// says why (upstream's snapshot lister's error; the fixture's cache knows
// no pod of the group), with the gate on.
func TestGroupClaimBindingNeedsPodGroup(t *testing.T) {
	name := "shared"
	pl, _ := newPlugin(t, nil, claim(name, "gpu", 1), class("gpu", ""))
	pl.fts.EnableDRAWorkloadResourceClaims = true
	p := member("w-0", name)
	_, s := pl.PreFilter(context.Background(), framework.NewCycleState(), p, nil)
	if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "pod group state not found for pod group podgroup/default/train" {
		t.Errorf("PreFilter = %v", s)
	}
}

// Two members sharing the group's claim, allocated but reserved for
// nobody: the first PreBind reserves it for the PodGroup; the second,
// from its PreFilter's copy, adds the group again, which the API server
// refuses (reservedFor is a set by uid).
func TestGroupClaimReservedTwice(t *testing.T) {
	name := "shared"
	f := newGroupFixture(t, nil, allocatedOn(claim(name, "gpu", 1), "b"))
	f.podGroup.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: name, ResourceClaimName: &name}}
	w0, w1 := member("w-0", name), member("w-1", name)
	cs0 := f.memberCycle(t, w0, f.nodes[1])
	cs1 := f.memberCycle(t, w1, f.nodes[1])
	ctx := context.Background()
	if s := f.pl.PreBind(ctx, cs0, w0, "b"); !s.IsSuccess() {
		t.Fatalf("PreBind(w-0) = %v", s)
	}
	for _, w := range f.pl.TakeClaimWrites(cs0) {
		f.h.Store.Add(w)
	}
	s := f.pl.PreBind(ctx, cs1, w1, "b")
	want := `add reservation to claim default/shared: ResourceClaim.resource.k8s.io "shared" is invalid: status.reservedFor[1]: Duplicate value: "uid-train"`
	if !s.IsError() || s.Message() != want {
		t.Errorf("PreBind(w-1) = %v, want Error %q", s, want)
	}
}
