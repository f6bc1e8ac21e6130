package compare

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/schedtui/schedtui/scheduler/record"
)

// Kind says what made two attempts of a pod differ.
type Kind string

const (
	// KindFilter: a Filter (or PreFilter) plugin rejects, on one side, the
	// node the other side chose, or rejects nodes differently.
	KindFilter Kind = "filter"
	// KindScore: both sides could place the pod on both nodes; the
	// weighted scores ranked them differently.
	KindScore Kind = "score"
	// KindTie: the two nodes tied at the top on both sides; the sides
	// broke the tie differently.
	KindTie Kind = "tie"
	// KindSearch: one side never evaluated the node the other chose (the
	// feasible-node search stopped first: percentageOfNodesToScore).
	KindSearch Kind = "search"
	// KindPreemption: both failed, and preemption nominated differently.
	KindPreemption Kind = "preemption"
	// KindQueue: one side made the attempt and the other never did.
	KindQueue Kind = "queue"
)

// Divergence is the first attempt of a pod where the two sides differ.
type Divergence struct {
	// Attempt is the pod's attempt number, from 1.
	Attempt int
	Kind    Kind
	// Plugin is the plugin whose verdict or score made the difference;
	// "" for a tie, a search that stopped, or an attempt one side never
	// made.
	Plugin string
	// Lines say it with the numbers.
	Lines []string
	// Left and Right are the two attempts (either nil for KindQueue).
	Left, Right *record.Attempt
	// Earlier are the pods that diverged before this one, in order: the
	// two sides' clusters already differed (a verdict on a node may then
	// come from another pod's placement, not from the configuration).
	Earlier []string
}

// order is where the divergence happened in the runs: the earlier of the
// two attempts' sequence numbers.
func (d *Divergence) order() int {
	switch {
	case d.Left == nil:
		return d.Right.Seq
	case d.Right == nil:
		return d.Left.Seq
	}
	return min(d.Left.Seq, d.Right.Seq)
}

// Same reports whether two attempts decided the same: outcome, node,
// message, nomination and victims.
func Same(a, b *record.Attempt) bool {
	return a.Outcome == b.Outcome && a.Node == b.Node && a.Message == b.Message &&
		a.Nominated == b.Nominated && slices.Equal(a.Victims, b.Victims)
}

// Diverge finds the first attempt where two sides' attempts of one pod
// differ and explains it; nil when they never differ.
func Diverge(left, right []*record.Attempt) *Divergence {
	for i := 0; i < max(len(left), len(right)); i++ {
		n := i + 1
		switch {
		case i >= len(left):
			return &Divergence{Attempt: n, Kind: KindQueue, Right: right[i], Lines: []string{
				fmt.Sprintf("the left side never made attempt %d (it made %d); the right side's: %s", n, len(left), decision(right[i]))}}
		case i >= len(right):
			return &Divergence{Attempt: n, Kind: KindQueue, Left: left[i], Lines: []string{
				fmt.Sprintf("the right side never made attempt %d (it made %d); the left side's: %s", n, len(right), decision(left[i]))}}
		case !Same(left[i], right[i]):
			d := Explain(left[i], right[i])
			d.Attempt = n
			return d
		}
	}
	return nil
}

// decision is an attempt's outcome in a few words.
func decision(a *record.Attempt) string {
	if a.Outcome == record.Scheduled {
		return "Scheduled on " + a.Node
	}
	s := a.Outcome.String()
	if a.Nominated != "" {
		s += ", nominated to " + a.Nominated
	}
	return s
}

// Explain says why two attempts of the same pod, one per side, decided
// differently, naming the plugin that made the difference.
func Explain(l, r *record.Attempt) *Divergence {
	d := &Divergence{Left: l, Right: r}
	lj, rj := l.JSON(), r.JSON()
	// A node chosen on one side and rejected on the other.
	for _, c := range []struct {
		chooser, other string
		chosen, otherA *record.Attempt
		otherJ         record.AttemptJSON
	}{
		{"left", "right", l, r, rj},
		{"right", "left", r, l, lj},
	} {
		if c.chosen.Outcome != record.Scheduled {
			continue
		}
		node := c.chosen.Node
		if f, ok := c.otherJ.Filter[node]; ok {
			d.Kind, d.Plugin = KindFilter, f.Plugin
			d.Lines = []string{
				fmt.Sprintf("%s: %s", c.chooser, decision(c.chosen)),
				fmt.Sprintf("%s: %s rejects %s: %s", c.other, pluginOrPreFilter(f.Plugin), node, strings.Join(f.Reasons, "; ")),
				fmt.Sprintf("%s: %s", c.other, decision(c.otherA)),
			}
			return d
		}
	}
	switch {
	case l.Outcome == record.Scheduled && r.Outcome == record.Scheduled:
		return explainScores(d, l, r, lj, rj)
	case l.Outcome == record.Scheduled || r.Outcome == record.Scheduled:
		// The chosen node was neither rejected nor feasible on the other
		// side: the search stopped before it.
		chooser, chosen, other, otherA := "left", l, "right", r
		if r.Outcome == record.Scheduled {
			chooser, chosen, other, otherA = "right", r, "left", l
		}
		d.Kind = KindSearch
		d.Lines = []string{
			fmt.Sprintf("%s: %s", chooser, decision(chosen)),
			fmt.Sprintf("%s: never evaluated %s (the search stopped after %d node(s) of %d); %s", other, chosen.Node,
				len(otherA.Feasible)+len(otherA.Rejected), len(otherA.Nodes.Names), decision(otherA)),
		}
		return d
	case l.Nominated != r.Nominated || !slices.Equal(l.Victims, r.Victims):
		d.Kind, d.Plugin = KindPreemption, "DefaultPreemption"
		d.Lines = []string{
			fmt.Sprintf("left: %s, victims: %s%s", decision(l), orNone(l.Victims), candidates(l)),
			fmt.Sprintf("right: %s, victims: %s%s", decision(r), orNone(r.Victims), candidates(r)),
		}
		return d
	}
	return explainVerdicts(d, lj, rj)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func pluginOrPreFilter(p string) string {
	if p == "" {
		return "PreFilter's node set"
	}
	return p
}

// explainVerdicts explains two failed attempts with different messages:
// the first node (by name) whose first rejecting plugin differs. The
// plugin named is the one whose verdict changed: the one that rejects on
// one side and rejects nothing on the other.
func explainVerdicts(d *Divergence, lj, rj record.AttemptJSON) *Divergence {
	d.Kind = KindFilter
	nodes := map[string]bool{}
	for n := range lj.Filter {
		nodes[n] = true
	}
	for n := range rj.Filter {
		nodes[n] = true
	}
	sorted := make([]string, 0, len(nodes))
	for n := range nodes {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	lPlugins, rPlugins := rejecting(lj), rejecting(rj)
	for _, n := range sorted {
		lf, lok := lj.Filter[n]
		rf, rok := rj.Filter[n]
		if lok && rok && lf.Plugin == rf.Plugin && slices.Equal(lf.Reasons, rf.Reasons) {
			continue
		}
		switch {
		case lok && !rPlugins[lf.Plugin]:
			d.Plugin = lf.Plugin
		case rok && !lPlugins[rf.Plugin]:
			d.Plugin = rf.Plugin
		case lok:
			d.Plugin = lf.Plugin
		default:
			d.Plugin = rf.Plugin
		}
		d.Lines = []string{
			fmt.Sprintf("node %s: left %s, right %s", n, verdictText(lf, lok), verdictText(rf, rok)),
			"left: " + lj.Message,
			"right: " + rj.Message,
		}
		return d
	}
	d.Plugin = ""
	d.Lines = []string{"left: " + lj.Message, "right: " + rj.Message}
	return d
}

func rejecting(j record.AttemptJSON) map[string]bool {
	out := map[string]bool{}
	for _, f := range j.Filter {
		out[f.Plugin] = true
	}
	return out
}

func verdictText(f record.FilterJSON, rejected bool) string {
	if !rejected {
		return "passes"
	}
	return fmt.Sprintf("%s: %s", pluginOrPreFilter(f.Plugin), strings.Join(f.Reasons, "; "))
}

// explainScores explains two placements on different nodes, each
// feasible on both sides: the plugin whose weighted score moved the
// margin between the two nodes the most towards each side's choice.
func explainScores(d *Divergence, l, r *record.Attempt, lj, rj record.AttemptJSON) *Divergence {
	ln, rn := lj.Node, rj.Node
	for _, c := range []struct {
		side string
		j    record.AttemptJSON
	}{{"left", lj}, {"right", rj}} {
		for _, n := range []string{ln, rn} {
			if _, ok := c.j.Scores[n]; !ok {
				// Unscored: the only feasible node, or the nominated
				// node's fast path.
				d.Kind = KindSearch
				d.Lines = []string{fmt.Sprintf("left: Scheduled on %s; right: Scheduled on %s; the %s side scored no %s (feasible: %s)",
					ln, rn, c.side, n, strings.Join(c.j.Feasible, ", "))}
				return d
			}
		}
	}
	totals := fmt.Sprintf("left chose %s (total %d) over %s (%d); right chose %s (total %d) over %s (%d)",
		ln, lj.Total[ln], rn, lj.Total[rn], rn, rj.Total[rn], ln, rj.Total[ln])
	if lj.Total[ln] == lj.Total[rn] && rj.Total[ln] == rj.Total[rn] {
		d.Kind = KindTie
		d.Lines = []string{totals, fmt.Sprintf("tied on both sides (left top: %s; right top: %s): the tie was broken differently",
			strings.Join(lj.Top, ", "), strings.Join(rj.Top, ", "))}
		return d
	}
	plugins := scorePlugins(lj, rj, ln)
	best, bestShift := "", int64(0)
	for _, p := range plugins {
		shift := margin(lj, p, ln, rn) - margin(rj, p, ln, rn)
		if shift > bestShift {
			best, bestShift = p, shift
		}
	}
	d.Kind, d.Plugin = KindScore, best
	d.Lines = []string{totals}
	if best == "" {
		return d
	}
	d.Lines = append(d.Lines, fmt.Sprintf("%s: left %s; right %s", best,
		sideScores(l, lj, best, ln, rn), sideScores(r, rj, best, ln, rn)))
	return d
}

// sideScores is one plugin's scores on the two nodes on one side, and the
// margin they give the first over the second.
func sideScores(a *record.Attempt, j record.AttemptJSON, p, first, second string) string {
	_, ok1 := j.Scores[first][p]
	_, ok2 := j.Scores[second][p]
	if !ok1 && !ok2 {
		return "does not score with it"
	}
	return fmt.Sprintf("%s, %s (margin %+d)", scoreText(a, j, p, first), scoreText(a, j, p, second), margin(j, p, first, second))
}

// scorePlugins are the score plugins of either side, sorted.
func scorePlugins(lj, rj record.AttemptJSON, node string) []string {
	set := map[string]bool{}
	for p := range lj.Scores[node] {
		set[p] = true
	}
	for p := range rj.Scores[node] {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// margin is how much plugin p's weighted score favours node a over b.
func margin(j record.AttemptJSON, p, a, b string) int64 {
	return j.Scores[a][p].Final - j.Scores[b][p].Final
}

// scoreText is one plugin's score on a node: "node-a 85→85×2=170"
// (raw→normalized×weight=weighted), or "node-a not scored".
func scoreText(a *record.Attempt, j record.AttemptJSON, p, node string) string {
	s, ok := j.Scores[node][p]
	if !ok {
		return node + " not scored"
	}
	return fmt.Sprintf("%s %d→%d×%d=%d", node, s.Raw, s.Normalized, Weight(a, p), s.Final)
}

// Weight is a score plugin's weight in an attempt (0 when it did not
// score).
func Weight(a *record.Attempt, plugin string) int32 {
	for _, c := range a.Scores {
		if c.Plugin == plugin {
			return c.Weight
		}
	}
	return 0
}

// candidates says what preemption weighed: the candidates it found and
// the criterion that picked one.
func candidates(a *record.Attempt) string {
	p := a.Preemption
	if p == nil {
		return ""
	}
	if !p.Eligible {
		return "; not eligible to preempt: " + p.Reason
	}
	var nodes []string
	for _, c := range p.Candidates {
		nodes = append(nodes, c.Node)
	}
	s := fmt.Sprintf("; %d candidate(s) found (%s)", len(nodes), orNone(nodes))
	if p.DecidedBy != "" {
		s += ", decided by " + p.DecidedBy
	}
	return s
}
