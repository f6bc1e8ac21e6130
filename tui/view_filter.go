package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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

	g grid
	// natural is each plugin column's widest cell (or title): the width
	// it takes when the terminal has room (fitColumns).
	natural []int
	m       *why.FilterMatrix
	a       *record.Attempt
	diag    *record.FullDiagnosis
}

func newFilterView(c *Common) *filterView { return &filterView{c: c} }

func (v *filterView) Init() tea.Cmd { return nil }

func (v *filterView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.fitColumns()
	v.g.setSize(w, v.gridHeight())
}

// minCellWidth is a plugin column's width when the terminal is too narrow
// for every column's widest cell; e explains a cut cell whole.
const minCellWidth = 22

// fitColumns gives the plugin columns the terminal's width: each its
// widest cell when all fit, else the same cap for all (a column narrower
// than the cap keeps its own width) and never less than minCellWidth or
// its title, scrolling horizontally beyond.
func (v *filterView) fitColumns() {
	if len(v.natural) != len(v.g.cols) {
		return
	}
	// Columns are a space apart; the last may end at the right edge.
	avail := v.w - v.g.frozenWidth()
	floor := func(i int) int { return max(len(v.g.cols[i].title), min(minCellWidth, v.natural[i])) }
	total := func(limit int) int {
		sum := 0
		for i, n := range v.natural {
			sum += max(floor(i), min(n, limit)) + 1
		}
		return sum - 1
	}
	// The largest cap whose columns fit; below the floors nothing fits
	// and each column keeps its floor.
	limit := 0
	for lo, hi := 0, slices.Max(append([]int{0}, v.natural...)); lo <= hi; {
		mid := (lo + hi) / 2
		if total(mid) <= avail {
			limit, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	for i, n := range v.natural {
		v.g.cols[i].width = max(floor(i), min(n, limit))
	}
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
	out = append(out, v.hintLines(a)...)
	mode := "faithful: first failure per node (f: full)"
	if v.full {
		mode = "full diagnosis: every plugin, every node (f)"
	}
	out = append(out, fmt.Sprintf("%s · sort: %s (o) · %s (a)", mode, v.sortBy, map[bool]string{true: "all plugins", false: "failing plugins"}[v.all]))
	return out
}

// hintLines is the attempt's first proven hint, at most two lines, and how
// many more the Pod view lists: the map shows why, the hint what would
// change it.
func (v *filterView) hintLines(a *record.Attempt) []string {
	var text string
	if g := v.c.World.groupOf(v.c.Focus); g != nil {
		// A member's map: its group's first hint (groupLines).
		ls := groupHintLines(v.c, g)
		if len(ls) == 0 || !strings.HasPrefix(ls[len(ls)-1], "Hint: ") {
			return nil
		}
		h := v.c.Hints[g.FirstAttempt]
		text = ls[len(ls)-len(h.res.Hints)]
		if n := len(h.res.Hints) - 1; n > 0 {
			text += fmt.Sprintf(" %d more in the Pod view (2).", n)
		}
		return v.twoLines(text)
	}
	h := v.c.Hints[v.c.Focus]
	if h == nil || h.attempt != a || h.err != nil || h.res == nil || len(h.res.Hints) == 0 {
		return nil
	}
	// Lines has a note, if any, then a line per hint.
	lines := h.res.Lines()
	text = lines[len(lines)-len(h.res.Hints)]
	if n := len(h.res.Hints) - 1; n > 0 {
		text += fmt.Sprintf(" %d more in the Pod view (2).", n)
	}
	return v.twoLines(text)
}

// twoLines is text wrapped to the view, at most two lines.
func (v *filterView) twoLines(text string) []string {
	ls := wrap(text, v.w)
	if len(ls) > 2 {
		ls = append(ls[:1], fit(ls[1]+" "+ls[2], v.w))
	}
	return ls
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
	v.g.cols, v.natural = v.g.cols[:0], v.natural[:0]
	for _, c := range v.m.Columns {
		title := c.Title()
		v.g.cols = append(v.g.cols, gridCol{title: title})
		v.natural = append(v.natural, len(title))
	}
	v.g.rows = len(v.m.Order)
	v.g.cell = v.cell
	// The widest cell per column, each distinct status measured once.
	statusW := make([]int, len(v.m.Statuses)) // 0: not measured yet
	for _, ri := range v.m.Order {
		for c, cell := range v.m.Rows[ri].Cells {
			w := 1 // ·
			switch cell.State {
			case why.CellFail:
				if statusW[cell.Status] == 0 {
					statusW[cell.Status] = ansi.StringWidth(v.failText(cell))
				}
				w = statusW[cell.Status]
			case why.CellSkip:
				w = len(skipText)
			}
			v.natural[c] = max(v.natural[c], w)
		}
	}
	v.fitColumns()
	if !slices.Equal(prev, v.m.Columns) {
		// Other columns (a, f, another attempt): the scroll starts over,
		// on the plugin selected before if it is still there.
		v.g.left, v.g.col = 0, max(0, slices.Index(v.m.Columns, prevCol))
	}
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
		return skipText, st.DimE
	case why.CellFail:
		return v.failText(cell), st.BadE
	}
	return "", esc{}
}

// skipText marks a plugin whose PreFilter said it has nothing to check.
const skipText = "skip (PreFilter)"

// failText is a failing cell's text: the status's reasons, or its code.
func (v *filterView) failText(cell why.FilterCell) string {
	s := v.m.Status(cell)
	if text := strings.Join(s.Reasons, "; "); text != "" {
		return text
	}
	return s.Code.String()
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
