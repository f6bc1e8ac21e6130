package queue

import "github.com/schedtui/schedtui/scheduler/framework"

// PopPod pops the pod namespace/name out of activeQ as Pop would pop it
// (in flight, attempts counted, a plain pop on the timeline) whatever its
// place in the order; a member of a pod group queued as its group
// (GenericWorkload) pops its group, whose cycle makes the member's attempt.
// ok is false when neither the pod nor its group waits in activeQ.
// A state written at one attempt (schedtui snapshot --at) restarts with
// that attempt's pod popped first: upstream's queue had popped it there,
// and the written cluster alone cannot say so (its pods waiting in backoff
// or the unschedulable pool join a fresh queue's activeQ and may sort
// ahead of it).
func (q *PriorityQueue) PopPod(namespace, name string) (framework.QueuedEntity, bool) {
	e, ok := q.pods[namespace+"/"+name]
	if !ok {
		_, e = q.findMember(namespace, name)
		ok = e != nil
	}
	if !ok || e.where != inActive || !q.take(e, Active, PopLabel) {
		return nil, false
	}
	return e.entity(), true
}

// ClusterAttemptLabel marks, in Move.Event, a pod taken out of the queue
// because another scheduler (the cluster's, which schedtui shadows)
// attempted it: schedtui learns of the attempt from its decision only.
const ClusterAttemptLabel = "ClusterAttempt"

// PopAttempted takes the pod namespace/name in flight from wherever it
// waits (activeQ, backoffQ or the unschedulable pool), attempts counted:
// the attempt of the cluster's scheduler that shadow mode mirrors, whose
// pop it cannot see. ok is false when the queue does not hold the pod.
func (q *PriorityQueue) PopAttempted(namespace, name string) (*framework.QueuedPodInfo, bool) {
	e, ok := q.pods[namespace+"/"+name]
	if !ok {
		return nil, false
	}
	from := e.location()
	q.detach(e)
	if e.pi == nil || !q.activeQ.startInFlight(e.pi.Pod) {
		return nil, false
	}
	e.Attempts++
	q.emit(e, from, InFlight, ClusterAttemptLabel)
	return e.pi, true
}
