package upstream

// The time RunQueue's scheduler lives in: a fake clock that stands still
// but for RunQueue's steps, and the queue's backoff flush called at each
// step, which upstream's own goroutine would call on the clock's ticker.

import (
	"reflect"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname

	testingclock "k8s.io/utils/clock/testing"

	"k8s.io/klog/v2"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// queueClock is a fake clock whose every reading is a nanosecond later
// than the one before, as a real clock's readings are: the queue orders
// entities of equal priority by their timestamps, which would otherwise
// tie. The nanoseconds stay far below the backoff queue's one-second
// windows, to which every backoff expiry is truncated.
type queueClock struct {
	*testingclock.FakeClock
	ticks atomic.Int64
}

func newQueueClock(start time.Time) *queueClock {
	return &queueClock{FakeClock: testingclock.NewFakeClock(start)}
}

func (c *queueClock) Now() time.Time {
	return c.FakeClock.Now().Add(time.Duration(c.ticks.Add(1)))
}

func (c *queueClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// flushBackoffQCompleted is the queue's move of the entities whose backoff
// completed to the active queue (run every second by the goroutine
// PriorityQueue.Run starts, which RunQueue does not start).
//
//go:linkname flushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func flushBackoffQCompleted(q *internalqueue.PriorityQueue, logger klog.Logger)

// lenBackoff is the number of entities in the backoff queue's heap that
// Pop takes from when the active queue is empty (not those that failed
// with an error, which wait for their backoff to complete).
//
//go:linkname lenBackoff k8s.io/kubernetes/pkg/scheduler/backend/queue.(*backoffQueue).lenBackoff
func lenBackoff(bq unsafePointer) int

type unsafePointer = *byte

// poppable reports whether Pop would return at once.
func poppable(q *internalqueue.PriorityQueue) bool {
	if len(q.PodsInActiveQ()) > 0 {
		return true
	}
	bq := reflect.ValueOf(q).Elem().FieldByName("backoffQ").Elem()
	return lenBackoff((*byte)(bq.UnsafePointer())) > 0
}
