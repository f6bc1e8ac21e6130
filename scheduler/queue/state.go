package queue

import (
	"fmt"
	"maps"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// State is a copy of the queue's contents for checkpoints. PodInfos are
// shared (they are never mutated); the bookkeeping is copied.
type State struct {
	entries    []entryState
	seq        uint64
	schedCycle int64
	// The pod groups' part: observed PodGroups, members waiting for
	// theirs, the entry popped last.
	podGroups     map[string]*schedulingv1beta1.PodGroup
	composites    map[string]*schedulingv1alpha3.CompositePodGroup
	incomplete    memberPods
	lastPopped    string
	lastPoppedSeq uint64
}

type entryState struct {
	// info is a pod entry's, group a group entry's (nil for a pod).
	info          framework.QueuedPodInfo
	group         *framework.QueuedPodGroupInfo
	seq           uint64
	where         where
	gatingMessage string
}

// copyGroup copies a group entry: its bookkeeping and every member's.
func copyGroup(g *framework.QueuedPodGroupInfo) *framework.QueuedPodGroupInfo {
	c := &framework.QueuedPodGroupInfo{PodGroupInfo: g.CloneTree()}
	c.QueueingParams = copyInfo(&framework.QueuedPodInfo{QueueingParams: g.QueueingParams}).QueueingParams
	for _, m := range g.Members {
		info := copyInfo(m)
		c.AddMember(&info)
	}
	return c
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
	st := &State{seq: q.seq, schedCycle: q.activeQ.schedulingCycle, entries: make([]entryState, 0, len(q.pods)),
		podGroups: maps.Clone(q.podGroups), composites: maps.Clone(q.composites), incomplete: q.incomplete.clone(), lastPopped: q.lastPopped,
		lastPoppedSeq: q.lastPoppedSeq}
	add := func(e *entry) {
		es := entryState{seq: e.seq, where: e.where, gatingMessage: e.gatingMessage}
		if e.group != nil {
			es.group = copyGroup(e.group)
		} else {
			es.info = copyInfo(e.pi)
		}
		st.entries = append(st.entries, es)
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
	q.podGroups, q.incomplete, q.lastPopped, q.lastPoppedSeq = maps.Clone(st.podGroups), st.incomplete.clone(), st.lastPopped, st.lastPoppedSeq
	if q.podGroups == nil {
		q.podGroups, q.incomplete = map[string]*schedulingv1beta1.PodGroup{}, memberPods{}
	}
	q.composites = maps.Clone(st.composites)
	if q.composites == nil {
		q.composites = map[string]*schedulingv1alpha3.CompositePodGroup{}
	}
	for i := range st.entries {
		es := &st.entries[i]
		var e *entry
		if es.group != nil {
			e = &entry{group: copyGroup(es.group), key: es.group.EntityKey()}
			e.QueueingParams = &e.group.QueueingParams
		} else {
			info := copyInfo(&es.info)
			e = &entry{QueueingParams: &info.QueueingParams, pi: &info, key: podKey(info.Pod)}
		}
		e.seq, e.heapIndex, e.gatingMessage = es.seq, -1, es.gatingMessage
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
