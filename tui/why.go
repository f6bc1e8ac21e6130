package tui

import (
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// The Pod view's verdict and hints come from package why, as explain's do:
// the verdict from the focused attempt's fork (names need the cluster as
// the attempt saw it) and its full diagnosis when computed; the hints,
// each proven by re-running the attempt with the change, in the
// background (hintsCmd), since proving re-runs Filter over the nodes.

// hintsResult is the proven hints of one attempt.
type hintsResult struct {
	attempt *record.Attempt
	res     *why.Result
	diag    *record.FullDiagnosis
	err     error
}

// hintsMsg delivers an attempt's hints to the session; h is nil when a
// rewind replaced the attempt before they were proven.
type hintsMsg struct {
	ref attemptRef
	h   *hintsResult
}

// viewRefs point the verdict to the views that show the details.
var viewRefs = why.Refs{Filter: "Filter", Scores: "Scores", Preemption: "Preempt"}

// whySummary says in a few lines why the attempt ended as it did and what
// would change it: the part a newcomer reads first.
func whySummary(a *record.Attempt, c *Common) []string {
	if a == nil || c == nil {
		return why.Verdict(why.Input{})
	}
	in, h := whyInput(a, c)
	out := why.Verdict(in)
	if g := c.World.groupOf(c.Focus); g != nil {
		// A member's attempt: the group's verdict and hints decide
		// (groupLines); what is left to say is the member's part.
		return why.MemberLines(g, a, out, viewRefs.Filter)
	}
	if !hintable(a) {
		return out
	}
	switch {
	case h == nil:
		out = append(out, "Hints: proving candidate changes on a copy of the cluster…")
	case h.err != nil:
		out = append(out, "Hints: "+h.err.Error())
	default:
		out = append(out, h.res.Lines()...)
	}
	return out
}

// whyInput is the focused attempt a with what is known of the cluster as
// it saw it (its fork, its full diagnosis), and its hints when proven.
func whyInput(a *record.Attempt, c *Common) (why.Input, *hintsResult) {
	in := why.Input{Attempt: a, Refs: viewRefs}
	if f := c.fork(); f != nil {
		in.Sched, in.Pod = f.sched, f.pod
	}
	if d := c.Diags[c.Focus]; d != nil && d.err == nil {
		in.Diag = d.d
	}
	h := c.Hints[c.Focus]
	if h != nil && h.attempt != a {
		h = nil
	}
	if in.Diag == nil && h != nil {
		in.Diag = h.diag
	}
	return in, h
}

// hintable: only attempts where no node fit get hints.
func hintable(a *record.Attempt) bool {
	return a != nil && (a.Outcome == record.Unschedulable || a.Outcome == record.Error)
}

// hintsCmd computes attempt i's hints on a fork of its own (proving
// changes the fork; the shared one stays as the views read it).
func (s *session) hintsCmd(i int) tea.Cmd {
	if g := s.c.World.groupOf(i); g != nil {
		return s.groupHintsCmd(g)
	}
	r := s.ref(i)
	a := r.a
	if !hintable(a) || s.hintsPending[r] {
		return nil
	}
	if h := s.c.Hints[i]; h != nil && h.attempt == a {
		return nil
	}
	s.hintsPending[r] = true
	b := s.b
	var diag *record.FullDiagnosis
	if d := s.c.Diags[i]; d != nil && d.err == nil {
		diag = d.d
	}
	return func() tea.Msg {
		h := &hintsResult{attempt: a, diag: diag}
		b.Locked(func() {
			if !r.in(b.Attempts()) {
				h = nil
				return
			}
			sched, pod, err := b.Fork(i)
			if err != nil {
				h.err = err
				return
			}
			if h.diag == nil {
				if h.diag, err = sched.Diagnose(pod); err != nil {
					h.err = err
					return
				}
			}
			h.res, h.err = why.Hints(why.Input{Attempt: a, Sched: sched, Pod: pod, Diag: h.diag, DaemonSets: b.DaemonSets}, why.Options{})
		})
		return hintsMsg{ref: r, h: h}
	}
}

// onHints stores an attempt's hints and redraws, unless a rewind replaced
// the attempt.
func (s *session) onHints(msg hintsMsg) {
	delete(s.hintsPending, msg.ref)
	if msg.h == nil || !s.shows(msg.ref) {
		return
	}
	s.c.Hints[msg.ref.i] = msg.h
	s.c.post(stateMsg{allViews})
}

// groupHintsCmd computes the hints of group cycle g, kept with its first
// member's attempt (every member shows them): each is proven by re-running
// the group cycle on a fork of its own (why.GroupHints).
func (s *session) groupHintsCmd(g *record.GroupAttempt) tea.Cmd {
	first := g.FirstAttempt
	r := s.ref(first)
	if r.a == nil || g.Result != record.GroupUnschedulable || s.hintsPending[r] {
		return nil
	}
	if h := s.c.Hints[first]; h != nil && h.attempt == r.a {
		return nil
	}
	s.hintsPending[r] = true
	b := s.b
	in := why.GroupHintsInput{GroupInput: groupInput(s.c.World, g), DaemonSets: b.DaemonSets}
	return func() tea.Msg {
		h := &hintsResult{attempt: r.a}
		b.Locked(func() {
			if !r.in(b.Attempts()) {
				h = nil
				return
			}
			in.Fork = func() (*scheduler.Scheduler, *v1.Pod, error) { return b.Fork(first) }
			if in.Sched, in.Pod, h.err = in.Fork(); h.err != nil {
				return
			}
			h.res, h.err = why.GroupHints(in)
		})
		return hintsMsg{ref: r, h: h}
	}
}
