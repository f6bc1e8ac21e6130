package podtopologyspread

import (
	"context"
	"math"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// fourNodes is upstream's usual cluster: zone1 {a, b}, zone2 {x, y}.
func fourNodes() []*v1.Node {
	return []*v1.Node{
		zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(),
		zoneNode("node-x", "zone2").obj(), zoneNode("node-y", "zone2").obj(),
	}
}

// labelled returns a pod bound to node with the given labels (values "").
func labelled(name, node string, keys ...string) *v1.Pod {
	b := makePod(name).node(node)
	for _, k := range keys {
		b.label(k, "")
	}
	return b.obj()
}

func paths(v0 string, n0 int, v1 string, n1 int) *criticalPaths {
	return &criticalPaths{{v0, n0}, {v1, n1}}
}

// normalized orders the two paths' values when their counts tie, as
// upstream's test comparer does: which of two equal domains is recorded
// first is an implementation detail.
func normalized(p criticalPaths) criticalPaths {
	if p[0].MatchNum == p[1].MatchNum && p[0].TopologyValue > p[1].TopologyValue {
		p[0].TopologyValue, p[1].TopologyValue = p[1].TopologyValue, p[0].TopologyValue
	}
	return p
}

func checkPreFilterState(t *testing.T, want, got *preFilterState) {
	t.Helper()
	if !reflect.DeepEqual(want.Constraints, got.Constraints) {
		t.Errorf("constraints:\nwant %+v\n got %+v", want.Constraints, got.Constraints)
	}
	if !reflect.DeepEqual(want.TpValueToMatchNum, got.TpValueToMatchNum) {
		t.Errorf("TpValueToMatchNum: want %v, got %v", want.TpValueToMatchNum, got.TpValueToMatchNum)
	}
	if len(want.CriticalPaths) != len(got.CriticalPaths) {
		t.Fatalf("CriticalPaths: want %d, got %d", len(want.CriticalPaths), len(got.CriticalPaths))
	}
	for i := range want.CriticalPaths {
		if w, g := normalized(*want.CriticalPaths[i]), normalized(*got.CriticalPaths[i]); w != g {
			t.Errorf("CriticalPaths[%d]: want %v, got %v", i, w, g)
		}
	}
}

func TestPreFilterState(t *testing.T) {
	zoneFoo := wantConstraint(t, 1, "zone", fooSelector)
	nodeFoo := wantConstraint(t, 1, "node", fooSelector)
	nodeBar := wantConstraint(t, 1, "node", barSelector)
	nodeBarIgnoreAffinity := nodeBar
	nodeBarIgnoreAffinity.NodeAffinityPolicy = v1.NodeInclusionPolicyIgnore
	nodeBarHonorTaints := nodeBar
	nodeBarHonorTaints.NodeTaintsPolicy = v1.NodeInclusionPolicyHonor
	zoneFooHonorTaints := zoneFoo
	zoneFooHonorTaints.NodeTaintsPolicy = v1.NodeInclusionPolicyHonor
	zoneFooIgnoreAffinity := zoneFoo
	zoneFooIgnoreAffinity.NodeAffinityPolicy = v1.NodeInclusionPolicyIgnore
	nodeFooIgnoreAffinity := nodeFoo
	nodeFooIgnoreAffinity.NodeAffinityPolicy = v1.NodeInclusionPolicyIgnore
	nodeFooHonorTaints := nodeFoo
	nodeFooHonorTaints.NodeTaintsPolicy = v1.NodeInclusionPolicyHonor

	threeNodes := func(cTaints bool) []*v1.Node {
		c := makeNode("node-c").label("node", "node-c").label("bar", "")
		if cTaints {
			c.taints(taints)
		}
		return []*v1.Node{
			makeNode("node-a").label("node", "node-a").label("foo", "").obj(),
			makeNode("node-b").label("node", "node-b").label("foo", "").obj(),
			c.obj(),
		}
	}
	barPods := []*v1.Pod{
		labelled("p-a", "node-a", "bar"), labelled("p-b", "node-b", "bar"),
		labelled("p-c", "node-b", "bar"), labelled("p-d", "node-c"),
	}
	// Upstream's taint cases use nodes without the foo label.
	taintNodes := []*v1.Node{
		makeNode("node-a").label("node", "node-a").obj(),
		makeNode("node-b").label("node", "node-b").obj(),
		makeNode("node-c").label("node", "node-c").taints(taints).label("bar", "").obj(),
	}
	fiveFooPods := []*v1.Pod{
		labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
		labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo"),
	}
	sevenFooPods := append(append([]*v1.Pod{}, fiveFooPods...), labelled("p-y3", "node-y", "foo"), labelled("p-y4", "node-y", "foo"))
	fooA := func(name, node string) *v1.Pod { return makePod(name).node(node).label("foo", "a").obj() }
	fooAPods := []*v1.Pod{fooA("p-a1", "node-a"), fooA("p-a2", "node-a"), fooA("p-b1", "node-b"), fooA("p-y1", "node-y"), fooA("p-y2", "node-y")}

	tests := []struct {
		name       string
		pod        *v1.Pod
		nodes      []*v1.Node
		pods       []*v1.Pod
		objs       []any
		defaults   []v1.TopologySpreadConstraint
		want       *preFilterState
		wantStatus *framework.Status
	}{
		{
			name:  "clean cluster with one spreadConstraint",
			pod:   makePod("p").label("foo", "").spread(5, "zone", v1.DoNotSchedule, matchLabels("foo", "bar"), nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 5, "zone", matchLabels("foo", "bar"))},
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			name:  "normal case with one spreadConstraint",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  fiveFooPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneFoo},
				CriticalPaths:     []*criticalPaths{paths("zone2", 2, "zone1", 3)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 2}},
			},
		},
		{
			name:  "normal case with null label selector",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  fiveFooPods,
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", Selector: labels.Nothing(), MinDomains: 1,
					NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore}},
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			// 1.37 counts no pods for an empty selector (it matches all).
			name:  "empty label selector counts no pods",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{}, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  fiveFooPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 1, "zone", &metav1.LabelSelector{})},
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			name: "normal case with one spreadConstraint, on a 3-zone cluster",
			pod:  makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: append(fourNodes(),
				zoneNode("node-o", "zone3").obj(), zoneNode("node-p", "zone3").obj()),
			pods: fiveFooPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneFoo},
				CriticalPaths:     []*criticalPaths{paths("zone3", 0, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 2, "zone3": 0}},
			},
		},
		{
			name:  "namespace mismatch doesn't count",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), makePod("p-a2").ns("ns1").node("node-a").label("foo", "").obj(),
				labelled("p-b1", "node-b", "foo"), makePod("p-y1").ns("ns2").node("node-y").label("foo", "").obj(),
				labelled("p-y2", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneFoo},
				CriticalPaths:     []*criticalPaths{paths("zone2", 1, "zone1", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 2, "zone2": 1}},
			},
		},
		{
			name:  "terminating pods don't count",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), makePod("p-a2").node("node-a").label("foo", "").terminating().obj(),
				labelled("p-y1", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneFoo},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}},
			},
		},
		{
			name: "normal case with two spreadConstraints",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  sevenFooPods,
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeFoo},
				CriticalPaths: []*criticalPaths{paths("zone1", 3, "zone2", 4), paths("node-x", 0, "node-b", 1)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 3, "zone2": 4},
					{"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4},
				},
			},
		},
		{
			name: "soft spreadConstraints should be bypassed",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(), zoneNode("node-y", "zone2").obj()},
			pods:  sevenFooPods,
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeFoo},
				CriticalPaths: []*criticalPaths{paths("zone1", 3, "zone2", 4), paths("node-b", 1, "node-a", 2)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 3, "zone2": 4},
					{"node-a": 2, "node-b": 1, "node-y": 4},
				},
			},
		},
		{
			name: "different labelSelectors - simple version",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(), zoneNode("node-y", "zone2").obj()},
			pods:  []*v1.Pod{labelled("p-a", "node-a", "foo"), labelled("p-b", "node-b", "bar")},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeBar},
				CriticalPaths: []*criticalPaths{paths("zone2", 0, "zone1", 1), paths("node-a", 0, "node-y", 0)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 1, "zone2": 0},
					{"node-a": 0, "node-b": 1, "node-y": 0},
				},
			},
		},
		{
			name: "different labelSelectors - complex pods",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(), zoneNode("node-y", "zone2").obj()},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo", "bar"), labelled("p-b1", "node-b", "foo"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo", "bar"), labelled("p-y3", "node-y", "foo"),
				labelled("p-y4", "node-y", "foo", "bar"),
			},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeBar},
				CriticalPaths: []*criticalPaths{paths("zone1", 3, "zone2", 4), paths("node-b", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 3, "zone2": 4},
					{"node-a": 1, "node-b": 0, "node-y": 2},
				},
			},
		},
		{
			name: "two spreadConstraints, and with podAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("node", v1.NodeSelectorOpNotIn, "node-x").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods:  sevenFooPods,
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeFoo},
				CriticalPaths: []*criticalPaths{paths("zone1", 3, "zone2", 4), paths("node-b", 1, "node-a", 2)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 3, "zone2": 4},
					{"node-a": 2, "node-b": 1, "node-y": 4},
				},
			},
		},
		{
			name: "default constraints and a service",
			pod:  makePod("p").label("foo", "bar").label("baz", "kar").obj(),
			defaults: []v1.TopologySpreadConstraint{
				{MaxSkew: 3, TopologyKey: "node", WhenUnsatisfiable: v1.DoNotSchedule},
				{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: v1.ScheduleAnyway},
				{MaxSkew: 5, TopologyKey: "rack", WhenUnsatisfiable: v1.DoNotSchedule},
			},
			objs: []any{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: v1.ServiceSpec{Selector: map[string]string{"foo": "bar"}}}},
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{
					wantConstraint(t, 3, "node", matchLabels("foo", "bar")),
					wantConstraint(t, 5, "rack", matchLabels("foo", "bar")),
				},
				CriticalPaths:     []*criticalPaths{newCriticalPaths(), newCriticalPaths()},
				TpValueToMatchNum: []map[string]int{{}, {}},
			},
		},
		{
			name:       "default constraints and a service that doesn't match",
			pod:        makePod("p").label("foo", "bar").obj(),
			defaults:   []v1.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: "node", WhenUnsatisfiable: v1.DoNotSchedule}},
			objs:       []any{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: v1.ServiceSpec{Selector: map[string]string{"baz": "kep"}}}},
			wantStatus: framework.NewStatus(framework.Skip),
		},
		{
			name: "default constraints and a service, but pod has constraints",
			pod: makePod("p").label("foo", "bar").label("baz", "tar").
				spread(1, "zone", v1.DoNotSchedule, matchLabels("baz", "tar"), nil, nil, nil, nil).
				spread(2, "planet", v1.ScheduleAnyway, matchLabels("fot", "rok"), nil, nil, nil, nil).obj(),
			defaults: []v1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: v1.DoNotSchedule}},
			objs:     []any{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: v1.ServiceSpec{Selector: map[string]string{"foo": "bar"}}}},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 1, "zone", matchLabels("baz", "tar"))},
				CriticalPaths:     []*criticalPaths{newCriticalPaths()},
				TpValueToMatchNum: []map[string]int{{}},
			},
		},
		{
			name:       "default soft constraints and a service",
			pod:        makePod("p").label("foo", "bar").obj(),
			defaults:   []v1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: v1.ScheduleAnyway}},
			objs:       []any{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: v1.ServiceSpec{Selector: map[string]string{"foo": "bar"}}}},
			wantStatus: framework.NewStatus(framework.Skip),
		},
		{
			name: "default constraints and an owning replicaset",
			pod: makePod("p").ns("default").label("foo", "bar").
				owner("rs1", appsv1.SchemeGroupVersion.WithKind("ReplicaSet")).obj(),
			defaults: []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}},
			nodes:    fourNodes(),
			pods: []*v1.Pod{
				makePod("p-a1").ns("default").node("node-a").label("foo", "bar").obj(),
				makePod("p-a2").ns("default").node("node-a").label("foo", "baz").obj(),
			},
			objs: []any{&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "rs1"}, Spec: appsv1.ReplicaSetSpec{Selector: matchLabels("foo", "bar")}}},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 1, "zone", matchLabels("foo", "bar"))},
				CriticalPaths:     []*criticalPaths{paths("zone2", 0, "zone1", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 0}},
			},
		},
		{
			name: "minDomains is carried into the constraint",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, ptrTo[int32](3), nil, nil, nil).obj(),
			nodes: fourNodes(),
			want: &preFilterState{
				Constraints: func() []topologySpreadConstraint {
					c := zoneFoo
					c.MinDomains = 3
					return []topologySpreadConstraint{c}
				}(),
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: threeNodes(false),
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBar},
				CriticalPaths:     []*criticalPaths{paths("node-a", 1, "node-b", 2)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2}},
			},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, &ignore, nil, nil).obj(),
			nodes: threeNodes(false),
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBarIgnoreAffinity},
				CriticalPaths:     []*criticalPaths{paths("node-c", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}},
			},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: threeNodes(false),
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBar},
				CriticalPaths:     []*criticalPaths{paths("node-a", 1, "node-b", 2)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2}},
			},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, &ignore, nil, nil).obj(),
			nodes: threeNodes(false),
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBarIgnoreAffinity},
				CriticalPaths:     []*criticalPaths{paths("node-c", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}},
			},
		},
		{
			name:  "NodeTaintsPolicy ignored",
			pod:   makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: taintNodes,
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBar},
				CriticalPaths:     []*criticalPaths{paths("node-c", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}},
			},
		},
		{
			name:  "NodeTaintsPolicy honored",
			pod:   makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, &honor, nil).obj(),
			nodes: taintNodes,
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBarHonorTaints},
				CriticalPaths:     []*criticalPaths{paths("node-a", 1, "node-b", 2)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2}},
			},
		},
		{
			name: "NodeTaintsPolicy honored with tolerated taints",
			pod: makePod("p").label("foo", "").toleration(v1.TaintNodeUnschedulable).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, &honor, nil).obj(),
			nodes: taintNodes,
			pods:  barPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBarHonorTaints},
				CriticalPaths:     []*criticalPaths{paths("node-c", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 2, "node-c": 0}},
			},
		},
		{
			name: "NodeTaintsPolicy honored ignores PreferNoSchedule taints",
			pod:  makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, &honor, nil).obj(),
			nodes: []*v1.Node{
				makeNode("node-a").label("node", "node-a").obj(),
				makeNode("node-c").label("node", "node-c").taints([]v1.Taint{{Key: "k", Effect: v1.TaintEffectPreferNoSchedule}}).obj(),
			},
			pods: []*v1.Pod{labelled("p-a", "node-a", "bar")},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeBarHonorTaints},
				CriticalPaths:     []*criticalPaths{paths("node-c", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-c": 0}},
			},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(),
				zoneNode("node-b", "zone1").obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(),
			},
			pods: []*v1.Pod{labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-x1", "node-x", "foo")},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeFooIgnoreAffinity},
				CriticalPaths: []*criticalPaths{paths("zone1", 0, "zone2", 1), paths("node-a", 0, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 0, "zone2": 1},
					{"node-a": 0, "node-b": 2, "node-x": 1},
				},
			},
		},
		{
			name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").label("foo", "").obj(),
				zoneNode("node-b", "zone1").taints(taints).obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(),
			},
			pods: []*v1.Pod{labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-x1", "node-x", "foo")},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFooHonorTaints, nodeFoo},
				CriticalPaths: []*criticalPaths{paths("zone1", 0, "zone2", 1), paths("node-a", 0, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 0, "zone2": 1},
					{"node-a": 0, "node-b": 2, "node-x": 1},
				},
			},
		},
		{
			name: "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").obj(),
				zoneNode("node-b", "zone1").label("foo", "").taints(taints).obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(),
				zoneNode("node-y", "zone2").obj(),
			},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, nodeFoo},
				CriticalPaths: []*criticalPaths{paths("zone1", 0, "zone2", 1), paths("node-b", 0, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 0, "zone2": 1},
					{"node-b": 0, "node-x": 1},
				},
			},
		},
		{
			name: "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, &ignore, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).obj(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").obj(),
				zoneNode("node-b", "zone1").label("foo", "").taints(taints).obj(),
				zoneNode("node-x", "zone2").label("foo", "").obj(),
				zoneNode("node-y", "zone2").label("foo", "").obj(),
			},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-x2", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFooIgnoreAffinity, nodeFooHonorTaints},
				CriticalPaths: []*criticalPaths{paths("zone1", 2, "zone2", 3), paths("node-y", 1, "node-x", 2)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 2, "zone2": 3},
					{"node-x": 2, "node-y": 1},
				},
			},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod: makePod("p").label("foo", "").label("bar", "a").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, []string{"bar"}).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), makePod("p-a2").node("node-a").label("foo", "").label("bar", "a").obj(),
				labelled("p-b1", "node-b", "foo"), makePod("p-y1").node("node-y").label("foo", "").label("bar", "a").obj(),
				labelled("p-y2", "node-y", "bar"),
			},
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{wantConstraint(t, 1, "zone",
					&metav1.LabelSelector{MatchLabels: map[string]string{"bar": "a"}, MatchExpressions: fooSelector.MatchExpressions})},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}},
			},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod: makePod("p").label("foo", "a").
				spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{}, nil, nil, nil, []string{"foo"}).obj(),
			nodes: fourNodes(),
			pods:  fooAPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 1, "zone", matchLabels("foo", "a"))},
				CriticalPaths:     []*criticalPaths{paths("zone2", 2, "zone1", 3)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 2}},
			},
		},
		{
			// What the API server stores with SelectorMerge: the key is
			// already in the selector; the scheduler's own merge is a no-op.
			name: "matchLabelKeys already merged by the API server",
			pod: makePod("p").label("foo", "a").
				spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "foo", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}}, nil, nil, nil, []string{"foo"}).obj(),
			nodes: fourNodes(),
			pods:  append(append([]*v1.Pod{}, fooAPods...), makePod("p-x1").node("node-x").label("foo", "b").obj()),
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", MinDomains: 1,
					Selector: mergeLabelSetWithSelector(labels.Set{"foo": "a"}, mustSelector(t, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "foo", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}})),
					NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore}},
				CriticalPaths:     []*criticalPaths{paths("zone2", 2, "zone1", 3)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 2}},
			},
		},
		{
			name: "key in matchLabelKeys is ignored when LabelSelector is nil",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, []string{"bar"}).obj(),
			nodes: fourNodes(),
			pods:  fooAPods,
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", Selector: labels.Nothing(), MinDomains: 1,
					NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore}},
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			// The pod has the key here, yet a nil selector stays Nothing.
			name: "matchLabelKeys don't turn a nil LabelSelector into a selector",
			pod: makePod("p").label("foo", "a").
				spread(1, "zone", v1.DoNotSchedule, nil, nil, nil, nil, []string{"foo"}).obj(),
			nodes: fourNodes(),
			pods:  fooAPods,
			want: &preFilterState{
				Constraints: []topologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", Selector: labels.Nothing(), MinDomains: 1,
					NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore}},
				CriticalPaths:     []*criticalPaths{paths("zone1", 0, "zone2", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0, "zone2": 0}},
			},
		},
		{
			name: "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, []string{"bar"}).obj(),
			nodes: fourNodes(),
			pods:  fooAPods,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneFoo},
				CriticalPaths:     []*criticalPaths{paths("zone2", 2, "zone1", 3)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 2}},
			},
		},
		{
			name: "two spreadConstraints with the same topologyKey",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo", "bar"), labelled("p-b1", "node-b", "foo"), labelled("p-x1", "node-x", "bar"),
				labelled("p-y1", "node-y", "foo", "bar"), labelled("p-y2", "node-y", "bar"),
			},
			want: &preFilterState{
				Constraints:   []topologySpreadConstraint{zoneFoo, wantConstraint(t, 1, "zone", barSelector)},
				CriticalPaths: []*criticalPaths{paths("zone2", 1, "zone1", 2), paths("zone1", 1, "zone2", 3)},
				TpValueToMatchNum: []map[string]int{
					{"zone1": 2, "zone2": 1},
					{"zone1": 1, "zone2": 3},
				},
			},
		},
		{
			name:       "skip if not specified",
			pod:        makePod("p").label("foo", "").obj(),
			nodes:      []*v1.Node{zoneNode("node-a", "zone1").obj()},
			wantStatus: framework.NewStatus(framework.Skip),
		},
		{
			name: "invalid label selector is an error",
			pod: makePod("p").spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "foo", Operator: "Bogus"}}}, nil, nil, nil, nil).obj(),
			nodes:      fourNodes(),
			wantStatus: framework.AsStatus(errorString(`get constraints from pod: obtaining pod's hard topology spread constraints: "Bogus" is not a valid label selector operator`)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, listArgs(tt.defaults...), tt.nodes, tt.pods, tt.objs...)
			cs := framework.NewCycleState()
			res, st := pl.PreFilter(context.Background(), cs, tt.pod, h.Snapshot().List())
			if res != nil {
				t.Errorf("PreFilterResult = %v, want nil", res)
			}
			if st.Code() != tt.wantStatus.Code() || st.Message() != tt.wantStatus.Message() {
				t.Fatalf("status = %v %q, want %v %q", st.Code(), st.Message(), tt.wantStatus.Code(), tt.wantStatus.Message())
			}
			if !st.IsSuccess() {
				if _, err := cs.Read(preFilterStateKey); err == nil {
					t.Error("state written although PreFilter did not succeed")
				}
				return
			}
			got, err := getPreFilterState(cs)
			if err != nil {
				t.Fatal(err)
			}
			checkPreFilterState(t, tt.want, got)
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestPreFilterStateAddPod(t *testing.T) {
	nodeC := wantConstraint(t, 1, "node", fooSelector)
	zoneC := wantConstraint(t, 1, "zone", fooSelector)
	nodeBar := wantConstraint(t, 1, "node", barSelector)
	twoNodes := func(b ...*nodeBuilder) []*v1.Node {
		out := make([]*v1.Node, len(b))
		for i := range b {
			out[i] = b[i].obj()
		}
		return out
	}
	zoneAndNode := func(p *podBuilder) *podBuilder {
		return p.spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
			spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil)
	}
	tests := []struct {
		name      string
		preemptor *v1.Pod
		addedPod  *v1.Pod
		pods      []*v1.Pod
		nodeIdx   int
		nodes     []*v1.Node
		want      *preFilterState
	}{
		{
			name:      "node a and b both impact current min match",
			preemptor: makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod:  labelled("p-a1", "node-a", "foo"),
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeC},
				CriticalPaths:     []*criticalPaths{paths("node-b", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 0}},
			},
		},
		{
			name:      "only node a impacts current min match",
			preemptor: makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod:  labelled("p-a1", "node-a", "foo"),
			pods:      []*v1.Pod{labelled("p-b1", "node-b", "foo")},
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeC},
				CriticalPaths:     []*criticalPaths{paths("node-a", 1, "node-b", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 1}},
			},
		},
		{
			name:      "add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
			preemptor: makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod:  makePod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
			pods:      []*v1.Pod{labelled("p-b1", "node-b", "foo")},
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeC},
				CriticalPaths:     []*criticalPaths{paths("node-a", 0, "node-b", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 0, "node-b": 1}},
			},
		},
		{
			name:      "add pod on non-critical node won't trigger re-calculation",
			preemptor: makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod:  labelled("p-b2", "node-b", "foo"),
			pods:      []*v1.Pod{labelled("p-b1", "node-b", "foo")},
			nodeIdx:   1,
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeC},
				CriticalPaths:     []*criticalPaths{paths("node-a", 0, "node-b", 2)},
				TpValueToMatchNum: []map[string]int{{"node-a": 0, "node-b": 2}},
			},
		},
		{
			name:      "node a and x both impact topologyKeyToMinPodsMap on zone and node",
			preemptor: zoneAndNode(makePod("p").label("foo", "")).obj(),
			addedPod:  labelled("p-a1", "node-a", "foo"),
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-x", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeC},
				CriticalPaths:     []*criticalPaths{paths("zone2", 0, "zone1", 1), paths("node-x", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}},
			},
		},
		{
			name:      "only node a impacts topologyKeyToMinPodsMap on zone and node",
			preemptor: zoneAndNode(makePod("p").label("foo", "")).obj(),
			addedPod:  labelled("p-a1", "node-a", "foo"),
			pods:      []*v1.Pod{labelled("p-x1", "node-x", "foo")},
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-x", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1), paths("node-a", 1, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}},
			},
		},
		{
			name:      "node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone",
			preemptor: zoneAndNode(makePod("p").label("foo", "")).obj(),
			addedPod:  labelled("p-a1", "node-a", "foo"),
			pods:      []*v1.Pod{labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"), labelled("p-x1", "node-x", "foo")},
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"), zoneNode("node-x", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeC},
				CriticalPaths:     []*criticalPaths{paths("zone2", 1, "zone1", 3), paths("node-a", 1, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}},
			},
		},
		{
			name: "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
			preemptor: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			addedPod: labelled("p-a1", "node-a", "foo"),
			pods:     []*v1.Pod{labelled("p-b1", "node-b", "foo", "bar"), labelled("p-x1", "node-x", "foo", "bar"), labelled("p-x2", "node-x", "bar")},
			nodes:    twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"), zoneNode("node-x", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeBar},
				CriticalPaths:     []*criticalPaths{paths("zone2", 1, "zone1", 2), paths("node-a", 0, "node-b", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}},
			},
		},
		{
			name: "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node",
			preemptor: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj(),
			addedPod: labelled("p-a1", "node-a", "foo", "bar"),
			pods:     []*v1.Pod{labelled("p-b1", "node-b", "bar"), labelled("p-x1", "node-x", "foo", "bar"), labelled("p-x2", "node-x", "bar")},
			nodes:    twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"), zoneNode("node-x", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeBar},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1), paths("node-a", 1, "node-b", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}},
			},
		},
		{
			name: "add a pod when scheduling node affinity unmatched pod",
			preemptor: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpNotIn, "bar").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod: makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
			pods: []*v1.Pod{
				makePod("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: twoNodes(zoneNode("node-a", "zone1").label("foo", "bar"), zoneNode("node-b", "zone2").label("foo", "")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{{{"zone2", 1}, {MatchNum: math.MaxInt32}}},
				TpValueToMatchNum: []map[string]int{{"zone2": 1}},
			},
		},
		{
			name:      "add a pod when scheduling node affinity matched pod",
			preemptor: makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodeIdx:   1,
			addedPod:  makePod("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			pods: []*v1.Pod{
				makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: twoNodes(zoneNode("node-a", "zone1").label("foo", "bar"), zoneNode("node-b", "zone2").label("foo", "")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 2}},
			},
		},
		{
			name:      "add a label selector not matched pod",
			preemptor: makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodeIdx:   1,
			addedPod:  makePod("p-b1").node("node-b").label("zone", "zone2").obj(),
			pods: []*v1.Pod{
				makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: twoNodes(zoneNode("node-a", "zone1").label("foo", "bar"), zoneNode("node-b", "zone2").label("foo", "")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}},
			},
		},
		{
			name:      "add a pod when scheduling taint untolerated pod (taints ignored)",
			preemptor: makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodeIdx:   1,
			addedPod:  makePod("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			pods: []*v1.Pod{
				makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: twoNodes(zoneNode("node-a", "zone1").taints(taints), zoneNode("node-b", "zone2")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 2}},
			},
		},
		{
			name: "add a pod on a tainted node with NodeTaintsPolicy honored is not counted",
			preemptor: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &honor, nil).obj(),
			addedPod: labelled("p-a2", "node-a", "foo"),
			pods:     []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo")},
			nodes:    twoNodes(zoneNode("node-a", "zone1").taints(taints), zoneNode("node-b", "zone2")),
			want: &preFilterState{
				Constraints: func() []topologySpreadConstraint {
					c := zoneC
					c.NodeTaintsPolicy = v1.NodeInclusionPolicyHonor
					return []topologySpreadConstraint{c}
				}(),
				CriticalPaths:     []*criticalPaths{{{"zone2", 1}, {MatchNum: math.MaxInt32}}},
				TpValueToMatchNum: []map[string]int{{"zone2": 1}},
			},
		},
		{
			// Unlike PreFilter's count, AddPod counts terminating pods.
			name:      "add a terminating pod is counted",
			preemptor: makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			addedPod:  makePod("p-a1").node("node-a").label("foo", "").terminating().obj(),
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{nodeC},
				CriticalPaths:     []*criticalPaths{paths("node-b", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 0}},
			},
		},
		{
			// Unlike PreFilter's count, AddPod counts pods an empty selector matches.
			name:      "add a pod under an empty selector is counted",
			preemptor: makePod("p").spread(1, "node", v1.DoNotSchedule, &metav1.LabelSelector{}, nil, nil, nil, nil).obj(),
			addedPod:  labelled("p-a1", "node-a"),
			pods:      []*v1.Pod{labelled("p-b1", "node-b")},
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{wantConstraint(t, 1, "node", &metav1.LabelSelector{})},
				CriticalPaths:     []*criticalPaths{paths("node-b", 0, "node-a", 1)},
				TpValueToMatchNum: []map[string]int{{"node-a": 1, "node-b": 0}},
			},
		},
		{
			name:      "add a pod on a node missing a topology key is ignored",
			preemptor: zoneAndNode(makePod("p").label("foo", "")).obj(),
			addedPod:  labelled("p-c1", "node-c", "foo"),
			nodeIdx:   2,
			nodes:     twoNodes(zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"), makeNode("node-c").label("zone", "zone1")),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeC},
				CriticalPaths:     []*criticalPaths{{{"zone1", 0}, {MatchNum: math.MaxInt32}}, paths("node-a", 0, "node-b", 0)},
				TpValueToMatchNum: []map[string]int{{"zone1": 0}, {"node-a": 0, "node-b": 0}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, listArgs(), tt.nodes, tt.pods)
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(context.Background(), cs, tt.preemptor, h.Snapshot().List()); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			if st := pl.AddPod(context.Background(), cs, tt.preemptor, framework.NewPodInfo(tt.addedPod), nodeInfo(t, h, tt.nodes[tt.nodeIdx].Name)); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			got, err := getPreFilterState(cs)
			if err != nil {
				t.Fatal(err)
			}
			checkPreFilterState(t, tt.want, got)
		})
	}
}

func TestPreFilterStateRemovePod(t *testing.T) {
	nodeC := wantConstraint(t, 1, "node", fooSelector)
	zoneC := wantConstraint(t, 1, "zone", fooSelector)
	zoneOnly := makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil)
	tests := []struct {
		name       string
		preemptor  *v1.Pod
		nodes      []*v1.Node
		pods       []*v1.Pod
		deletedIdx int     // index into pods, or -1 for deletedPod
		deletedPod *v1.Pod // when deletedIdx is -1
		nodeIdx    int
		want       *preFilterState
	}{
		{
			name:      "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
			preemptor: zoneOnly.obj(),
			nodes:     []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(), zoneNode("node-x", "zone2").obj()},
			pods:      []*v1.Pod{labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"), labelled("p-x1", "node-x", "foo")},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 1}},
			},
		},
		{
			name:      "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
			preemptor: zoneOnly.obj(),
			nodes:     fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 1, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 1, "zone2": 2}},
			},
		},
		{
			name:      "delete an irrelevant pod won't help",
			preemptor: zoneOnly.obj(),
			nodes:     fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a0", "node-a", "bar"), labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 2, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 2, "zone2": 2}},
			},
		},
		{
			name:      "delete a non-existing pod won't help",
			preemptor: zoneOnly.obj(),
			nodes:     fourNodes(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo"),
			},
			deletedIdx: -1,
			deletedPod: labelled("p-a0", "node-a", "bar"),
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone1", 2, "zone2", 2)},
				TpValueToMatchNum: []map[string]int{{"zone1": 2, "zone2": 2}},
			},
		},
		{
			name: "two spreadConstraints",
			preemptor: makePod("p").label("foo", "").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
				spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(), zoneNode("node-x", "zone2").obj()},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo"),
				labelled("p-x1", "node-x", "foo"), labelled("p-x2", "node-x", "foo"),
			},
			deletedIdx: 3,
			nodeIdx:    2,
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC, nodeC},
				CriticalPaths:     []*criticalPaths{paths("zone2", 1, "zone1", 3), paths("node-b", 1, "node-x", 1)},
				TpValueToMatchNum: []map[string]int{{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}},
			},
		},
		{
			name: "remove a pod when scheduling node affinity unmatched pod",
			preemptor: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpNotIn, "bar").
				spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj(),
			deletedIdx: -1,
			deletedPod: makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
			pods: []*v1.Pod{
				makePod("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: []*v1.Node{zoneNode("node-a", "zone1").label("foo", "bar").obj(), zoneNode("node-b", "zone2").label("foo", "").obj()},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{{{"zone2", 1}, {MatchNum: math.MaxInt32}}},
				TpValueToMatchNum: []map[string]int{{"zone2": 1}},
			},
		},
		{
			name:       "remove a pod when scheduling node affinity matched pod",
			preemptor:  zoneOnly.obj(),
			nodeIdx:    1,
			deletedIdx: -1,
			deletedPod: makePod("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			pods: []*v1.Pod{
				makePod("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
				makePod("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj(),
			},
			nodes: []*v1.Node{zoneNode("node-a", "zone1").label("foo", "bar").obj(), zoneNode("node-b", "zone2").label("foo", "").obj()},
			want: &preFilterState{
				Constraints:       []topologySpreadConstraint{zoneC},
				CriticalPaths:     []*criticalPaths{paths("zone2", 0, "zone1", 1)},
				TpValueToMatchNum: []map[string]int{{"zone2": 0, "zone1": 1}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, listArgs(), tt.nodes, tt.pods)
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(context.Background(), cs, tt.preemptor, h.Snapshot().List()); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			deleted := tt.deletedPod
			if tt.deletedIdx >= 0 {
				deleted = tt.pods[tt.deletedIdx]
			}
			if st := pl.RemovePod(context.Background(), cs, tt.preemptor, framework.NewPodInfo(deleted), nodeInfo(t, h, tt.nodes[tt.nodeIdx].Name)); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			got, err := getPreFilterState(cs)
			if err != nil {
				t.Fatal(err)
			}
			checkPreFilterState(t, tt.want, got)
		})
	}
}

// TestPreFilterStateClone checks that a clone's counts are independent, as
// preemption evaluates each candidate node on its own clone.
func TestPreFilterStateClone(t *testing.T) {
	pod := makePod("p").label("foo", "").spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	nodes := []*v1.Node{zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj()}
	pl, h := newTestPlugin(t, listArgs(), nodes, []*v1.Pod{labelled("p-b1", "node-b", "foo")})
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), cs, pod, h.Snapshot().List()); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	clone := cs.Clone()
	if st := pl.AddPod(context.Background(), clone, pod, framework.NewPodInfo(labelled("p-a1", "node-a", "foo")), nodeInfo(t, h, "node-a")); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	orig, _ := getPreFilterState(cs)
	cloned, _ := getPreFilterState(clone)
	if orig.TpValueToMatchNum[0]["node-a"] != 0 || orig.CriticalPaths[0][0].MatchNum != 0 {
		t.Errorf("original state changed through its clone: %v %v", orig.TpValueToMatchNum, *orig.CriticalPaths[0])
	}
	if cloned.TpValueToMatchNum[0]["node-a"] != 1 || cloned.CriticalPaths[0][0].MatchNum != 1 {
		t.Errorf("clone not updated: %v %v", cloned.TpValueToMatchNum, *cloned.CriticalPaths[0])
	}
}

func TestPreFilterExtensionsWithoutState(t *testing.T) {
	pl, h := newTestPlugin(t, listArgs(), []*v1.Node{zoneNode("node-a", "zone1").obj()}, nil)
	cs := framework.NewCycleState()
	pi := framework.NewPodInfo(labelled("p-a1", "node-a", "foo"))
	want := `reading "PreFilterPodTopologySpread" from cycleState: not found`
	if st := pl.AddPod(context.Background(), cs, makePod("p").obj(), pi, nodeInfo(t, h, "node-a")); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("AddPod = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
	if st := pl.RemovePod(context.Background(), cs, makePod("p").obj(), pi, nodeInfo(t, h, "node-a")); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("RemovePod = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
}
