package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedtui/schedtui/scheduler/record"
)

// CompareRow is one line of an observation's two sides: what is compared,
// the cluster's side, schedtui's side, and whether they differ.
type CompareRow struct {
	What, Cluster, Schedtui string
	Differs                 bool
}

// Compare puts the cluster's decision next to schedtui's attempt a (the
// attempt the observation ev names). For a binding: the node each chose,
// Filter's verdict on each of the two nodes (the first plugin rejecting it
// and its reasons), then each Score plugin's weighted score on both nodes
// and the totals. For an unschedulable decision: the outcomes and the two
// messages.
func Compare(ev Event, a *record.Attempt) []CompareRow {
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
		return []CompareRow{
			{What: "decision", Cluster: "unschedulable", Schedtui: mine, Differs: a.Outcome == record.Scheduled},
			{What: "message", Cluster: ev.ClusterMessage, Schedtui: msg, Differs: ev.ClusterMessage != a.Message},
		}
	}
	rows := []CompareRow{{What: "node", Cluster: ev.Node, Schedtui: mine, Differs: ev.Node != a.Node}}
	filter := CompareRow{What: "Filter on " + ev.Node, Cluster: "passes (the cluster bound it there)", Schedtui: filterVerdict(a, ev.Node)}
	filter.Differs = filter.Schedtui != "passes"
	rows = append(rows, filter)
	if !a.Scored || a.Node == "" || a.Node == ev.Node {
		return rows
	}
	theirs, ours := slot(a, ev.Node), slot(a, a.Node)
	if theirs < 0 || ours < 0 {
		return rows
	}
	rows = append(rows, CompareRow{What: "score", Cluster: ev.Node, Schedtui: a.Node})
	var tc, ts int64
	for p := range a.Scores {
		col := &a.Scores[p]
		norm := col.NormalizedScores()
		if theirs >= len(norm) || ours >= len(norm) {
			continue
		}
		c, s := norm[theirs]*int64(col.Weight), norm[ours]*int64(col.Weight)
		tc, ts = tc+c, ts+s
		rows = append(rows, CompareRow{What: fmt.Sprintf("  %s (×%d)", col.Plugin, col.Weight), Cluster: fmt.Sprint(c), Schedtui: fmt.Sprint(s), Differs: c != s})
	}
	return append(rows, CompareRow{What: "  total", Cluster: fmt.Sprint(tc), Schedtui: fmt.Sprint(ts), Differs: tc != ts})
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
