package podtopologyspread

import (
	"context"
	"math"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// fooPods places n pods labelled foo on node, named <prefix>1..n.
func fooPods(prefix, node string, n int) []*v1.Pod {
	var out []*v1.Pod
	for i := 1; i <= n; i++ {
		out = append(out, labelled(prefix+string(rune('0'+i)), node, "foo"))
	}
	return out
}

func concat(lists ...[]*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestPodTopologySpreadScore ports upstream's cases. As upstream, the
// plugin runs with System defaulting; pods with explicit constraints
// therefore still require every topology key.
func TestPodTopologySpreadScore(t *testing.T) {
	hostFoo := func(maxSkew int32) *v1.Pod {
		return makePod("p").label("foo", "").spread(maxSkew, hostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj()
	}
	abcd := []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj(), hostNode("node-c").obj(), hostNode("node-d").obj()}
	spread2103 := concat(fooPods("p-a", "node-a", 2), fooPods("p-b", "node-b", 1), fooPods("p-d", "node-d", 3))
	spread4321 := concat(fooPods("p-a", "node-a", 4), fooPods("p-b", "node-b", 3), fooPods("p-c", "node-c", 2), fooPods("p-d", "node-d", 1))
	spread4213 := concat(fooPods("p-a", "node-a", 4), fooPods("p-b", "node-b", 2), fooPods("p-x", "node-x", 1), fooPods("p-y", "node-y", 3))
	zoneHost := func(name, zone string) *v1.Node {
		return makeNode(name).label("zone", zone).label(hostname, name).obj()
	}
	fourZoneHost := []*v1.Node{zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"), zoneHost("node-x", "zone2"), zoneHost("node-y", "zone2")}
	nodeNodes := func(cFoo bool, cTaints bool) []*v1.Node {
		c := makeNode("node-c").label("node", "node-c")
		if cTaints {
			c.taints(taints)
		}
		a := makeNode("node-a").label("node", "node-a")
		b := makeNode("node-b").label("node", "node-b")
		if cFoo {
			a.label("foo", "")
			b.label("foo", "")
		}
		return []*v1.Node{a.obj(), b.obj(), c.obj()}
	}
	policyPods := concat(fooPods("p-a", "node-a", 2), fooPods("p-b", "node-b", 1), fooPods("p-c", "node-c", 1))
	abcdZones := []*v1.Node{zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"), zoneHost("node-c", "zone2"), zoneHost("node-d", "zone2")}

	tests := []struct {
		name        string
		pod         *v1.Pod
		pods        []*v1.Pod
		nodes       []*v1.Node // candidates
		failedNodes []*v1.Node // nodes + failedNodes = all nodes
		objs        []any
		want        framework.NodeScoreList
	}{
		{
			name:  "one constraint on node, no existing pods",
			pod:   hostFoo(1),
			nodes: []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj()},
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}},
		},
		{
			name:        "one constraint on node, only one node is candidate",
			pod:         hostFoo(1),
			pods:        concat(fooPods("p-a", "node-a", 2), fooPods("p-b", "node-b", 1)),
			nodes:       []*v1.Node{hostNode("node-a").obj()},
			failedNodes: []*v1.Node{hostNode("node-b").obj()},
			want:        framework.NodeScoreList{{Name: "node-a", Score: 100}},
		},
		{
			name:  "one constraint on node, all nodes have the same number of matching pods",
			pod:   hostFoo(1),
			pods:  concat(fooPods("p-a", "node-a", 1), fooPods("p-b", "node-b", 1)),
			nodes: []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj()},
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}},
		},
		{
			name:  "one constraint on node, all 4 nodes are candidates",
			pod:   hostFoo(1),
			pods:  spread2103,
			nodes: abcd,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 20}, {Name: "node-b", Score: 60}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 0}},
		},
		{
			name:  "one constraint on node, null selector",
			pod:   makePod("p").label("foo", "").spread(1, hostname, v1.ScheduleAnyway, nil, nil, nil, nil, nil).obj(),
			pods:  spread2103,
			nodes: abcd,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 100}},
		},
		{
			name:  "one constraint on node, empty selector counts nothing",
			pod:   makePod("p").label("foo", "").spread(1, hostname, v1.ScheduleAnyway, &metav1.LabelSelector{}, nil, nil, nil, nil).obj(),
			pods:  spread2103,
			nodes: abcd,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 100}},
		},
		{
			name:  "one constraint on node, all 4 nodes are candidates, maxSkew=2",
			pod:   hostFoo(2),
			pods:  spread2103,
			nodes: abcd,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 33}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 16}},
		},
		{
			name:  "one constraint on node, all 4 nodes are candidates, maxSkew=3",
			pod:   hostFoo(3),
			pods:  spread4321,
			nodes: abcd,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 44}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 77}, {Name: "node-d", Score: 100}},
		},
		{
			name:  "system defaulting, nodes don't have zone, pods match service",
			pod:   makePod("p").label("foo", "").obj(),
			pods:  spread4321,
			nodes: abcd,
			objs:  []any{&v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: v1.ServiceSpec{Selector: map[string]string{"foo": ""}}}},
			// Same scores as a single hostname constraint with maxSkew 3.
			want: framework.NodeScoreList{{Name: "node-a", Score: 44}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 77}, {Name: "node-d", Score: 100}},
		},
		{
			name:        "one constraint on node, 3 out of 4 nodes are candidates",
			pod:         hostFoo(1),
			pods:        spread4213,
			nodes:       []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj(), hostNode("node-x").obj()},
			failedNodes: []*v1.Node{hostNode("node-y").obj()},
			want:        framework.NodeScoreList{{Name: "node-a", Score: 33}, {Name: "node-b", Score: 83}, {Name: "node-x", Score: 100}},
		},
		{
			name:        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
			pod:         hostFoo(1),
			pods:        spread4213,
			nodes:       []*v1.Node{hostNode("node-a").obj(), makeNode("node-b").label("n", "node-b").obj(), hostNode("node-x").obj()},
			failedNodes: []*v1.Node{hostNode("node-y").obj()},
			want:        framework.NodeScoreList{{Name: "node-a", Score: 16}, {Name: "node-b", Score: 0}, {Name: "node-x", Score: 100}},
		},
		{
			name:        "one constraint on zone, 3 out of 4 nodes are candidates",
			pod:         makePod("p").label("foo", "").spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			pods:        spread4213,
			nodes:       fourZoneHost[:3],
			failedNodes: fourZoneHost[3:],
			want:        framework.NodeScoreList{{Name: "node-a", Score: 75}, {Name: "node-b", Score: 75}, {Name: "node-x", Score: 100}},
		},
		{
			name: "two Constraints on zone and node, 2 out of 4 nodes are candidates",
			pod: makePod("p").label("foo", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			pods:        concat(fooPods("p-a", "node-a", 2), fooPods("p-b", "node-b", 1), fooPods("p-x", "node-x", 2), fooPods("p-y", "node-y", 4)),
			nodes:       []*v1.Node{fourZoneHost[0], fourZoneHost[2]},
			failedNodes: []*v1.Node{fourZoneHost[1], fourZoneHost[3]},
			want:        framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-x", Score: 63}},
		},
		{
			name: "two Constraints on zone, 2 out of 4 nodes are candidates",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, "zone", v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo", "bar"), labelled("p-a2", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "foo", "bar"), labelled("p-y3", "node-y", "foo"),
			},
			nodes:       []*v1.Node{makeNode("node-a").label("zone", "zone1").obj(), makeNode("node-x").label("zone", "zone2").obj()},
			failedNodes: []*v1.Node{makeNode("node-b").label("zone", "zone1").obj(), makeNode("node-y").label("zone", "zone2").obj()},
			want:        framework.NodeScoreList{{Name: "node-a", Score: 85}, {Name: "node-x", Score: 100}},
		},
		{
			// zone (foo): 2/2/1/1; hostname (bar): 0/1/0/1.
			name: "two Constraints on zone and node, with different labelSelectors",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "bar"),
			},
			nodes: fourZoneHost,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-x", Score: 100}, {Name: "node-y", Score: 60}},
		},
		{
			// zone (foo): 0/0/2/2; hostname (bar): 0/1/0/1.
			name: "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			pods: []*v1.Pod{
				labelled("p-b1", "node-b", "bar"), labelled("p-x1", "node-x", "foo"), labelled("p-y1", "node-y", "foo", "bar"),
			},
			nodes: fourZoneHost,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 60}, {Name: "node-x", Score: 40}, {Name: "node-y", Score: 0}},
		},
		{
			// zone (foo): 2/2/1/~1~; hostname (bar): 0/1/0/~1~.
			name: "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, nil).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-y", "foo"), labelled("p-y2", "node-y", "bar"),
			},
			nodes:       fourZoneHost[:3],
			failedNodes: fourZoneHost[3:],
			want:        framework.NodeScoreList{{Name: "node-a", Score: 50}, {Name: "node-b", Score: 25}, {Name: "node-x", Score: 100}},
		},
		{
			name: "existing pods in a different namespace do not count",
			pod:  hostFoo(1),
			pods: []*v1.Pod{
				makePod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(), labelled("p-a2", "node-a", "foo"),
				labelled("p-b1", "node-b", "foo"), labelled("p-b2", "node-b", "foo"),
			},
			nodes: []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj()},
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 33}},
		},
		{
			name:  "terminating Pods should be excluded",
			pod:   hostFoo(1),
			nodes: []*v1.Node{hostNode("node-a").obj(), hostNode("node-b").obj()},
			pods:  []*v1.Pod{makePod("p-a").node("node-a").label("foo", "").terminating().obj(), labelled("p-b", "node-b", "foo")},
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 0}},
		},
		{
			name:  "minDomains has no effect when ScheduleAnyway",
			pod:   makePod("p").label("foo", "").spread(2, "node", v1.ScheduleAnyway, fooSelector, ptrTo[int32](10), nil, nil, nil).obj(),
			nodes: []*v1.Node{makeNode("node-a").label("node", "node-a").obj(), makeNode("node-b").label("node", "node-b").obj(), makeNode("node-c").label("node", "node-c").obj()},
			pods:  concat(fooPods("p-a", "node-a", 2), fooPods("p-b", "node-b", 2), fooPods("p-c", "node-c", 1)),
			want:  framework.NodeScoreList{{Name: "node-a", Score: 75}, {Name: "node-b", Score: 75}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			nodes: nodeNodes(true, false),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: makePod("p").label("foo", "").nodeSelector(map[string]string{"foo": ""}).
				spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: nodeNodes(true, false),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			nodes: nodeNodes(true, false),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: makePod("p").label("foo", "").nodeAffinity("foo", v1.NodeSelectorOpIn, "").
				spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, &ignore, nil, nil).obj(),
			nodes: nodeNodes(true, false),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			name:  "NodeTaintsPolicy honored",
			pod:   makePod("p").label("foo", "").spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, &honor, nil).obj(),
			nodes: nodeNodes(false, true),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name:  "NodeTaintsPolicy ignored",
			pod:   makePod("p").label("foo", "").spread(1, "node", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj(),
			nodes: nodeNodes(false, true),
			pods:  policyPods,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			// With matchLabelKeys honoured (1.37), baz="" is ANDed into both
			// selectors and no existing pod has baz: all nodes tie.
			name: "matchLabelKeys ANDed with LabelSelector narrows the counted pods",
			pod: makePod("p").label("foo", "").label("bar", "").label("baz", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, []string{"baz"}).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, []string{"baz"}).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-c", "foo"), labelled("p-y2", "node-c", "bar"),
			},
			nodes: abcdZones,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 100}},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod: makePod("p").label("foo", "").label("bar", "").
				spread(1, "zone", v1.ScheduleAnyway, &metav1.LabelSelector{}, nil, nil, nil, []string{"foo"}).
				spread(1, hostname, v1.ScheduleAnyway, &metav1.LabelSelector{}, nil, nil, nil, []string{"bar"}).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar"),
				labelled("p-y1", "node-c", "foo"), labelled("p-y2", "node-c", "bar"),
			},
			nodes: abcdZones,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-c", Score: 60}, {Name: "node-d", Score: 100}},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod: makePod("p").label("foo", "").label("bar", "").label("baz", "").
				spread(1, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
				spread(1, hostname, v1.ScheduleAnyway, barSelector, nil, nil, nil, []string{"baz"}).obj(),
			pods: []*v1.Pod{
				labelled("p-a1", "node-a", "foo"), labelled("p-b1", "node-b", "foo", "bar", "baz"),
				labelled("p-c1", "node-c", "foo"), labelled("p-c2", "node-c", "bar"), labelled("p-d3", "node-c", "bar", "baz"),
			},
			nodes: abcdZones,
			want:  framework.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-c", Score: 60}, {Name: "node-d", Score: 100}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := append(append([]*v1.Node{}, tt.nodes...), tt.failedNodes...)
			pl, h := newTestPlugin(t, systemArgs(), all, tt.pods, tt.objs...)
			var candidates []*framework.NodeInfo
			for _, n := range tt.nodes {
				candidates = append(candidates, nodeInfo(t, h, n.Name))
			}
			got := runScore(t, pl, tt.pod, candidates)
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("scores = %v, want %v", got, tt.want)
			}
		})
	}
}

func runScore(t *testing.T, pl *PodTopologySpread, pod *v1.Pod, candidates []*framework.NodeInfo) framework.NodeScoreList {
	t.Helper()
	ctx := context.Background()
	cs := framework.NewCycleState()
	if st := pl.PreScore(ctx, cs, pod, candidates); !st.IsSuccess() {
		t.Fatalf("PreScore: %v", st)
	}
	var got framework.NodeScoreList
	for _, ni := range candidates {
		s, st := pl.Score(ctx, cs, pod, ni)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), st)
		}
		got = append(got, framework.NodeScore{Name: ni.Name(), Score: s})
	}
	if st := pl.ScoreExtensions().NormalizeScore(ctx, cs, pod, got); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
	}
	return got
}

// TestRawScores pins the raw (pre-normalization) scores, which the
// differential suite compares too: Σ cnt·ln(size+2) + (maxSkew-1), rounded.
func TestRawScores(t *testing.T) {
	pod := makePod("p").label("foo", "").
		spread(2, "zone", v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).
		spread(1, hostname, v1.ScheduleAnyway, fooSelector, nil, nil, nil, nil).obj()
	zoneHost := func(name, zone string) *v1.Node {
		return makeNode(name).label("zone", zone).label(hostname, name).obj()
	}
	nodes := []*v1.Node{zoneHost("node-a", "zone1"), zoneHost("node-b", "zone1"), zoneHost("node-x", "zone2"), hostNode("node-n").obj()}
	pods := concat(fooPods("p-a", "node-a", 3), fooPods("p-b", "node-b", 1), fooPods("p-x", "node-x", 1))
	pl, h := newTestPlugin(t, listArgs(), nodes, pods)
	ctx := context.Background()
	cs := framework.NewCycleState()
	if st := pl.PreScore(ctx, cs, pod, h.Snapshot().List()); !st.IsSuccess() {
		t.Fatal(st)
	}
	// node-n lacks "zone": ignored. Zone weight ln(2+2), hostname weight
	// ln(3+2) (4 filtered minus 1 ignored).
	zw, hw := math.Log(4), math.Log(5)
	want := map[string]int64{
		"node-a": int64(math.Round(4*zw + 1 + 3*hw)),
		"node-b": int64(math.Round(4*zw + 1 + 1*hw)),
		"node-x": int64(math.Round(1*zw + 1 + 1*hw)),
		"node-n": 0,
	}
	raw := framework.NodeScoreList{}
	for _, name := range []string{"node-a", "node-b", "node-x", "node-n"} {
		s, st := pl.Score(ctx, cs, pod, nodeInfo(t, h, name))
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		if s != want[name] {
			t.Errorf("raw %s = %d, want %d", name, s, want[name])
		}
		raw = append(raw, framework.NodeScore{Name: name, Score: s})
	}
	if st := pl.NormalizeScore(ctx, cs, pod, raw); !st.IsSuccess() {
		t.Fatal(st)
	}
	maxS, minS := want["node-a"], want["node-x"]
	for _, ns := range raw {
		w := int64(0)
		if ns.Name != "node-n" {
			w = 100 * (maxS + minS - want[ns.Name]) / maxS
		}
		if ns.Score != w {
			t.Errorf("normalized %s = %d, want %d", ns.Name, ns.Score, w)
		}
	}
}

func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		ignored []string
		in      framework.NodeScoreList
		want    framework.NodeScoreList
	}{
		{
			name: "all zero scores become 100",
			in:   framework.NodeScoreList{{Name: "a", Score: 0}, {Name: "b", Score: 0}},
			want: framework.NodeScoreList{{Name: "a", Score: 100}, {Name: "b", Score: 100}},
		},
		{
			name: "max+min-s over max",
			in:   framework.NodeScoreList{{Name: "a", Score: 7}, {Name: "b", Score: 3}, {Name: "c", Score: 5}},
			want: framework.NodeScoreList{{Name: "a", Score: 42}, {Name: "b", Score: 100}, {Name: "c", Score: 71}},
		},
		{
			name:    "ignored nodes score 0 and don't shift min/max",
			ignored: []string{"b"},
			in:      framework.NodeScoreList{{Name: "a", Score: 4}, {Name: "b", Score: 0}, {Name: "c", Score: 2}},
			want:    framework.NodeScoreList{{Name: "a", Score: 50}, {Name: "b", Score: 0}, {Name: "c", Score: 100}},
		},
		{
			name:    "only ignored nodes",
			ignored: []string{"a"},
			in:      framework.NodeScoreList{{Name: "a", Score: 0}},
			want:    framework.NodeScoreList{{Name: "a", Score: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := framework.NewCycleState()
			cs.Write(preScoreStateKey, &preScoreState{IgnoredNodes: sets.New(tt.ignored...)})
			pl := &PodTopologySpread{}
			if st := pl.NormalizeScore(context.Background(), cs, makePod("p").obj(), tt.in); !st.IsSuccess() {
				t.Fatal(st)
			}
			if !reflect.DeepEqual(tt.in, tt.want) {
				t.Errorf("got %v, want %v", tt.in, tt.want)
			}
		})
	}
}

func TestScoreWithoutPreScore(t *testing.T) {
	pl, h := newTestPlugin(t, listArgs(), []*v1.Node{hostNode("node-a").obj()}, nil)
	want := `error reading "PreScorePodTopologySpread" from cycleState: not found`
	if _, st := pl.Score(context.Background(), framework.NewCycleState(), makePod("p").obj(), nodeInfo(t, h, "node-a")); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("Score = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
	if st := pl.NormalizeScore(context.Background(), framework.NewCycleState(), makePod("p").obj(), nil); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("NormalizeScore = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
}
