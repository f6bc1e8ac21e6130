package tainttoleration

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func nodeWithTaints(name string, taints ...v1.Taint) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{Taints: taints}}
}

func podWithTolerations(tols ...v1.Toleration) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Tolerations: tols}}
}

func nodeInfo(n *v1.Node) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return ni
}

func prefer(key, value string) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: v1.TaintEffectPreferNoSchedule}
}

func tolPrefer(key, value string) v1.Toleration {
	return v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: value, Effect: v1.TaintEffectPreferNoSchedule}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		raw   []int64
		want  framework.NodeScoreList
	}{
		{
			name:  "node with taints tolerated by the pod gets a higher score than those with intolerable taints",
			pod:   podWithTolerations(tolPrefer("foo", "bar")),
			nodes: []*v1.Node{nodeWithTaints("nodeA", prefer("foo", "bar")), nodeWithTaints("nodeB", prefer("foo", "blah"))},
			raw:   []int64{0, 1},
			want:  framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 0}},
		},
		{
			name: "nodes whose taints are all tolerated get the same score, however many",
			pod:  podWithTolerations(tolPrefer("cpu-type", "arm64"), tolPrefer("disk-type", "ssd")),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA"),
				nodeWithTaints("nodeB", prefer("cpu-type", "arm64")),
				nodeWithTaints("nodeC", prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")),
			},
			raw:  []int64{0, 0, 0},
			want: framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 100}, {Name: "nodeC", Score: 100}},
		},
		{
			name: "the more intolerable taints a node has, the lower its score",
			pod:  podWithTolerations(tolPrefer("foo", "bar")),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA"),
				nodeWithTaints("nodeB", prefer("cpu-type", "arm64")),
				nodeWithTaints("nodeC", prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")),
			},
			raw:  []int64{0, 1, 2},
			want: framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 50}, {Name: "nodeC", Score: 0}},
		},
		{
			name: "only PreferNoSchedule taints and tolerations count",
			pod: podWithTolerations(
				v1.Toleration{Key: "cpu-type", Operator: v1.TolerationOpEqual, Value: "arm64", Effect: v1.TaintEffectNoSchedule},
				v1.Toleration{Key: "disk-type", Operator: v1.TolerationOpEqual, Value: "ssd", Effect: v1.TaintEffectNoSchedule},
			),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA"),
				nodeWithTaints("nodeB", v1.Taint{Key: "cpu-type", Value: "arm64", Effect: v1.TaintEffectNoSchedule}),
				nodeWithTaints("nodeC", prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")),
			},
			raw:  []int64{0, 0, 2},
			want: framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 100}, {Name: "nodeC", Score: 0}},
		},
		{
			name:  "no tolerations: lands on the node without taints",
			pod:   podWithTolerations(),
			nodes: []*v1.Node{nodeWithTaints("nodeA"), nodeWithTaints("nodeB", prefer("cpu-type", "arm64"))},
			raw:   []int64{0, 1},
			want:  framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 0}},
		},
		{
			name:  "a toleration without effect matches PreferNoSchedule taints",
			pod:   podWithTolerations(v1.Toleration{Key: "foo", Operator: v1.TolerationOpExists}),
			nodes: []*v1.Node{nodeWithTaints("nodeA", prefer("foo", "x")), nodeWithTaints("nodeB", prefer("bar", "x"))},
			raw:   []int64{0, 1},
			want:  framework.NodeScoreList{{Name: "nodeA", Score: 100}, {Name: "nodeB", Score: 0}},
		},
		{
			name: "Gt toleration tolerates nothing with the gate off",
			pod: podWithTolerations(v1.Toleration{
				Key: "node.kubernetes.io/sla", Operator: v1.TolerationOpGt, Value: "950", Effect: v1.TaintEffectPreferNoSchedule,
			}),
			nodes: []*v1.Node{nodeWithTaints("nodeA", prefer("node.kubernetes.io/sla", "800")), nodeWithTaints("nodeB", prefer("node.kubernetes.io/sla", "999"))},
			raw:   []int64{1, 1},
			want:  framework.NodeScoreList{{Name: "nodeA", Score: 0}, {Name: "nodeB", Score: 0}},
		},
		{
			name:  "integer truncation in the reversed normalization",
			pod:   podWithTolerations(),
			nodes: []*v1.Node{nodeWithTaints("a", prefer("x", "")), nodeWithTaints("b", prefer("x", ""), prefer("y", ""), prefer("z", ""))},
			raw:   []int64{1, 3},
			want:  framework.NodeScoreList{{Name: "a", Score: 67}, {Name: "b", Score: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, _ := New(nil, frameworktest.NewHandle(nil, nil))
			pl := p.(*TaintToleration)
			cs := framework.NewCycleState()
			if s := pl.PreScore(ctx, cs, tt.pod, nil); !s.IsSuccess() {
				t.Fatalf("PreScore: %v", s)
			}
			var got framework.NodeScoreList
			var raw []int64
			for _, n := range tt.nodes {
				score, s := pl.Score(ctx, cs, tt.pod, nodeInfo(n))
				if !s.IsSuccess() {
					t.Fatalf("Score: %v", s)
				}
				raw = append(raw, score)
				got = append(got, framework.NodeScore{Name: n.Name, Score: score})
			}
			if !reflect.DeepEqual(raw, tt.raw) {
				t.Errorf("raw scores = %v, want %v", raw, tt.raw)
			}
			if s := pl.ScoreExtensions().NormalizeScore(ctx, cs, tt.pod, got); !s.IsSuccess() {
				t.Fatalf("NormalizeScore: %v", s)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("scores = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScoreWithoutPreScore(t *testing.T) {
	_, s := (&TaintToleration{}).Score(context.Background(), framework.NewCycleState(), podWithTolerations(), nodeInfo(nodeWithTaints("a")))
	want := `failed to read "PreScoreTaintToleration" from cycleState: not found`
	if s.Code() != framework.Error || s.Message() != want {
		t.Errorf("got (%v, %q), want (Error, %q)", s.Code(), s.Message(), want)
	}
}

func TestFilter(t *testing.T) {
	noSched := func(k, v string) v1.Taint { return v1.Taint{Key: k, Value: v, Effect: v1.TaintEffectNoSchedule} }
	tests := []struct {
		name string
		pod  *v1.Pod
		node *v1.Node
		fail bool
	}{
		{name: "no tolerations, node has a NoSchedule taint", pod: podWithTolerations(), node: nodeWithTaints("a", noSched("dedicated", "user1")), fail: true},
		{name: "toleration matches key, value and effect", pod: podWithTolerations(v1.Toleration{Key: "dedicated", Value: "user1", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", noSched("dedicated", "user1"))},
		{name: "Equal toleration with another value", pod: podWithTolerations(v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", noSched("dedicated", "user1")), fail: true},
		{name: "Exists toleration", pod: podWithTolerations(v1.Toleration{Key: "foo", Operator: "Exists", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", noSched("foo", "bar"))},
		{
			name: "every taint tolerated",
			pod: podWithTolerations(
				v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: v1.TaintEffectNoSchedule},
				v1.Toleration{Key: "foo", Operator: "Exists", Effect: v1.TaintEffectNoSchedule},
			),
			node: nodeWithTaints("a", noSched("dedicated", "user2"), noSched("foo", "bar")),
		},
		{name: "effect mismatch", pod: podWithTolerations(v1.Toleration{Key: "foo", Operator: "Equal", Value: "bar", Effect: v1.TaintEffectPreferNoSchedule}), node: nodeWithTaints("a", noSched("foo", "bar")), fail: true},
		{name: "empty toleration effect matches NoSchedule", pod: podWithTolerations(v1.Toleration{Key: "foo", Operator: "Equal", Value: "bar"}), node: nodeWithTaints("a", noSched("foo", "bar"))},
		{name: "PreferNoSchedule taint does not filter", pod: podWithTolerations(v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", prefer("dedicated", "user1"))},
		{name: "no toleration, PreferNoSchedule taint", pod: podWithTolerations(), node: nodeWithTaints("a", prefer("dedicated", "user1"))},
		{name: "NoExecute taint filters", pod: podWithTolerations(), node: nodeWithTaints("a", v1.Taint{Key: "k", Effect: v1.TaintEffectNoExecute}), fail: true},
		{name: "empty-key Exists tolerates everything", pod: podWithTolerations(v1.Toleration{Operator: "Exists"}), node: nodeWithTaints("a", noSched("x", "y"), v1.Taint{Key: "k", Effect: v1.TaintEffectNoExecute})},
		{name: "Gt toleration with the gate off", pod: podWithTolerations(v1.Toleration{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", noSched("node.kubernetes.io/sla", "950")), fail: true},
		{name: "Lt toleration with the gate off", pod: podWithTolerations(v1.Toleration{Key: "node.kubernetes.io/sla", Operator: "Lt", Value: "950", Effect: v1.TaintEffectNoSchedule}), node: nodeWithTaints("a", noSched("node.kubernetes.io/sla", "800")), fail: true},
		{
			name: "mixed Equal and Gt with the gate off: only Equal is honoured",
			pod: podWithTolerations(
				v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user1", Effect: v1.TaintEffectNoSchedule},
				v1.Toleration{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: v1.TaintEffectNoSchedule},
			),
			node: nodeWithTaints("a", noSched("dedicated", "user1")),
		},
		{
			name: "mixed, the Gt toleration needed but ignored with the gate off",
			pod: podWithTolerations(
				v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user1", Effect: v1.TaintEffectNoSchedule},
				v1.Toleration{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: v1.TaintEffectNoSchedule},
			),
			node: nodeWithTaints("a", noSched("dedicated", "user1"), noSched("node.kubernetes.io/sla", "950")),
			fail: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := New(nil, frameworktest.NewHandle(nil, nil))
			got := p.(framework.FilterPlugin).Filter(context.Background(), nil, tt.pod, nodeInfo(tt.node))
			if !tt.fail {
				if got != nil {
					t.Errorf("got %v, want success", got)
				}
				return
			}
			if got.Code() != framework.UnschedulableAndUnresolvable || got.Message() != "node(s) had untolerated taint(s)" {
				t.Errorf("got (%v, %q)", got.Code(), got.Message())
			}
		})
	}
}

// The factory takes TaintTolerationComparisonOperators from the handle:
// off (1.37's default) a Gt toleration tolerates nothing, on it compares.
func TestComparisonOperatorsGate(t *testing.T) {
	node := nodeInfo(nodeWithTaints("a", v1.Taint{Key: "sla", Value: "950", Effect: v1.TaintEffectNoSchedule}, prefer("tier", "3")))
	pod := podWithTolerations(
		v1.Toleration{Key: "sla", Operator: v1.TolerationOpGt, Value: "750", Effect: v1.TaintEffectNoSchedule},
		v1.Toleration{Key: "tier", Operator: v1.TolerationOpLt, Value: "5"},
	)
	for _, on := range []bool{false, true} {
		h := frameworktest.NewHandle(nil, nil)
		h.Gates.EnableTaintTolerationComparisonOperators = on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*TaintToleration)
		if got := pl.Filter(context.Background(), nil, pod, node).IsSuccess(); got != on {
			t.Errorf("gate %v: Filter success = %v, want %v", on, got, on)
		}
		cs := framework.NewCycleState()
		if st := pl.PreScore(context.Background(), cs, pod, nil); !st.IsSuccess() {
			t.Fatal(st)
		}
		score, _ := pl.Score(context.Background(), cs, pod, node)
		if want := map[bool]int64{false: 1, true: 0}[on]; score != want {
			t.Errorf("gate %v: Score = %d untolerated PreferNoSchedule taints, want %d", on, score, want)
		}
	}
}

func TestFilterWithComparisonOperators(t *testing.T) {
	pl := &TaintToleration{comparisonOperators: true}
	sla := func(v string) *v1.Node {
		return nodeWithTaints("a", v1.Taint{Key: "node.kubernetes.io/sla", Value: v, Effect: v1.TaintEffectNoSchedule})
	}
	gt := podWithTolerations(v1.Toleration{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: v1.TaintEffectNoSchedule})
	if s := pl.Filter(context.Background(), nil, gt, nodeInfo(sla("950"))); s != nil {
		t.Errorf("Gt 750 vs 950: got %v, want success", s)
	}
	for _, v := range []string{"700", "high"} {
		if s := pl.Filter(context.Background(), nil, gt, nodeInfo(sla(v))); s.Code() != framework.UnschedulableAndUnresolvable {
			t.Errorf("Gt 750 vs %s: got %v, want rejection", v, s)
		}
	}
}

func TestPreFilterNeverSkips(t *testing.T) {
	r, s := (&TaintToleration{}).PreFilter(context.Background(), framework.NewCycleState(), podWithTolerations(), nil)
	if r != nil || s != nil {
		t.Errorf("got (%v, %v), want (nil, nil)", r, s)
	}
}
