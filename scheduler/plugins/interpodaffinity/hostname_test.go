package interpodaffinity

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// filterWithFastPath runs PreFilter over all nodes and Filter on node with
// InterPodAffinityHostnameFastPath set as given.
func filterWithFastPath(t *testing.T, on bool, pod *v1.Pod, pods []*v1.Pod, nodes []*v1.Node, node string) framework.Code {
	t.Helper()
	h := frameworktest.NewHandle(nodes, pods)
	h.Gates.EnableInterPodAffinityHostnameFastPath = on
	pl := newPlugin(t, nil, h)
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), cs, pod, h.Snap.List()); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	return pl.Filter(context.Background(), cs, pod, nodeInfo(t, h, node)).Code()
}

// The fast path decides differently from the counts where they differ:
// hostname values shared by two nodes, and matching pods on nodes without
// the label.
func TestHostnameFastPathGate(t *testing.T) {
	host := map[string]string{v1.LabelHostname: "shared"}
	twins := []*v1.Node{mkNode("a", host), mkNode("b", host)}
	hostTerm := term(v1.LabelHostname, sel(in("app", "x")))
	tests := []struct {
		name    string
		pod     *v1.Pod
		pods    []*v1.Pod
		nodes   []*v1.Node
		node    string
		off, on framework.Code
	}{
		{
			name: "incoming anti-affinity: the twin shares the domain only through the counts",
			pod:  mkPod("p").reqAnti(hostTerm).obj(), pods: []*v1.Pod{mkPod("x").label("app", "x").node("a").obj()},
			nodes: twins, node: "b", off: framework.Unschedulable, on: framework.Success,
		},
		{
			name: "existing anti-affinity: the twin shares the domain only through the counts",
			pod:  mkPod("p").label("app", "x").obj(), pods: []*v1.Pod{mkPod("x").reqAnti(hostTerm).node("a").obj()},
			nodes: twins, node: "b", off: framework.Unschedulable, on: framework.Success,
		},
		{
			name: "self-affinity: a matching pod on a node without the label blocks it only on the fast path",
			pod:  mkPod("p").label("app", "x").reqAff(hostTerm).obj(), pods: []*v1.Pod{mkPod("x").label("app", "x").node("c").obj()},
			nodes: []*v1.Node{mkNode("c", nil), mkNode("d", map[string]string{v1.LabelHostname: "d"})}, node: "d",
			off: framework.Success, on: framework.UnschedulableAndUnresolvable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := filterWithFastPath(t, false, tt.pod, tt.pods, tt.nodes, tt.node); got != tt.off {
				t.Errorf("fast path off: %v, want %v", got, tt.off)
			}
			if got := filterWithFastPath(t, true, tt.pod, tt.pods, tt.nodes, tt.node); got != tt.on {
				t.Errorf("fast path on: %v, want %v", got, tt.on)
			}
		})
	}
}
