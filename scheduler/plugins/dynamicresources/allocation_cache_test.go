package dynamicresources

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// referenceAllocate is upstream's way: one allocator over every slice and
// every device any claim takes, asked for the node.
func referenceAllocate(pl *DynamicResources, node *v1.Node, claims []*resourcev1.ResourceClaim) ([]resourcev1.AllocationResult, error) {
	objs := pl.h.Objects()
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, c := range append(objs.ResourceClaims(), pl.inFlightClaims()...) {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			st.AllocatedDevices.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
		}
	}
	all := objs.ResourceSlices()
	if rules := objs.DeviceTaintRules(); len(rules) > 0 {
		for i, s := range all {
			all[i] = applyTaintRules(s, rules)
		}
	}
	a, err := structured.NewAllocator(context.Background(), AllocatorFeatures(pl.fts), st, classLister{objs}, all, cel.NewCache(10, cel.Features{}))
	if err != nil {
		return nil, err
	}
	return a.Allocate(context.Background(), node, claims)
}

// TestAllocationCacheMatchesAllocator drives the plugin through random
// allocations, deallocations, slice and node changes on a cluster with
// node-local pools, a pool spread over two nodes, an incomplete pool, a
// pool for all nodes and one for a node selector, and checks every
// Filter's allocation (fresh or kept) against upstream's allocator over
// everything.
func TestAllocationCacheMatchesAllocator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	nodes := []*v1.Node{}
	for i := range 6 {
		n := node(fmt.Sprintf("n%d", i))
		n.Labels = map[string]string{"zone": []string{"a", "b"}[i%2]}
		nodes = append(nodes, n)
	}
	mk := func(name, pool string, count int64, devices int, set func(*resourcev1.ResourceSliceSpec)) *resourcev1.ResourceSlice {
		s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}}
		s.Spec = resourcev1.ResourceSliceSpec{Driver: driver, Pool: resourcev1.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: count}}
		for i := range devices {
			m := []string{"a100", "l4"}[i%2]
			s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("%s-d%d", name, i),
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: &m}}})
		}
		set(&s.Spec)
		return s
	}
	onNode := func(n string) func(*resourcev1.ResourceSliceSpec) {
		return func(s *resourcev1.ResourceSliceSpec) { s.NodeName = &n }
	}
	objs := []any{class("gpu", ""), class("a100", `device.attributes["gpu.example.com"].model == "a100"`)}
	for i := range 4 {
		objs = append(objs, mk(fmt.Sprintf("local-%d", i), fmt.Sprintf("local-%d", i), 1, 2, onNode(fmt.Sprintf("n%d", i))))
	}
	objs = append(objs,
		mk("spread-0", "spread", 2, 1, onNode("n4")), mk("spread-1", "spread", 2, 1, onNode("n5")),
		mk("partial-0", "partial", 2, 2, onNode("n5")),
		mk("everywhere", "everywhere", 1, 2, func(s *resourcev1.ResourceSliceSpec) { s.AllNodes = new(bool); *s.AllNodes = true }),
		mk("zone-a", "zone-a", 1, 2, func(s *resourcev1.ResourceSliceSpec) {
			s.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
		}))
	pl, h := newPlugin(t, nodes, objs...)
	ctx := context.Background()
	var allocated []*resourcev1.ResourceClaim
	checks := 0
	for step := range 120 {
		switch r := rng.IntN(10); {
		case r == 0 && len(allocated) > 0:
			i := rng.IntN(len(allocated))
			c := allocated[i].DeepCopy()
			c.Status.Allocation = nil
			h.Store.Add(c)
			allocated = append(allocated[:i], allocated[i+1:]...)
		case r == 1:
			n := nodes[rng.IntN(len(nodes))].DeepCopy()
			n.Labels["zone"] = []string{"a", "b"}[rng.IntN(2)]
			for i := range nodes {
				if nodes[i].Name == n.Name {
					nodes[i] = n
				}
			}
		case r == 2:
			// A slice is republished (a new object, same devices).
			s := h.Store.ResourceSlices()[rng.IntN(len(h.Store.ResourceSlices()))].DeepCopy()
			h.Store.Add(s)
		}
		c := claim(fmt.Sprintf("c%d", step), []string{"gpu", "a100"}[rng.IntN(2)], int64(1+rng.IntN(2)))
		if rng.IntN(8) == 0 {
			c.Spec.Devices.Requests[0].Exactly.AllocationMode = resourcev1.DeviceAllocationModeAll
			c.Spec.Devices.Requests[0].Exactly.Count = 0
		}
		h.Store.Add(c)
		p := pod(fmt.Sprintf("p%d", step), c.Name)
		var fits []string
		for range 2 {
			cs := framework.NewCycleState()
			if _, s := pl.PreFilter(ctx, cs, p, nil); !s.IsSuccess() {
				t.Fatalf("step %d: PreFilter = %v", step, s)
			}
			st, _ := getStateData(cs)
			fits = fits[:0]
			for _, n := range nodes {
				s := pl.Filter(ctx, cs, p, nodeInfo(n))
				want, err := referenceAllocate(pl, n, []*resourcev1.ResourceClaim{c})
				got := st.nodeAllocations[n.Name]
				checks++
				switch {
				case err != nil:
					if s.IsSuccess() {
						t.Fatalf("step %d node %s: Filter succeeded, allocator says %v", step, n.Name, err)
					}
				case len(want) == 0:
					if s.IsSuccess() {
						t.Fatalf("step %d node %s: Filter succeeded with %v, allocator found nothing", step, n.Name, got)
					}
				case !s.IsSuccess():
					t.Fatalf("step %d node %s: Filter = %v, allocator gives %v", step, n.Name, s, want)
				case !reflect.DeepEqual(got, want):
					t.Fatalf("step %d node %s: Filter allocated %v, allocator %v", step, n.Name, got, want)
				default:
					fits = append(fits, n.Name)
				}
			}
		}
		if len(fits) == 0 {
			continue
		}
		cs := framework.NewCycleState()
		pl.PreFilter(ctx, cs, p, nil)
		node := fits[rng.IntN(len(fits))]
		for _, n := range nodes {
			if n.Name == node {
				pl.Filter(ctx, cs, p, nodeInfo(n))
			}
		}
		if s := pl.Reserve(ctx, cs, p, node); !s.IsSuccess() {
			t.Fatalf("step %d: Reserve = %v", step, s)
		}
		switch rng.IntN(4) {
		case 0:
			// Left in flight: the next pods see its devices taken.
			continue
		case 1:
			pl.Unreserve(ctx, cs, p, node)
			continue
		}
		if s := pl.PreBind(ctx, cs, p, node); !s.IsSuccess() {
			t.Fatalf("step %d: PreBind = %v", step, s)
		}
		for _, w := range pl.TakeClaimWrites(cs) {
			h.Store.Add(w)
			allocated = append(allocated, w)
		}
	}
	if checks < 1000 || pl.cache.answers == 0 {
		t.Fatalf("%d checks, %d answers kept: the test exercised too little", checks, pl.cache.answers)
	}
}
