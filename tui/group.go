package tui

import (
	"fmt"
	"strings"
	"time"

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
	if g.GatingPlugin == names.GangScheduling && strings.Contains(g.GatingMessage, "minCount") {
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
	return fmt.Sprintf("  %-38s prio %-6d %s · %d queued · %d placed · %s", g.Group, g.Priority,
		groupPolicy(g.Policy, g.MinCount), len(g.Members), g.Scheduled, groupState(g, now))
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
	if g.Policy == framework.PolicyGang {
		out = append(out, fmt.Sprintf("%s is a gang: its members are scheduled all or nothing. A group cycle tries every queued member, one after the other (each seeing the ones before it placed); unless at least minCount (%d) find a node, none binds and all wait together.", g.Group, g.MinCount))
	} else {
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
