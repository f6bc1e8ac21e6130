package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Verdict compares a prediction with what the cluster's scheduler did.
type Verdict string

const (
	// Agree: the same node (or both found none).
	Agree Verdict = "agree"
	// Tie: another node, but one tied with schedtui's at the top total
	// score; which of them kube-scheduler takes is not fixed (the order its
	// parallel Filter returned them, or a random draw when an extender scored).
	Tie Verdict = "tie"
	// Disagree: schedtui rejected the node, scored it lower, never got to
	// it, or placed a pod the cluster's scheduler could not.
	Disagree Verdict = "disagree"
)

// judge compares a prediction with the cluster's decision.
func judge(a *record.Attempt, actual, unschedulable string) (Verdict, string) {
	if actual == "" {
		if a.Outcome != record.Scheduled {
			return Agree, "neither schedtui nor the cluster's scheduler finds a node; the cluster says: " + unschedulable
		}
		return Disagree, fmt.Sprintf("schedtui places the pod on %s; the cluster's scheduler says: %s", a.Node, unschedulable)
	}
	if a.Outcome == record.Scheduled && a.Node == actual {
		return Agree, "schedtui chose " + actual + " too"
	}
	prefix := "schedtui finds no node (" + firstLine(a.Message) + "); "
	if a.Outcome == record.Scheduled {
		prefix = "schedtui chose " + a.Node + "; "
	}
	n := a.Nodes.Index(actual)
	if n < 0 {
		return Disagree, prefix + "schedtui does not know node " + actual
	}
	for _, r := range a.Rejected {
		if r.Node == n {
			st := a.Statuses[r.Status]
			return Disagree, fmt.Sprintf("%sschedtui's %s rejects %s: %s", prefix, st.Plugin, actual, strings.Join(st.Reasons, ", "))
		}
	}
	if a.AbsentStatus >= 0 && !slices.Contains(a.Feasible, n) {
		st := a.Statuses[a.AbsentStatus]
		return Disagree, fmt.Sprintf("%sschedtui's %s leaves %s out: %s", prefix, st.Plugin, actual, strings.Join(st.Reasons, ", "))
	}
	if !slices.Contains(a.Feasible, n) {
		return Disagree, fmt.Sprintf("%sschedtui stopped after %d feasible node(s) (numFeasibleNodesToFind) before evaluating %s", prefix, len(a.Feasible), actual)
	}
	if slices.Contains(a.Top(), n) {
		return Tie, fmt.Sprintf("%s and %s tie at the top total score; which tied node kube-scheduler takes is not fixed", a.Node, actual)
	}
	var got, best int64
	for _, t := range a.Totals() {
		if t.Node == n {
			got = t.Total
		}
		if t.Node == a.Chosen {
			best = t.Total
		}
	}
	return Disagree, fmt.Sprintf("%s%s scores %d, below %s's %d", prefix, actual, got, a.Node, best)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// VerdictRow is one line of an observation's two sides: what is compared,
// the cluster's side, schedtui's side, and whether they differ.
type VerdictRow struct {
	What, Cluster, Schedtui string
	Differs                 bool
}

// VerdictRows lays out the verdict on a decision of the cluster's
// scheduler (an observation, judged by judge, or in shadow mode by
// shadowVerdict): it puts the cluster's decision next to schedtui's attempt a (the
// attempt the observation ev names). For a PodGroup's condition: the
// cluster's and the one schedtui's pod-group cycle writes. For a binding: the node each chose,
// Filter's verdict on each of the two nodes (the first plugin rejecting it
// and its reasons), then each Score plugin's weighted score on both nodes
// and the totals. For an unschedulable decision: the outcomes and the two
// messages.
func VerdictRows(ev history.Event, a *record.Attempt) []VerdictRow {
	if IsPodGroupRef(ev.Pod) {
		// A PodGroup's condition: the cluster's against the one
		// schedtui's pod-group cycle writes (shadow_group.go).
		mine := ev.Predicted
		if mine == "" {
			mine = "(none written)"
		}
		return []VerdictRow{{What: "condition", Cluster: ev.ClusterMessage, Schedtui: mine, Differs: ev.ClusterMessage != ev.Predicted}}
	}
	if a == nil {
		return nil
	}
	mine := a.Node
	if mine == "" {
		mine = "no node (" + a.Outcome.String() + ")"
	}
	if ev.Node == "" {
		msg := a.Message
		if a.Outcome == record.Scheduled {
			msg = "(none: the pod fits)"
		}
		return []VerdictRow{
			{What: "decision", Cluster: "unschedulable", Schedtui: mine, Differs: a.Outcome == record.Scheduled},
			{What: "message", Cluster: ev.ClusterMessage, Schedtui: msg, Differs: ev.ClusterMessage != a.Message},
		}
	}
	rows := []VerdictRow{{What: "node", Cluster: ev.Node, Schedtui: mine, Differs: ev.Node != a.Node}}
	filter := VerdictRow{What: "Filter on " + ev.Node, Cluster: "passes (the cluster bound it there)", Schedtui: filterVerdict(a, ev.Node)}
	filter.Differs = filter.Schedtui != "passes"
	rows = append(rows, filter)
	if !a.Scored || a.Node == "" || a.Node == ev.Node {
		return rows
	}
	theirs, ours := slot(a, ev.Node), slot(a, a.Node)
	if theirs < 0 || ours < 0 {
		return rows
	}
	rows = append(rows, VerdictRow{What: "score", Cluster: ev.Node, Schedtui: a.Node})
	var tc, ts int64
	for p := range a.Scores {
		col := &a.Scores[p]
		norm := col.NormalizedScores()
		if theirs >= len(norm) || ours >= len(norm) {
			continue
		}
		c, s := norm[theirs]*int64(col.Weight), norm[ours]*int64(col.Weight)
		tc, ts = tc+c, ts+s
		rows = append(rows, VerdictRow{What: fmt.Sprintf("  %s (×%d)", col.Plugin, col.Weight), Cluster: fmt.Sprint(c), Schedtui: fmt.Sprint(s), Differs: c != s})
	}
	return append(rows, VerdictRow{What: "  total", Cluster: fmt.Sprint(tc), Schedtui: fmt.Sprint(ts), Differs: tc != ts})
}

// slot is node's position in a.Feasible (the score columns' order), or -1.
func slot(a *record.Attempt, node string) int {
	n := a.Nodes.Index(node)
	if n < 0 {
		return -1
	}
	return slices.Index(a.Feasible, n)
}

// filterVerdict is what schedtui's Filter said about node in attempt a.
func filterVerdict(a *record.Attempt, node string) string {
	n := a.Nodes.Index(node)
	if n < 0 {
		return "unknown node"
	}
	if slices.Contains(a.Feasible, n) {
		return "passes"
	}
	for _, r := range a.Rejected {
		if r.Node == n {
			st := a.Statuses[r.Status]
			return st.Plugin + ": " + strings.Join(st.Reasons, ", ")
		}
	}
	if a.AbsentStatus >= 0 {
		st := a.Statuses[a.AbsentStatus]
		return st.Plugin + ": " + strings.Join(st.Reasons, ", ")
	}
	return "not evaluated (the search stopped after enough feasible nodes)"
}
