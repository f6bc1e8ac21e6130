package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Real time. On a live cluster the engine follows the wall clock
// (Backend.Clock): every second the session advances it to the clock's
// now, which fires whatever fell due (a backoff ending, the 5-minute
// flush, a victim's grace period), and lets the ages on screen count. A
// snapshot or a recording runs in virtual time and never ticks.

// tickEvery is how often a live session moves the engine's clock.
const tickEvery = time.Second

type (
	// tickMsg: tickEvery passed.
	tickMsg struct{}
	// clockMsg: the engine followed the clock to now; w is a new capture
	// when anything besides the clock changed.
	clockMsg struct {
		now time.Time
		w   *world
	}
)

// everySecond is the session's default tick.
func everySecond() tea.Cmd {
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// startTicking starts the ticks of a live session; nil in virtual time.
func (s *session) startTicking() tea.Cmd {
	if s.b.Clock == nil || s.b.Tick == nil {
		return nil
	}
	return s.tick()
}

// onTick advances the engine to the clock's now in a Cmd, unless an
// operation runs (it advances the clock itself and captures after) or the
// previous tick has not come back, and schedules the next tick.
func (s *session) onTick() tea.Cmd {
	if s.b.Clock == nil || s.b.Tick == nil {
		return nil
	}
	next := s.tick()
	if s.busy != "" || s.ticking {
		return next
	}
	s.ticking = true
	b := s.b
	return tea.Batch(next, func() tea.Msg {
		var msg clockMsg
		b.Locked(func() {
			if b.Tick() {
				msg.w = capture(b)
			}
			msg.now = b.Now()
		})
		return msg
	})
}

// onClock shows the engine after a tick: a new capture when something
// moved, else only the clock, which is all the ages need (the Queues view
// reads them off the captured queue and its Now). An idle cluster with an
// empty queue redraws nothing.
func (s *session) onClock(msg clockMsg) {
	s.ticking = false
	cur := s.c.World
	if s.busy != "" || cur == nil {
		return
	}
	if msg.w != nil {
		if msg.w.newer(cur) {
			s.showWorld(msg.w)
			s.c.post(stateMsg{allViews})
		}
		return
	}
	q := &cur.queue
	if !msg.now.After(q.Now) || len(q.ActiveQ)+len(q.BackoffQ)+len(q.Unschedulable) == 0 {
		return
	}
	// The captured world is shared with the views, never mutated: a copy
	// with the new time.
	w := *cur
	w.queue.Now = msg.now
	s.c.World = &w
}

// nothingToSchedule is the note of a step that found nothing poppable: in
// virtual time nothing will ever be; in real time nothing is yet.
func (s *session) nothingToSchedule() string {
	if s.b.inForecast() != nil {
		return "nothing left to schedule (u steps back, and from the forecast's first attempt returns to the live cluster)"
	}
	if s.b.Clock != nil {
		return "nothing to schedule now: waiting pods move on cluster events, when a backoff or a victim's grace period ends, or at the 5-minute flush"
	}
	return "nothing left to schedule"
}
