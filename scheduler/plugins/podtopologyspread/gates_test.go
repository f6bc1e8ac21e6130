package podtopologyspread

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// filterWithGates runs PreFilter and Filter on node with the given gates
// and returns Filter's code.
func filterWithGates(t *testing.T, gates features.Features, pod *v1.Pod, nodes []*v1.Node, pods []*v1.Pod, node string) framework.Code {
	t.Helper()
	h := frameworktest.NewHandle(nodes, pods)
	h.Gates = gates
	p, err := New(listArgs(), h)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*PodTopologySpread)
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), cs, pod, h.Snapshot().List()); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	return pl.Filter(context.Background(), cs, pod, nodeInfo(t, h, node)).Code()
}

// Node a (zone1) carries an untolerated taint, node b (zone2) one matching
// pod. With nodeTaintsPolicy: Honor read, zone1 is no domain and the pod
// fits b; with the gate off the policy stays Ignore, zone1 counts 0 and b
// would make skew 2.
func TestNodeInclusionPolicyGate(t *testing.T) {
	honor := v1.NodeInclusionPolicyHonor
	nodes := []*v1.Node{
		zoneNode("a", "zone1").taints([]v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}).obj(),
		zoneNode("b", "zone2").obj(),
	}
	pods := []*v1.Pod{labelled("p-b", "b", "foo")}
	pod := makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).obj()
	for _, tc := range []struct {
		on   bool
		want framework.Code
	}{{true, framework.Success}, {false, framework.Unschedulable}} {
		gates := features.Default()
		gates.EnableNodeInclusionPolicyInPodTopologySpread = tc.on
		if got := filterWithGates(t, gates, pod, nodes, pods, "b"); got != tc.want {
			t.Errorf("NodeInclusionPolicyInPodTopologySpread=%v: Filter(b) = %v, want %v", tc.on, got, tc.want)
		}
	}
}

// With the gate off, nodeAffinityPolicy: Ignore is not read: a node
// outside the pod's required affinity is still no domain.
func TestNodeInclusionPolicyGateAffinityIgnore(t *testing.T) {
	ignore := v1.NodeInclusionPolicyIgnore
	nodes := []*v1.Node{zoneNode("a", "zone1").obj(), zoneNode("b", "zone2").label("pool", "x").obj()}
	pods := []*v1.Pod{labelled("p-b", "b", "foo")}
	pod := makePod("p").label("foo", "").nodeSelector(map[string]string{"pool": "x"}).
		spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj()
	for _, tc := range []struct {
		on   bool
		want framework.Code
	}{{true, framework.Unschedulable}, {false, framework.Success}} {
		gates := features.Default()
		gates.EnableNodeInclusionPolicyInPodTopologySpread = tc.on
		if got := filterWithGates(t, gates, pod, nodes, pods, "b"); got != tc.want {
			t.Errorf("NodeInclusionPolicyInPodTopologySpread=%v: Filter(b) = %v, want %v", tc.on, got, tc.want)
		}
	}
}

// matchLabelKeys narrow the selector to the pod's own version only with
// the gate on: the v1 pod on b then does not count.
func TestMatchLabelKeysGate(t *testing.T) {
	nodes := []*v1.Node{zoneNode("a", "zone1").obj(), zoneNode("b", "zone2").obj()}
	pods := []*v1.Pod{makePod("p-b").node("b").label("foo", "").label("version", "v1").obj()}
	pod := makePod("p").label("foo", "").label("version", "v2").
		spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, []string{"version"}).obj()
	for _, tc := range []struct {
		on   bool
		want framework.Code
	}{{true, framework.Success}, {false, framework.Unschedulable}} {
		gates := features.Default()
		gates.EnableMatchLabelKeysInPodTopologySpread = tc.on
		if got := filterWithGates(t, gates, pod, nodes, pods, "b"); got != tc.want {
			t.Errorf("MatchLabelKeysInPodTopologySpread=%v: Filter(b) = %v, want %v", tc.on, got, tc.want)
		}
	}
}

// With TaintTolerationComparisonOperators on, a Gt toleration tolerates
// node a's numeric taint, so under nodeTaintsPolicy: Honor zone1 is a
// domain (count 0) and b (count 1) would make skew 2.
func TestComparisonOperatorsGateInNodeTaintsPolicy(t *testing.T) {
	honor := v1.NodeInclusionPolicyHonor
	nodes := []*v1.Node{
		zoneNode("a", "zone1").taints([]v1.Taint{{Key: "sla", Value: "950", Effect: v1.TaintEffectNoSchedule}}).obj(),
		zoneNode("b", "zone2").obj(),
	}
	pods := []*v1.Pod{labelled("p-b", "b", "foo")}
	pod := makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).obj()
	pod.Spec.Tolerations = []v1.Toleration{{Key: "sla", Operator: v1.TolerationOpGt, Value: "750", Effect: v1.TaintEffectNoSchedule}}
	for _, tc := range []struct {
		on   bool
		want framework.Code
	}{{true, framework.Unschedulable}, {false, framework.Success}} {
		gates := features.Default()
		gates.EnableTaintTolerationComparisonOperators = tc.on
		if got := filterWithGates(t, gates, pod, nodes, pods, "b"); got != tc.want {
			t.Errorf("TaintTolerationComparisonOperators=%v: Filter(b) = %v, want %v", tc.on, got, tc.want)
		}
	}
}
