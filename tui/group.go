package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// Pod groups (GenericWorkload) in the views: the queue holds a group as
// one entry (the Queues view lists it with its members, minCount, how
// many are placed and its state), and a member's attempt was made in the
// group's cycle, whose verdict and members × nodes matrix head the Pod
// view (package why reads them from the members' attempts).

// groupInput is the group cycle g with its members' attempts as the world
// keeps them (nil for one no longer kept).
func groupInput(w *world, g *record.GroupAttempt) why.GroupInput {
	in := why.GroupInput{Group: g, Refs: viewRefs, Members: make([]*record.Attempt, len(g.Members))}
	for i, m := range g.Members {
		if m.Attempt >= 0 && m.Attempt < w.attempts.Len() {
			in.Members[i] = w.attempts.At(m.Attempt)
		}
	}
	return in
}

// groupLines are the Pod view's first paragraphs for a member's attempt:
// the group's verdict, then the members × nodes matrix, one line per
// member, as wide as width allows.
func groupLines(c *Common, g *record.GroupAttempt, width int) []string {
	in := groupInput(c.World, g)
	out := []string{fmt.Sprintf("Pod group %s (%s), group cycle %d: %s", g.Key(), groupPolicy(g.Policy, g.MinCount), g.Seq, why.GroupHeadline(g))}
	if g.Composite {
		out[0] = fmt.Sprintf("Composite pod group %s (%s), group cycle %d: %s", g.Key(), why.CompositePolicy(g.Policy, g.MinCount), g.Seq, why.GroupHeadline(g))
	}
	out = append(out, why.GroupVerdict(in)[1:]...)
	out = append(out, groupHintLines(c, g)...)
	return append(out, why.NewGroupMatrix(in).Lines(width)...)
}

// groupHintLines are the group's proven hints, kept with its first
// member's attempt (groupHintsCmd).
func groupHintLines(c *Common, g *record.GroupAttempt) []string {
	if g.Result != record.GroupUnschedulable {
		return nil
	}
	h := c.Hints[g.FirstAttempt]
	switch {
	case h == nil || h.attempt != refTo(c.World, g.FirstAttempt).a:
		return []string{"Hints: proving candidate changes by re-running the group cycle on a copy of the cluster…"}
	case h.err != nil:
		return []string{"Hints: " + h.err.Error()}
	}
	var out []string
	if h.res.Note != "" {
		out = append(out, h.res.Note)
	}
	for _, hint := range h.res.Hints {
		out = append(out, fmt.Sprintf("Hint: %s → the group schedules, members on %s (proven: the group cycle re-run).", hint.Summary, why.Names(hint.FitsOn)))
	}
	return out
}

// shortName is a pod's name without its namespace.
func shortName(key string) string {
	if _, name, ok := strings.Cut(key, "/"); ok {
		return name
	}
	return key
}

// groupState is a queued group's state as the Queues view names it:
// waiting for members, gated, queued, backing off, unschedulable.
func groupState(g *engine.QueuedGroup, now time.Time) string {
	switch g.Queue {
	case history.ActiveQ:
		return "queued"
	case history.BackoffQ:
		return "backoff, " + age(max(0, g.BackoffExpiration.Sub(now))) + " left"
	case history.Unschedulable:
		return "unschedulable (" + orNone(strings.Join(g.UnschedulablePlugins, ",")) + ")"
	}
	if g.GatingPlugin == names.GangScheduling && (strings.Contains(g.GatingMessage, "minCount") || strings.Contains(g.GatingMessage, "tree to meet quorum")) {
		return "waiting for members"
	}
	return "gated (" + g.GatingPlugin + ")"
}

// groupPolicy is "gang, minCount N" or "basic".
func groupPolicy(policy string, minCount int) string {
	if policy == framework.PolicyGang {
		return fmt.Sprintf("gang, minCount %d", minCount)
	}
	return "basic"
}

// groupRow is a queued group's line: its policy, members queued and
// placed, and state.
func groupRow(g *engine.QueuedGroup, now time.Time) string {
	policy := groupPolicy(g.Policy, g.MinCount)
	if g.Composite {
		// Its PodGroups are in the side pane (e): the row stays narrow.
		policy = "composite, basic"
		if g.Policy == framework.PolicyGang {
			policy = fmt.Sprintf("composite, minGroupCount %d", g.MinCount)
		}
	}
	return fmt.Sprintf("  %-38s prio %-6d %s · %d queued · %d placed · %s", g.Group, g.Priority,
		policy, len(g.Members), g.Scheduled, groupState(g, now))
}

// podGroupOf is the name of the PodGroup a pod names ("?" when the pod is
// not known).
func podGroupOf(w *world, pod string) string {
	if p := w.pods[pod]; p != nil {
		return framework.PodGroupNameOf(p)
	}
	return "?"
}

// groupExplain is the teaching pane for a queued group.
func groupExplain(g *engine.QueuedGroup, w *world) (string, []string) {
	out := []string{}
	switch {
	case g.Composite:
		out = append(out, fmt.Sprintf("%s is a CompositePodGroup, the root of a hierarchy of pod groups (%s): the queue holds the whole hierarchy as one entry, and its cycle tries every group below it, child by child, each seeing those before it placed. ", g.Group, strings.Join(shortNames(g.Groups), ", "))+
			compositePolicyExplain(g))
	case g.Policy == framework.PolicyGang:
		out = append(out, fmt.Sprintf("%s is a gang: its members are scheduled all or nothing. A group cycle tries every queued member, one after the other (each seeing the ones before it placed); unless at least minCount (%d) find a node, none binds and all wait together.", g.Group, g.MinCount))
	default:
		out = append(out, g.Group+" has the basic policy: a group cycle tries its queued members together, and each one that finds a node binds.")
	}
	out = append(out, "", fmt.Sprintf("Members queued (%d): %s", len(g.Members), strings.Join(shortNames(g.Members), ", ")),
		fmt.Sprintf("Already placed (assumed or bound): %d", g.Scheduled), "")
	switch g.Queue {
	case history.ActiveQ:
		out = append(out, "The group is in activeQ as one entry: it pops by its priority, then the time it was queued.")
	case history.BackoffQ:
		out = append(out, fmt.Sprintf("Its last group cycle failed (attempt %d): the whole group waits out its backoff before the next one.", g.Attempts))
	case history.Unschedulable:
		out = append(out, "Its last group cycle failed because of "+orNone(strings.Join(g.UnschedulablePlugins, ", "))+": the group waits for a cluster event one of them cares about (a node added, a pod deleted, its PodGroup's minCount lowered…).")
	default:
		out = append(out, g.GatingPlugin+" holds it back at PreEnqueue: "+g.GatingMessage+".")
	}
	out = append(out, "", "enter: open its last group cycle (or run until its members are attempted) · B: breakpoint on the group")
	return "Pod group: " + string(g.Queue), out
}

// compositePolicyExplain says what a composite root's policy asks.
func compositePolicyExplain(g *engine.QueuedGroup) string {
	if g.Policy == framework.PolicyGang {
		return fmt.Sprintf("It is a composite gang: unless at least minGroupCount (%d) of the groups directly below it are placed (each by its own policy), no member binds.", g.MinCount)
	}
	return "Its policy is basic: each group below it binds by its own policy."
}

func shortNames(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = shortName(k)
	}
	return out
}

// Stepping through a group cycle. The engine runs a pod-group cycle as
// one step: ScheduleOnePodGroup tries every member (each seeing the ones
// before it assumed), then decides for the group and releases or binds
// them all, so there is no engine state between two members to stop at.
// The debugger steps member by member over the members' recorded
// attempts instead: n after a group cycle lands on its first member, n
// (and }) then shows the next member's attempt, { the previous one, and
// n from the last member runs the engine again.

// memberOf is the group cycle attempt i was made in and i's position
// among its members (from 0), or nil.
func memberOf(w *world, i int) (*record.GroupAttempt, int) {
	g := w.groupOf(i)
	if g == nil {
		return nil, -1
	}
	for k, m := range g.Members {
		if m.Attempt == i {
			return g, k
		}
	}
	return nil, -1
}

// memberNote is the status line for member k of group cycle g.
func memberNote(w *world, g *record.GroupAttempt, k int) string {
	a := w.attempts.At(g.Members[k].Attempt)
	next := "n: next member"
	if k == len(g.Members)-1 {
		next = "last member: n runs the next attempt"
	}
	return fmt.Sprintf("member %d/%d of group cycle %d: %s %s · %s", k+1, len(g.Members), g.Seq, a.Pod, a.Outcome, next)
}

// stepMember moves the focus d members along its group cycle, skipping
// members whose attempt the world no longer keeps, and reports whether
// it moved.
func (s *session) stepMember(d int) bool {
	w := s.c.World
	if w == nil {
		return false
	}
	g, k := memberOf(w, s.c.Focus)
	if g == nil {
		return false
	}
	for j := k + d; j >= 0 && j < len(g.Members); j += d {
		if i := g.Members[j].Attempt; i >= 0 && i < w.attempts.Len() {
			s.focus(i)
			s.c.MemberStep = true
			s.c.post(statusMsg{memberNote(w, g, j), false, i})
			return true
		}
	}
	return false
}

// memberKey is { (d = -1) and }: the previous or next member of the
// focused attempt's group cycle.
func (s *session) memberKey(d int) tea.Cmd {
	if s.stepMember(d) {
		return s.ensureFork()
	}
	w := s.c.World
	if w == nil {
		return nil
	}
	switch g, k := memberOf(w, s.c.Focus); {
	case g == nil:
		s.status("{ and } step through a pod-group cycle's members: the attempt in view was not made in one", false)
	case d < 0:
		s.status(fmt.Sprintf("member %d/%d is the first of group cycle %d", k+1, len(g.Members), g.Seq), false)
	default:
		s.status(fmt.Sprintf("member %d/%d is the last of group cycle %d: n runs the next attempt", k+1, len(g.Members), g.Seq), false)
	}
	return nil
}

// focusFirstMember follows an n that made a pod-group cycle: the focus
// goes to the cycle's first kept member, to step through the rest, and
// the note says so. Another attempt keeps n's note.
func (s *session) focusFirstMember(n note) note {
	w := s.c.World
	g, _ := memberOf(w, s.c.Focus)
	if g == nil || len(g.Members) < 2 {
		return n
	}
	for _, m := range g.Members {
		if m.Attempt >= 0 && m.Attempt < w.attempts.Len() {
			s.c.Focus = m.Attempt
			s.c.MemberStep = true
			return note{text: fmt.Sprintf("group cycle %d of %s ran as one step (%d members, %s): n steps through its members", g.Seq, g.Key(), len(g.Members), g.Result), attempt: true}
		}
	}
	return n
}

// A group cycle's preemption: when its members found no placement,
// PodGroupPostFilter (DefaultPreemption) looked for victims over the
// whole cluster for the group at once. The Preempt view shows, for a
// member's attempt, that preemption in place of a pod's: the victims per
// node, the group each belonged to and its disruptionMode (all: every
// scheduled pod of that group goes with it), and the cycle's message.

// groupVictim is one victim of a group's preemption as the Preempt view
// lists it.
type groupVictim struct {
	node string
	record.Victim
}

// groupVictims are the chosen candidate's victims sorted by node (a
// group preemption's candidate is the whole cluster: each victim names
// its node).
func groupVictims(p *record.Preemption) []groupVictim {
	if p == nil || p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
		return nil
	}
	c := p.Candidates[p.Chosen]
	out := make([]groupVictim, len(c.Victims))
	for i, v := range c.Victims {
		out[i] = groupVictim{node: v.Node, Victim: v}
		if v.Node == "" {
			out[i].node = c.Node
		}
	}
	slices.SortStableFunc(out, func(a, b groupVictim) int { return strings.Compare(a.node, b.node) })
	return out
}

// victimGroup says which group a victim belonged to and what its
// disruptionMode took: with all, the whole group (record.Victim.Group);
// otherwise the pod alone, naming its PodGroup when the pod is known.
func victimGroup(c *Common, v groupVictim) (group, mode string) {
	if v.Group != "" {
		return v.Group, "all → whole group"
	}
	if p := c.podObject(v.node, v.Pod); p != nil {
		if name := framework.PodGroupNameOf(p); name != "" {
			return p.Namespace + "/" + name, "single → this pod"
		}
		return "—", "no group: this pod"
	}
	return "?", "this pod"
}

// podObject finds pod key on node in the cluster as the focused attempt
// saw it (the victims were still there), else in the world's pods.
func (c *Common) podObject(node, key string) *v1.Pod {
	if cl := c.cluster(); cl != nil {
		if i, ok := cl.nodeIdx[node]; ok {
			for _, p := range cl.nodes[i].pods {
				if p.Namespace+"/"+p.Name == key {
					return p
				}
			}
		}
	}
	return c.World.pods[key]
}

// groupPreemptSummary heads the Preempt view for a member of group cycle
// g: who preempted, the outcome, the message, the members' nominations.
func groupPreemptSummary(g *record.GroupAttempt) []string {
	p := g.Preemption
	out := []string{fmt.Sprintf("Pod group %s (%s, priority %d), group cycle %d: its members found no placement; PodGroupPostFilter (DefaultPreemption) looked for victims over the whole cluster for the group at once.",
		g.Key(), groupPolicy(g.Policy, g.MinCount), g.Priority, g.Seq)}
	if g.Message != "" {
		out = append(out, "Message: "+g.Message)
	}
	switch {
	case !p.Eligible:
		return append(out, "Not eligible: "+p.Reason)
	case len(groupVictims(p)) == 0:
		return append(out, "No victims: evicting lower-priority pods would not let the group be placed.")
	}
	var noms []string
	for _, m := range g.Members {
		if m.Nominated != "" {
			noms = append(noms, shortName(m.Pod)+" → "+m.Nominated)
		}
	}
	out = append(out, fmt.Sprintf("%d victim(s) on %d node(s). Members nominated: %s.", len(groupVictims(p)), countNodes(groupVictims(p)), orNone(strings.Join(noms, ", "))))
	if p.TiedPlacements > 0 {
		out = append(out, fmt.Sprintf("%d member(s) were placed on one of several nodes tied at the top score: kube-scheduler takes whichever its parallel Filter returned first, so which victims are given back can vary from run to run.", p.TiedPlacements))
	}
	return out
}

func countNodes(vs []groupVictim) int {
	n := 0
	for i, v := range vs {
		if i == 0 || v.node != vs[i-1].node {
			n++
		}
	}
	return n
}
