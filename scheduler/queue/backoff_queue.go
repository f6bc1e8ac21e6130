package queue

import (
	"time"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// backoffQueue is upstream's backoffQueue: two heaps of pods waiting out
// their backoff, podBackoffQ for pods rejected by plugins (popped early
// when activeQ is empty) and podErrorBackoffQ for pods that failed with an
// error (never popped early).
type backoffQueue struct {
	clock             func() time.Time
	podBackoffQ       *podHeap
	podErrorBackoffQ  *podHeap
	podInitialBackoff time.Duration
	podMaxBackoff     time.Duration
}

// newBackoffQueue orders podBackoffQ by backoff expiration then by
// activeLess (lessBackoffCompletedWithPriority), podErrorBackoffQ by
// expiration then seq.
func newBackoffQueue(clock func() time.Time, initial, max time.Duration, activeLess func(a, b *entry) bool) *backoffQueue {
	bq := &backoffQueue{clock: clock, podInitialBackoff: initial, podMaxBackoff: max}
	bq.podBackoffQ = &podHeap{less: func(a, b *entry) bool {
		ta, tb := bq.backoffTime(a), bq.backoffTime(b)
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return activeLess(a, b)
	}}
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

// alignToWindow truncates to the ordering window (SchedulerPopFromBackoffQ
// is on by default).
func alignToWindow(t time.Time) time.Time { return t.Truncate(BackoffOrderingWindow) }

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
		e.BackoffExpiration = alignToWindow(e.Timestamp.Add(bq.calculateBackoffDuration(count)))
	}
	return e.BackoffExpiration
}

// calculateBackoffDuration: the initial backoff doubled per failure after
// the first, capped at the maximum.
func (bq *backoffQueue) calculateBackoffDuration(count int) time.Duration {
	if count <= 0 {
		return 0
	}
	shift := uint(count - 1)
	if bq.podInitialBackoff > bq.podMaxBackoff>>shift {
		return bq.podMaxBackoff
	}
	return bq.podInitialBackoff << shift
}

// isPodBackingoff: a pod whose expiration falls in the current window is
// still backing off.
func (bq *backoffQueue) isPodBackingoff(e *entry) bool {
	return !bq.backoffTime(e).Before(alignToWindow(bq.clock()))
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
// window after its expiration. ok is false when both heaps are empty; a
// zero time means the next tick, whenever it comes.
func (bq *backoffQueue) nextRelease() (time.Time, bool) {
	var best time.Time
	found := false
	for _, h := range bq.heaps() {
		e := h.peek()
		if e == nil {
			continue
		}
		t := bq.backoffTime(e)
		if !t.IsZero() {
			t = alignToWindow(t).Add(BackoffOrderingWindow)
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	return best, found
}

// expiration is backoffTime for a QueuedPodInfo outside the queue.
func (bq *backoffQueue) expiration(pi *framework.QueuedPodInfo) time.Time {
	return bq.backoffTime(&entry{QueuedPodInfo: pi})
}
