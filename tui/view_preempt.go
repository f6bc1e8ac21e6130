package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/plugins/defaultpreemption"
	"github.com/schedtui/schedtui/scheduler/record"
)

// preemptView shows what DefaultPreemption considered: each candidate node
// with its victims and PDB violations, the deciding criterion and the
// nomination.
type preemptView struct {
	c    *Common
	w, h int
	l    list
}

func newPreemptView(c *Common) *preemptView { return &preemptView{c: c} }

func (v *preemptView) Init() tea.Cmd    { return nil }
func (v *preemptView) SetSize(w, h int) { v.w, v.h = w, h }
func (v *preemptView) Refresh() {
	n := 0
	if a := v.c.focused(); a != nil && a.Preemption != nil {
		n = len(a.Preemption.Candidates)
	}
	v.l.h = 1
	v.l.set(n)
}

func (v *preemptView) Click(_, y int) tea.Cmd {
	// Candidates start after the summary; each takes a variable number of
	// lines, so map y through the rendered layout.
	for i, top := range v.candidateTops() {
		if y >= top {
			v.l.cursor = i
		}
	}
	v.l.clamp()
	return nil
}

func (v *preemptView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := v.c.Keys
		switch {
		case navigate(k, msg, 1, v.l.move):
		case key.Matches(msg, k.Enter):
			if a := v.c.focused(); a != nil && a.Preemption != nil && v.l.cursor < len(a.Preemption.Candidates) {
				return emit(openNodeMsg{node: a.Preemption.Candidates[v.l.cursor].Node})
			}
		}
	case tea.MouseWheelMsg:
		wheel(msg, v.l.move)
	}
	return nil
}

func (v *preemptView) summary(a *record.Attempt) []string {
	p := a.Preemption
	out := []string{fmt.Sprintf("%s (priority %d) found no node; DefaultPreemption ran.", a.Pod, a.Priority)}
	switch {
	case !p.Eligible:
		return append(out, "Not eligible: "+p.Reason)
	case len(p.Candidates) == 0:
		return append(out, "No candidate: on no node would evicting lower-priority pods make the pod fit.")
	}
	decided := p.DecidedBy
	if decided == "" && len(p.Tied) > 0 {
		decided = "every criterion tied between " + strings.Join(p.Tied, ", ") + " (upstream picks any)"
	}
	if p.Chosen >= 0 && p.Chosen < len(p.Candidates) {
		out = append(out, fmt.Sprintf("Chosen: %s. The pod is nominated to %s.", p.Candidates[p.Chosen].Node, orNone(a.Nominated)),
			"Decided by: "+decided+".")
	}
	if len(p.NominatedPodsCleared) > 0 {
		out = append(out, "Nominations cleared on that node (lower priority): "+strings.Join(p.NominatedPodsCleared, ", "))
	}
	return out
}

func (v *preemptView) candidateTops() []int {
	a := v.c.focused()
	if a == nil || a.Preemption == nil {
		return nil
	}
	y := len(v.summaryLines(a)) + 1
	var tops []int
	for _, c := range a.Preemption.Candidates {
		tops = append(tops, y)
		y += 1 + len(c.Victims)
	}
	return tops
}

func (v *preemptView) summaryLines(a *record.Attempt) []string {
	var out []string
	for _, l := range v.summary(a) {
		out = append(out, wrap(l, v.w)...)
	}
	return out
}

func (v *preemptView) View() string {
	st := v.c.St
	a := v.c.focused()
	switch {
	case a == nil:
		return block("No attempt yet: press n.", v.w, v.h)
	case a.Preemption == nil:
		msg := "No preemption in this attempt"
		if a.Outcome == record.Scheduled {
			msg += ": the pod was scheduled."
		} else {
			msg += ": PostFilter did not evaluate it."
		}
		return block(msg+"\nPress c with a preemption breakpoint (b, then \"preemption\") to run to the next one.", v.w, v.h)
	case !v.c.revealed(record.PhasePostFilter):
		return block(a.Pod+": PostFilter has not run yet — press s to step to it.", v.w, v.h)
	}
	p := a.Preemption
	lines := v.summaryLines(a)
	lines = append(lines, st.HeadingE.wrap(fit(fmt.Sprintf("   %-24s %-5s %s", "CANDIDATE", "PDB", "VICTIMS (priority)"), v.w)))
	for i, c := range p.Candidates {
		mark := " "
		if i == p.Chosen {
			mark = "★"
		}
		head := fit(fmt.Sprintf(" %s %-24s %-5d %d victim(s)", mark, c.Node, c.PDBViolations, len(c.Victims)), v.w)
		switch {
		case i == v.l.cursor:
			head = st.Sel.wrap(head)
		case i == p.Chosen:
			head = st.WinnerE.wrap(head)
		}
		lines = append(lines, head)
		for _, vic := range c.Victims {
			s := fmt.Sprintf("       %s (%d) started %s", vic.Pod, vic.Priority, vic.StartTime.UTC().Format("15:04:05"))
			if len(vic.PDBs) > 0 {
				s = st.BadE.wrap(s + "  violates PDB " + strings.Join(vic.PDBs, ", "))
			}
			lines = append(lines, s)
		}
	}
	return block(strings.Join(lines, "\n"), v.w, v.h)
}

func (v *preemptView) Explain() (string, []string) {
	out := []string{"Preemption looks for a node where removing lower-priority pods lets the pod fit, keeping as few victims as possible (victims that would violate a PodDisruptionBudget are reprieved first when possible).", "",
		"Among candidate nodes, pickOneNodeForPreemption applies in order:"}
	for i, c := range defaultpreemption.Criteria() {
		out = append(out, fmt.Sprintf("  %d. %s", i+1, c))
	}
	out = append(out, "and takes the first candidate left when all tie.")
	if a := v.c.focused(); a != nil && a.Preemption != nil && a.Preemption.DecidedBy != "" {
		out = append(out, "", "Here it was decided by: "+a.Preemption.DecidedBy+".")
	}
	out = append(out, "", "The preemptor is nominated to the chosen node and retried once the victims are gone; other pods count the nomination as if it ran there.")
	return "Preemption", out
}

func (v *preemptView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Up, k.Down, withHelp(k.Enter, "enter", "open node"), k.Explain, k.Next, k.Continue, k.Help}
}

func (v *preemptView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.vertical(withHelp(k.Enter, "enter", "open node")), k.global()}
}
