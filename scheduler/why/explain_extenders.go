package why

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedtui/schedtui/scheduler/record"
)

// Scheduler extenders: an extender that filtered is a column of the
// Filter matrix, one that prioritized a column of the scores; their
// teaching text is the verdict or score and the HTTP call behind it.

// lastExtenderCall is the last call the attempt made to the extender
// named with verb, or nil.
func lastExtenderCall(a *record.Attempt, extender, verb string) *record.ExtenderCall {
	if a == nil {
		return nil
	}
	for i := len(a.ExtenderCalls) - 1; i >= 0; i-- {
		if c := &a.ExtenderCalls[i]; c.Extender == extender && c.Verb == verb {
			return c
		}
	}
	return nil
}

// ExplainExtenderFilter is the teaching text of an extender's Filter
// verdict on node: the verdict, then the call and its raw answer; nil
// when the attempt made no filter call to it.
func ExplainExtenderFilter(a *record.Attempt, extender, node string) []string {
	c := lastExtenderCall(a, extender, "filter")
	if c == nil {
		return nil
	}
	var out []string
	switch {
	case c.FailedAndUnresolvable[node] != "":
		out = append(out, "Rejected, unresolvable (preemption will not try this node): "+c.FailedAndUnresolvable[node])
	case c.Failed[node] != "":
		out = append(out, "Rejected: "+c.Failed[node])
	case slices.Contains(c.Passed, node):
		out = append(out, "Kept by the extender.")
	default:
		out = append(out, "Not sent to the extender, or dropped without a reason (the node then has no status).")
	}
	out = append(out, "", "The extender filters after every Filter plugin, over the nodes that passed them: one HTTP call, "+
		"its rejections are the nodes' statuses, with no plugin name (the pod's unschedulable plugins get \"Extender\").")
	return append(out, ExtenderCallLines(c)...)
}

// ExplainExtenderScore is the teaching text of an extender's score of a
// node (c.Plugin names the extender): upstream's arithmetic, then the
// prioritize call behind it.
func ExplainExtenderScore(a *record.Attempt, c ScoreCell) []string {
	out := []string{fmt.Sprintf("The extender answered %d for %s; upstream adds answer × weight × 10 (MaxNodeScore / MaxExtenderPriority) = %d × %d = %d.",
		c.Raw, c.Node, c.Raw, c.Weight, c.Raw*int64(c.Weight)),
		"With any extender in play, nodes tied at the top total are broken at random, as kube-scheduler does."}
	if call := lastExtenderCall(a, c.Plugin, "prioritize"); call != nil {
		out = append(out, ExtenderCallLines(call)...)
	}
	return out
}

// ExtenderCallLines describe one call: what was sent, how long it took,
// how it ended and the raw answer.
func ExtenderCallLines(c *record.ExtenderCall) []string {
	out := []string{"", fmt.Sprintf("POST %s/%s · %d node(s) sent · %v", strings.TrimRight(c.Extender, "/"), c.Verb, c.Nodes, c.Latency.Round(time.Microsecond))}
	if c.Replayed {
		out[1] += " · replayed: the answer it got before (or the recording's), not called again"
	}
	switch {
	case c.Error != "" && c.Skipped():
		out = append(out, "failed, skipped (ignorable"+map[bool]string{true: ", and prioritize errors are always skipped", false: ""}[c.Verb == "prioritize"]+"): "+c.Error)
	case c.Error != "":
		out = append(out, "failed, which fails the attempt: "+c.Error)
	}
	if c.Response != "" {
		out = append(out, "", "Raw answer:", c.Response)
	}
	return out
}
