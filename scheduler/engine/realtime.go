package engine

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
)

// Real time. A snapshot or a recording runs in virtual time: the clock
// only moves when Step finds nothing poppable and jumps to the next due
// event. With Options.Clock the engine runs in real time instead (a live
// cluster): something outside moves the clock forward to the Clock's now
// with AdvanceTo, and every timer, backoff flush and leftover flush due by
// then fires in order, each at its own instant, through the same code as a
// virtual jump (advance, then settle). Step first advances to the Clock's
// now and never jumps past it, and a change whose At is later than the
// engine's now advances the clock to At before it applies, so that it
// takes its place among the timers. Who moves the clock differs; what
// happens when it moves does not.

// RealTime reports whether the engine follows a Clock (Options.Clock).
func (e *Engine) RealTime() bool { return e.opts.Clock != nil }

// AdvanceTo moves the clock forward to t, firing everything due by then
// in order: victims' terminations, preemption API calls, scheduled
// changes, the backoffQ flush every second and the leftover flush every
// 30s. A t not after now still runs what is due now (a preemption's API
// calls right after its attempt). It makes no scheduling attempt and never
// moves the clock back. It reports whether anything besides the clock
// changed (an event on the timeline or a cluster change). Rewind replays
// it.
func (e *Engine) AdvanceTo(t time.Time) bool {
	if t.Before(e.now) {
		t = e.now
	}
	before := e.snapshotMarks()
	e.advance(t)
	if e.changedSince(before) {
		e.logTick(t)
	}
	return e.hist.Events() != before.timeline || e.gen != before.gen
}

// Tick advances a real-time engine to its Clock's now (AdvanceTo); a
// virtual-time engine ignores it.
func (e *Engine) Tick() bool {
	if e.opts.Clock == nil {
		return false
	}
	return e.AdvanceTo(e.opts.Clock.Now())
}

// advance is the idle loop of step without its stop at a poppable pod:
// settle what is due now, jump to the next due instant while it is not
// after t, and finally settle at t.
func (e *Engine) advance(t time.Time) {
	for jumps := 0; jumps < maxIdleJumps; jumps++ {
		e.settle()
		next, ok := e.nextDue()
		if !ok || next.After(t) {
			break
		}
		e.now = next
	}
	if t.After(e.now) {
		e.now = t
	}
	e.settle()
}

// logTick logs an advance. Consecutive advances with nothing in between
// are one (advancing to t1 then t2 fires what advancing to t2 fires), as
// long as no checkpoint separates them: a live session ticks every second
// and must not grow the log by one op a second.
func (e *Engine) logTick(t time.Time) {
	if e.replaying {
		return
	}
	if n := len(e.log); n > 0 && e.log[n-1].kind == opTick && e.log[n-1].attempts == e.hist.Len() &&
		(len(e.checkpoints) == 0 || e.checkpoints[len(e.checkpoints)-1].ops < e.logBase+n) {
		e.log[n-1].until = t
		return
	}
	e.logOp(op{kind: opTick, until: t})
}

// stepLimit is the latest instant Step may jump to: none in virtual time;
// in real time the Clock's now, after advancing to it.
func (e *Engine) stepLimit() time.Time {
	if e.opts.Clock == nil {
		return time.Time{}
	}
	e.Tick()
	return e.now
}

// realTimeDeadline bounds RunUntil's deadline by the Clock's now in real
// time: the engine never runs ahead of the clock.
func (e *Engine) realTimeDeadline(d time.Time) time.Time {
	if e.opts.Clock == nil {
		return d
	}
	if now := e.opts.Clock.Now(); now.Before(d) {
		return now
	}
	return d
}

// applyAt brings a real-time engine to c.At before a change arriving then
// applies; it reports false in virtual time, where a later change waits
// for its timer.
func (e *Engine) applyAt(c change.Change) bool {
	if e.opts.Clock == nil {
		return false
	}
	e.AdvanceTo(c.At)
	return true
}

// evictedHere reports, in real time, a pod this engine removed at the end
// of its grace period: the live cluster, which schedtui does not write to,
// may still report it afterwards (an update, its deletion by the cluster's
// own scheduler or the kubelet). Those changes concern a pod the engine no
// longer holds and are noted on the timeline instead of refused.
func (e *Engine) evictedHere(uid types.UID) bool {
	_, ok := e.evicted[uid]
	return ok && e.opts.Clock != nil
}

// noteEvicted records a victim's removal in real time (see evictedHere).
func (e *Engine) noteEvicted(uid types.UID) {
	if e.opts.Clock == nil {
		return
	}
	if e.evicted == nil {
		e.evicted = map[types.UID]struct{}{}
	}
	e.evicted[uid] = struct{}{}
}

// AlreadyEvicted is the message of a cluster change about a victim the
// engine already removed at the end of its grace period (real time).
const AlreadyEvicted = "ignored: schedtui evicted the pod when its grace period ended"
