package engine

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Parked binding cycles (scheduler/binding_wait.go): an attempt Waiting
// left its pod assumed and in flight, its binding cycle waiting in PreBind
// for a device's binding conditions. Upstream polls them from PreBind's
// start every few seconds (the plugin's BindingWait) until the wait's
// timeout; the engine polls at those instants (a timer each), so a claim
// status change (a recording's, a live cluster's) is seen at the next poll,
// and the deadline ends the wait with the timeout error. A poll instant
// that falls on the deadline loses to it, as the poll's context expires
// before its ticker fires.
//
// A gang's member may wait at Permit instead, for its gang's quorum: its
// one timer is the Permit timeout, in virtual time; a later member of the
// gang that finds the quorum allows it, and the engine then polls it at
// once (releasePermitted), its binding cycle going on (and perhaps
// parking in PreBind, with that wait's polls).

// parkedBinding is a pod whose binding cycle waits.
type parkedBinding struct {
	pi *framework.QueuedPodInfo
	// attempt indexes the attempt that parked it.
	attempt int
	// interval is the time between polls.
	interval time.Duration
	// node is where the pod waits, assumed.
	node            string
	start, deadline time.Time
}

// parkBinding notes the binding cycle attempt idx parked and sets its
// first poll.
func (e *Engine) parkBinding(pi *framework.QueuedPodInfo, idx int, node string) {
	interval, timeout, _ := e.sched.BindingWait(pi.Pod.UID)
	p := &parkedBinding{pi: pi, attempt: idx, interval: interval, node: node, start: e.now, deadline: e.now.Add(timeout)}
	e.parked[pi.Pod.UID] = p
	e.addTimer(&timer{at: p.nextPoll(e.now), kind: timerBindingPoll, pod: pi.Pod.UID, parked: p})
}

// releasePermitted polls, at once, the binding cycles a Permit just
// allowed (their gang found its quorum): each ends, or parks again in
// PreBind, its timers set afresh.
func (e *Engine) releasePermitted() {
	for _, uid := range e.sched.TakeReleasedBindings() {
		if p := e.parked[uid]; p != nil {
			e.pollBinding(p)
		}
	}
}

// deletedAtPermit ends at once the binding cycle of a deleted pod that
// waited at Permit, assumed: upstream's handleAssumedPodDeletion rejects
// it ("removed") and offers the room it held as an AssignedPodDelete,
// then its binding cycle unreserves and forgets it.
func (e *Engine) deletedAtPermit(pod *v1.Pod) {
	p := e.parked[pod.UID]
	if p == nil || !e.sched.WaitsAtPermit(pod.UID) {
		return
	}
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = p.node
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, assumed, nil, nil)
	e.pollBinding(p)
}

// nextPoll is the first poll instant after t, or the deadline.
func (p *parkedBinding) nextPoll(t time.Time) time.Time {
	if p.interval <= 0 {
		return p.deadline
	}
	k := t.Sub(p.start)/p.interval + 1
	next := p.start.Add(k * p.interval)
	if next.After(p.deadline) {
		return p.deadline
	}
	return next
}

// pollBinding polls pod's parked binding cycle and, when its wait is
// over, handles the end of the cycle as upstream's binding goroutine: a
// binding reported as the informer reports it, or handleBindingCycleError
// (the forgotten pod an AssignedPodDelete for the others, then the
// failure handler's requeue).
func (e *Engine) pollBinding(p *parkedBinding) {
	uid := p.pi.Pod.UID
	expired := !e.now.Before(p.deadline)
	waitedAtPermit := e.sched.WaitsAtPermit(uid)
	a, done, ok := e.sched.PollBinding(uid, expired)
	if ok && !done {
		if waitedAtPermit && !e.sched.WaitsAtPermit(uid) {
			// Allowed, it now waits in PreBind: that wait's polls.
			e.parkBinding(p.pi, p.attempt, p.node)
			return
		}
		e.addTimer(&timer{at: p.nextPoll(e.now), kind: timerBindingPoll, pod: uid, parked: p})
		return
	}
	delete(e.parked, uid)
	if expired {
		e.expiredAt[uid] = e.external
	}
	if !ok {
		// The scheduler lost it (a rebuilt scheduler): nothing to end.
		e.q.Done(uid)
		return
	}
	if e.cursor.Attempt == p.attempt {
		// Its record now reaches further (Bind): still fully revealed.
		e.cursor.Phase = a.LastPhase()
	}
	pod := p.pi.Pod
	e.event(history.Event{Kind: history.EventBinding, Pod: a.Pod, Attempt: p.attempt, Node: p.node, Reason: a.Outcome.String(), Message: a.Message})
	if a.Outcome == record.Scheduled {
		delete(e.expiredAt, uid)
		e.q.Done(uid)
		e.bound(pod)
		return
	}
	// The forgotten pod leaves the cluster the others see.
	e.bump()
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = p.node
	if a.Outcome == record.Unschedulable {
		e.failed(p.pi, a)
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, assumed, nil, func(q *v1.Pod) bool { return q.UID != uid })
		return
	}
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, assumed, nil, nil)
	e.failed(p.pi, a)
}

// repeatingWait: t polls a binding that waits again, with nothing changed
// from outside since its pod's last wait ran out. Left alone, this wait
// runs out too, the claim is deallocated and allocated again, and the pod
// waits once more, forever (as upstream's would without its driver): for
// quiescence the poll is not pending work.
func (e *Engine) repeatingWait(t *timer) bool {
	if t.kind != timerBindingPoll {
		return false
	}
	at, ok := e.expiredAt[t.pod]
	return ok && at == e.external
}
