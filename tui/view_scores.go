package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// Score modes.
const (
	modeRaw = iota
	modeNormalized
	modeWeighted
)

var modeNames = []string{"raw", "normalized", "weighted (normalized × weight)"}

// scoresView is the score matrix: feasible nodes × Score plugins. Scores
// stay numbers; only the visible window is formatted, with heat escapes
// precomputed per bucket.
type scoresView struct {
	c      *Common
	w, h   int
	mode   int
	sortBy why.ScoreSort
	filter matcher

	a       *record.Attempt
	g       grid
	raw     [][]int64 // [plugin][feasible index]
	norm    [][]int64
	total   []int64
	lo, hi  [3][]int64 // per mode, per plugin
	tlo     int64
	thi     int64
	order   []int
	top     map[int32]bool
	ntop    int
	nameBuf []byte
}

func newScoresView(c *Common) *scoresView { return &scoresView{c: c} }

func (v *scoresView) Init() tea.Cmd { return nil }
func (v *scoresView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.g.setSize(w, max(2, h-2))
}

func (v *scoresView) Refresh() {
	a := v.c.focused()
	if a == v.a && a != nil && v.order != nil && v.g.cell != nil {
		// Same attempt: only the order or the filter may have changed.
		v.reorder()
		return
	}
	v.a = a
	v.g = grid{}
	v.order = v.order[:0]
	if a == nil || !a.Scored {
		return
	}
	n := len(a.Feasible)
	v.raw = make([][]int64, len(a.Scores))
	v.norm = make([][]int64, len(a.Scores))
	v.total = make([]int64, n)
	for m := range v.lo {
		v.lo[m] = make([]int64, len(a.Scores))
		v.hi[m] = make([]int64, len(a.Scores))
	}
	for p := range a.Scores {
		col := &a.Scores[p]
		v.raw[p], v.norm[p] = col.RawScores(), col.NormalizedScores()
		for i := 0; i < n && i < len(v.norm[p]); i++ {
			v.total[i] += v.norm[p][i] * int64(col.Weight)
		}
		for m := range v.lo {
			lo, hi := int64(1<<62), int64(-1<<62)
			for i := 0; i < n && i < len(v.raw[p]); i++ {
				x := v.value(m, p, i)
				lo, hi = min(lo, x), max(hi, x)
			}
			v.lo[m][p], v.hi[m][p] = lo, hi
		}
	}
	v.tlo, v.thi = int64(1<<62), int64(-1<<62)
	for _, t := range v.total {
		v.tlo, v.thi = min(v.tlo, t), max(v.thi, t)
	}
	v.top = map[int32]bool{}
	for _, t := range a.Top() {
		v.top[t] = true
	}
	v.ntop = len(v.top)
	nameW := 8
	for _, f := range a.Feasible {
		nameW = max(nameW, len(a.Nodes.Names[f]))
	}
	v.g.frozen = []gridCol{{title: "NODE", width: min(nameW, 24) + 2}, {title: "TOTAL", width: 6, right: true}}
	for _, col := range a.Scores {
		t := why.ShortName(col.Plugin) + "×" + strconv.Itoa(int(col.Weight))
		v.g.cols = append(v.g.cols, gridCol{title: t, width: max(len(t), 6), right: true})
	}
	v.g.cell = v.cell
	v.reorder()
}

func (v *scoresView) value(mode, p, i int) int64 {
	switch mode {
	case modeRaw:
		return v.raw[p][i]
	case modeNormalized:
		return v.norm[p][i]
	}
	return v.norm[p][i] * int64(v.a.Scores[p].Weight)
}

// reorder sorts and filters the rows.
func (v *scoresView) reorder() {
	a := v.a
	if a == nil || !a.Scored {
		return
	}
	v.order = why.ScoreOrder(a, v.total, v.sortBy, v.filter.match, v.order)
	v.g.rows = len(v.order)
	v.g.setSize(v.w, max(2, v.h-2))
}

func (v *scoresView) cell(r, c int) (string, esc) {
	st := v.c.St
	i := v.order[r]
	node := v.a.Feasible[i]
	switch c {
	case 0:
		name := v.a.Nodes.Names[node]
		switch {
		case node == v.a.Chosen:
			return "★ " + name, st.WinnerE
		case v.top[node]:
			return "= " + name, st.WarnE
		}
		return "  " + name, esc{}
	case 1:
		return strconv.FormatInt(v.total[i], 10), st.Heat[heat(v.total[i], v.tlo, v.thi)]
	}
	p := c - 2
	if i >= len(v.raw[p]) {
		return "", esc{}
	}
	x := v.value(v.mode, p, i)
	v.nameBuf = strconv.AppendInt(v.nameBuf[:0], x, 10)
	return string(v.nameBuf), st.Heat[heat(x, v.lo[v.mode][p], v.hi[v.mode][p])]
}

func (v *scoresView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchMsg:
		v.filter = newMatcher(msg.q)
		v.Refresh()
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, v.g.bodyRows(), v.g.move):
		case searchKey(v.c, msg):
		case key.Matches(msg, k.Mode):
			v.mode = (v.mode + 1) % len(modeNames)
		case key.Matches(msg, k.Sort):
			v.sortBy = v.sortBy.Next()
			v.reorder()
		case key.Matches(msg, k.Enter):
			if v.a != nil && v.g.row < len(v.order) {
				return emit(openNodeMsg{node: v.a.Nodes.Names[v.a.Feasible[v.order[v.g.row]]]})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.g.move)
	}
	return nil
}

func (v *scoresView) Click(x, y int) tea.Cmd {
	y -= 3
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

func (v *scoresView) View() string {
	a := v.c.focused()
	switch {
	case a == nil:
		return block("No attempt yet: press n.", v.w, v.h)
	case a.Summarized:
		return block(summaryOnly(a), v.w, v.h)
	case !v.c.revealed(record.PhaseScore) && a.Scored:
		return block(fmt.Sprintf("%s: Score has not run yet in this attempt — press s to step to it.", a.Pod), v.w, v.h)
	case !a.Scored:
		msg := "Nothing was scored: "
		switch {
		case len(a.Feasible) == 0:
			msg += "no node passed Filter (see the Filter map, 3)."
		case len(a.Feasible) == 1:
			msg += "only " + a.Nodes.Names[a.Feasible[0]] + " passed Filter, and upstream skips scoring a single node."
		default:
			msg += "the attempt did not reach Score."
		}
		return block(msg, v.w, v.h)
	}
	var b strings.Builder
	tie := ""
	if v.ntop > 1 {
		tie = fmt.Sprintf(" · %d nodes tied at the top (=), which one kube-scheduler takes is not fixed", v.ntop)
	}
	b.WriteString(line(fmt.Sprintf("%s · %d feasible · winner ★ %s%s", a.Pod, len(a.Feasible), a.Node, tie), v.w))
	b.WriteByte('\n')
	plugin := ""
	if v.g.col >= 0 && v.g.col < len(a.Scores) {
		plugin = a.Scores[v.g.col].Plugin
	}
	b.WriteString(line(fmt.Sprintf("scores: %s (m) · sort: %s (o) · column: %s", modeNames[v.mode], v.sortBy, plugin), v.w))
	b.WriteByte('\n')
	v.g.view(v.c.St, &b)
	return block(b.String(), v.w, v.h)
}

func (v *scoresView) Explain() (string, []string) {
	a := v.a
	if a == nil || !a.Scored || v.g.row >= len(v.order) || v.g.col < 0 || v.g.col >= len(a.Scores) {
		return "Scores", []string{"Each Score plugin rates each feasible node; NormalizeScore maps ratings to 0-100; each is multiplied by the plugin's weight; the highest total wins."}
	}
	i := v.order[v.g.row]
	p := v.g.col
	col := &a.Scores[p]
	node := a.Nodes.Names[a.Feasible[i]]
	cell := why.ScoreCell{
		Plugin: col.Plugin, Node: node, Weight: col.Weight, Raw: v.raw[p][i], Normalized: v.norm[p][i],
		MinRaw: v.lo[modeRaw][p], MaxRaw: v.hi[modeRaw][p], Normalizes: col.Normalized != nil,
		NumNodes: len(a.Nodes.Names),
	}
	var out []string
	if col.Extender {
		out = why.ExplainExtenderScore(a, cell)
	} else {
		var in why.Input
		if f := v.c.fork(); f != nil {
			in = why.Input{Sched: f.sched, Pod: f.pod}
		}
		out = why.ExplainScore(in, cell)
	}
	out = append(out, "", fmt.Sprintf("Total for %s: %d (winner %s: %d)", node, v.total[i], a.Node, v.totalOf(a.Chosen)))
	if tie := why.ExplainTie(a, node); tie != nil {
		// On a tied node the tie comes first: it decided the attempt.
		out = append(append(tie, ""), out...)
	}
	return col.Plugin + " on " + node, out
}

func (v *scoresView) totalOf(node int32) int64 {
	for i, f := range v.a.Feasible {
		if f == node {
			return v.total[i]
		}
	}
	return 0
}

func (v *scoresView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Mode, k.Sort, k.Left, k.Right, k.Search, k.Explain, k.Next, k.Help}
}

func (v *scoresView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.grid(k.Mode, k.Sort, withHelp(k.Enter, "enter", "open node"), k.Search), k.global()}
}
