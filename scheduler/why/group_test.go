package why

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// gangOfFour is a gang of 4 (minCount 4) on three nodes: two members
// placed on gpu-b1, one on gpu-b2, the last rejected everywhere.
func gangOfFour() GroupInput {
	nodes := record.NewNodeList([]string{"node-a1", "gpu-b1", "gpu-b2"})
	affinity := record.Status{Code: record.CodeUnschedulableAndUnresolvable, Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't match Pod's node affinity/selector"}}
	gpu := record.Status{Code: record.CodeUnschedulable, Plugin: "NodeResourcesFit", Reasons: []string{"Insufficient nvidia.com/gpu"}}
	placed := func(pod string, feasible ...int32) *record.Attempt {
		return &record.Attempt{Pod: pod, Nodes: nodes, AbsentStatus: -1, Statuses: []record.Status{affinity},
			Rejected: []record.NodeStatus{{Node: 0, Status: 0}}, Feasible: feasible, Outcome: record.Unschedulable}
	}
	last := &record.Attempt{Pod: "ml/w-3", Nodes: nodes, AbsentStatus: -1, Statuses: []record.Status{affinity, gpu},
		Rejected: []record.NodeStatus{{Node: 0, Status: 0}, {Node: 1, Status: 1}, {Node: 2, Status: 1}}, Outcome: record.Unschedulable}
	g := &record.GroupAttempt{Namespace: "ml", Name: "workers", Policy: framework.PolicyGang, MinCount: 4,
		Result: record.GroupUnschedulable, Message: "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
		Members: []record.GroupMember{
			{Pod: "ml/w-0", Node: "gpu-b1", Evaluated: true},
			{Pod: "ml/w-1", Node: "gpu-b1", Evaluated: true},
			{Pod: "ml/w-2", Node: "gpu-b2", Evaluated: true},
			{Pod: "ml/w-3", Evaluated: true, Unschedulable: true},
		}}
	return GroupInput{Group: g, Members: []*record.Attempt{placed("ml/w-0", 1, 2), placed("ml/w-1", 1, 2), placed("ml/w-2", 2), last}}
}

func TestGroupVerdict(t *testing.T) {
	got := strings.Join(GroupVerdict(gangOfFour()), "\n")
	for _, want := range []string{
		"Stuck: 3 of 4 members placeable; minCount 4. A gang places all or none: no member binds.",
		"PodGroupInitiallyScheduled: False (Unschedulable): minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
		"• 3 members found a node in memory, released with the group: gpu-b1 × 2, gpu-b2 × 1",
		"• no node for w-3: 2 × Insufficient nvidia.com/gpu (NodeResourcesFit); 1 × node(s) didn't match Pod's node affinity/selector (NodeAffinity)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
	in := gangOfFour()
	in.Group.Result, in.Group.Members[3] = record.GroupScheduled, record.GroupMember{Pod: "ml/w-3", Node: "gpu-b2", Evaluated: true}
	if got := GroupHeadline(in.Group); got != "Scheduled as a gang: 4 of 4 members placeable; minCount 4 met, the placed members bind together." {
		t.Errorf("scheduled: %q", got)
	}
}

func TestGroupMatrix(t *testing.T) {
	m := NewGroupMatrix(gangOfFour())
	if strings.Join(m.Nodes, ",") != "node-a1,gpu-b1,gpu-b2" || len(m.Rows) != 4 {
		t.Fatalf("matrix %v × %d rows", m.Nodes, len(m.Rows))
	}
	want := [][]MemberCell{
		{MemberRejected, MemberPlaced, MemberFits},
		{MemberRejected, MemberPlaced, MemberFits},
		{MemberRejected, MemberNotTried, MemberPlaced},
		{MemberRejected, MemberRejected, MemberRejected},
	}
	for i, row := range m.Rows {
		for j, c := range row.Cells {
			if c.State != want[i][j] {
				t.Errorf("%s on %s: %d, want %d", row.Member, m.Nodes[j], c.State, want[i][j])
			}
		}
	}
	if st := m.Rows[3].Cells[1].Status; st.Plugin != "NodeResourcesFit" {
		t.Errorf("w-3 on gpu-b1: %+v", st)
	}
}

func TestGroupMatrixLines(t *testing.T) {
	m := NewGroupMatrix(gangOfFour())
	got := strings.Join(m.Lines(80), "\n")
	want := `member  node-a1 gpu-b1 gpu-b2
w-0     NodeAff ✓      ○
w-1     NodeAff ✓      ○
w-2     NodeAff ·      ✓
w-3     NodeAff Fit    Fit`
	if !strings.HasSuffix(got, want) {
		t.Errorf("at 80 columns:\n%s\nwant the rows\n%s", got, want)
	}
	// Too narrow for every node: those no member could use fold into
	// "elsewhere".
	got = strings.Join(m.Lines(25), "\n")
	want = `member  gpu-b1 gpu-b2 elsewhere
w-0     ✓      ○      NodeAff×1
w-1     ✓      ○      NodeAff×1
w-2     ·      ✓      NodeAff×1
w-3     Fit    Fit    NodeAff×1`
	if !strings.HasSuffix(got, want) {
		t.Errorf("at 25 columns:\n%s\nwant the rows\n%s", got, want)
	}
}

// TestGroupVerdictPlacements: the topology placements a cycle tried, each
// with its members placed and the group's status there, the chosen one
// marked.
func TestGroupVerdictPlacements(t *testing.T) {
	in := gangOfFour()
	in.Group.Placements = []record.PlacementTried{
		{Name: "topology.kubernetes.io/zone=zone-a", Nodes: 1, Placed: 0, Message: "minCount (4) cannot be satisfied: 0 scheduled, 0 remaining"},
		{Name: "topology.kubernetes.io/zone=zone-b", Nodes: 2, Placed: 3, Message: "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"},
	}
	got := strings.Join(GroupVerdict(in), "\n")
	for _, want := range []string{
		"• 2 placements tried (one per topology domain); the members' attempts below are the first's:",
		"  topology.kubernetes.io/zone=zone-a (1 node): 0 placed: minCount (4) cannot be satisfied: 0 scheduled, 0 remaining",
		"  topology.kubernetes.io/zone=zone-b (2 nodes): 3 placed: minCount (4) cannot be satisfied: 3 scheduled, 0 remaining",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
	in.Group.Placements[1] = record.PlacementTried{Name: "zone=zone-b", Nodes: 2, Placed: 4, Feasible: true, Score: 4, Chosen: true}
	if got := strings.Join(GroupVerdict(in), "\n"); !strings.Contains(got, "  zone=zone-b (2 nodes): 4 placed, feasible, score 4: chosen") ||
		!strings.Contains(got, "the chosen one's:") {
		t.Errorf("the chosen placement:\n%s", got)
	}
}
