package queue

import (
	"fmt"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// State is a copy of the queue's contents for checkpoints. PodInfos are
// shared (they are never mutated); the bookkeeping is copied.
type State struct {
	entries    []entryState
	seq        uint64
	schedCycle int64
}

type entryState struct {
	info          framework.QueuedPodInfo
	seq           uint64
	where         where
	gatingMessage string
}

func copyInfo(pi *framework.QueuedPodInfo) framework.QueuedPodInfo {
	c := *pi
	c.UnschedulablePlugins = pi.UnschedulablePlugins.Clone()
	c.PendingPlugins = pi.PendingPlugins.Clone()
	if pi.InitialAttemptTimestamp != nil {
		t := *pi.InitialAttemptTimestamp
		c.InitialAttemptTimestamp = &t
	}
	return c
}

// Export copies the queue. It fails while a pod is in flight: checkpoints
// are taken between attempts, when nothing is.
func (q *PriorityQueue) Export() (*State, error) {
	if len(q.activeQ.inFlightPods) != 0 || q.activeQ.inFlightEvents.Len() != 0 {
		return nil, fmt.Errorf("queue: cannot export with %d pods in flight", len(q.activeQ.inFlightPods))
	}
	st := &State{seq: q.seq, schedCycle: q.activeQ.schedulingCycle, entries: make([]entryState, 0, len(q.pods))}
	add := func(e *entry) {
		st.entries = append(st.entries, entryState{info: copyInfo(e.QueuedPodInfo), seq: e.seq, where: e.where, gatingMessage: e.gatingMessage})
	}
	// Heaps are total orders (seq breaks every tie), so their layout need
	// not be kept; the pool's order is iteration order and must be.
	for _, h := range append([]*podHeap{q.activeQ.queue}, q.backoffQ.heaps()...) {
		for _, e := range h.items {
			add(e)
		}
	}
	q.unschedulablePods.each(add)
	return st, nil
}

// Import fills an empty queue (built by New over the same profiles) with
// an exported state.
func (q *PriorityQueue) Import(st *State) error {
	if len(q.pods) != 0 || len(q.activeQ.inFlightPods) != 0 {
		return fmt.Errorf("queue: import into a non-empty queue")
	}
	q.seq, q.activeQ.schedulingCycle = st.seq, st.schedCycle
	for i := range st.entries {
		es := &st.entries[i]
		info := copyInfo(&es.info)
		e := &entry{QueuedPodInfo: &info, key: podKey(info.Pod), seq: es.seq, heapIndex: -1, gatingMessage: es.gatingMessage}
		q.pods[e.key] = e
		e.where = es.where
		switch es.where {
		case inActive:
			q.activeQ.queue.add(e)
		case inBackoff, inErrorBackoff:
			q.backoffQ.heapOf(e).add(e)
		case inUnschedulable:
			q.unschedulablePods.add(e)
		}
	}
	return nil
}
