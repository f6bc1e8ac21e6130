package why

import (
	"sort"

	"github.com/schedtui/schedtui/scheduler/record"
)

// ScoreSort orders the score matrix's rows: the attempt's feasible nodes.
type ScoreSort uint8

const (
	// ScoreByTotal puts the highest total first (the winner's order).
	ScoreByTotal ScoreSort = iota
	// ScoreByNodeOrder keeps the node-tree order.
	ScoreByNodeOrder
	// ScoreByName orders by node name.
	ScoreByName
	numScoreSorts
)

var scoreSortNames = [numScoreSorts]string{"total", "node order", "name"}

func (s ScoreSort) String() string { return scoreSortNames[s] }

// Next is the order after s, round to the first.
func (s ScoreSort) Next() ScoreSort { return (s + 1) % numScoreSorts }

// ScoreOrder lists the score rows shown, sorted by: indexes into
// a.Feasible (and totals, each feasible node's total) of the nodes whose
// name match accepts (nil: every node). It appends to order[:0], so a view
// reuses its slice: at 5000 rows a sort is well under a millisecond.
func ScoreOrder(a *record.Attempt, totals []int64, by ScoreSort, match func(name string) bool, order []int) []int {
	order = order[:0]
	for i, f := range a.Feasible {
		if match == nil || match(a.Nodes.Names[f]) {
			order = append(order, i)
		}
	}
	switch by {
	case ScoreByTotal:
		sort.SliceStable(order, func(x, y int) bool { return totals[order[x]] > totals[order[y]] })
	case ScoreByNodeOrder:
		sort.SliceStable(order, func(x, y int) bool { return a.Feasible[order[x]] < a.Feasible[order[y]] })
	case ScoreByName:
		sort.SliceStable(order, func(x, y int) bool {
			return a.Nodes.Names[a.Feasible[order[x]]] < a.Nodes.Names[a.Feasible[order[y]]]
		})
	}
	return order
}
