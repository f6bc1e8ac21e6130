package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
)

// observedDialog puts a decision of the cluster's scheduler next to
// schedtui's attempt for it, side by side (enter on an observation in the
// Events view): the node each chose, schedtui's Filter verdict on the
// cluster's node, each Score plugin's weighted score on both nodes, or
// the two unschedulable messages; the rows that differ are marked.
type observedDialog struct {
	c    *Common
	ev   history.Event
	rows []engine.VerdictRow
	w    int
}

func newObservedDialog(c *Common, ev history.Event) *observedDialog {
	d := &observedDialog{c: c, ev: ev}
	if w := c.World; w != nil && ev.Attempt >= 0 && ev.Attempt < w.attempts.Len() {
		d.rows = engine.VerdictRows(ev, w.attempts.At(ev.Attempt))
	}
	return d
}

func (d *observedDialog) Init() tea.Cmd    { return nil }
func (d *observedDialog) Open() tea.Cmd    { return nil }
func (d *observedDialog) Title() string    { return "cluster vs schedtui" }
func (d *observedDialog) Inline() bool     { return false }
func (d *observedDialog) SetSize(w, _ int) { d.w = w }

func (d *observedDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{withHelp(k.Enter, "enter", "open the attempt"), withHelp(k.Close, "esc", "back to the events")}
}

func (d *observedDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

func (d *observedDialog) Update(msg tea.Msg) tea.Cmd {
	k, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	closeDialog(d.c)
	if key.Matches(k, d.c.Keys.Enter) && d.ev.Attempt >= 0 {
		return emit(focusAttemptMsg{attempt: d.ev.Attempt, view: viewAttempt})
	}
	return nil
}

// observedLines are the dialog's body: the decision, what it was judged
// on, then the comparison in three columns.
func observedLines(ev history.Event, rows []engine.VerdictRow, w int) []string {
	out := []string{eventText(&ev), ""}
	if j := ev.Judged; j != nil {
		s := fmt.Sprintf("Judged on the cluster as its scheduler had it: %d pod(s) bound", j.Bound)
		if len(j.InFlight) > 0 {
			s += "; in flight (assumed, not bound yet): " + strings.Join(j.InFlight, ", ")
		}
		if j.AsOf != "" {
			s += "; as of " + j.AsOf
		}
		out = append(out, wrap(s, w)...)
	}
	if ev.Uncertain != "" {
		out = append(out, wrap("Uncertain: "+ev.Uncertain, w)...)
	}
	out = append(out, "")
	whatW := 8
	for _, r := range rows {
		whatW = max(whatW, len([]rune(r.What)))
	}
	colW := max(12, (w-whatW-6)/2)
	out = append(out, fit(fmt.Sprintf("  %-*s  %-*s  %s", whatW, "", colW, "the cluster", "schedtui"), w))
	for _, r := range rows {
		mark := " "
		if r.Differs {
			mark = "≠"
		}
		out = append(out, fit(fmt.Sprintf("%s %-*s  %-*s  %s", mark, whatW, r.What, colW, fit(r.Cluster, colW), r.Schedtui), w))
	}
	return out
}

func (d *observedDialog) View() string {
	st := d.c.St
	lines := []string{st.Title.Render("The cluster's decision against schedtui's attempt (≠ marks what differs · enter opens the attempt · esc closes)"), ""}
	for _, l := range observedLines(d.ev, d.rows, d.w) {
		if strings.HasPrefix(l, "≠") {
			l = st.BadE.wrap(l)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}
