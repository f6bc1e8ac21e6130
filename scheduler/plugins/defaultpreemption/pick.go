package defaultpreemption

import (
	"math"
	"time"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// The criteria of pickOneNodeForPreemption, in order, named as upstream's
// rules read; each keeps the candidates with the highest score and passes
// ties to the next.
var criteria = []struct {
	name  string
	score func(c *candidate, now time.Time) int64
}{
	{"minimum number of PDB violations", func(c *candidate, _ time.Time) int64 { return -int64(c.pdbViolations) }},
	{"minimum highest-priority victim", func(c *candidate, _ time.Time) int64 {
		return -int64(corev1helpers.PodPriority(c.victims[0]))
	}},
	{"minimum sum of victim priorities", func(c *candidate, _ time.Time) int64 {
		var sum int64
		for _, p := range c.victims {
			sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
		}
		return -sum
	}},
	{"minimum number of victims", func(c *candidate, _ time.Time) int64 { return -int64(len(c.victims)) }},
	{LatestStartCriterion, func(c *candidate, now time.Time) int64 {
		return earliestStartOfTopPriority(c, now).UnixNano()
	}},
}

// LatestStartCriterion is the last criterion: among the victims of the
// highest priority on each node, take the earliest start; the node where it
// is latest wins.
const LatestStartCriterion = "latest start time of the highest-priority victims (the node whose earliest-started one started latest)"

// Criteria names pickOneNodeForPreemption's criteria, in order; the first
// candidate left wins when all tie.
func Criteria() []string {
	out := make([]string, len(criteria))
	for i, c := range criteria {
		out[i] = c.name
	}
	return out
}

// pickOneNodeForPreemption returns the chosen candidate's index, the
// criterion that singled it out ("single candidate" when there was only
// one, "" when every criterion tied), and the candidates still tied after
// the last criterion (upstream then takes the first in Go map order, i.e.
// any of them; schedtui takes the first in discovery order).
func pickOneNodeForPreemption(cands []*candidate, now time.Time) (int, string, []string) {
	if len(cands) == 1 {
		return 0, "single candidate", nil
	}
	remaining := make([]int, len(cands))
	for i := range cands {
		remaining[i] = i
	}
	for _, crit := range criteria {
		var selected []int
		best := int64(math.MinInt64)
		for _, i := range remaining {
			s := crit.score(cands[i], now)
			if s > best {
				best = s
				selected = selected[:0]
			}
			if s == best {
				selected = append(selected, i)
			}
		}
		if len(selected) == 1 {
			return selected[0], crit.name, nil
		}
		remaining = selected
	}
	tied := make([]string, len(remaining))
	for i, idx := range remaining {
		tied[i] = cands[idx].node
	}
	return remaining[0], "", tied
}

// earliestStartOfTopPriority is the earliest start time among the victims
// of the highest priority.
func earliestStartOfTopPriority(c *candidate, now time.Time) time.Time {
	earliest := startTime(c.victims[0], now)
	top := corev1helpers.PodPriority(c.victims[0])
	for _, p := range c.victims {
		switch prio := corev1helpers.PodPriority(p); {
		case prio == top:
			if t := startTime(p, now); t.Before(earliest) {
				earliest = t
			}
		case prio > top:
			top, earliest = prio, startTime(p, now)
		}
	}
	return earliest
}
