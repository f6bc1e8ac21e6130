package engine

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Pod groups (GenericWorkload): a popped group gets one pod-group cycle
// (scheduler/schedule_one_podgroup.go); each member's attempt is logged as
// a pod's and its outcome handled as a pod's (bound, parked, or the
// failure handler: back to the queue, pending with its group), then the
// group is requeued (AddAttemptedPodGroupIfNeeded) and the PodGroup's
// status write comes back as the informer's update.

// PodGroupStatusWrite is the Reason of the timeline event of a PodGroup
// status write by the cycle.
const PodGroupStatusWrite = "PodGroupStatus"

// attemptGroup makes one pod-group cycle and returns its last member's
// attempt (every member's is in the history, the group's record too).
func (e *Engine) attemptGroup(g *framework.QueuedPodGroupInfo) *record.Attempt {
	genAtStart := e.gen
	e.decision, e.volumeWrites = nil, nil
	e.opts.ExtenderAnswers.SetEpoch(uint64(e.hist.Len()))
	c := e.sched.ScheduleOnePodGroup(g)
	c.Group.FirstAttempt = e.hist.Len()
	idxs := make([]int, len(c.Attempts))
	for i, a := range c.Attempts {
		idxs[i] = e.logAttempt(a, c.Members[i].Pod.UID, genAtStart)
		c.Group.Members[i].Attempt = idxs[i]
	}
	e.hist.AddGroup(c.Group)
	e.actuateSyncDecision()
	// Every member's binding cycle ran before any binding is reported:
	// the first one reported stores the volume writes of all.
	for i, a := range c.Attempts {
		e.settleAttempt(c.Members[i], a, idxs[i])
	}
	e.releasePermitted()
	e.preemptionDecided(c.Attempts[0].Pod, c.Group.Victims, c.Group.Message)
	if err := e.q.AddAttemptedPodGroupIfNeeded(g, c.Status); err != nil {
		e.event(history.Event{Kind: history.EventQueueMove, Pod: c.Group.Key(), Reason: ScheduleAttemptFailureError, Message: err.Error()})
	}
	for _, pg := range c.PodGroupWrites {
		e.podGroupWritten(pg)
	}
	return c.Attempts[len(c.Attempts)-1]
}

// podGroupWritten applies the cycle's PodGroup status patch as the API
// server and the informer would: stored, then the update event. It is
// not a change of what scheduling reads (the status only): the group's
// members stay settled for quiescence.
func (e *Engine) podGroupWritten(pg *schedulingv1beta1.PodGroup) {
	old, err := e.sched.Objects().PodGroup(pg.Namespace, pg.Name)
	if err != nil {
		return
	}
	e.event(history.Event{Kind: history.EventCluster, Reason: PodGroupStatusWrite, Object: change.DescribeObject(pg), Message: podGroupConditionMessage(pg)})
	e.podGroupChanged(change.ObjectUpdate, old, pg)
}

// podGroupConditionMessage is the PodGroupInitiallyScheduled condition as
// the timeline shows it.
func podGroupConditionMessage(pg *schedulingv1beta1.PodGroup) string {
	for _, c := range pg.Status.Conditions {
		if c.Type == "PodGroupInitiallyScheduled" {
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	return ""
}

// podGroupChanged is the PodGroup event handlers' part after the store:
// the queue learns of the group, then the cluster event is offered.
func (e *Engine) podGroupChanged(kind change.Kind, old, cur *schedulingv1beta1.PodGroup) {
	switch kind {
	case change.ObjectAdd:
		e.sched.SetPodGroup(cur)
		e.q.AddPodGroup(cur)
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventPodGroupAdd, nil, cur, nil)
	case change.ObjectUpdate:
		e.sched.SetPodGroup(cur)
		e.q.UpdatePodGroup(cur)
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventPodGroupUpdate, old, cur, nil)
	case change.ObjectDelete:
		e.sched.DeletePodGroup(old)
		e.q.DeletePodGroup(old)
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventPodGroupDelete, old, nil, nil)
	}
}

// compositePodGroupChanged is the CompositePodGroup event handlers' part
// after the store (registered with CompositePodGroup on): the cache, then
// the queue's forest learn of it, then the cluster event is offered.
// Without the gate the object is only stored.
func (e *Engine) compositePodGroupChanged(kind change.Kind, old, cur *schedulingv1alpha3.CompositePodGroup) {
	objs := e.sched.Objects()
	on := e.sched.Features().EnableCompositePodGroup
	switch kind {
	case change.ObjectAdd:
		objs.Add(cur)
		if on {
			e.q.AddCompositePodGroup(cur)
			e.q.MoveAllToActiveOrBackoffQueue(queue.EventCompositePodGroupAdd, nil, cur, nil)
		}
	case change.ObjectUpdate:
		objs.Add(cur)
		if on {
			e.q.UpdateCompositePodGroup(cur)
			e.q.MoveAllToActiveOrBackoffQueue(queue.EventCompositePodGroupUpdate, old, cur, nil)
		}
	case change.ObjectDelete:
		objs.Delete(old)
		if on {
			e.q.DeleteCompositePodGroup(old)
			e.q.MoveAllToActiveOrBackoffQueue(queue.EventCompositePodGroupDelete, old, nil, nil)
		}
	}
}

// podGroupMemberAdded is addPodToSchedulingQueue's GenericWorkload part: a
// pending pod added may complete a gang that waits at PreEnqueue.
func (e *Engine) podGroupMemberAdded(pod *v1.Pod) {
	if e.sched.Features().EnableGenericWorkload {
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventUnscheduledPodAdd, nil, pod, nil)
	}
}
