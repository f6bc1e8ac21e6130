package podtopologyspread

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// TestChunkedPreFilterAddsUp: on a cluster large enough to be split between
// goroutines, PreFilter's counts and critical paths are those of one
// goroutine walking every node: zones spanning the chunks, a zone whose
// nodes match nothing (a 0 that must stay a domain, the minimum), and nodes
// left out (no zone label, an untolerated taint under nodeTaintsPolicy
// Honor).
func TestChunkedPreFilterAddsUp(t *testing.T) {
	honor := v1.NodeInclusionPolicyHonor
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 3 * helper.MinParallelNodes {
		name := fmt.Sprintf("node-%04d", i)
		var nb *nodeBuilder
		switch {
		case i%50 == 7:
			nb = zoneNode(name, "")
			delete(nb.n.Labels, "zone")
		case i%40 == 3:
			nb = zoneNode(name, fmt.Sprintf("zone-%d", i%5)).taints([]v1.Taint{{Key: "dedicated", Effect: v1.TaintEffectNoSchedule}})
		default:
			nb = zoneNode(name, fmt.Sprintf("zone-%d", i%5))
		}
		nodes = append(nodes, nb.obj())
		if i%5 == 4 {
			continue // zone-4: no pods, a domain at 0
		}
		for j := range i % 3 {
			keys := []string{"foo"}
			if j == 1 {
				keys = []string{"bar"}
			}
			pods = append(pods, labelled(fmt.Sprintf("%s-pod-%d", name, j), name, keys...))
		}
	}
	incoming := makePod("p").label("foo", "").
		spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).
		spread(2, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj()

	walk := func(procs int) *preFilterState {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		pl, h := newTestPlugin(t, listArgs(), nodes, pods)
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(context.Background(), cs, incoming, h.Snapshot().List()); !st.IsSuccess() {
			t.Fatalf("PreFilter with %d procs: %v", procs, st)
		}
		s, err := getPreFilterState(cs)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	one := walk(1)
	if n, ok := one.TpValueToMatchNum[0]["zone-4"]; !ok || n != 0 || one.CriticalPaths[0][0].MatchNum != 0 {
		t.Fatalf("the fixture has no empty zone at the minimum: %v %v", one.TpValueToMatchNum[0], *one.CriticalPaths[0])
	}
	if len(one.TpValueToMatchNum[1]) == 0 || len(one.TpValueToMatchNum[1]) >= len(nodes) {
		t.Fatalf("the fixture leaves no node out of the hostname constraint, or counts none: %d domains", len(one.TpValueToMatchNum[1]))
	}
	for _, procs := range []int{2, 3, 8} {
		checkPreFilterState(t, one, walk(procs))
	}
}
