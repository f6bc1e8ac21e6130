package why

import (
	"fmt"

	"github.com/schedtui/schedtui/scheduler/record"
)

// ExplainTie is the teaching pane's text for a node tied at the top total
// score of attempt a (with at least one other node): how kube-scheduler
// v1.37 picks among them, why two runs may differ, and what shadow mode
// calls a choice of another tied node. Nil when node is not tied.
func ExplainTie(a *record.Attempt, node string) []string {
	top := a.Top()
	if len(top) < 2 {
		return nil
	}
	var tied []string
	in := false
	for _, t := range top {
		tied = append(tied, a.Nodes.Names[t])
		in = in || a.Nodes.Names[t] == node
	}
	if !in {
		return nil
	}
	extenders := false
	for i := range a.Scores {
		extenders = extenders || a.Scores[i].Extender
	}
	out := []string{
		fmt.Sprintf("A tie: %s share the top total (the rows marked =).", Names(tied)),
		"kube-scheduler v1.37 puts the scored nodes in a max-heap by total and takes its top; among equal totals the heap's order decides. " +
			"That order is the feasible-node list's, which 16 parallel Filter workers fill in whatever order they finish (and which, when the " +
			"search stops early at percentageOfNodesToScore, starts at a node that moves on each attempt): two runs on the same cluster may pick different tied nodes.",
	}
	if extenders {
		out = append(out, "An extender scored here, so each node also got a random tie-breaker (Randomizer): the pick among the tied nodes is random.")
	}
	out = append(out,
		fmt.Sprintf("schedtui filters in node order (as parallelism: 1) and picks the same one every run: %s here.", a.Node),
		"In shadow mode, the cluster's scheduler choosing another of the tied nodes is a tie verdict, not a disagreement: either choice is the algorithm's.")
	return out
}
