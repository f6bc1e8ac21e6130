package tui

import (
	"fmt"
	"strings"
	"time"

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
