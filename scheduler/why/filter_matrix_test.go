package why

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// renderMatrix writes a matrix as the header (column titles) and a line
// per row shown: node, verdict, then each cell ("·" passed, "" not run,
// "skip", or the failing status's reasons).
func renderMatrix(a *record.Attempt, m *FilterMatrix) string {
	var b strings.Builder
	for _, c := range m.Columns {
		b.WriteString("|" + c.Title())
	}
	for _, i := range m.Order {
		r := m.Rows[i]
		fmt.Fprintf(&b, "\n%s %s", a.Nodes.Names[r.Node], r.Verdict)
		for _, c := range r.Cells {
			switch c.State {
			case CellPass:
				b.WriteString("|·")
			case CellSkip:
				b.WriteString("|skip")
			case CellFail:
				b.WriteString("|" + strings.Join(m.Status(c).Reasons, ";"))
			default:
				b.WriteString("|")
			}
		}
	}
	return b.String()
}

func TestFilterMatrix(t *testing.T) {
	plugins := []string{names.NodeUnschedulable, names.TaintToleration, names.NodeResourcesFit}
	taint := record.Status{Code: record.CodeUnschedulableAndUnresolvable, Plugin: names.TaintToleration, Reasons: []string{"untolerated taint {gpu: true}"}}
	cpu := record.Status{Code: record.CodeUnschedulable, Plugin: names.NodeResourcesFit, Reasons: []string{"Insufficient cpu"}}
	// Node order c, a, d, b: c rejected by Fit, a feasible, d rejected by
	// TaintToleration, b not evaluated (the search stopped).
	faithful := func() *record.Attempt {
		return &record.Attempt{
			Nodes:        record.NewNodeList([]string{"c", "a", "d", "b"}),
			Statuses:     []record.Status{cpu, taint},
			Rejected:     []record.NodeStatus{{Node: 0, Status: 0}, {Node: 2, Status: 1}},
			Feasible:     []int32{1},
			AbsentStatus: -1,
		}
	}
	// Nodes x and y left out by NodeAffinity's PreFilterResult: the absent
	// status, named after the narrowing plugin though NodeAffinity is a
	// Filter plugin too (no Filter plugin saw them); z rejected by an
	// extender, named by its URL prefix.
	narrowed := &record.Attempt{
		Nodes:             record.NewNodeList([]string{"w", "x", "y", "z"}),
		PreFilterNarrowed: []int32{0, 3},
		Statuses:          []record.Status{{Code: record.CodeUnschedulableAndUnresolvable, Plugin: "NodeAffinity", Reasons: []string{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}}, {Code: record.CodeUnschedulable, Plugin: "http://ext", Reasons: []string{"no gpu"}}},
		Rejected:          []record.NodeStatus{{Node: 3, Status: 1}},
		Feasible:          []int32{0},
		AbsentStatus:      0,
		ExtenderCalls: []record.ExtenderCall{
			{Extender: "http://ext", Verb: "filter", Passed: []string{"w"}, Failed: map[string]string{"z": "no gpu"}},
			{Extender: "http://down", Verb: "filter", Error: "connection refused"},
		},
	}
	diag := &record.FullDiagnosis{
		Nodes:          record.NewNodeList([]string{"c", "a", "d", "b"}),
		Plugins:        plugins,
		SkippedPlugins: []bool{false, false, true},
		Narrowed:       []bool{false, false, false, true},
		Statuses:       []record.Status{{Code: record.CodeSuccess}, taint, cpu},
		// c: taint fails; a: all pass; d: unschedulable and taint fail;
		// b (narrowed): taint fails.
		Cells: []uint16{
			0, 1, 2,
			0, 0, 0,
			2, 1, 0,
			0, 1, 0,
		},
	}
	tests := []struct {
		name string
		a    *record.Attempt
		opt  FilterOptions
		want string
	}{
		{
			name: "faithful: failing columns, node order",
			a:    faithful(),
			opt:  FilterOptions{Plugins: plugins},
			want: `|TaintToleration|NodeResourcesFit
c rejected|·|Insufficient cpu
a feasible|·|·
d rejected|untolerated taint {gpu: true}|
b not eval||`,
		},
		{
			name: "faithful: every column",
			a:    faithful(),
			opt:  FilterOptions{Plugins: plugins, AllColumns: true},
			want: `|NodeUnschedulable|TaintToleration|NodeResourcesFit
c rejected|·|·|Insufficient cpu
a feasible|·|·|·
d rejected|·|untolerated taint {gpu: true}|
b not eval|||`,
		},
		{
			name: "by name",
			a:    faithful(),
			opt:  FilterOptions{Plugins: plugins, Sort: FilterByName},
			want: `|TaintToleration|NodeResourcesFit
a feasible|·|·
b not eval||
c rejected|·|Insufficient cpu
d rejected|untolerated taint {gpu: true}|`,
		},
		{
			name: "by reason: rejections in column order, then the rest in node order",
			a:    faithful(),
			opt:  FilterOptions{Plugins: plugins, Sort: FilterByReason},
			want: `|TaintToleration|NodeResourcesFit
d rejected|untolerated taint {gpu: true}|
c rejected|·|Insufficient cpu
a feasible|·|·
b not eval||`,
		},
		{
			name: "a search keeps the matching rows (name or reason)",
			a:    faithful(),
			opt:  FilterOptions{Plugins: plugins, Match: func(s string) bool { return strings.Contains(s, "cpu") || strings.HasPrefix(s, "a ") }},
			want: `|TaintToleration|NodeResourcesFit
c rejected|·|Insufficient cpu
a feasible|·|·`,
		},
		{
			name: "PreFilter and extender columns",
			a:    narrowed,
			opt:  FilterOptions{Plugins: plugins},
			want: `|PreFilter|http://ext
w feasible||·
x rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]|
y rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]|
z rejected||no gpu`,
		},
		{
			name: "PreFilter and extender columns, every column",
			a:    narrowed,
			opt:  FilterOptions{Plugins: plugins, AllColumns: true, Sort: FilterByReason},
			want: `|PreFilter|NodeUnschedulable|TaintToleration|NodeResourcesFit|http://ext
x rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]||||
y rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]||||
z rejected||·|·|·|no gpu
w feasible||·|·|·|·`,
		},
		{
			name: "nodes a Filter plugin's PreFilterResult left out are in the PreFilter column",
			a:    narrowed,
			opt:  FilterOptions{Plugins: []string{"NodeAffinity", "NodeResourcesFit"}, AllColumns: true},
			want: `|PreFilter|NodeAffinity|NodeResourcesFit|http://ext
w feasible||·|·|·
x rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]|||
y rejected|node(s) didn't satisfy plugin(s) [NodeAffinity]|||
z rejected||·|·|no gpu`,
		},
		{
			name: "full diagnosis: every plugin, skips, narrowed, not evaluated upstream",
			a:    faithful(),
			opt:  FilterOptions{Plugins: []string{"ignored"}, Diag: diag, AllColumns: true},
			want: `|NodeUnschedulable|TaintToleration|NodeResourcesFit
c fails|·|untolerated taint {gpu: true}|skip
a passes|·|·|skip
d fails|Insufficient cpu|untolerated taint {gpu: true}|skip
b narrowed|·|untolerated taint {gpu: true}|skip`,
		},
		{
			name: "full diagnosis: failing columns, by reason",
			a:    faithful(),
			opt:  FilterOptions{Diag: diag, Sort: FilterByReason},
			want: `|NodeUnschedulable|TaintToleration
a passes|·|·
d fails|Insufficient cpu|untolerated taint {gpu: true}
c fails|·|untolerated taint {gpu: true}
b narrowed|·|untolerated taint {gpu: true}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := renderMatrix(tc.a, NewFilterMatrix(tc.a, tc.opt))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestFilterMatrixFullNotEvaluated(t *testing.T) {
	a := &record.Attempt{Nodes: record.NewNodeList([]string{"n0", "n1"}), Feasible: []int32{0}, AbsentStatus: -1}
	d := &record.FullDiagnosis{Nodes: a.Nodes, Plugins: []string{names.NodePorts}, SkippedPlugins: []bool{false},
		Narrowed: []bool{false, false}, Statuses: []record.Status{{Code: record.CodeSuccess}}, Cells: []uint16{0, 0}}
	m := NewFilterMatrix(a, FilterOptions{Diag: d})
	if got := []NodeVerdict{m.Rows[0].Verdict, m.Rows[1].Verdict}; got[0] != Passes || got[1] != NotEvaluated {
		t.Errorf("verdicts %v, want [passes not eval]: upstream never reached n1", got)
	}
	if len(m.Columns) != 0 {
		t.Errorf("columns %v: no plugin failed", m.Columns)
	}
}

func TestFilterSortCycles(t *testing.T) {
	var got []string
	s := FilterByNodeOrder
	for range 4 {
		got = append(got, s.String())
		s = s.Next()
	}
	if want := "node order,name,reason,node order"; strings.Join(got, ",") != want {
		t.Errorf("sorts %v, want %s", got, want)
	}
}
