package podtopologyspread

import (
	"context"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

const hostname = v1.LabelHostname

func hostNode(name string) *nodeBuilder { return makeNode(name).label(hostname, name) }

func TestPreScoreSkip(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		objs  []any
		args  *configv1.PodTopologySpreadArgs
	}{
		{
			name:  "the pod doesn't have soft topology spread Constraints",
			pod:   makePod("p").ns("default").obj(),
			args:  listArgs(),
			nodes: []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj()},
		},
		{
			name: "default constraints and a replicaset that doesn't match",
			pod: makePod("p").ns("default").label("foo", "bar").label("baz", "sup").
				owner("rs2", appsv1.SchemeGroupVersion.WithKind("ReplicaSet")).obj(),
			args:  listArgs(v1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "planet", WhenUnsatisfiable: v1.ScheduleAnyway}),
			nodes: []*v1.Node{makeNode("node-a").label("planet", "mars").obj()},
			objs: []any{&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "rs1"},
				Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tar", Operator: metav1.LabelSelectorOpExists}}}}}},
		},
		{
			name:  "system defaults and a pod no workload selects",
			pod:   makePod("p").ns("default").label("foo", "bar").obj(),
			args:  systemArgs(),
			nodes: []*v1.Node{hostNode("node-a").obj()},
		},
		{
			name: "no nodes in the cluster",
			pod:  makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			args: listArgs(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, tt.args, tt.nodes, nil, tt.objs...)
			cs := framework.NewCycleState()
			if st := pl.PreScore(context.Background(), cs, tt.pod, h.Snapshot().List()); !st.IsSkip() {
				t.Fatalf("PreScore = %v, want Skip", st)
			}
			if _, err := cs.Read(preScoreStateKey); err == nil {
				t.Error("state written although PreScore skipped")
			}
		})
	}
}

func i64(v int64) *int64 { return &v }

func checkPreScoreState(t *testing.T, want, got *preScoreState) {
	t.Helper()
	if !reflect.DeepEqual(want.Constraints, got.Constraints) {
		t.Errorf("constraints:\nwant %+v\n got %+v", want.Constraints, got.Constraints)
	}
	if !want.IgnoredNodes.Equal(got.IgnoredNodes) {
		t.Errorf("IgnoredNodes: want %v, got %v", sets.List(want.IgnoredNodes), sets.List(got.IgnoredNodes))
	}
	if !reflect.DeepEqual(want.TopologyValueToPodCounts, got.TopologyValueToPodCounts) {
		t.Errorf("TopologyValueToPodCounts: want %v, got %v", deref(want.TopologyValueToPodCounts), deref(got.TopologyValueToPodCounts))
	}
	if !reflect.DeepEqual(want.TopologyNormalizingWeight, got.TopologyNormalizingWeight) {
		t.Errorf("TopologyNormalizingWeight: want %v, got %v", want.TopologyNormalizingWeight, got.TopologyNormalizingWeight)
	}
}

func deref(in []map[string]*int64) []map[string]int64 {
	out := make([]map[string]int64, len(in))
	for i, m := range in {
		out[i] = map[string]int64{}
		for k, v := range m {
			out[i][k] = *v
		}
	}
	return out
}

func TestPreScoreState(t *testing.T) {
	withPolicies := func(c topologySpreadConstraint, na, nt v1.NodeInclusionPolicy) topologySpreadConstraint {
		c.NodeAffinityPolicy, c.NodeTaintsPolicy = na, nt
		return c
	}
	zoneBar := wantConstraint(t, 1, "zone", barSelector)
	policyNodes := func(xTaints bool) []*v1.Node {
		x := makeNode("node-x").label("zone", "zone2").label(hostname, "node-x")
		if xTaints {
			x.taints(taints)
		}
		return []*v1.Node{
			makeNode("node-a").label("zone", "zone1").label("foo", "").label(hostname, "node-a").obj(),
			makeNode("node-b").label("zone", "zone1").label("foo", "").label(hostname, "node-b").obj(),
			x.obj(),
		}
	}
	twoZones := []map[string]*int64{{"zone1": i64(0), "zone2": i64(0)}}
	rs1 := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "rs1"}, Spec: appsv1.ReplicaSetSpec{Selector: fooSelector}}
	rsKind := appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		pods  []*v1.Pod
		objs  []any
		args  *configv1.PodTopologySpreadArgs
		// infeasible nodes are left out of PreScore's filtered nodes.
		infeasible []string
		want       *preScoreState
	}{
		{
			name: "normal case",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				makeNode("node-a").label("zone", "zone1").label(hostname, "node-a").obj(),
				makeNode("node-b").label("zone", "zone1").label(hostname, "node-b").obj(),
				makeNode("node-x").label("zone", "zone2").label(hostname, "node-x").obj(),
			},
			args: listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{wantConstraint(t, 1, "zone", fooSelector), wantConstraint(t, 1, hostname, fooSelector)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  []map[string]*int64{{"zone1": i64(0), "zone2": i64(0)}, {}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2), topologyNormalizingWeight(3)},
			},
		},
		{
			name: "null selector",
			pod:  makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, nil, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				makeNode("node-a").label("zone", "zone1").label(hostname, "node-a").obj(),
				makeNode("node-b").label("zone", "zone1").label(hostname, "node-b").obj(),
				makeNode("node-x").label("zone", "zone2").label(hostname, "node-x").obj(),
			},
			args: listArgs(),
			want: &preScoreState{
				Constraints: []topologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", Selector: labels.Nothing(), MinDomains: 1,
					NodeAffinityPolicy: v1.NodeInclusionPolicyHonor, NodeTaintsPolicy: v1.NodeInclusionPolicyIgnore}},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name: "node-x doesn't have label zone",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			nodes: []*v1.Node{
				makeNode("node-a").label("zone", "zone1").label(hostname, "node-a").obj(),
				makeNode("node-b").label("zone", "zone1").label(hostname, "node-b").obj(),
				hostNode("node-x").obj(),
			},
			args: listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{wantConstraint(t, 1, "zone", fooSelector), wantConstraint(t, 1, hostname, barSelector)},
				IgnoredNodes:              sets.New("node-x"),
				TopologyValueToPodCounts:  []map[string]*int64{{"zone1": i64(0)}, {}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(1), topologyNormalizingWeight(2)},
			},
		},
		{
			name: "system default constraints and a replicaset",
			pod:  makePod("p").ns("default").label("foo", "tar").label("baz", "sup").owner("rs1", rsKind).obj(),
			args: systemArgs(),
			nodes: []*v1.Node{
				hostNode("node-a").label(v1.LabelTopologyZone, "mars").obj(),
				hostNode("node-b").label(v1.LabelTopologyZone, "mars").obj(),
				// Zoneless nodes are not ignored: they form the "" zone.
				hostNode("node-c").obj(),
				hostNode("node-d").obj(),
			},
			objs: []any{rs1},
			want: &preScoreState{
				Constraints: []topologySpreadConstraint{
					wantConstraint(t, 3, hostname, fooSelector),
					wantConstraint(t, 5, v1.LabelTopologyZone, fooSelector),
				},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  []map[string]*int64{{}, {"mars": i64(0), "": i64(0)}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(4), topologyNormalizingWeight(2)},
			},
		},
		{
			name: "default constraints and a replicaset",
			pod:  makePod("p").ns("default").label("foo", "tar").label("baz", "sup").owner("rs1", rsKind).obj(),
			args: listArgs(
				v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: hostname, WhenUnsatisfiable: v1.ScheduleAnyway},
				v1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "rack", WhenUnsatisfiable: v1.DoNotSchedule},
				v1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "planet", WhenUnsatisfiable: v1.ScheduleAnyway},
			),
			nodes: []*v1.Node{makeNode("node-a").label("rack", "rack1").label(hostname, "node-a").label("planet", "mars").obj()},
			objs:  []any{rs1},
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{wantConstraint(t, 1, hostname, fooSelector), wantConstraint(t, 2, "planet", fooSelector)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  []map[string]*int64{{}, {"mars": i64(0)}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(1), topologyNormalizingWeight(1)},
			},
		},
		{
			name: "default constraints and a replicaset, but pod has constraints",
			pod: makePod("p").ns("default").label("foo", "bar").label("baz", "sup").owner("rs1", rsKind).
				spread(1, "zone", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).
				spread(2, "planet", v1.ScheduleAnyway, matchLabels("baz", "sup"), nil, nil, nil, nil).obj(),
			args:  listArgs(v1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "galaxy", WhenUnsatisfiable: v1.ScheduleAnyway}),
			nodes: []*v1.Node{makeNode("node-a").label("planet", "mars").label("galaxy", "andromeda").obj()},
			objs:  []any{rs1},
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{wantConstraint(t, 2, "planet", matchLabels("baz", "sup"))},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  []map[string]*int64{{"mars": i64(0)}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(1)},
			},
		},
		{
			name: "counts cover all nodes, only for domains of feasible nodes",
			pod:  makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			args: listArgs(),
			nodes: []*v1.Node{
				zoneNode("node-a", "zone1").obj(), zoneNode("node-b", "zone1").obj(),
				zoneNode("node-x", "zone2").obj(), zoneNode("node-z", "zone3").obj(),
			},
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"),
				labelled("p-x1", "node-x", "bar"), labelled("p-z1", "node-z", "foo"),
				makePod("p-x2").node("node-x").label("foo", "").terminating().obj(),
			},
			infeasible: []string{"node-z"},
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{wantConstraint(t, 1, "zone", fooSelector)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  []map[string]*int64{{"zone1": i64(3), "zone2": i64(0)}},
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			nodes: policyNodes(false),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{zoneBar},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, &ignore, nil, nil).obj(),
			nodes: policyNodes(false),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{withPolicies(zoneBar, ignore, ignore)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			nodes: policyNodes(false),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{zoneBar},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, &ignore, nil, nil).obj(),
			nodes: policyNodes(false),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{withPolicies(zoneBar, ignore, ignore)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name:  "NodeTaintsPolicy honored",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, &honor, nil).obj(),
			nodes: policyNodes(true),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{withPolicies(zoneBar, honor, honor)},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
		{
			name:  "NodeTaintsPolicy ignored",
			pod:   makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			nodes: policyNodes(true),
			args:  listArgs(),
			want: &preScoreState{
				Constraints:               []topologySpreadConstraint{zoneBar},
				IgnoredNodes:              sets.New[string](),
				TopologyValueToPodCounts:  twoZones,
				TopologyNormalizingWeight: []float64{topologyNormalizingWeight(2)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, h := newTestPlugin(t, tt.args, tt.nodes, tt.pods, tt.objs...)
			cs := framework.NewCycleState()
			var filtered []*framework.NodeInfo
			for _, ni := range h.Snapshot().List() {
				if !sets.New(tt.infeasible...).Has(ni.Name()) {
					filtered = append(filtered, ni)
				}
			}
			if st := pl.PreScore(context.Background(), cs, tt.pod, filtered); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			got, err := getPreScoreState(cs)
			if err != nil {
				t.Fatal(err)
			}
			checkPreScoreState(t, tt.want, got)
		})
	}
}

func TestPreScoreInvalidSelector(t *testing.T) {
	pod := makePod("p").spread(1, "zone", v1.ScheduleAnyway, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "foo", Operator: "Bogus"}}}, nil, nil, nil, nil).obj()
	pl, h := newTestPlugin(t, listArgs(), fourNodes(), nil)
	st := pl.PreScore(context.Background(), framework.NewCycleState(), pod, h.Snapshot().List())
	want := `calculating preScoreState: obtaining pod's soft topology spread constraints: "Bogus" is not a valid label selector operator`
	if st.Code() != framework.Error || st.Message() != want {
		t.Errorf("PreScore = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
}
