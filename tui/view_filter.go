package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// filterView is the Filter map: nodes × Filter plugins, each cell the
// plugin's verdict on the node. The faithful map is what kube-scheduler
// computed (each node stops at its first failing plugin); the full
// diagnosis runs every plugin on every node (computed in a Cmd).
type filterView struct {
	c      *Common
	w, h   int
	full   bool
	all    bool // show every plugin column, not only those that failed somewhere
	sortBy int  // 0 node order, 1 name, 2 reason
	filter matcher

	g       grid
	plugins []string // column plugins ("" = PreFilter pseudo column)
	rows    []filterRow
	order   []int
	a       *record.Attempt
	diag    *record.FullDiagnosis
}

// filterRow is one node's verdicts.
type filterRow struct {
	node    int
	verdict string // feasible, rejected, not evaluated, narrowed
	cells   []filterCell
	key     string // sort key by reason
	text    string // searchable text
}

type filterCell struct {
	status int32 // index into statuses, -1 none
	state  uint8 // cellPass, cellFail, cellNotRun, cellSkip
}

const (
	cellNotRun uint8 = iota
	cellPass
	cellFail
	cellSkip
)

var sortNames = []string{"node order", "name", "reason"}

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
	out = append(out, fmt.Sprintf("%s · sort: %s (o) · %s (a)", mode, sortNames[v.sortBy], map[bool]string{true: "all plugins", false: "failing plugins"}[v.all]))
	return out
}

func (v *filterView) gridHeight() int { return max(2, v.h-len(v.headerLines())) }

func (v *filterView) Refresh() {
	a := v.c.focused()
	v.a = a
	v.diag = nil
	v.rows = v.rows[:0]
	prev, prevCol := v.plugins, ""
	if v.g.col >= 0 && v.g.col < len(prev) {
		prevCol = prev[v.g.col]
	}
	v.plugins = nil
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
	plugins := v.c.World.filterPlugins[a.Profile]
	if v.diag != nil {
		plugins = v.diag.Plugins
	}
	colOf := map[string]int{}
	for i, p := range plugins {
		colOf[p] = i
	}
	// In the faithful map each extender that filtered is a column after
	// the plugins, named by its URL prefix, as the nodes it rejected name
	// it.
	var extenders []string
	if v.diag == nil {
		extenders = filteringExtenders(a)
	}
	for i, e := range extenders {
		colOf[e] = len(plugins) + i
	}
	// A status from a plugin that is not a Filter plugin (PreFilter-only,
	// or the plugins whose PreFilterResult narrowed the nodes) goes in a
	// PreFilter column.
	needPre := false
	for _, r := range a.Rejected {
		if _, ok := colOf[a.Statuses[r.Status].Plugin]; !ok {
			needPre = true
		}
	}
	if a.AbsentStatus >= 0 {
		if _, ok := colOf[a.Statuses[a.AbsentStatus].Plugin]; !ok {
			needPre = true
		}
	}
	cols := plugins
	off := 0
	if needPre && v.diag == nil {
		cols = append([]string{""}, plugins...)
		off = 1
	}
	if len(extenders) > 0 {
		cols = append(append([]string(nil), cols...), extenders...)
	}
	n := len(a.Nodes.Names)
	statusOf := make([]int32, n)
	for i := range statusOf {
		statusOf[i] = -2 // not evaluated
	}
	for _, f := range a.Feasible {
		statusOf[f] = -1
	}
	for _, r := range a.Rejected {
		statusOf[r.Node] = int32(r.Status)
	}
	if a.AbsentStatus >= 0 {
		for i := range statusOf {
			if statusOf[i] == -2 {
				statusOf[i] = a.AbsentStatus
			}
		}
	}
	failed := make([]bool, len(cols))
	for node := 0; node < n; node++ {
		r := filterRow{node: node, cells: make([]filterCell, len(cols))}
		for i := range r.cells {
			r.cells[i].status = -1
		}
		var reasons []string
		switch s := statusOf[node]; {
		case v.diag != nil:
			r.verdict = "fails"
			pass := true
			for p := range plugins {
				c := &r.cells[p]
				switch {
				case v.diag.SkippedPlugins[p]:
					c.state = cellSkip
				default:
					st := v.diag.Cell(node, p)
					if st.Code == record.CodeSuccess {
						c.state = cellPass
					} else {
						c.state, c.status, pass = cellFail, int32(v.diag.Cells[node*len(plugins)+p]), false
						failed[p] = true
						reasons = append(reasons, strings.Join(st.Reasons, "; "))
					}
				}
			}
			if pass {
				r.verdict = "passes"
			}
			if v.diag.Narrowed[node] {
				r.verdict = "narrowed"
			} else if statusOf[node] == -2 {
				r.verdict = "not eval"
			}
		case s == -1:
			r.verdict = "feasible"
			for i := off; i < len(cols); i++ {
				r.cells[i].state = cellPass
			}
		case s == -2:
			r.verdict = "not eval"
		default:
			st := a.Statuses[s]
			r.verdict = "rejected"
			col, ok := colOf[st.Plugin]
			if ok {
				col += off
			} else {
				col = 0
			}
			for i := off; i < col; i++ {
				r.cells[i].state = cellPass
			}
			r.cells[col] = filterCell{status: s, state: cellFail}
			failed[col] = true
			reasons = append(reasons, strings.Join(st.Reasons, "; "))
			r.key = fmt.Sprintf("%03d %s", col, strings.Join(st.Reasons, ";"))
		}
		if r.key == "" {
			r.key = "~" + strings.Join(reasons, ";")
		}
		r.text = a.Nodes.Names[node] + " " + strings.Join(reasons, " ")
		v.rows = append(v.rows, r)
	}
	// Columns shown.
	v.plugins = v.plugins[:0]
	keep := make([]int, 0, len(cols))
	for i, p := range cols {
		if v.all || failed[i] {
			keep = append(keep, i)
			v.plugins = append(v.plugins, p)
		}
	}
	if len(keep) < len(cols) {
		for ri := range v.rows {
			cells := make([]filterCell, len(keep))
			for j, i := range keep {
				cells[j] = v.rows[ri].cells[i]
			}
			v.rows[ri].cells = cells
		}
	}
	// Order and filter.
	v.order = v.order[:0]
	for i := range v.rows {
		if v.filter.match(v.rows[i].text) {
			v.order = append(v.order, i)
		}
	}
	switch v.sortBy {
	case 1:
		sort.SliceStable(v.order, func(x, y int) bool {
			return a.Nodes.Names[v.rows[v.order[x]].node] < a.Nodes.Names[v.rows[v.order[y]].node]
		})
	case 2:
		sort.SliceStable(v.order, func(x, y int) bool { return v.rows[v.order[x]].key < v.rows[v.order[y]].key })
	}
	nameW := 8
	for _, name := range a.Nodes.Names {
		nameW = max(nameW, len(name))
	}
	v.g.frozen = []gridCol{{title: "NODE", width: min(nameW, 24)}, {title: "VERDICT", width: 8}}
	v.g.cols = v.g.cols[:0]
	for _, p := range v.plugins {
		title := p
		if p == "" {
			title = "PreFilter"
		}
		v.g.cols = append(v.g.cols, gridCol{title: title, width: max(len(title), 22)})
	}
	if !slices.Equal(prev, v.plugins) {
		// Other columns (a, f, another attempt): the scroll starts over,
		// on the plugin selected before if it is still there.
		v.g.left, v.g.col = 0, max(0, slices.Index(v.plugins, prevCol))
	}
	v.g.rows = len(v.order)
	v.g.cell = v.cell
	v.g.setSize(v.w, v.gridHeight())
}

func (v *filterView) statuses() []record.Status {
	if v.diag != nil {
		return v.diag.Statuses
	}
	return v.a.Statuses
}

func (v *filterView) cell(r, c int) (string, esc) {
	st := v.c.St
	row := &v.rows[v.order[r]]
	switch c {
	case 0:
		e := esc{}
		if row.verdict == "feasible" || row.verdict == "passes" {
			e = st.GoodE
		}
		return v.a.Nodes.Names[row.node], e
	case 1:
		switch row.verdict {
		case "feasible", "passes":
			return row.verdict, st.GoodE
		case "rejected", "fails":
			return row.verdict, st.BadE
		}
		return row.verdict, st.DimE
	}
	cell := row.cells[c-2]
	switch cell.state {
	case cellPass:
		return "·", st.DimE
	case cellSkip:
		return "skip (PreFilter)", st.DimE
	case cellFail:
		s := v.statuses()[cell.status]
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
			v.sortBy = (v.sortBy + 1) % len(sortNames)
			v.Refresh()
		case key.Matches(msg, k.AllCols):
			v.all = !v.all
			v.Refresh()
		case key.Matches(msg, k.Enter):
			if r := v.selectedRow(); r != nil {
				return emit(openNodeMsg{node: v.a.Nodes.Names[r.node]})
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

func (v *filterView) selectedRow() *filterRow {
	if v.a == nil || v.g.row >= len(v.order) {
		return nil
	}
	return &v.rows[v.order[v.g.row]]
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
	node := v.a.Nodes.Names[r.node]
	if v.g.col < 0 || v.g.col >= len(v.plugins) {
		return node, []string{r.verdict}
	}
	plugin := v.plugins[v.g.col]
	cell := r.cells[v.g.col]
	if call := filterCallOf(v.a, plugin); call != nil {
		return plugin + " on " + node, explainExtenderFilter(call, node)
	}
	var st record.Status
	switch cell.state {
	case cellFail:
		st = v.statuses()[cell.status]
		if plugin == "" {
			plugin = st.Plugin
		}
	case cellPass:
		st = record.Status{Code: record.CodeSuccess}
	case cellNotRun:
		return plugin + " on " + node, []string{"Not run: an earlier plugin already rejected the node (kube-scheduler stops at the first). Press f for the full diagnosis.", "", pluginPurpose[plugin]}
	default:
		return plugin + " on " + node, []string{"Skipped: the plugin's PreFilter said it has nothing to check for this pod."}
	}
	f := v.c.fork()
	var all []*framework.NodeInfo
	if f != nil {
		all = f.sched.Snapshot().List()
	}
	nom := nomineesOf(f, node)
	var pod = v.c.pod()
	if f == nil {
		pod = nil
	}
	lines := explainFilter(plugin, st, pod, f.nodeInfo(node), all, nom)
	if plugin == "DynamicResources" && f != nil {
		lines = append(lines, explainDRA(f, node)...)
	}
	return orNone(plugin) + " on " + node, lines
}

func (v *filterView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.FullDiag, k.Sort, k.AllCols, k.Search, k.Explain, withHelp(k.Enter, "enter", "node"), k.Next, k.Step, k.Help}
}

func (v *filterView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.grid(k.FullDiag, k.Sort, k.AllCols, withHelp(k.Enter, "enter", "open node"), k.Search), k.global()}
}

// filteringExtenders lists the extenders whose filter call answered, in
// call order.
func filteringExtenders(a *record.Attempt) []string {
	var names []string
	for i := range a.ExtenderCalls {
		c := &a.ExtenderCalls[i]
		if c.Verb == "filter" && c.Error == "" && !slices.Contains(names, c.Extender) {
			names = append(names, c.Extender)
		}
	}
	return names
}

// filterCallOf is the last filter call the attempt made to the extender
// named, or nil.
func filterCallOf(a *record.Attempt, extender string) *record.ExtenderCall {
	return extenderCallOf(a, extender, "filter")
}

func extenderCallOf(a *record.Attempt, extender, verb string) *record.ExtenderCall {
	if a == nil {
		return nil
	}
	for i := len(a.ExtenderCalls) - 1; i >= 0; i-- {
		if c := &a.ExtenderCalls[i]; c.Extender == extender && c.Verb == verb {
			return c
		}
	}
	return nil
}

// explainExtenderFilter is the teaching pane of an extender's Filter cell:
// its verdict on the node, then the call and its raw answer.
func explainExtenderFilter(c *record.ExtenderCall, node string) []string {
	var out []string
	switch {
	case c.FailedAndUnresolvable[node] != "":
		out = append(out, "Rejected, unresolvable (preemption will not try this node): "+c.FailedAndUnresolvable[node])
	case c.Failed[node] != "":
		out = append(out, "Rejected: "+c.Failed[node])
	case slices.Contains(c.Passed, node):
		out = append(out, "Kept by the extender.")
	default:
		out = append(out, "Not sent to the extender, or dropped without a reason (the node then has no status).")
	}
	out = append(out, "", "The extender filters after every Filter plugin, over the nodes that passed them: one HTTP call, "+
		"its rejections are the nodes' statuses, with no plugin name (the pod's unschedulable plugins get \"Extender\").")
	return append(out, extenderCallLines(c)...)
}

// extenderCallLines describe one call: what was sent, how long it took,
// how it ended and the raw answer.
func extenderCallLines(c *record.ExtenderCall) []string {
	out := []string{"", fmt.Sprintf("POST %s/%s · %d node(s) sent · %v", strings.TrimRight(c.Extender, "/"), c.Verb, c.Nodes, c.Latency.Round(time.Microsecond))}
	if c.Replayed {
		out[1] += " · replayed: the answer it got before (or the recording's), not called again"
	}
	switch {
	case c.Error != "" && c.Skipped():
		out = append(out, "failed, skipped (ignorable"+map[bool]string{true: ", and prioritize errors are always skipped", false: ""}[c.Verb == "prioritize"]+"): "+c.Error)
	case c.Error != "":
		out = append(out, "failed, which fails the attempt: "+c.Error)
	}
	if c.Response != "" {
		out = append(out, "", "Raw answer:", c.Response)
	}
	return out
}
