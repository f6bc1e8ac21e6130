package compare

import (
	"sort"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// NotAttempted is the outcome of a pod the run never attempted (gated, or
// left waiting when --until ended the run), as explain names it.
const NotAttempted = "NotAttempted"

// Result is what one side did with one pod.
type Result struct {
	// Outcome is the pod's last attempt's (record.Outcome's names), or
	// NotAttempted.
	Outcome string
	// Node is the last attempt's node ("" when not scheduled).
	Node string
	// Attempts counts the pod's attempts.
	Attempts int
	// Queue is where the pod waits at the end ("" when not queued).
	Queue history.QueueName
}

// Pod is one pod on both sides.
type Pod struct {
	Pod         string // namespace/name
	Left, Right Result
	// Divergence is set for a pod placed differently (outcome or node):
	// the first of its attempts that differs, and why.
	Divergence *Divergence
}

// PlacedDifferently reports whether the two sides placed the pod differently
// (outcome or node).
func (p *Pod) PlacedDifferently() bool {
	return p.Left.Outcome != p.Right.Outcome || p.Left.Node != p.Right.Node
}

// Report is the comparison of two runs.
type Report struct {
	Left, Right Summary
	Pods        []Pod
	// Runs are the two sides' engines, left then right, as compared.
	Runs [2]Run
}

// Run is one side's engine after its run, with how it was configured.
type Run struct {
	Side   *Resolved
	Engine *engine.Engine
}

// Compare compares two engines run from the same starting cluster, at
// their current state.
func Compare(left, right Run) *Report {
	lh, rh := histories(left.Engine), histories(right.Engine)
	names := map[string]bool{}
	for n := range lh {
		names[n] = true
	}
	for n := range rh {
		names[n] = true
	}
	r := &Report{Left: summarize(left), Right: summarize(right), Runs: [2]Run{left, right}}
	for n := range names {
		l, rr := lh[n], rh[n]
		p := Pod{Pod: n, Left: result(l), Right: result(rr)}
		if p.PlacedDifferently() {
			p.Divergence = Diverge(attemptsOf(l), attemptsOf(rr))
		}
		r.Pods = append(r.Pods, p)
	}
	sort.Slice(r.Pods, func(i, j int) bool { return r.Pods[i].Pod < r.Pods[j].Pod })
	diverged := r.Diverged()
	sort.SliceStable(diverged, func(i, j int) bool { return diverged[i].Divergence.order() < diverged[j].Divergence.order() })
	for i, p := range diverged {
		for _, q := range diverged[:i] {
			if q.Divergence.order() < p.Divergence.order() {
				p.Divergence.Earlier = append(p.Divergence.Earlier, q.Pod)
			}
		}
	}
	return r
}

// Diverged lists the pods placed differently.
func (r *Report) Diverged() []Pod {
	var out []Pod
	for _, p := range r.Pods {
		if p.Divergence != nil {
			out = append(out, p)
		}
	}
	return out
}

func histories(e *engine.Engine) map[string]*history.PodHistory {
	out := map[string]*history.PodHistory{}
	for _, h := range e.Histories() {
		h := h
		out[h.Pod] = &h
	}
	return out
}

func result(h *history.PodHistory) Result {
	if h == nil {
		return Result{Outcome: NotAttempted}
	}
	r := Result{Outcome: NotAttempted, Attempts: len(h.Attempts), Queue: h.Queue}
	if last := h.Last(); last != nil {
		r.Outcome, r.Node = last.Attempt.Outcome.String(), last.Attempt.Node
	}
	return r
}

func attemptsOf(h *history.PodHistory) []*record.Attempt {
	if h == nil {
		return nil
	}
	out := make([]*record.Attempt, len(h.Attempts))
	for i, a := range h.Attempts {
		out[i] = a.Attempt
	}
	return out
}
