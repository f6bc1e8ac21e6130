package podtopologyspread

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

const (
	ok    = framework.Success
	unsch = framework.Unschedulable
	uu    = framework.UnschedulableAndUnresolvable
)

type filterCase struct {
	name  string
	pod   *v1.Pod
	nodes []*v1.Node
	pods  []*v1.Pod
	want  map[string]framework.Code
}

// runFilterCases runs PreFilter over all nodes, then Filter on each node,
// checking the code and upstream's reason for that code.
func runFilterCases(t *testing.T, tests []filterCase) {
	t.Helper()
	reason := map[framework.Code]string{
		unsch: ErrReasonConstraintsNotMatch,
		uu:    ErrReasonNodeLabelNotMatch,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, listArgs(), tt.nodes, tt.pods)
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(context.Background(), cs, tt.pod, h.Snapshot().List()); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			for _, n := range tt.nodes {
				st := pl.Filter(context.Background(), cs, tt.pod, nodeInfo(t, h, n.Name))
				if st.Code() != tt.want[n.Name] {
					t.Errorf("%s: code %v, want %v", n.Name, st.Code(), tt.want[n.Name])
					continue
				}
				if st.Message() != reason[st.Code()] {
					t.Errorf("%s: message %q, want %q", n.Name, st.Message(), reason[st.Code()])
				}
			}
		})
	}
}

func TestSingleConstraint(t *testing.T) {
	sixPods := []*v1.Pod{ // spread 2/1/0/3 over a/b/x/y
		labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
		labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo"), labelled("p-y3", "node-y", "foo"),
	}
	threeHostNodes := []*v1.Node{
		makeNode("node-a").label("node", "node-a").obj(),
		makeNode("node-b").label("node", "node-b").obj(),
		makeNode("node-c").label("node", "node-c").obj(),
	}
	pods22_1 := []*v1.Pod{
		labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"),
		labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-c1", "node-c", "foo"),
	}
	zonePods21 := []*v1.Pod{labelled("p-b1", "node-a", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-y1", "node-y", "foo")}
	fooNodes := func(yTaints bool) []*v1.Node {
		y := makeNode("node-y").label("node", "node-y")
		if yTaints {
			y.taints(taints)
		}
		return []*v1.Node{
			makeNode("node-a").label("node", "node-a").label("foo", "").obj(),
			makeNode("node-b").label("node", "node-b").label("foo", "").obj(),
			makeNode("node-x").label("node", "node-x").label("foo", "").obj(),
			y.obj(),
		}
	}
	policyPods := []*v1.Pod{labelled("p-b1", "node-a", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-y1", "node-y", "foo")}
	fooZone := func(maxSkew int32) *podBuilder {
		return makePod("p").label("foo", "").spread(maxSkew, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil)
	}
	fooNode := func(maxSkew int32) *podBuilder {
		return makePod("p").label("foo", "").spread(maxSkew, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil)
	}
	runFilterCases(t, []filterCase{
		{
			name:  "no existing pods",
			pod:   fooZone(1).obj(),
			nodes: fourNodes(),
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "no existing pods, incoming pod doesn't match itself",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "existing pods in a different namespace do not count",
			pod:   fooZone(1).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				makePod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
				makePod("p-b1").ns("ns2").node("node-a").label("foo", "").obj(),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "existing pods do not match null selector",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			// The empty selector counts nothing but matches the incoming
			// pod: skew is 1 everywhere, within maxSkew 1.
			name:  "existing pods are not counted by an empty selector",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{}, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "empty selector self-matches, minDomains zeroes the minimum",
			pod:   makePod("p").spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{}, ptrTo[int32](5), nil, nil, nil).obj(),
			nodes: fourNodes(),
			// minDomains 5 > 2 domains: global min 0, self-match 1: skew 1.
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "pods spread across zones as 3/3, all nodes fit",
			pod:   fooZone(1).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
			pod:  fooZone(1).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").obj(),
				makeNode("node-b").label("zon", "zone1").label("node", "node-b").obj(),
				zoneNode("node-x", "zone2").obj(), zoneNode("node-y", "zone2").obj(),
			},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: map[string]framework.Code{"node-a": ok, "node-b": uu, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "pod cannot be scheduled as all nodes don't have label 'rack'",
			pod:   makePod("p").label("foo", "").spread(1, "rack", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-x", "zone2").obj()},
			want:  map[string]framework.Code{"node-a": uu, "node-x": uu},
		},
		{
			name:  "pods spread across nodes as 2/1/0/3, only node-x fits",
			pod:   fooNode(1).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
			pod:   fooNode(2).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
			pod:   makePod("p").label("bar", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch},
		},
		{
			// Only node-a and node-y are domains (2/~1~/~0~/3); b and x
			// pass here because NodeAffinity's Filter isn't run.
			name: "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
			pod: makePod("p").label("foo", "").nodeAffinity("node", v1.NodeSelectorOpIn, "node-a", "node-y").
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "terminating Pods should be excluded",
			pod:   fooNode(1).obj(),
			nodes: []*v1.Node{makeNode("node-a").label("node", "node-a").obj(), makeNode("node-b").label("node", "node-b").obj()},
			pods:  []*v1.Pod{makePod("p-a").node("node-a").label("foo", "").terminating().obj(), labelled("p-b", "node-b", "foo")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": unsch},
		},
		{
			name: "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
			pod: makePod("p").label("foo", "").nodeAffinity("node", v1.NodeSelectorOpNotIn, "node-b").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-y1", "node-y", "foo")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
			pod:   makePod("p").label("foo", "").spread(2, "node", v1.DoNotSchedule, fooSelector, ptrTo[int32](4), nil, nil, nil).obj(),
			nodes: threeHostNodes,
			pods:  pods22_1,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-c": ok},
		},
		{
			name:  "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
			pod:   makePod("p").label("foo", "").spread(2, "node", v1.DoNotSchedule, fooSelector, ptrTo[int32](2), nil, nil, nil).obj(),
			nodes: threeHostNodes,
			pods:  pods22_1,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-c": ok},
		},
		{
			name:  "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
			pod:   makePod("p").label("foo", "").spread(2, "zone", v1.DoNotSchedule, fooSelector, ptrTo[int32](3), nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  zonePods21,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok},
		},
		{
			name:  "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
			pod:   makePod("p").label("foo", "").spread(2, "zone", v1.DoNotSchedule, fooSelector, ptrTo[int32](1), nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  zonePods21,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fooNodes(false),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: fooNodes(false),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fooNodes(false),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: fooNodes(false),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "NodeTaintsPolicy honored",
			pod:   makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).obj(),
			nodes: fooNodes(true),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok},
		},
		{
			name:  "NodeTaintsPolicy ignored",
			pod:   fooNode(1).obj(),
			nodes: fooNodes(true),
			pods:  policyPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
	})
}

func TestMultipleConstraints(t *testing.T) {
	zoneNodeFoo := func(b *podBuilder) *podBuilder {
		return b.spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
			spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil)
	}
	zoneFooNodeBar := func(b *podBuilder) *podBuilder {
		return b.spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
			spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil)
	}
	sixPods := []*v1.Pod{
		labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
		labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo"), labelled("p-y3", "node-y", "foo"),
	}
	policyPods := []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"), labelled("p-y1", "node-y", "foo")}
	runFilterCases(t, []filterCase{
		{
			name:  "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
			pod:   zoneNodeFoo(makePod("p").label("foo", "")).obj(),
			nodes: fourNodes(),
			pods:  sixPods,
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
			pod:   zoneNodeFoo(makePod("p").label("foo", "")).obj(),
			nodes: fourNodes(),
			pods:  append(append([]*v1.Pod{}, sixPods...), labelled("p-y4", "node-y", "foo")),
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
			pod:   zoneFooNodeBar(makePod("p").label("foo", "").label("bar", "")).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-y1", "node-y", "bar")},
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name:  "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
			pod:   zoneFooNodeBar(makePod("p").label("foo", "").label("bar", "")).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-x1", "node-x", "bar"), labelled("p-y1", "node-y", "bar")},
			want:  map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
			pod:   zoneFooNodeBar(makePod("p").label("foo", "").label("bar", "")).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo", "bar"), labelled("p-y3", "node-y", "foo"),
			},
			want: map[string]framework.Code{"node-a": unsch, "node-b": ok, "node-x": unsch, "node-y": unsch},
		},
		{
			name:  "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
			pod:   zoneFooNodeBar(makePod("p").label("bar", "")).obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-x1", "node-x", "bar"), labelled("p-y1", "node-y", "bar")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": unsch, "node-y": unsch},
		},
		{
			name: "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
			pod:  zoneNodeFoo(makePod("p").label("foo", "")).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(),
				makeNode("node-x").label("zone", "zone2").obj(), zoneNode("node-y", "zone2").obj(),
			},
			pods: []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-y3", "node-y", "foo")},
			want: map[string]framework.Code{"node-a": unsch, "node-b": ok, "node-x": uu, "node-y": unsch},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(), zoneNode("node-b", "zone1").label("foo", "").obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(), zoneNode("node-y", "zone2").obj(),
			},
			pods: policyPods,
			want: map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(), zoneNode("node-b", "zone1").label("foo", "").obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(), zoneNode("node-y", "zone2").taints(taints).obj(),
			},
			pods: policyPods,
			want: map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(), zoneNode("node-b", "zone1").obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(), zoneNode("node-y", "zone2").label("foo", "").taints(taints).obj(),
			},
			pods: policyPods,
			want: map[string]framework.Code{"node-a": unsch, "node-b": ok, "node-x": ok, "node-y": unsch},
		},
		{
			name: "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(), zoneNode("node-b", "zone1").obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(), zoneNode("node-y", "zone2").label("foo", "").taints(taints).obj(),
			},
			pods: policyPods,
			want: map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": unsch},
		},
		{
			name: "two Constraints on zone, spreads = [3/3, 2/1]",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo", "bar"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo", "bar"), labelled("p-y3", "node-y", "foo"),
			},
			want: map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": ok, "node-y": ok},
		},
		{
			name: "two Constraints on zone, spreads = [3/4, 2/1]",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo", "bar"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo", "bar"), labelled("p-y3", "node-y", "foo"),
				labelled("p-y4", "node-y", "foo"),
			},
			want: map[string]framework.Code{"node-a": unsch, "node-b": unsch, "node-x": unsch, "node-y": unsch},
		},
	})
}

// TestFilterWithNominatedPodAdded follows preemption's use of AddPod: a
// pod nominated to node-x fills the only under-loaded domain.
func TestFilterWithNominatedPodAdded(t *testing.T) {
	pod := makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	pl, h := newTestPlugin(t, listArgs(), fourNodes(), []*v1.Pod{
		labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"), labelled("p-y1", "node-y", "foo"),
	})
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), cs, pod, h.Snapshot().List()); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(context.Background(), cs, pod, nodeInfo(t, h, "node-a")); st.Code() != unsch {
		t.Fatalf("before AddPod: node-a %v, want Unschedulable", st.Code())
	}
	added := cs.Clone()
	if st := pl.AddPod(context.Background(), added, pod, framework.NewPodInfo(labelled("n1", "node-x", "foo")), nodeInfo(t, h, "node-x")); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(context.Background(), added, pod, nodeInfo(t, h, "node-a")); !st.IsSuccess() {
		t.Errorf("after AddPod: node-a %v, want Success", st)
	}
	// All domains now hold 1: node-x takes its second pod within maxSkew.
	if st := pl.Filter(context.Background(), added, pod, nodeInfo(t, h, "node-x")); !st.IsSuccess() {
		t.Errorf("after AddPod: node-x %v, want Success", st)
	}
	// The original state is untouched by the clone's AddPod.
	if st := pl.Filter(context.Background(), cs, pod, nodeInfo(t, h, "node-a")); st.Code() != unsch {
		t.Errorf("original state: node-a %v, want Unschedulable", st.Code())
	}
}

func TestFilterWithoutPreFilter(t *testing.T) {
	pl, h := newTestPlugin(t, listArgs(), []*v1.Node{zoneNode("node-a", "zone1").obj()}, nil)
	st := pl.Filter(context.Background(), framework.NewCycleState(), makePod("p").obj(), nodeInfo(t, h, "node-a"))
	want := `reading "PreFilterPodTopologySpread" from cycleState: not found`
	if st.Code() != framework.Error || st.Message() != want {
		t.Errorf("Filter = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
}

func TestFilterEmptyState(t *testing.T) {
	pl, h := newTestPlugin(t, listArgs(), []*v1.Node{makeNode("node-a").obj()}, nil)
	cs := framework.NewCycleState()
	cs.Write(preFilterStateKey, &preFilterState{})
	if st := pl.Filter(context.Background(), cs, makePod("p").obj(), nodeInfo(t, h, "node-a")); !st.IsSuccess() {
		t.Errorf("Filter with empty state = %v, want Success", st)
	}
}
