package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func cpuMem(cpu, mem string) v1.ResourceList { return rl("cpu", cpu, "memory", mem) }

const gpu v1.ResourceName = "nvidia.com/gpu"

// Cases of upstream's TestNodeResourcesBalancedAllocation (without the DRA
// ones: schedtui has no DeviceClasses).
func TestBalancedAllocationScore(t *testing.T) {
	withGPU := []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: string(gpu), Weight: 1}}
	gpus := map[v1.ResourceName]int64{gpu: 8}
	twoContainers := func() *v1.Pod { return newPod(cpuMem("1000m", "2000"), cpuMem("2000m", "3000")) }
	cpuOnlyPod := func(node string) *v1.Pod { return onNode(newPod(rl("cpu", "1000m"), rl("cpu", "2000m")), node) }
	tests := []struct {
		name     string
		pod      *v1.Pod
		nodes    []*v1.Node
		existing []*v1.Pod
		args     *configv1.NodeResourcesBalancedAllocationArgs
		want     []int64
	}{
		{"nothing scheduled, resources requested, differently sized nodes", twoContainers(),
			[]*v1.Node{scoreNode("node1", 4000, 10000, nil), scoreNode("node2", 6000, 10000, nil)}, nil, nil, []int64{68, 75}},
		{"resources requested, pods scheduled with resources", twoContainers(),
			[]*v1.Node{scoreNode("node1", 10000, 20000, nil), scoreNode("node2", 10000, 20000, nil)},
			[]*v1.Pod{cpuOnlyPod("node1"), onNode(newPod(cpuMem("1000m", "2000"), cpuMem("2000m", "3000")), "node2")}, nil, []int64{73, 74}},
		{"resources requested, pods scheduled with resources, differently sized nodes", twoContainers(),
			[]*v1.Node{scoreNode("node1", 10000, 20000, nil), scoreNode("node2", 10000, 50000, nil)},
			[]*v1.Pod{cpuOnlyPod("node1"), onNode(newPod(cpuMem("1000m", "2000"), cpuMem("2000m", "3000")), "node2")}, nil, []int64{73, 70}},
		{"resources requested, pods scheduled with resources, nodes to reach min/max score", newPod(rl("memory", "2000"), rl("memory", "3000")),
			[]*v1.Node{scoreNode("node1", 3000, 5000, nil), scoreNode("node2", 3000, 5000, nil)},
			[]*v1.Pod{cpuOnlyPod("node1")}, nil, []int64{100, 50}},
		{"requested resources at node capacity", newPod(rl("cpu", "1000m"), rl("cpu", "2000m")),
			[]*v1.Node{scoreNode("node1", 6000, 10000, nil), scoreNode("node2", 6000, 10000, nil)},
			[]*v1.Pod{cpuOnlyPod("node1"), onNode(newPod(cpuMem("1000m", "2000"), cpuMem("2000m", "3000")), "node2")}, nil, []int64{62, 62}},
		{"scalar resource is included in the score computation if pod requests the scalar resource",
			newPod(rl("cpu", "0", "memory", "0", string(gpu), "1")),
			[]*v1.Node{scoreNode("node1", 3500, 40000, gpus), scoreNode("node2", 3500, 40000, gpus)},
			[]*v1.Pod{
				onNode(newPod(cpuMem("1000m", "2000"), rl("cpu", "2000m", "memory", "3000", string(gpu), "3")), "node1"),
				onNode(newPod(cpuMem("1000m", "2000"), cpuMem("2000m", "3000")), "node2"),
			},
			&configv1.NodeResourcesBalancedAllocationArgs{Resources: withGPU}, []int64{75, 76}},
		{"scalar resource is not included in the score computation if pod doesn't request the scalar resource", twoContainers(),
			[]*v1.Node{scoreNode("node1", 3500, 40000, gpus), scoreNode("node2", 3500, 40000, nil)}, nil,
			&configv1.NodeResourcesBalancedAllocationArgs{Resources: withGPU}, []int64{56, 56}},
		// Beyond upstream's table: pod-level requests count here (unlike
		// Fit's score). Node 4 cpu / 4Gi, pod-level 2 cpu / 1Gi: fractions
		// 0.5 / 0.25 -> 87 with the pod, 100 without -> 50 + (50-13)/2 = 68.
		{"pod-level resources count", withPodLevel(newPod(nil), rl("cpu", "2", "memory", "1Gi")),
			[]*v1.Node{newNode("node1", rl("cpu", "4", "memory", "4Gi"))}, nil, nil, []int64{68}},
		// Three resources use the population standard deviation.
		{"three resources", newPod(rl("cpu", "1", "memory", "1Gi", string(gpu), "4")),
			[]*v1.Node{newNode("node1", rl("cpu", "4", "memory", "4Gi", string(gpu), "8"))}, nil,
			&configv1.NodeResourcesBalancedAllocationArgs{Resources: withGPU}, []int64{ba3()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, pre := range []bool{true, false} {
				p, err := NewBalancedAllocation(tc.args, frameworktest.NewHandle(nil, nil))
				if err != nil {
					t.Fatal(err)
				}
				got, st := scoreAll(t, p.(framework.ScorePlugin), pre, tc.pod, tc.nodes, tc.existing)
				checkScores(t, got, tc.want, st)
			}
		})
	}
}

// ba3 is the three-resource case worked by hand: fractions with the pod
// 0.25, 0.25, 0.5 (mean 1/3), without 0, 0, 0.
func ba3() int64 {
	// sum of squares: 2*(1/12)^2 + (1/6)^2 = 2/144 + 4/144 = 6/144;
	// std = sqrt(6/144/3) = sqrt(1/72) = 0.11785 -> (1-std)*100 = 88.2 -> 88.
	return 50 + (50+88-100)/2
}

// Best-effort pods (nothing requested for any configured resource) skip
// at PreScore; without PreScore, Score returns 0.
func TestBalancedAllocationBestEffort(t *testing.T) {
	p, _ := NewBalancedAllocation(nil, frameworktest.NewHandle(nil, nil))
	ba := p.(*BalancedAllocation)
	state := framework.NewCycleState()
	ni := nodeInfo(scoreNode("node1", 4000, 10000, nil))
	for _, pod := range []*v1.Pod{newPod(), newPod(nil), newPod(rl("cpu", "0", "memory", "0")), newPod(rl(string(gpu), "1"))} {
		checkStatus(t, "PreScore", ba.PreScore(ctx, state, pod, nil), framework.NewStatus(framework.Skip))
		if s, st := ba.Score(ctx, framework.NewCycleState(), pod, ni); s != 0 || !st.IsSuccess() {
			t.Errorf("Score without PreScore = %d, %v; want 0, success", s, st)
		}
	}
	if ba.ScoreExtensions() != nil {
		t.Error("ScoreExtensions should be nil")
	}
	if ba.Name() != "NodeResourcesBalancedAllocation" {
		t.Errorf("Name = %q", ba.Name())
	}
}

func TestBalancedResourceScorer(t *testing.T) {
	tests := []struct {
		name                           string
		requested, allocated, capacity []int64
		want                           int64
	}{
		{"unchanged balance", []int64{50, 50}, []int64{10, 10}, []int64{100, 100}, 75},
		{"pod perfectly rebalances", []int64{100, 100}, []int64{100, 0}, []int64{100, 100}, 100},
		{"pod fully unbalances", []int64{100, 0}, []int64{0, 0}, []int64{100, 100}, 50},
		{"fractions capped at 1", []int64{300, 100}, []int64{0, 0}, []int64{100, 100}, 75},
		{"single resource has no deviation", []int64{30, 0}, []int64{0, 0}, []int64{100, 0}, 75},
		{"no resources", []int64{0, 0}, []int64{0, 0}, []int64{0, 0}, 75},
	}
	for _, tc := range tests {
		if got := balancedResourceScorer(tc.requested, tc.allocated, tc.capacity); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// BalancedAllocation uses the plain requests of existing pods: a node full
// of requestless pods looks empty to it.
func TestBalancedAllocationUsesRequested(t *testing.T) {
	node := newNode("node1", v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(1000, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(1000, resource.BinarySI),
	})
	p, _ := NewBalancedAllocation(nil, frameworktest.NewHandle(nil, nil))
	got, st := scoreAll(t, p.(framework.ScorePlugin), true, newPod(cpuMem("500m", "500")), []*v1.Node{node},
		[]*v1.Pod{onNode(newPod(nil), "node1"), onNode(newPod(nil), "node1")})
	checkScores(t, got, []int64{75}, st)
}
