package queue

import (
	"container/list"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// activeQueue is upstream's activeQueue: activeQ, the heap of pods ready
// to be popped in QueueSort order, and the pods in flight (popped, their
// attempt not done yet) with the cluster events recorded while any is.
type activeQueue struct {
	queue *podHeap
	// inFlightPods are the pods being scheduled, each with its pop's
	// element in inFlightEvents.
	inFlightPods map[types.UID]*inFlightPod
	// inFlightEvents holds, in order, each in-flight pod's pop (a *v1.Pod)
	// and the cluster events (*inFlightEvent) recorded since the oldest
	// one; a failed pod's requeue replays the events after its pop.
	inFlightEvents *list.List
	// schedulingCycle counts pops.
	schedulingCycle int64
}

// inFlightEvent is a cluster event recorded while pods were in flight.
type inFlightEvent struct {
	event          framework.ClusterEvent
	oldObj, newObj any
}

type inFlightPod struct {
	elem *list.Element
	pod  *v1.Pod
}

func newActiveQueue(less func(a, b *entry) bool) *activeQueue {
	return &activeQueue{
		queue:          &podHeap{less: less},
		inFlightPods:   map[types.UID]*inFlightPod{},
		inFlightEvents: list.New(),
	}
}

// startInFlight tracks a popped pod; false means it already is in flight
// (upstream then discards the pop).
func (aq *activeQueue) startInFlight(pod *v1.Pod) bool {
	if !aq.track(pod) {
		return false
	}
	aq.schedulingCycle++
	return true
}

// track puts a pod in flight without counting a scheduling cycle (a pod
// group's members count one together); false means it already is.
func (aq *activeQueue) track(pod *v1.Pod) bool {
	if _, dup := aq.inFlightPods[pod.UID]; dup {
		return false
	}
	aq.inFlightPods[pod.UID] = &inFlightPod{elem: aq.inFlightEvents.PushBack(pod), pod: pod}
	return true
}

// done ends a pod's in-flight tracking and drops the recorded events no
// remaining in-flight pod needs.
func (aq *activeQueue) done(uid types.UID) {
	f, ok := aq.inFlightPods[uid]
	if !ok {
		return
	}
	delete(aq.inFlightPods, uid)
	aq.inFlightEvents.Remove(f.elem)
	for {
		front := aq.inFlightEvents.Front()
		if front == nil {
			break
		}
		if _, isEvent := front.Value.(*inFlightEvent); !isEvent {
			break
		}
		aq.inFlightEvents.Remove(front)
	}
}

// listInFlightPods lists the pods being scheduled, in pop order.
func (aq *activeQueue) listInFlightPods() []*v1.Pod {
	var out []*v1.Pod
	for el := aq.inFlightEvents.Front(); el != nil; el = el.Next() {
		if p, ok := el.Value.(*v1.Pod); ok {
			out = append(out, p)
		}
	}
	return out
}

// addEventsIfPodInFlight records events about newPod when it is in flight
// and reports whether it was.
func (aq *activeQueue) addEventsIfPodInFlight(oldPod, newPod *v1.Pod, events []framework.ClusterEvent) bool {
	if _, ok := aq.inFlightPods[newPod.UID]; !ok {
		return false
	}
	for _, ev := range events {
		var oldObj any
		if oldPod != nil {
			oldObj = oldPod
		}
		aq.inFlightEvents.PushBack(&inFlightEvent{event: ev, oldObj: oldObj, newObj: newPod})
	}
	return true
}

// addEventIfAnyInFlight records a cluster event while any pod is in
// flight.
func (aq *activeQueue) addEventIfAnyInFlight(oldObj, newObj any, event framework.ClusterEvent) {
	if len(aq.inFlightPods) != 0 {
		aq.inFlightEvents.PushBack(&inFlightEvent{event: event, oldObj: oldObj, newObj: newObj})
	}
}

// activeLess is the QueueSort order, ties broken by seq.
func (q *PriorityQueue) activeLess(a, b *entry) bool {
	if q.opts.Less(a.entity(), b.entity()) {
		return true
	}
	if q.opts.Less(b.entity(), a.entity()) {
		return false
	}
	return a.seq < b.seq
}
