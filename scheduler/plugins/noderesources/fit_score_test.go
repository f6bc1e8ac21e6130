package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

var (
	defaultResources = []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
	extendedSet      = []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: string(extendedRes), Weight: 1}}
)

func strategy(typ configv1.ScoringStrategyType, resources []configv1.ResourceSpec, shape ...configv1.UtilizationShapePoint) *configv1.NodeResourcesFitArgs {
	s := &configv1.ScoringStrategy{Type: typ, Resources: resources}
	if typ == configv1.RequestedToCapacityRatio {
		s.RequestedToCapacityRatio = &configv1.RequestedToCapacityRatioParam{Shape: shape}
	}
	return &configv1.NodeResourcesFitArgs{ScoringStrategy: s}
}

// scoreAll runs PreScore (if asked) then Score on each node, in order.
func scoreAll(t *testing.T, pl framework.ScorePlugin, preScore bool, pod *v1.Pod, nodes []*v1.Node, pods []*v1.Pod) ([]int64, []*framework.Status) {
	t.Helper()
	h := frameworktest.NewHandle(nodes, pods)
	state := framework.NewCycleState()
	if preScore {
		if s := pl.(framework.PreScorePlugin).PreScore(ctx, state, pod, h.Snap.List()); !s.IsSuccess() {
			t.Fatalf("PreScore: %v", s)
		}
	}
	var scores []int64
	var statuses []*framework.Status
	for _, n := range nodes {
		ni, err := h.Snap.Get(n.Name)
		if err != nil {
			t.Fatal(err)
		}
		sc, s := pl.Score(ctx, state, pod, ni)
		scores = append(scores, sc)
		statuses = append(statuses, s)
	}
	return scores, statuses
}

func checkScores(t *testing.T, got, want []int64, statuses []*framework.Status) {
	t.Helper()
	for i, s := range statuses {
		if !s.IsSuccess() {
			t.Errorf("node %d: Score status %v", i, s)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("scores %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("scores %v, want %v", got, want)
			return
		}
	}
}

type scoreCase struct {
	name     string
	pod      *v1.Pod
	nodes    []*v1.Node
	existing []*v1.Pod
	args     *configv1.NodeResourcesFitArgs
	want     []int64
}

func runScoreCases(t *testing.T, tests []scoreCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, pre := range []bool{true, false} {
				p, err := NewFit(tc.args, frameworktest.NewHandle(nil, nil))
				if err != nil {
					t.Fatal(err)
				}
				got, st := scoreAll(t, p.(framework.ScorePlugin), pre, tc.pod, tc.nodes, tc.existing)
				checkScores(t, got, tc.want, st)
			}
		})
	}
}

func n4k10k(name string) *v1.Node { return nodeWithPods32(name, "cpu", "4000", "memory", "10000") }
func n6k10k(name string) *v1.Node { return nodeWithPods32(name, "cpu", "6000", "memory", "10000") }

// Cases of upstream's TestFitScore (each run with and without PreScore).
func TestFitScore(t *testing.T) {
	twoNodes := []*v1.Node{n4k10k("node1"), n6k10k("node2")}
	existing := func() []*v1.Pod {
		return []*v1.Pod{
			onNode(newPod(rl("cpu", "2000", "memory", "4000")), "node1"),
			onNode(newPod(rl("cpu", "1000", "memory", "2000")), "node2"),
		}
	}
	rtcr := func(shape ...configv1.UtilizationShapePoint) *configv1.NodeResourcesFitArgs {
		return strategy(configv1.RequestedToCapacityRatio, defaultResources, shape...)
	}
	runScoreCases(t, []scoreCase{
		{"RequestedToCapacityRatio case1", newPod(rl("cpu", "3000", "memory", "5000")), twoNodes, existing(),
			rtcr(configv1.UtilizationShapePoint{Utilization: 0, Score: 10}, configv1.UtilizationShapePoint{Utilization: 100, Score: 0}), []int64{10, 32}},
		{"RequestedToCapacityRatio case2", newPod(rl("cpu", "3000", "memory", "5000")), twoNodes, existing(),
			rtcr(configv1.UtilizationShapePoint{Utilization: 0, Score: 0}, configv1.UtilizationShapePoint{Utilization: 100, Score: 10}), []int64{95, 68}},
		{"MostAllocated", newPod(rl("cpu", "1000", "memory", "2000")), twoNodes, existing(),
			strategy(configv1.MostAllocated, defaultResources), []int64{67, 36}},
		{"LeastAllocated", newPod(rl("cpu", "1000", "memory", "2000")), twoNodes, existing(),
			strategy(configv1.LeastAllocated, defaultResources), []int64{32, 63}},
		{"MostAllocated with sidecar container", newPod(rl("cpu", "1000", "memory", "2000")),
			[]*v1.Node{n4k10k("node1"), n4k10k("node2")},
			[]*v1.Pod{
				onNode(withSidecar(newPod(rl("cpu", "1000", "memory", "2000")), rl("cpu", "1000", "memory", "2000")), "node1"),
				onNode(newPod(rl("cpu", "1000", "memory", "2000")), "node2"),
			},
			strategy(configv1.MostAllocated, defaultResources), []int64{67, 45}},
		{"LeastAllocated with sidecar container", newPod(rl("cpu", "1000", "memory", "2000")),
			[]*v1.Node{n4k10k("node1"), n4k10k("node2")},
			[]*v1.Pod{
				onNode(withSidecar(newPod(rl("cpu", "1000", "memory", "2000")), rl("cpu", "1000", "memory", "2000")), "node1"),
				onNode(newPod(rl("cpu", "1000", "memory", "2000")), "node2"),
			},
			strategy(configv1.LeastAllocated, defaultResources), []int64{32, 55}},
		// nil args: upstream's defaults (LeastAllocated, cpu+memory).
		{"default args", newPod(rl("cpu", "1000", "memory", "2000")), twoNodes, existing(), nil, []int64{32, 63}},
	})
}

// Cases of upstream's TestLeastAllocatedScoringStrategy.
func TestLeastAllocated(t *testing.T) {
	two := func(a, b *v1.Node) []*v1.Node { return []*v1.Node{a, b} }
	n := func(name, cpu, mem string, kv ...string) *v1.Node {
		return nodeWithPods32(name, append([]string{"cpu", cpu, "memory", mem}, kv...)...)
	}
	twoContainers := func() *v1.Pod {
		return newPod(rl("cpu", "1000", "memory", "2000"), rl("cpu", "2000", "memory", "3000"))
	}
	la := func(res []configv1.ResourceSpec) *configv1.NodeResourcesFitArgs {
		return strategy(configv1.LeastAllocated, res)
	}
	runScoreCases(t, []scoreCase{
		{"nothing scheduled, nothing requested", newPod(), two(n4k10k("node1"), n4k10k("node2")), nil, la(defaultResources), []int64{100, 100}},
		{"nothing scheduled, resources requested, differently sized nodes", twoContainers(), two(n4k10k("node1"), n6k10k("node2")), nil, la(defaultResources), []int64{37, 50}},
		{"no resources requested, pods scheduled", newPod(), two(n4k10k("node1"), n4k10k("node2")),
			[]*v1.Pod{onNode(newPod(), "node1"), onNode(newPod(), "node1"), onNode(newPod(), "node2"), onNode(newPod(), "node2")},
			la(defaultResources), []int64{100, 100}},
		{"no resources requested, pods scheduled with resources", newPod(),
			two(n("node1", "10000", "20000"), n("node2", "10000", "20000")),
			[]*v1.Pod{
				onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"),
				onNode(newPod(rl("cpu", "3000", "memory", "0")), "node2"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2"),
			},
			la(defaultResources), []int64{70, 57}},
		{"resources requested, pods scheduled with resources", twoContainers(),
			two(n("node1", "10000", "20000"), n("node2", "10000", "20000")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			la(defaultResources), []int64{57, 45}},
		{"resources requested, pods scheduled with resources, differently sized nodes", twoContainers(),
			two(n("node1", "10000", "20000"), n("node2", "10000", "50000")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			la(defaultResources), []int64{57, 60}},
		{"requested resources exceed node capacity", newPod(rl("cpu", "3000", "memory", "0")), two(n4k10k("node1"), n4k10k("node2")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			la(defaultResources), []int64{50, 25}},
		{"zero node resources, pods scheduled with resources", newPod(), two(nodeWithPods32("node1"), nodeWithPods32("node2")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			la(defaultResources), []int64{0, 0}},
		{"different weight on CPU and memory, differently sized nodes", twoContainers(), two(n4k10k("node1"), n6k10k("node2")), nil,
			la([]configv1.ResourceSpec{{Name: "memory", Weight: 2}, {Name: "cpu", Weight: 1}}), []int64{41, 50}},
		{"bypass extended resource if the pod does not request", twoContainers(),
			two(n("node1", "6000", "10000"), n("node2", "6000", "10000", string(extendedRes), "4")), nil, la(extendedSet), []int64{50, 50}},
		{"honor extended resource if the pod requests", newPod(rl("cpu", "3000", "memory", "5000", string(extendedRes), "2")),
			two(n("node1", "6000", "10000", string(extendedRes), "4"), n("node2", "6000", "10000", string(extendedRes), "10")), nil,
			la(extendedSet), []int64{50, 60}},
		{"if the node doesn't have a resource", newPod(rl("cpu", "3000", "memory", "4000")),
			two(n("node1", "6000", "10000"), n("node2", "6000", "10000", string(extendedRes), "4")), nil,
			la([]configv1.ResourceSpec{{Name: string(extendedRes), Weight: 2}, {Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}), []int64{55, 55}},
	})
}

// Cases of upstream's TestMostAllocatedScoringStrategy.
func TestMostAllocated(t *testing.T) {
	two := func(a, b *v1.Node) []*v1.Node { return []*v1.Node{a, b} }
	n := func(name, cpu, mem string, kv ...string) *v1.Node {
		return nodeWithPods32(name, append([]string{"cpu", cpu, "memory", mem}, kv...)...)
	}
	twoContainers := func() *v1.Pod {
		return newPod(rl("cpu", "1000", "memory", "2000"), rl("cpu", "2000", "memory", "3000"))
	}
	ma := func(res []configv1.ResourceSpec) *configv1.NodeResourcesFitArgs {
		return strategy(configv1.MostAllocated, res)
	}
	runScoreCases(t, []scoreCase{
		{"nothing scheduled, nothing requested", newPod(), two(n4k10k("node1"), n4k10k("node2")), nil, ma(defaultResources), []int64{0, 0}},
		{"nothing scheduled, resources requested, differently sized nodes", twoContainers(), two(n4k10k("node1"), n6k10k("node2")), nil, ma(defaultResources), []int64{62, 50}},
		{"no resources requested, pods scheduled with resources", newPod(),
			two(n("node1", "10000", "20000"), n("node2", "10000", "20000")),
			[]*v1.Pod{
				onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"),
				onNode(newPod(rl("cpu", "3000", "memory", "0")), "node2"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2"),
			},
			ma(defaultResources), []int64{30, 42}},
		{"resources requested, pods scheduled with resources", twoContainers(),
			two(n("node1", "10000", "20000"), n("node2", "10000", "20000")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "0")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			ma(defaultResources), []int64{42, 55}},
		{"resources requested equal node capacity", newPod(rl("cpu", "2000", "memory", "4000"), rl("cpu", "3000", "memory", "5000")),
			two(n("node1", "5000", "10000"), n("node2", "10000", "9000")), nil, ma(defaultResources), []int64{95, 75}},
		{"different weight, differently sized nodes", twoContainers(), two(n4k10k("node1"), n6k10k("node2")), nil,
			ma([]configv1.ResourceSpec{{Name: "memory", Weight: 2}, {Name: "cpu", Weight: 1}}), []int64{58, 50}},
		{"no resources requested, pods scheduled, nonzero request for resource", newPod(nil),
			two(n("node1", "250m", "1000Mi"), n("node2", "250m", "1000Mi")),
			[]*v1.Pod{onNode(newPod(nil), "node1"), onNode(newPod(nil), "node1")},
			ma(defaultResources), []int64{80, 30}},
		{"bypass extended resource if the pod does not request", twoContainers(),
			two(n("node1", "6000", "10000"), n("node2", "6000", "10000", string(extendedRes), "4")), nil, ma(extendedSet), []int64{50, 50}},
		{"honor extended resource if the pod request", newPod(rl("cpu", "3000", "memory", "5000", string(extendedRes), "2")),
			two(n("node1", "6000", "10000", string(extendedRes), "4"), n("node2", "6000", "10000", string(extendedRes), "10")), nil,
			ma(extendedSet), []int64{50, 40}},
		{"if the node doesn't have a resource", newPod(rl("cpu", "3000", "memory", "4000")),
			two(n("node1", "6000", "10000"), n("node2", "6000", "10000", string(extendedRes), "4")), nil,
			ma([]configv1.ResourceSpec{{Name: string(extendedRes), Weight: 2}, {Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}), []int64{45, 45}},
	})
}

// Cases of upstream's TestRequestedToCapacityRatioScoringStrategy and the
// bin-packing tests over extended resources.
func TestRequestedToCapacityRatio(t *testing.T) {
	down := []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}
	up := []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 1}}
	two := func(a, b *v1.Node) []*v1.Node { return []*v1.Node{a, b} }
	const mem = 10000 * 1024 * 1024
	foo, bar := v1.ResourceName("intel.com/foo"), v1.ResourceName("intel.com/bar")
	single := []configv1.ResourceSpec{{Name: string(foo), Weight: 1}}
	multi := []configv1.ResourceSpec{{Name: string(foo), Weight: 3}, {Name: string(bar), Weight: 5}}
	ext1 := func(name string, f int64) *v1.Node {
		return scoreNode(name, 4000, mem, map[v1.ResourceName]int64{foo: f})
	}
	ext2 := func(name string, f, b int64) *v1.Node {
		return scoreNode(name, 4000, mem, map[v1.ResourceName]int64{foo: f, bar: b})
	}
	rtcr := func(res []configv1.ResourceSpec, shape []configv1.UtilizationShapePoint) *configv1.NodeResourcesFitArgs {
		return strategy(configv1.RequestedToCapacityRatio, res, shape...)
	}
	runScoreCases(t, []scoreCase{
		{"nothing scheduled, nothing requested", newPod(), two(n4k10k("node1"), n4k10k("node2")),
			[]*v1.Pod{onNode(newPod(), "node1"), onNode(newPod(), "node1")}, rtcr(defaultResources, down), []int64{100, 100}},
		{"nothing scheduled, resources requested, differently sized nodes",
			newPod(rl("cpu", "1000", "memory", "2000"), rl("cpu", "2000", "memory", "3000")), two(n4k10k("node1"), n6k10k("node2")),
			[]*v1.Pod{onNode(newPod(), "node1"), onNode(newPod(), "node1")}, rtcr(defaultResources, down), []int64{38, 50}},
		{"no resources requested, pods scheduled with resources", newPod(), two(n4k10k("node1"), n6k10k("node2")),
			[]*v1.Pod{onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node1"), onNode(newPod(rl("cpu", "3000", "memory", "5000")), "node2")},
			rtcr(defaultResources, down), []int64{38, 50}},
		// TestResourceBinPackingSingleExtended
		{"single: nothing scheduled, nothing requested", newPod(), two(ext1("node1", 8), ext1("node2", 4)), nil, rtcr(single, up), []int64{0, 0}},
		{"single: resources requested, pods scheduled with less resources", newPod(rl(string(foo), "2")),
			two(ext1("node1", 8), ext1("node2", 4)), []*v1.Pod{newPod()}, rtcr(single, up), []int64{2, 5}},
		{"single: resources requested, on node with existing pod running", newPod(rl(string(foo), "2")),
			two(ext1("node1", 8), ext1("node2", 4)), []*v1.Pod{onNode(newPod(rl(string(foo), "2")), "node2")}, rtcr(single, up), []int64{2, 10}},
		{"single: resources requested, pods scheduled with more resources", newPod(rl(string(foo), "4")),
			two(ext1("node1", 8), ext1("node2", 4)), []*v1.Pod{newPod()}, rtcr(single, up), []int64{5, 10}},
		// TestResourceBinPackingMultipleExtended
		{"multi: nothing scheduled, nothing requested", newPod(), two(ext2("node1", 8, 4), ext2("node2", 4, 8)), nil, rtcr(multi, up), []int64{0, 0}},
		{"multi: resources requested, pods scheduled with less resources", newPod(rl(string(foo), "2", string(bar), "2")),
			two(ext2("node1", 8, 4), ext2("node2", 4, 8)), []*v1.Pod{newPod()}, rtcr(multi, up), []int64{4, 3}},
		{"multi: resources requested, on node with existing pod running", newPod(rl(string(foo), "2", string(bar), "2")),
			two(ext2("node1", 8, 4), ext2("node2", 4, 8)), []*v1.Pod{onNode(newPod(rl(string(foo), "4", string(bar), "2")), "node2")},
			rtcr(multi, up), []int64{4, 7}},
		{"multi: resources requested, pods scheduled with more resources", newPod(rl(string(foo), "4", string(bar), "2")),
			two(ext2("node1", 8, 4), ext2("node2", 4, 8)), []*v1.Pod{newPod()}, rtcr(multi, up), []int64{5, 5}},
		// Beyond upstream's tables: over capacity scores as 100% utilization.
		{"request above capacity", newPod(rl(string(foo), "9")), two(ext1("node1", 8), ext1("node2", 18)), nil,
			rtcr(single, []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 2}}), []int64{20, 60}},
	})
}

// Upstream's TestBrokenLinearFunction.
func TestBrokenLinearFunction(t *testing.T) {
	tests := []struct {
		points []shapePoint
		want   map[int64]int64
	}{
		{[]shapePoint{{10, 1}, {90, 9}},
			map[int64]int64{-10: 1, 0: 1, 9: 1, 10: 1, 15: 1, 19: 1, 20: 2, 89: 8, 90: 9, 99: 9, 100: 9, 110: 9}},
		{[]shapePoint{{0, 2}, {40, 10}, {100, 0}},
			map[int64]int64{-10: 2, 0: 2, 20: 6, 30: 8, 40: 10, 70: 5, 100: 0, 110: 0}},
		{[]shapePoint{{0, 2}, {40, 2}, {100, 2}},
			map[int64]int64{-10: 2, 0: 2, 20: 2, 30: 2, 40: 2, 70: 2, 100: 2, 110: 2}},
		{nil, map[int64]int64{50: 0}},
	}
	for i, tc := range tests {
		fn := brokenLinearFunction(tc.points)
		for p, want := range tc.want {
			if got := fn(p); got != want {
				t.Errorf("case %d: f(%d) = %d, want %d", i, p, got, want)
			}
		}
	}
}

// Fit's scorer ignores pod-level resources and uses the non-zero defaults
// per container (upstream never gives its scorer the feature flags), while
// Filter honours pod-level requests.
func TestFitScorePodLevelResourcesIgnored(t *testing.T) {
	nodes := []*v1.Node{nodeWithPods32("node1", "cpu", "4", "memory", "4Gi")}
	// One container without requests; pod-level asks for 2 cpu, 2Gi.
	pod := withPodLevel(newPod(nil), rl("cpu", "2", "memory", "2Gi"))
	p, _ := NewFit(nil, frameworktest.NewHandle(nil, nil))
	got, st := scoreAll(t, p.(framework.ScorePlugin), true, pod, nodes, nil)
	// cpu (4000-100)*100/4000 = 97; memory (4Gi-200Mi)*100/4Gi = 95.
	checkScores(t, got, []int64{(97 + 95) / 2}, st)

	// Overhead is still counted.
	pod = withOverhead(newPod(rl("cpu", "1", "memory", "1Gi")), rl("cpu", "1", "memory", "1Gi"))
	got, st = scoreAll(t, p.(framework.ScorePlugin), true, pod, nodes, nil)
	checkScores(t, got, []int64{50}, st)

	// An explicit zero request stays zero; a missing one gets the default.
	pod = newPod(rl("cpu", "0"))
	got, st = scoreAll(t, p.(framework.ScorePlugin), true, pod, nodes, nil)
	checkScores(t, got, []int64{(100 + 95) / 2}, st)
}

// Ephemeral storage and scalars are scored against plain Requested, cpu and
// memory against NonZeroRequested.
func TestFitScoreNodeSide(t *testing.T) {
	res := []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "ephemeral-storage", Weight: 1}, {Name: "pods", Weight: 1}}
	nodes := []*v1.Node{nodeWithPods32("node1", "cpu", "1", "ephemeral-storage", "1000")}
	// Existing container without a cpu request: 100m by default; its
	// storage request only shows in Requested (NonZeroRequested tracks
	// cpu and memory alone).
	existing := []*v1.Pod{onNode(newPod(rl("ephemeral-storage", "200")), "node1")}
	p, _ := NewFit(strategy(configv1.MostAllocated, res), frameworktest.NewHandle(nil, nil))
	got, st := scoreAll(t, p.(framework.ScorePlugin), true, newPod(rl("cpu", "100m", "ephemeral-storage", "500")), nodes, existing)
	// cpu 200m/1000m = 20; storage 700/1000 = 70; "pods" is never scored.
	checkScores(t, got, []int64{45}, st)
}

func TestFitScoreErrors(t *testing.T) {
	f := &Fit{scorer: &resourceAllocationScorer{scorer: leastResourceScorer(nil)}}
	_, s := f.Score(ctx, framework.NewCycleState(), newPod(), nodeInfo(n4k10k("n")))
	checkStatus(t, "Score without resources", s, framework.NewStatus(framework.Error, "resources not found"))
	if f.ScoreExtensions() != nil {
		t.Error("ScoreExtensions should be nil")
	}
}

// Status resources of the incoming pod: BalancedAllocation takes
// max(spec, allocated, actuated) (InPlacePodVerticalScaling), Fit's score
// and Filter use the spec.
func TestStatusResourcesOfIncomingPod(t *testing.T) {
	pod := newPod(rl("cpu", "1", "memory", "1Gi"))
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c0", AllocatedResources: rl("cpu", "3", "memory", "1Gi")}}
	nodes := []*v1.Node{nodeWithPods32("node1", "cpu", "4", "memory", "4Gi")}

	fit, _ := NewFit(nil, frameworktest.NewHandle(nil, nil))
	got, st := scoreAll(t, fit.(framework.ScorePlugin), true, pod, nodes, nil)
	checkScores(t, got, []int64{75}, st) // spec 1 cpu, 1Gi: 75 left of each

	ba, _ := NewBalancedAllocation(nil, frameworktest.NewHandle(nil, nil))
	got, st = scoreAll(t, ba.(framework.ScorePlugin), true, pod, nodes, nil)
	// fractions 0.75 / 0.25 -> 75 with the pod, 100 without -> 50 + 25/2.
	checkScores(t, got, []int64{62}, st)

	ni := nodeInfo(nodeWithPods32("node1", "cpu", "2", "memory", "4Gi"))
	checkStatus(t, "Filter", runFilter(t, nil, pod, ni), nil)
}
