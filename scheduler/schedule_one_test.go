package scheduler

import (
	"container/heap"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

func TestNumFeasibleNodesToFind(t *testing.T) {
	pct := func(p int32) *int32 { return &p }
	tests := []struct {
		profile *int32
		global  int32
		nodes   int
		want    int
	}{
		{nil, 0, 10, 10}, {nil, 0, 99, 99}, {nil, 0, 100, 100}, {nil, 0, 150, 100},
		{nil, 0, 1000, 420}, {nil, 0, 5000, 500}, {nil, 0, 6000, 300},
		{nil, 50, 1000, 500}, {pct(1), 50, 1000, 100}, {pct(100), 0, 5000, 5000},
	}
	for _, tc := range tests {
		if got := NumFeasibleNodesToFind(tc.profile, tc.global, tc.nodes); got != tc.want {
			t.Errorf("nodes %d global %d: got %d, want %d", tc.nodes, tc.global, got, tc.want)
		}
	}
}

// The winner among equal totals is whatever container/heap leaves at the
// root: deterministic for a given input order, not always the first.
func TestHeapTieBreakFollowsInputOrder(t *testing.T) {
	pop := func(totals ...int64) string {
		h := nodeScoreHeap{}
		for i, tot := range totals {
			h = append(h, framework.NodePluginScores{Name: string(rune('a' + i)), TotalScore: tot})
		}
		heap.Init(&h)
		return heap.Pop(&h).(framework.NodePluginScores).Name
	}
	if got := pop(5, 9, 9, 1); got != "b" {
		t.Errorf("got %s", got)
	}
	if got := pop(9, 9, 9); got != "a" {
		t.Errorf("all tied: got %s", got)
	}
	if got := pop(1, 2, 9, 3, 9); got != "e" { // sift-down moves the later 9 up first
		t.Errorf("got %s", got)
	}
}

// Nodes a PreFilterResult left out carry upstream's absent-nodes status,
// which names no plugin; the record names the plugins whose results
// narrowed the nodes, sorted and comma-joined, also when the results left
// no node at all (a PreFilter rejection). Nodes Filter rejected keep their
// plugin.
func TestRecordNamesPreFilterResultPlugins(t *testing.T) {
	pinned := func(name string, nodes ...string) *v1.Pod {
		p := extPod(name, "2", 0)
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: nodes}}}}}}}
		return p
	}
	narrowed := pinned("narrowed", "b")
	// NodeName's PreFilterResult is the pod's spec.nodeName: with an
	// affinity to another node the results leave no node.
	disjoint := pinned("disjoint", "a")
	disjoint.Spec.NodeName = "c"
	nodes := []*v1.Node{dsNode("a", "4", nil), dsNode("b", "1", nil), dsNode("c", "4", nil)}
	s, err := New(nodes, []*v1.Pod{narrowed, disjoint}, nil, Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pod  *v1.Pod
		want map[string]record.FilterJSON
	}{
		{narrowed, map[string]record.FilterJSON{
			"a": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
			"b": {Plugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}},
			"c": {Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}},
		}},
		{disjoint, map[string]record.FilterJSON{
			"a": {Plugin: "NodeAffinity,NodeName", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"}},
			"b": {Plugin: "NodeAffinity,NodeName", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"}},
			"c": {Plugin: "NodeAffinity,NodeName", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"}},
		}},
	}
	for _, tc := range tests {
		a := s.ScheduleOne(tc.pod)
		if a.Outcome != record.Unschedulable {
			t.Fatalf("%s: outcome %v (%s)", tc.pod.Name, a.Outcome, a.Message)
		}
		if got := a.JSON().Filter; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: filter\n got %v\nwant %v", tc.pod.Name, got, tc.want)
		}
	}
}
