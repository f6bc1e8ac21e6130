package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/compare"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// Comparison is compare mode's second side (schedtui --compare-with, or
// C): the same starting cluster under another configuration, version or
// gate set, in its own engine. The views show it on the right of the
// session's own engine (the left).
type Comparison struct {
	Backend *Backend
	// Label is the side as the user gave it ("demo-packing"); Describe
	// says what it runs ("kube-scheduler 1.35, demo-packing"), for the
	// split views' title ("" shows Label).
	Label, Describe string
	// leftSeen is the first side's attempt count at the last sync: fewer
	// now means it was rewound. Syncs run one at a time (engineCmd).
	leftSeen int
}

// NewComparison builds a second side from what the user typed in the C
// dialog (compare's side syntax); cmd/schedtui provides it, since it owns
// the cluster as loaded and the configurations a side may name.
type NewComparison func(side string) (*Comparison, error)

// rightWorld is the second side after the last operation.
type rightWorld struct {
	label, title string
	attempts     history.AttemptLog
	// byPod lists each pod's attempts, as indexes into attempts.
	byPod map[string][]int
	done  bool
	// err is why the second side could not follow a rewind.
	err error
}

// syncRight brings the second side along with the first, pod by pod: it
// makes as many attempts as the first has made (each side pops its own
// next pod), then goes on until it has made the attempt that matches the
// first side's focus (the same pod's same attempt) when it is due soon;
// after the first side was rewound it rewinds to the first side's count
// (it may otherwise stay ahead). It must run without the first side's
// lock held.
func syncRight(cmp *Comparison, left history.AttemptLog, focus int) *rightWorld {
	b := cmp.Backend
	w := &rightWorld{label: cmp.Label, title: cmp.Describe, byPod: map[string][]int{}}
	if w.title == "" {
		w.title = cmp.Label
	}
	b.Locked(func() {
		if n := b.Attempts().Len(); left.Len() < cmp.leftSeen && n > left.Len() {
			w.err = b.Rewind(n - left.Len())
		}
		cmp.leftSeen = left.Len()
		for b.Attempts().Len() < left.Len() {
			if _, ok := b.Step(); !ok {
				break
			}
		}
		if focus >= 0 && focus < left.Len() {
			pod, nth := left.At(focus).Pod, podAttemptNumber(left, focus)
			for extra := 0; extra < 2*left.Len()+16 && countPod(b.Attempts(), b.Attempts().Len(), pod) < nth; extra++ {
				if _, ok := b.Step(); !ok {
					break
				}
			}
		}
		w.attempts = b.Attempts()
		w.done = b.Quiescent != nil && b.Quiescent()
	})
	for i, a := range w.attempts.All() {
		w.byPod[a.Pod] = append(w.byPod[a.Pod], i)
	}
	return w
}

// podAttemptNumber is attempt i's number among its pod's attempts, from 1.
func podAttemptNumber(attempts history.AttemptLog, i int) int {
	return countPod(attempts, i+1, attempts.At(i).Pod)
}

// countPod counts pod's attempts among the first n.
func countPod(attempts history.AttemptLog, n int, pod string) int {
	c := 0
	for i := range n {
		if attempts.At(i).Pod == pod {
			c++
		}
	}
	return c
}

// counterpart is the second side's attempt matching the first side's
// attempt i (the same pod's same attempt), or nil when it has not made it.
func (c *Common) counterpart(i int) *record.Attempt {
	r := c.Right
	if r == nil || c.World == nil || i < 0 || i >= c.World.attempts.Len() {
		return nil
	}
	left := c.World.attempts
	list := r.byPod[left.At(i).Pod]
	if n := podAttemptNumber(left, i); n <= len(list) {
		return r.attempts.At(list[n-1])
	}
	return nil
}

// diverges reports whether the first side's attempt i decided otherwise
// than its counterpart (the Events view marks it ≠).
func (c *Common) diverges(i int) bool {
	ra := c.counterpart(i)
	return ra != nil && !compare.Same(c.World.attempts.At(i), ra)
}

// compareMark marks, in compare mode, an attempt event that diverges
// from the second side.
func compareMark(c *Common, e *history.Event) string {
	switch {
	case c.Right == nil:
		return ""
	case e.Kind == history.EventAttempt && c.diverges(e.Attempt):
		return "≠ "
	}
	return "  "
}

// comparePane is the second side's half of the Pod and Scores views: its
// attempt of the focused pod, and why the two differ.
func comparePane(c *Common, scores bool, w, h int) string {
	st := c.St
	r := c.Right
	if r == nil {
		// Before the first operation's capture.
		return block(st.PaneTitle.Render(fit("right: loading…", w)), w, h)
	}
	lines := []string{st.PaneTitle.Render(fit("right: "+r.title, w))}
	la := c.focused()
	switch {
	case la == nil:
		lines = append(lines, "No attempt yet: n steps both sides.")
		return block(strings.Join(lines, "\n"), w, h)
	case c.counterpart(c.Focus) == nil:
		lines = append(lines, wrap(fmt.Sprintf("The right side has not made %s's attempt %d (it made %d attempt(s)).",
			la.Pod, podAttemptNumber(c.World.attempts, c.Focus), r.attempts.Len()), w)...)
		return block(strings.Join(lines, "\n"), w, h)
	}
	ra := c.counterpart(c.Focus)
	// Numbered as the left's title numbers its own: #, the side's
	// sequence; the pod's attempt number is what pairs the two.
	lines = append(lines, wrap(fmt.Sprintf("Attempt #%d · %s's attempt %d on both sides", ra.Seq, ra.Pod, podAttemptNumber(c.World.attempts, c.Focus)), w)...)
	out := ra.Outcome.String()
	if ra.Node != "" {
		out += " on " + ra.Node
	}
	if ra.Nominated != "" {
		out += ", nominated to " + ra.Nominated
	}
	if compare.Same(la, ra) {
		lines = append(lines, st.Good.Render(fit("= "+out+" (as the left)", w)))
	} else {
		lines = append(lines, st.Bad.Render(fit("≠ "+out, w)))
	}
	if ra.Message != "" {
		lines = append(lines, wrap(ra.Message, w)...)
	}
	j := ra.JSON()
	if scores {
		lines = append(append(lines, ""), scoreLines(ra, j, w)...)
	} else {
		lines = append(lines, "", fit(fmt.Sprintf("Feasible: %d of %d node(s)", len(j.Feasible), len(ra.Nodes.Names)), w))
		nodes := make([]string, 0, len(j.Filter))
		for n := range j.Filter {
			nodes = append(nodes, n)
		}
		sort.Strings(nodes)
		for _, n := range nodes {
			f := j.Filter[n]
			lines = append(lines, fit(fmt.Sprintf("  %s: %s %s", n, f.Plugin, strings.Join(f.Reasons, "; ")), w))
		}
	}
	if !compare.Same(la, ra) {
		d := compare.Explain(la, ra)
		by := "no plugin"
		if d.Plugin != "" {
			by = d.Plugin
		}
		lines = append(lines, "", st.Warn.Render(fit(fmt.Sprintf("Diverged: decided by %s (%s)", by, d.Kind), w)))
		for _, l := range d.Lines {
			lines = append(lines, wrap(l, w)...)
		}
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return block(strings.Join(lines, "\n"), w, h)
}

// scoreLines is the second side's score table: each scored node's total
// and weighted score per plugin, the chosen node starred.
func scoreLines(a *record.Attempt, j record.AttemptJSON, w int) []string {
	if !a.Scored {
		return []string{fit("Not scored (one feasible node, or the nominated node).", w)}
	}
	var plugins []string
	for _, col := range a.Scores {
		plugins = append(plugins, col.Plugin)
	}
	nodes := append([]string(nil), j.Feasible...)
	sort.SliceStable(nodes, func(x, y int) bool { return j.Total[nodes[x]] > j.Total[nodes[y]] })
	out := []string{fit(fmt.Sprintf("%-12s %6s  weighted scores", "node", "total"), w)}
	for _, n := range nodes {
		mark := " "
		if n == a.Node {
			mark = "★"
		}
		var parts []string
		for _, p := range plugins {
			if s, ok := j.Scores[n][p]; ok && s.Final != 0 {
				parts = append(parts, fmt.Sprintf("%s %d", why.ShortName(p), s.Final))
			}
		}
		out = append(out, fit(fmt.Sprintf("%s%-11s %6d  %s", mark, n, j.Total[n], strings.Join(parts, " · ")), w))
	}
	return out
}

// compareWith builds the second side the C dialog names, in a Cmd.
func (s *session) compareWith(side string) tea.Cmd {
	if s.newCmp == nil {
		s.status("compare mode is not offered here (a live cluster's state keeps changing)", true)
		return nil
	}
	build := s.newCmp
	s.c.post(busyMsg{"building the second side"})
	return func() tea.Msg {
		cmp, err := build(side)
		return comparisonMsg{cmp, err}
	}
}

// onComparison enters compare mode with a built side (replacing any
// other), and brings it to the first side's attempts.
func (s *session) onComparison(msg comparisonMsg) tea.Cmd {
	s.c.post(busyMsg{})
	if msg.err != nil {
		s.status("compare: "+msg.err.Error(), true)
		return nil
	}
	s.cmp = msg.cmp
	s.status("comparing with "+msg.cmp.Label+": n steps both sides; the Pod and Scores views split; ]/[ in Events jump between divergences", false)
	return s.engineCmd("comparing", func() note { return note{} })
}
