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
// nomination; for a member of a group cycle that preempted, the group's
// victims per node (group.go).
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
	if g := v.group(); g != nil {
		n = len(groupVictims(g.Preemption))
	} else if a := v.c.focused(); a != nil && a.Preemption != nil {
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
			if g := v.group(); g != nil {
				if vs := groupVictims(g.Preemption); v.l.cursor < len(vs) {
					return emit(openNodeMsg{node: vs[v.l.cursor].node})
				}
				return nil
			}
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

// group is the focused member's group cycle when its PodGroupPostFilter
// evaluated preemption, else nil.
func (v *preemptView) group() *record.GroupAttempt {
	if v.c.World == nil {
		return nil
	}
	if g := v.c.World.groupOf(v.c.Focus); g != nil && g.Preemption != nil {
		return g
	}
	return nil
}

func (v *preemptView) candidateTops() []int {
	if g := v.group(); g != nil {
		y := len(v.wrapped(groupPreemptSummary(g))) + 1
		tops := make([]int, len(groupVictims(g.Preemption)))
		for i := range tops {
			tops[i] = y + i
		}
		return tops
	}
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

func (v *preemptView) summaryLines(a *record.Attempt) []string { return v.wrapped(v.summary(a)) }

func (v *preemptView) wrapped(ls []string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, wrap(l, v.w)...)
	}
	return out
}

// groupView is the view for a member of a group cycle that preempted:
// the summary, then one row per victim, by node.
func (v *preemptView) groupView(g *record.GroupAttempt) string {
	st := v.c.St
	lines := v.wrapped(groupPreemptSummary(g))
	vs := groupVictims(g.Preemption)
	if len(vs) > 0 {
		lines = append(lines, st.HeadingE.wrap(fit(fmt.Sprintf("   %-16s %-26s %-8s %-26s %s", "NODE", "VICTIM", "PRIORITY", "GROUP", "DISRUPTION MODE"), v.w)))
	}
	for i, vic := range vs {
		node := vic.node
		if i > 0 && vs[i-1].node == node {
			node = ""
		}
		group, mode := victimGroup(v.c, vic)
		s := fit(fmt.Sprintf("   %-16s %-26s %-8d %-26s %s", node, vic.Pod, vic.Priority, group, mode), v.w)
		if len(vic.PDBs) > 0 {
			s = fit(strings.TrimRight(s, " ")+"  violates PDB "+strings.Join(vic.PDBs, ", "), v.w)
		}
		switch {
		case i == v.l.cursor:
			s = st.Sel.wrap(s)
		case len(vic.PDBs) > 0:
			s = st.BadE.wrap(s)
		}
		lines = append(lines, s)
	}
	return block(strings.Join(lines, "\n"), v.w, v.h)
}

func (v *preemptView) View() string {
	st := v.c.St
	a := v.c.focused()
	switch {
	case a == nil:
		return block("No attempt yet: press n.", v.w, v.h)
	case v.group() != nil:
		return v.groupView(v.group())
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
	if v.group() != nil {
		return "Preemption for a pod group", []string{
			"When a group cycle cannot place its group, PodGroupPostFilter (DefaultPreemption) looks for victims over the whole cluster at once: lower-priority pods whose eviction lets the group's scheduling run place it, keeping as few as possible (those that would violate a PodDisruptionBudget reprieved first).", "",
			"A victim's PodGroup decides what goes with it: disruptionMode single (the default) evicts the pod alone; disruptionMode all evicts every scheduled pod of its group, on whatever node, so one victim can take pods on nodes the preemptor never uses.", "",
			"The members are nominated where the run placed them; the group's next cycle waits while victims are still terminating (ongoing preemption on nominated nodes), then places the group."}
	}
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
