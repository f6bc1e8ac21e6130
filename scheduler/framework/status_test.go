package framework

import (
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFitErrorMessage(t *testing.T) {
	statuses := func(m map[string]*Status) *NodeToStatus {
		return NewNodeToStatus(m, NewStatus(UnschedulableAndUnresolvable))
	}
	tests := []struct {
		name string
		fe   FitError
		want string
	}{
		{
			name: "reasons counted per node and sorted as strings",
			fe: FitError{NumAllNodes: 12, Diagnosis: Diagnosis{NodeToStatus: statuses(map[string]*Status{
				"n1": NewStatus(Unschedulable, "Insufficient cpu"), "n2": NewStatus(Unschedulable, "Insufficient cpu"),
				"n3": NewStatus(Unschedulable, "Insufficient cpu"), "n4": NewStatus(Unschedulable, "Insufficient cpu"),
				"n5": NewStatus(Unschedulable, "Insufficient cpu"), "n6": NewStatus(Unschedulable, "Insufficient cpu"),
				"n7": NewStatus(Unschedulable, "Insufficient cpu"), "n8": NewStatus(Unschedulable, "Insufficient cpu"),
				"n9": NewStatus(Unschedulable, "Insufficient cpu"), "n10": NewStatus(Unschedulable, "Insufficient cpu", "Insufficient memory"),
				"n11": NewStatus(UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
				"n12": NewStatus(UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
			})}},
			want: "0/12 nodes are available: 1 Insufficient memory, 10 Insufficient cpu, 2 node(s) had untolerated taint(s).",
		},
		{
			name: "PreFilter message replaces the counts; PostFilter message appended",
			fe: FitError{NumAllNodes: 3, Diagnosis: Diagnosis{
				NodeToStatus: statuses(map[string]*Status{}), PreFilterMsg: "pod has unbound immediate PersistentVolumeClaims",
				PostFilterMsg: "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
			}},
			want: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "absent status counted for the nodes without an entry",
			fe: FitError{NumAllNodes: 5, Diagnosis: Diagnosis{NodeToStatus: NewNodeToStatus(map[string]*Status{
				"a": NewStatus(Unschedulable, "Insufficient cpu"),
			}, NewStatus(UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeAffinity]"))}},
			want: "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity].",
		},
		{
			name: "no reasons at all",
			fe:   FitError{NumAllNodes: 2, Diagnosis: Diagnosis{NodeToStatus: NewDefaultNodeToStatus()}},
			want: "0/2 nodes are available:",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.fe.Error(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestStatusReasonsAndMessage(t *testing.T) {
	s := NewStatus(Unschedulable, "a", "b").WithError(errors.New("boom"))
	if got := s.Message(); got != "boom, a, b" {
		t.Errorf("Message() = %q", got)
	}
	var nilStatus *Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != Success || nilStatus.Message() != "" {
		t.Error("nil status must be Success with no message")
	}
	if !NewStatus(Pending).IsRejected() || NewStatus(Error).IsRejected() {
		t.Error("IsRejected wrong")
	}
	if NewStatus(Skip).AsError() != nil || NewStatus(Unschedulable, "x").AsError().Error() != "x" {
		t.Error("AsError wrong")
	}
}

func TestNodesForStatusCode(t *testing.T) {
	nodes := []*NodeInfo{}
	for _, n := range []string{"a", "b", "c"} {
		ni := NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		nodes = append(nodes, ni)
	}
	m := NewNodeToStatus(map[string]*Status{"a": NewStatus(Unschedulable), "b": NewStatus(UnschedulableAndUnresolvable)}, NewStatus(UnschedulableAndUnresolvable))
	if got := m.NodesForStatusCode(nodes, Unschedulable); len(got) != 1 || got[0].Name() != "a" {
		t.Errorf("explicit Unschedulable only: got %d", len(got))
	}
	m.SetAbsentNodesStatus(NewStatus(Unschedulable))
	if got := m.NodesForStatusCode(nodes, Unschedulable); len(got) != 2 {
		t.Errorf("absent Unschedulable covers c too: got %d", len(got))
	}
}

func TestPreFilterResultMerge(t *testing.T) {
	var all *PreFilterResult
	ab := &PreFilterResult{NodeNames: setOf("a", "b")}
	bc := &PreFilterResult{NodeNames: setOf("b", "c")}
	if all.Merge(nil) != nil {
		t.Error("all ∩ all must stay all")
	}
	if got := all.Merge(ab); len(got.NodeNames) != 2 {
		t.Error("all ∩ {a,b} = {a,b}")
	}
	if got := ab.Merge(bc); len(got.NodeNames) != 1 || !got.NodeNames.Has("b") {
		t.Errorf("{a,b} ∩ {b,c} = {b}, got %v", got.NodeNames)
	}
}
