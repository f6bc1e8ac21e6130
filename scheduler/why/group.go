package why

import (
	"fmt"
	"strings"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// A pod group's cycle (GenericWorkload): its members go through Filter and
// Score one after the other, each seeing the members before it placed,
// and the group's policy decides what becomes of the placements (a gang:
// all or nothing at minCount). The group's verdict says how many members
// found a node against minCount, where they went and why the others found
// none; the members × nodes matrix is each member's Filter verdict per
// node, read from the members' own attempts.

// GroupInput is one pod-group cycle with its members' attempts.
type GroupInput struct {
	Group *record.GroupAttempt
	// Members are the members' attempts, in Group.Members order: nil for
	// a member not evaluated or whose attempt is no longer kept.
	Members []*record.Attempt
	// Refs name where the caller shows a member's details.
	Refs Refs
}

// Placeable counts the members with a node: those already scheduled
// before the cycle and those the cycle placed.
func Placeable(g *record.GroupAttempt) int { return g.Scheduled + g.Placed() }

// GroupSize counts the group's members the cycle knew of: those already
// scheduled and those it tried.
func GroupSize(g *record.GroupAttempt) int { return g.Scheduled + len(g.Members) }

// GroupHeadline is the group's one-line verdict: "6 of 8 members
// placeable; minCount 8" and what became of them.
func GroupHeadline(g *record.GroupAttempt) string {
	if g.Composite {
		return compositeHeadline(g)
	}
	count := fmt.Sprintf("%d of %d members placeable", Placeable(g), GroupSize(g))
	policy := "basic policy: each member on its own"
	if g.Policy == framework.PolicyGang {
		policy = fmt.Sprintf("minCount %d", g.MinCount)
	}
	switch g.Result {
	case record.GroupScheduled:
		if g.Policy == framework.PolicyGang {
			return fmt.Sprintf("Scheduled as a gang: %s; %s met, the placed members bind together.", count, policy)
		}
		return fmt.Sprintf("Scheduled: %s (%s).", count, policy)
	case record.GroupUnschedulable:
		if g.Policy == framework.PolicyGang {
			return fmt.Sprintf("Stuck: %s; %s. A gang places all or none: no member binds.", count, policy)
		}
		return fmt.Sprintf("Stuck: %s (%s).", count, policy)
	case record.GroupWaitingOnPreemption:
		return fmt.Sprintf("Waiting for victims to leave: %s; %s. Preemption made room and nominated the members; the next group cycle places them.", count, policy)
	case record.GroupError:
		return "Error in the group cycle: " + g.Message
	}
	return "Not attempted: no member was left to try."
}

// GroupVerdict says in a few lines why the group cycle ended as it did:
// the headline, the PodGroup's condition, where the placeable members
// went, and for the members that found no node, why (as the FitError
// groups their nodes).
func GroupVerdict(in GroupInput) []string {
	g := in.Group
	if g == nil {
		return nil
	}
	out := []string{GroupHeadline(g)}
	switch {
	case g.Composite:
		out = append(out, childLines(g)...)
	case g.Result == record.GroupUnschedulable:
		out = append(out, "PodGroupInitiallyScheduled: False (Unschedulable): "+g.Message)
	case g.Result == record.GroupScheduled:
		out = append(out, "PodGroupInitiallyScheduled: True")
	}
	if where := placements(g); where != "" {
		verb := "placed on"
		if g.Result != record.GroupScheduled && g.Policy == framework.PolicyGang {
			verb = "found a node in memory, released with the group:"
		}
		out = append(out, fmt.Sprintf("• %d %s %s", g.Placed(), pluralWord(g.Placed(), "member", "members")+" "+verb, where))
	}
	if len(g.Victims) > 0 {
		out = append(out, "• victims: "+Names(g.Victims))
	}
	out = append(out, placementLines(g)...)
	// The members without a node, by why: the same reasons on the same
	// nodes read as one line.
	var why byValue
	notTried := 0
	for i, m := range g.Members {
		switch {
		case !m.Evaluated:
			notTried++
		case m.Node == "" && i < len(in.Members) && in.Members[i] != nil:
			why.add(memberReasons(in.Members[i]), shortPod(m.Pod))
		case m.Node == "":
			why.add("no node (its attempt is no longer kept)", shortPod(m.Pod))
		}
	}
	for _, d := range why.order {
		out = append(out, fmt.Sprintf("• no node for %s: %s", Names(why.nodes[d]), d))
	}
	if notTried > 0 {
		out = append(out, fmt.Sprintf("• %s not tried: the cycle stops once minCount cannot be met.", plural(notTried, "member", "members")))
	}
	return out
}

// placementLines are the topology placements the cycle tried
// (TopologyAwareWorkloadScheduling), one line each: the domain, its nodes,
// the members placed there and the group's status there, the score and
// the one chosen. The members' attempts (the matrix) are the chosen
// placement's, or the first's when none was feasible.
func placementLines(g *record.GroupAttempt) []string {
	if len(g.Placements) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("• %s tried (one per topology domain); the members' attempts below are %s:",
		plural(len(g.Placements), "placement", "placements"), map[bool]string{true: "the chosen one's", false: "the first's"}[chosen(g)])}
	for _, p := range g.Placements {
		l := fmt.Sprintf("  %s (%s): %d placed", p.Name, plural(p.Nodes, "node", "nodes"), p.Placed)
		switch {
		case p.Chosen:
			l += fmt.Sprintf(", feasible, score %d: chosen", p.Score)
		case p.Feasible && p.Score != 0:
			l += fmt.Sprintf(", feasible, score %d", p.Score)
		case p.Feasible:
			l += ", feasible"
		default:
			l += ": " + orNone(p.Message)
		}
		out = append(out, l)
	}
	return out
}

func chosen(g *record.GroupAttempt) bool {
	for _, p := range g.Placements {
		if p.Chosen {
			return true
		}
	}
	return false
}

// memberReasons is a member's rejections as the FitError groups them:
// "2 × Insufficient nvidia.com/gpu (NodeResourcesFit); ...".
func memberReasons(a *record.Attempt) string {
	if a.Summarized {
		return a.Message
	}
	var parts []string
	for _, gr := range groups(a) {
		parts = append(parts, fmt.Sprintf("%d × %s (%s)", len(gr.nodes), gr.reason, gr.plugin))
	}
	if len(parts) == 0 {
		return orNone(a.Message)
	}
	return strings.Join(parts, "; ")
}

// placements lists where the cycle placed members: "gpu-b1 × 4, gpu-b2 ×
// 2", nodes in the order first used.
func placements(g *record.GroupAttempt) string {
	var order []string
	count := map[string]int{}
	for _, m := range g.Members {
		if m.Node == "" {
			continue
		}
		if count[m.Node] == 0 {
			order = append(order, m.Node)
		}
		count[m.Node]++
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%s × %d", n, count[n])
	}
	return strings.Join(parts, ", ")
}

// MemberLines is what a member's attempt (a) adds to its group's verdict:
// where the cycle put it, or why it found no node (own, the member's own
// verdict, after where is shown: "its Filter map is 3"), or that it was
// not tried.
func MemberLines(g *record.GroupAttempt, a *record.Attempt, own []string, where string) []string {
	for _, m := range g.Members {
		if m.Pod != a.Pod {
			continue
		}
		name := shortPod(m.Pod)
		switch {
		case !m.Evaluated:
			return []string{name + " was not tried: the cycle stops once minCount cannot be met."}
		case m.Node != "" && g.Result == record.GroupScheduled:
			return []string{fmt.Sprintf("%s fit and went to %s with its group.", name, m.Node)}
		case m.Node != "":
			return []string{fmt.Sprintf("%s fit: the cycle placed it on %s in memory; it waits with its group, released when the group could not be scheduled.", name, m.Node)}
		}
		if len(own) == 0 {
			return []string{name + " found no node" + see(where) + "."}
		}
		return append([]string{name + " found no node" + see(where) + ":"}, own...)
	}
	return own
}

// shortPod is a member's name without its namespace (a group's members
// share the group's).
func shortPod(key string) string {
	if _, name, ok := strings.Cut(key, "/"); ok {
		return name
	}
	return key
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// MemberCell is what one member's attempt says of one node.
type MemberCell uint8

const (
	// MemberNotTried: the member was not tried, or not on this node (its
	// Filter stopped once enough nodes fit).
	MemberNotTried MemberCell = iota
	// MemberPlaced: the member went there.
	MemberPlaced
	// MemberFits: the node passed the member's Filter; another won.
	MemberFits
	// MemberRejected: a Filter plugin rejected the node (Status).
	MemberRejected
)

// GroupCell is one cell of the members × nodes matrix.
type GroupCell struct {
	State  MemberCell
	Status record.Status
}

// GroupRow is one member: where it went ("" nowhere) and its cells, in
// the matrix's node order.
type GroupRow struct {
	Member string
	Node   string
	// Evaluated: the cycle tried the member.
	Evaluated bool
	Cells     []GroupCell
}

// GroupMatrix is members × nodes: each member's verdict on each node, as
// its attempt in the group cycle saw the node (the members before it
// placed there).
type GroupMatrix struct {
	Nodes []string
	Rows  []GroupRow
}

// NewGroupMatrix builds the matrix from the members' attempts (in.Members).
func NewGroupMatrix(in GroupInput) *GroupMatrix {
	m := &GroupMatrix{}
	g := in.Group
	if g == nil {
		return m
	}
	col := map[string]int{}
	for _, a := range in.Members {
		if a == nil || a.Nodes == nil {
			continue
		}
		for _, n := range a.Nodes.Names {
			if _, ok := col[n]; !ok {
				col[n] = len(m.Nodes)
				m.Nodes = append(m.Nodes, n)
			}
		}
	}
	for i, gm := range g.Members {
		row := GroupRow{Member: gm.Pod, Node: gm.Node, Evaluated: gm.Evaluated, Cells: make([]GroupCell, len(m.Nodes))}
		if i < len(in.Members) && in.Members[i] != nil && in.Members[i].Nodes != nil && !in.Members[i].Summarized {
			a := in.Members[i]
			verdicts, statuses := upstreamVerdicts(a)
			for j, n := range a.Nodes.Names {
				c := &row.Cells[col[n]]
				switch verdicts[j] {
				case Feasible:
					c.State = MemberFits
				case Rejected:
					c.State, c.Status = MemberRejected, a.Statuses[statuses[j]]
				}
			}
		}
		if gm.Node != "" {
			if j, ok := col[gm.Node]; ok {
				row.Cells[j].State = MemberPlaced
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// Lines renders the matrix as text: ✓ where the member
// went, ○ where it fit but another node won, the rejecting plugin's short
// name, · where it was not tried. The nodes no member could use are
// folded into one column when all do not fit the width.
func (m *GroupMatrix) Lines(width int) []string {
	if len(m.Rows) == 0 || len(m.Nodes) == 0 {
		return nil
	}
	memberW := len("member")
	for _, r := range m.Rows {
		memberW = max(memberW, len(shortPod(r.Member)))
	}
	colW := func(n string) int { return max(len(n), 6) + 1 }
	total := memberW + 2
	for _, n := range m.Nodes {
		total += colW(n)
	}
	// Which columns to show: every node if they fit, else the nodes some
	// member placed on or fit, the others under "elsewhere".
	shown := make([]bool, len(m.Nodes))
	fold := total > width
	for j := range m.Nodes {
		shown[j] = !fold
		for _, r := range m.Rows {
			if s := r.Cells[j].State; s == MemberPlaced || s == MemberFits {
				shown[j] = true
			}
		}
	}
	var b strings.Builder
	out := []string{"Members × nodes: ✓ placed there, ○ fit but another node won, a plugin: it rejected the node, · not tried"}
	b.WriteString(fmt.Sprintf("%-*s  ", memberW, "member"))
	for j, n := range m.Nodes {
		if shown[j] {
			b.WriteString(fmt.Sprintf("%-*s", colW(n), n))
		}
	}
	if fold {
		b.WriteString("elsewhere")
	}
	out = append(out, strings.TrimRight(b.String(), " "))
	for _, r := range m.Rows {
		b.Reset()
		b.WriteString(fmt.Sprintf("%-*s  ", memberW, shortPod(r.Member)))
		elsewhere := map[string]int{}
		var order []string
		for j, c := range r.Cells {
			cell := "·"
			switch c.State {
			case MemberPlaced:
				cell = "✓"
			case MemberFits:
				cell = "○"
			case MemberRejected:
				cell = ShortName(c.Status.Plugin)
			}
			if shown[j] {
				b.WriteString(fmt.Sprintf("%-*s", colW(m.Nodes[j]), truncate(cell, colW(m.Nodes[j])-1)))
			} else if c.State == MemberRejected {
				if elsewhere[cell] == 0 {
					order = append(order, cell)
				}
				elsewhere[cell]++
			}
		}
		for _, p := range order {
			b.WriteString(fmt.Sprintf("%s×%d ", p, elsewhere[p]))
		}
		if !r.Evaluated {
			b.WriteString("(not tried)")
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// truncate cuts s to n runes.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// CompositePolicy is a composite group's policy as the views name it:
// "gang, minGroupCount N" or "basic".
func CompositePolicy(policy string, minGroupCount int) string {
	if policy == framework.PolicyGang {
		return fmt.Sprintf("gang, minGroupCount %d", minGroupCount)
	}
	return "basic"
}

// compositeHeadline is GroupHeadline for a CompositePodGroup's hierarchy
// (CompositePodGroup): its members counted over every PodGroup below it,
// its policy counting the groups directly below it.
func compositeHeadline(g *record.GroupAttempt) string {
	count := fmt.Sprintf("%d of %d members placeable", Placeable(g), GroupSize(g))
	placed, groups := 0, 0
	for _, c := range g.Children {
		if c.Depth == 1 {
			groups++
			if c.Result == record.GroupScheduled {
				placed++
			}
		}
	}
	of := fmt.Sprintf("%d of %d groups placed", placed, groups)
	gang := g.Policy == framework.PolicyGang
	policy := "basic: each group on its own"
	if gang {
		policy = fmt.Sprintf("minGroupCount %d", g.MinCount)
	}
	switch g.Result {
	case record.GroupScheduled:
		return fmt.Sprintf("Scheduled as a composite group: %s, %s (%s); the placed groups' members bind.", count, of, policy)
	case record.GroupUnschedulable:
		if gang {
			return fmt.Sprintf("Stuck: %s; %s. A composite gang places at least minGroupCount of its groups or none: no member binds.", count, policy)
		}
		return fmt.Sprintf("Stuck: %s (%s).", count, policy)
	case record.GroupWaitingOnPreemption:
		return fmt.Sprintf("Waiting for victims to leave: %s; %s. Preemption made room and nominated the members; the next cycle of the hierarchy places them.", count, policy)
	case record.GroupError:
		return "Error in the cycle of the hierarchy: " + g.Message
	}
	return "Not attempted: no member was left to try."
}

// childLines are the groups below a composite root, one line each,
// indented by depth: a PodGroup with the condition the cycle wrote, a
// CompositePodGroup (which has no condition) with its outcome.
func childLines(g *record.GroupAttempt) []string {
	out := []string{fmt.Sprintf("CompositePodGroup %s: %s%s (a CompositePodGroup has no condition; each PodGroup below it gets its own)",
		g.Key(), g.Result, map[bool]string{true: ": " + g.Message, false: ""}[g.Message != ""])}
	for _, c := range g.Children {
		indent := strings.Repeat("  ", c.Depth)
		if c.Composite {
			out = append(out, fmt.Sprintf("%s• CompositePodGroup %s (%s): %s", indent, c.Name, CompositePolicy(c.Policy, c.MinCount), c.Result))
			continue
		}
		policy := "basic"
		if c.Policy == framework.PolicyGang {
			policy = fmt.Sprintf("gang, minCount %d", c.MinCount)
		}
		cond := "PodGroupInitiallyScheduled: True"
		switch c.Result {
		case record.GroupScheduled:
		case record.GroupError:
			cond = "PodGroupInitiallyScheduled: False (SchedulerError): " + c.Message
		default:
			cond = "PodGroupInitiallyScheduled: False (Unschedulable): " + c.Message
		}
		out = append(out, fmt.Sprintf("%s• PodGroup %s (%s): %s", indent, c.Name, policy, cond))
	}
	return out
}

// ChildOf is the group named name (a PodGroup, or a CompositePodGroup
// when composite) below the composite root of g, nil when g is not a
// composite cycle or has none of that name.
func ChildOf(g *record.GroupAttempt, name string, composite bool) *record.GroupChild {
	if !g.Composite {
		return nil
	}
	for i := range g.Children {
		if c := &g.Children[i]; c.Name == name && c.Composite == composite {
			return c
		}
	}
	return nil
}
