package queue

import (
	"math"
	"time"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// backoffQueue is upstream's backoffQueue: two heaps of pods waiting out
// their backoff, podBackoffQ for pods rejected by plugins (popped early
// when activeQ is empty) and podErrorBackoffQ for pods that failed with an
// error (never popped early).
type backoffQueue struct {
	// windowed is the SchedulerPopFromBackoffQ gate: on, expirations are
	// aligned to ordering windows and podBackoffQ breaks ties as activeQ.
	windowed          bool
	clock             func() time.Time
	podBackoffQ       *podHeap
	podErrorBackoffQ  *podHeap
	podInitialBackoff time.Duration
	podMaxBackoff     time.Duration
}

// newBackoffQueue orders podBackoffQ by backoff expiration then, with
// SchedulerPopFromBackoffQ (windowed), by activeLess
// (lessBackoffCompletedWithPriority); podErrorBackoffQ, and podBackoffQ
// without the gate, by expiration then seq.
func newBackoffQueue(clock func() time.Time, initial, max time.Duration, activeLess func(a, b *entry) bool, windowed bool) *backoffQueue {
	bq := &backoffQueue{clock: clock, podInitialBackoff: initial, podMaxBackoff: max, windowed: windowed}
	bq.podBackoffQ = &podHeap{less: bq.lessBackoffCompleted}
	if windowed {
		bq.podBackoffQ = &podHeap{less: func(a, b *entry) bool {
			ta, tb := bq.backoffTime(a), bq.backoffTime(b)
			if !ta.Equal(tb) {
				return ta.Before(tb)
			}
			return activeLess(a, b)
		}}
	}
	bq.podErrorBackoffQ = &podHeap{less: bq.lessBackoffCompleted}
	return bq
}

// lessBackoffCompleted orders the error heap by expiration; seq breaks
// ties so that flush order is reproducible.
func (bq *backoffQueue) lessBackoffCompleted(a, b *entry) bool {
	ta, tb := bq.backoffTime(a), bq.backoffTime(b)
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.seq < b.seq
}

// alignToWindow truncates to the ordering window with
// SchedulerPopFromBackoffQ, and leaves t as it is without.
func (bq *backoffQueue) alignToWindow(t time.Time) time.Time {
	if !bq.windowed {
		return t
	}
	return t.Truncate(BackoffOrderingWindow)
}

// backoffTime is getBackoffTime: zero for a pod that never failed, else
// the window-aligned Timestamp + backoff, cached in BackoffExpiration.
func (bq *backoffQueue) backoffTime(e *entry) time.Time {
	count := e.UnschedulableCount
	if e.ConsecutiveErrorsCount > 0 {
		count = e.ConsecutiveErrorsCount
	}
	if count == 0 {
		return time.Time{}
	}
	if e.BackoffExpiration.IsZero() {
		e.BackoffExpiration = bq.alignToWindow(e.Timestamp.Add(bq.calculateBackoffDuration(count, e.size())))
	}
	return e.BackoffExpiration
}

// calculateBackoffDuration: the initial backoff doubled per failure after
// the first, capped at the maximum; for an entity of several pods (a pod
// group's queued members) the cap is the maximum times the square root of
// their number, as upstream's, so a group of 8 backs off up to ~28s.
func (bq *backoffQueue) calculateBackoffDuration(count, entitySize int) time.Duration {
	if count <= 0 {
		return 0
	}
	maxBackoff := bq.podMaxBackoff
	if entitySize > 1 {
		maxBackoff = time.Duration(float64(maxBackoff) * math.Sqrt(float64(entitySize)))
	}
	shift := uint(count - 1)
	if bq.podInitialBackoff > maxBackoff>>shift {
		return maxBackoff
	}
	return bq.podInitialBackoff << shift
}

// isPodBackingoff: a pod whose expiration falls in the current window is
// still backing off.
func (bq *backoffQueue) isPodBackingoff(e *entry) bool {
	return !bq.backoffTime(e).Before(bq.alignToWindow(bq.clock()))
}

// add routes by rejector plugins: none means the pod failed with an
// error and waits in the error heap.
func (bq *backoffQueue) add(e *entry) {
	if e.UnschedulablePlugins.Len() == 0 && e.PendingPlugins.Len() == 0 {
		e.where = inErrorBackoff
		bq.podErrorBackoffQ.add(e)
		return
	}
	e.where = inBackoff
	bq.podBackoffQ.add(e)
}

// heapOf is the heap holding an entry that is in the backoff queue.
func (bq *backoffQueue) heapOf(e *entry) *podHeap {
	if e.where == inErrorBackoff {
		return bq.podErrorBackoffQ
	}
	return bq.podBackoffQ
}

// popEachBackoffCompleted pops every pod whose backoff has completed, from
// podBackoffQ then podErrorBackoffQ.
func (bq *backoffQueue) popEachBackoffCompleted() []*entry {
	var done []*entry
	for _, h := range bq.heaps() {
		for e := h.peek(); e != nil && !bq.isPodBackingoff(e); e = h.peek() {
			done = append(done, h.pop())
		}
	}
	return done
}

// heaps lists podBackoffQ, then podErrorBackoffQ.
func (bq *backoffQueue) heaps() []*podHeap { return []*podHeap{bq.podBackoffQ, bq.podErrorBackoffQ} }

// nextRelease is the earliest time a flush tick releases a pod: the
// window after its expiration, or without SchedulerPopFromBackoffQ any
// time after it. ok is false when both heaps are empty; a zero time means
// the next tick, whenever it comes.
func (bq *backoffQueue) nextRelease() (time.Time, bool) {
	var best time.Time
	found := false
	for _, h := range bq.heaps() {
		e := h.peek()
		if e == nil {
			continue
		}
		t := bq.backoffTime(e)
		switch {
		case t.IsZero():
		case bq.windowed:
			t = bq.alignToWindow(t).Add(BackoffOrderingWindow)
		default:
			t = t.Add(time.Nanosecond)
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	return best, found
}

// expiration is backoffTime for a QueuedPodInfo outside the queue.
func (bq *backoffQueue) expiration(pi *framework.QueuedPodInfo) time.Time {
	return bq.backoffTime(&entry{QueueingParams: &pi.QueueingParams})
}
