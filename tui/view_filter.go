package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// filterView is the Filter map: nodes × Filter plugins, each cell the
// plugin's verdict on the node (why.FilterMatrix builds it). The faithful
// map is what kube-scheduler computed (each node stops at its first
// failing plugin); the full diagnosis runs every plugin on every node
// (computed in a Cmd).
type filterView struct {
	c      *Common
	w, h   int
	full   bool
	all    bool // show every plugin column, not only those that failed somewhere
	sortBy why.FilterSort
	filter matcher

	g    grid
	m    *why.FilterMatrix
	a    *record.Attempt
	diag *record.FullDiagnosis
}

func newFilterView(c *Common) *filterView { return &filterView{c: c} }

func (v *filterView) Init() tea.Cmd { return nil }

func (v *filterView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.g.setSize(w, v.gridHeight())
}

// header lines above the grid: the upstream message and the summary.
func (v *filterView) headerLines() []string {
	a := v.c.focused()
	if a == nil {
		return nil
	}
	var out []string
	msg := a.Message
	if pf := a.Phases[record.PhasePostFilter].Message; pf != "" && !v.c.revealed(record.PhasePostFilter) {
		// Upstream appends PostFilter's message to the FitError's.
		msg = strings.TrimSpace(strings.TrimSuffix(msg, pf))
	}
	if msg == "" && a.Outcome == record.Scheduled {
		msg = fmt.Sprintf("Successfully assigned %s to %s", a.Pod, a.Node)
	}
	for _, l := range wrap(msg, v.w) {
		out = append(out, l)
	}
	if len(out) > 3 {
		out = append(out[:2], out[2]+"…")
	}
	mode := "faithful: first failure per node (f: full)"
	if v.full {
		mode = "full diagnosis: every plugin, every node (f)"
	}
	out = append(out, fmt.Sprintf("%s · sort: %s (o) · %s (a)", mode, v.sortBy, map[bool]string{true: "all plugins", false: "failing plugins"}[v.all]))
	return out
}

func (v *filterView) gridHeight() int { return max(2, v.h-len(v.headerLines())) }

func (v *filterView) Refresh() {
	a := v.c.focused()
	v.a = a
	v.diag = nil
	prev, prevCol := v.columns(), why.FilterColumn{}
	if v.g.col >= 0 && v.g.col < len(prev) {
		prevCol = prev[v.g.col]
	}
	v.m = nil
	if a == nil || a.Nodes == nil {
		v.g = grid{}
		return
	}
	if v.full {
		switch d := v.c.Diags[v.c.Focus]; {
		case d == nil:
			// A new attempt (n, u, another focus) with the full
			// diagnosis on: ask for its own.
			v.c.post(needDiagMsg{attempt: v.c.Focus})
		case d.err == nil:
			v.diag = d.d
		}
	}
	v.m = why.NewFilterMatrix(a, why.FilterOptions{Plugins: v.c.World.filterPlugins[a.Profile], Diag: v.diag,
		AllColumns: v.all, Sort: v.sortBy, Match: v.filter.match})
	nameW := 8
	for _, name := range a.Nodes.Names {
		nameW = max(nameW, len(name))
	}
	v.g.frozen = []gridCol{{title: "NODE", width: min(nameW, 24)}, {title: "VERDICT", width: 8}}
	v.g.cols = v.g.cols[:0]
	for _, c := range v.m.Columns {
		title := c.Title()
		v.g.cols = append(v.g.cols, gridCol{title: title, width: max(len(title), 22)})
	}
	if !slices.Equal(prev, v.m.Columns) {
		// Other columns (a, f, another attempt): the scroll starts over,
		// on the plugin selected before if it is still there.
		v.g.left, v.g.col = 0, max(0, slices.Index(v.m.Columns, prevCol))
	}
	v.g.rows = len(v.m.Order)
	v.g.cell = v.cell
	v.g.setSize(v.w, v.gridHeight())
}

// columns are the matrix's columns, none before the first Refresh.
func (v *filterView) columns() []why.FilterColumn {
	if v.m == nil {
		return nil
	}
	return v.m.Columns
}

func (v *filterView) cell(r, c int) (string, esc) {
	st := v.c.St
	row := &v.m.Rows[v.m.Order[r]]
	switch c {
	case 0:
		e := esc{}
		if row.Verdict.Fits() {
			e = st.GoodE
		}
		return v.a.Nodes.Names[row.Node], e
	case 1:
		switch {
		case row.Verdict.Fits():
			return row.Verdict.String(), st.GoodE
		case row.Verdict.Unfit():
			return row.Verdict.String(), st.BadE
		}
		return row.Verdict.String(), st.DimE
	}
	cell := row.Cells[c-2]
	switch cell.State {
	case why.CellPass:
		return "·", st.DimE
	case why.CellSkip:
		return "skip (PreFilter)", st.DimE
	case why.CellFail:
		s := v.m.Status(cell)
		text := strings.Join(s.Reasons, "; ")
		if text == "" {
			text = s.Code.String()
		}
		return text, st.BadE
	}
	return "", esc{}
}

func (v *filterView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchMsg:
		v.filter = newMatcher(msg.q)
		v.Refresh()
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.g.bodyRows(), v.g.move):
		case searchKey(v.c, msg):
		case key.Matches(msg, k.FullDiag):
			v.full = !v.full
			v.Refresh()
		case key.Matches(msg, k.Sort):
			v.sortBy = v.sortBy.Next()
			v.Refresh()
		case key.Matches(msg, k.AllCols):
			v.all = !v.all
			v.Refresh()
		case key.Matches(msg, k.Enter):
			if r := v.selectedRow(); r != nil {
				return emit(openNodeMsg{node: v.a.Nodes.Names[r.Node]})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.g.move)
	}
	return nil
}

func (v *filterView) Click(x, y int) tea.Cmd {
	y -= len(v.headerLines()) + 1
	if y < 0 {
		return nil
	}
	v.g.row = v.g.top + y
	if c := v.g.colAt(x); c >= 0 {
		v.g.col = c
	}
	v.g.clamp()
	return nil
}

func (v *filterView) selectedRow() *why.FilterRow {
	if v.a == nil || v.m == nil || v.g.row >= len(v.m.Order) {
		return nil
	}
	return &v.m.Rows[v.m.Order[v.g.row]]
}

func (v *filterView) View() string {
	a := v.c.focused()
	switch {
	case a == nil:
		return block("No attempt yet: press n.", v.w, v.h)
	case !v.c.revealed(record.PhaseFilter):
		return block(fmt.Sprintf("%s: Filter has not run yet in this attempt — press s to step to it.", a.Pod), v.w, v.h)
	case a.Summarized:
		return block(summaryOnly(a), v.w, v.h)
	case a.Nodes == nil || a.Outcome == record.Skipped:
		return block("This attempt did not run Filter: "+a.Message, v.w, v.h)
	}
	var b strings.Builder
	for _, l := range v.headerLines() {
		b.WriteString(line(l, v.w))
		b.WriteByte('\n')
	}
	if v.full && v.diag == nil {
		if d := v.c.Diags[v.c.Focus]; d != nil && d.err != nil {
			b.WriteString("full diagnosis failed: " + d.err.Error())
		} else {
			b.WriteString("computing the full diagnosis…")
		}
		return block(b.String(), v.w, v.h)
	}
	v.g.view(v.c.St, &b)
	return block(b.String(), v.w, v.h)
}

func (v *filterView) Explain() (string, []string) {
	r := v.selectedRow()
	if r == nil {
		return "Filter", []string{"Each Filter plugin can reject a node. Upstream stops at a node's first rejection; f shows every plugin's verdict."}
	}
	node := v.a.Nodes.Names[r.Node]
	if v.g.col < 0 || v.g.col >= len(v.m.Columns) {
		return node, []string{r.Verdict.String()}
	}
	col := v.m.Columns[v.g.col]
	plugin := col.Name
	cell := r.Cells[v.g.col]
	if col.Kind == why.ExtenderColumn {
		if lines := why.ExplainExtenderFilter(v.a, col.Name, node); lines != nil {
			return plugin + " on " + node, lines
		}
	}
	var st record.Status
	switch cell.State {
	case why.CellFail:
		st = v.m.Status(cell)
		if plugin == "" {
			plugin = st.Plugin
		}
	case why.CellPass:
		st = record.Status{Code: record.CodeSuccess}
	case why.CellNotRun:
		return plugin + " on " + node, []string{"Not run: an earlier plugin already rejected the node (kube-scheduler stops at the first). Press f for the full diagnosis.", "", why.Purpose(plugin)}
	default:
		return plugin + " on " + node, []string{"Skipped: the plugin's PreFilter said it has nothing to check for this pod."}
	}
	var in why.Input
	if f := v.c.fork(); f != nil {
		in = why.Input{Sched: f.sched, Pod: v.c.pod()}
	}
	return orNone(plugin) + " on " + node, why.ExplainFilter(in, plugin, st, node)
}

func (v *filterView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.FullDiag, k.Sort, k.AllCols, k.Search, k.Explain, withHelp(k.Enter, "enter", "node"), k.Next, k.Step, k.Help}
}

func (v *filterView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.grid(k.FullDiag, k.Sort, k.AllCols, withHelp(k.Enter, "enter", "open node"), k.Search), k.global()}
}
