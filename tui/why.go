package tui

import (
	tea "charm.land/bubbletea/v2"

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
	out := why.Verdict(in)
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

// hintable: only attempts where no node fit get hints.
func hintable(a *record.Attempt) bool {
	return a != nil && (a.Outcome == record.Unschedulable || a.Outcome == record.Error)
}

// hintsCmd computes attempt i's hints on a fork of its own (proving
// changes the fork; the shared one stays as the views read it).
func (s *session) hintsCmd(i int) tea.Cmd {
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
