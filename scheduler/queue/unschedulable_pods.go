package queue

import (
	"container/list"
	"time"
)

// unschedulablePods is upstream's unschedulablePods: pods that failed and
// wait for an event that may make them schedulable, and gated pods. It
// keeps insertion order (upstream keeps a map), so that moving pods out of
// it is reproducible.
type unschedulablePods struct {
	pods *list.List // of *entry
	// maxInUnschedulable is the longest a pod stays before the leftover
	// flush moves it.
	maxInUnschedulable time.Duration
}

func newUnschedulablePods(max time.Duration) *unschedulablePods {
	return &unschedulablePods{pods: list.New(), maxInUnschedulable: max}
}

// add appends an entry that is not in the pool yet.
func (u *unschedulablePods) add(e *entry) {
	e.where = inUnschedulable
	e.elem = u.pods.PushBack(e)
}

func (u *unschedulablePods) delete(e *entry) {
	u.pods.Remove(e.elem)
	e.elem = nil
}

// each visits the pool in order.
func (u *unschedulablePods) each(fn func(e *entry)) {
	for el := u.pods.Front(); el != nil; el = el.Next() {
		fn(el.Value.(*entry))
	}
}

// lastMove is when a pod last failed or was flushed.
func lastMove(e *entry) time.Time {
	if e.FlushTimestamp.After(e.Timestamp) {
		return e.FlushTimestamp
	}
	return e.Timestamp
}

// leftover lists, in pool order, the pods that have stayed longer than
// the maximum at now.
func (u *unschedulablePods) leftover(now time.Time) []*entry {
	var out []*entry
	u.each(func(e *entry) {
		if now.Sub(lastMove(e)) > u.maxInUnschedulable {
			out = append(out, e)
		}
	})
	return out
}

// nextTimeout is the earliest instant after which a leftover flush moves
// some pod; ok is false when the pool is empty.
func (u *unschedulablePods) nextTimeout() (time.Time, bool) {
	var best time.Time
	found := false
	u.each(func(e *entry) {
		t := lastMove(e).Add(u.maxInUnschedulable)
		if !found || t.Before(best) {
			best, found = t, true
		}
	})
	return best, found
}
