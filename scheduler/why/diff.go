package why

import (
	"fmt"
	"sort"
	"strings"

	"github.com/schedtui/schedtui/scheduler/record"
)

// NodeDiff is one node's fate in two attempts of the same pod: before
// and after a what-if's edits.
type NodeDiff struct {
	Node    string `json:"node"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Changed bool   `json:"-"`
}

// NodeVerdicts is each node's fate in an attempt, as one line: the
// rejecting Filter plugin and its reasons, or the total score (★ on the
// node chosen), or "not evaluated".
func NodeVerdicts(a *record.Attempt) map[string]string {
	out := map[string]string{}
	if a == nil || a.Nodes == nil {
		return out
	}
	j := a.JSON()
	for _, n := range a.Nodes.Names {
		out[n] = "not evaluated"
	}
	for n, f := range j.Filter {
		out[n] = "✗ " + f.Plugin + ": " + strings.Join(f.Reasons, "; ")
	}
	for _, n := range j.Feasible {
		out[n] = "✓ feasible"
		if t, ok := j.Total[n]; ok {
			out[n] = fmt.Sprintf("✓ score %d", t)
		}
		if n == a.Node {
			out[n] += " ★ chosen"
		}
	}
	return out
}

// DiffAttempts lines up two attempts node by node (by name: a node only
// one of them saw is "" in the other), and counts the nodes whose fate
// changed.
func DiffAttempts(before, after *record.Attempt) ([]NodeDiff, int) {
	b, a := NodeVerdicts(before), NodeVerdicts(after)
	names := sortedKeys(b)
	for n := range a {
		if _, ok := b[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var rows []NodeDiff
	changed := 0
	for _, n := range names {
		r := NodeDiff{Node: n, Before: b[n], After: a[n], Changed: b[n] != a[n]}
		if r.Changed {
			changed++
		}
		rows = append(rows, r)
	}
	return rows, changed
}
