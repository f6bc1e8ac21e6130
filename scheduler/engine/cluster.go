package engine

import (
	"errors"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// Apply feeds a cluster change to the engine: at once, or at c.At in
// virtual time (in real time, c.At later than now first advances the
// clock to it: the change arrived then). Changes are part of the run: Rewind replays those made
// before the point it returns to and forgets the later ones.
func (e *Engine) Apply(c change.Change) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if !c.At.After(e.now) || e.applyAt(c) {
		if err := e.applyNow(c); err != nil {
			return err
		}
	} else {
		e.addTimer(&timer{at: c.At, kind: timerApply, change: c})
	}
	e.logOp(op{kind: opApply, change: loggedChange(c)})
	return nil
}

// loggedChange is a change as the op log keeps it for replay. A pod's
// deletion is applied from the cached pod: of the object it carries (the
// pod's last state, as a watch delivers it) only the name, the UID and the
// phase are read, so the log keeps just those and not a whole pod per
// deletion for as long as rewind reaches back.
func loggedChange(c change.Change) change.Change {
	if c.Kind != change.PodDelete || c.Pod == nil {
		return c
	}
	stub := &v1.Pod{}
	stub.Name, stub.Namespace, stub.UID, stub.Status.Phase = c.Pod.Name, c.Pod.Namespace, c.Pod.UID, c.Pod.Status.Phase
	c.Pod = stub
	return c
}

var errNoSuchNode = errors.New("no such node")

func (e *Engine) nodeIndex(name string) int {
	for i, n := range e.nodeOrder {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// applyNow applies a change as the event handlers do (eventhandlers.go).
func (e *Engine) applyNow(c change.Change) error {
	e.external++
	e.mode.arriving(c)
	switch c.Kind {
	case change.NodeAdd:
		if e.nodeIndex(c.Node.Name) >= 0 {
			return fmt.Errorf("node %q already exists", c.Node.Name)
		}
		e.bump()
		e.nodeOrder = append(e.nodeOrder, c.Node)
		e.sched.SetNodes(e.nodeOrder)
		e.clusterEvent(c, "")
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, c.Node, nil)
	case change.NodeUpdate:
		i := e.nodeIndex(c.Node.Name)
		if i < 0 {
			return fmt.Errorf("node %q: %w", c.Node.Name, errNoSuchNode)
		}
		old := e.nodeOrder[i]
		e.bump()
		e.nodeOrder = append(e.nodeOrder[:i:i], e.nodeOrder[i:]...)
		e.nodeOrder[i] = c.Node
		e.sched.SetNodes(e.nodeOrder)
		e.clusterEvent(c, "")
		for _, ev := range queue.NodeSchedulingPropertiesChange(c.Node, old, e.sched.Features()) {
			e.q.MoveAllToActiveOrBackoffQueue(ev, old, c.Node, nil)
		}
	case change.NodeDelete:
		i := e.nodeIndex(c.Node.Name)
		if i < 0 {
			return fmt.Errorf("node %q: %w", c.Node.Name, errNoSuchNode)
		}
		old := e.nodeOrder[i]
		e.bump()
		e.clusterEvent(c, "")
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeDelete, old, nil, nil)
		e.nodeOrder = append(e.nodeOrder[:i:i], e.nodeOrder[i+1:]...)
		e.sched.SetNodes(e.nodeOrder)
	case change.PodAdd:
		if e.Pod(key(c.Pod)) != nil {
			return fmt.Errorf("pod %s already exists", key(c.Pod))
		}
		if terminal(c.Pod) {
			// Invisible to the scheduler's informer.
			return nil
		}
		e.bump()
		e.clusterEvent(c, "")
		if c.Pod.Spec.NodeName != "" {
			e.addAssigned(c.Pod)
			return nil
		}
		e.sched.SetPendingPod(c.Pod)
		if e.responsible(c.Pod) {
			e.q.Add(c.Pod)
			e.podGroupMemberAdded(c.Pod)
			e.mode.pendingAdded(c.Pod, false)
		}
	case change.PodUpdate:
		old := e.Pod(key(c.Pod))
		if old == nil {
			if terminal(c.Pod) {
				return nil
			}
			if e.evictedHere(c.Pod.UID) {
				e.clusterEvent(c, AlreadyEvicted)
				return nil
			}
			return fmt.Errorf("pod %s does not exist", key(c.Pod))
		}
		if terminal(c.Pod) {
			// Leaving the informer's field selector is a delete.
			return e.applyNow(change.Change{Kind: change.PodDelete, Pod: old})
		}
		e.mode.podUpdated(c, old)
	case change.PodDelete:
		old := e.Pod(key(c.Pod))
		if old == nil {
			if terminal(c.Pod) {
				return nil
			}
			if e.evictedHere(c.Pod.UID) {
				e.clusterEvent(c, AlreadyEvicted)
				// The cluster's last word on it.
				delete(e.evicted, c.Pod.UID)
				return nil
			}
			return fmt.Errorf("pod %s does not exist", key(c.Pod))
		}
		e.bump()
		e.forgetPod(old.UID)
		// The pod as the scheduler knew it: its node, even when the
		// deletion carries only the name.
		e.clusterEvent(change.Change{Kind: c.Kind, Pod: old}, "")
		if old.Spec.NodeName != "" {
			e.sched.RemoveAssignedPod(old)
			e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, old, nil, nil)
		} else {
			// With GenericWorkload, upstream's handler updates the queue
			// before the cache's group state: the member's group is
			// requeued with it still counted.
			queueFirst := e.responsible(old) && e.sched.Features().EnableGenericWorkload
			if queueFirst {
				e.q.Delete(old)
			}
			e.sched.DeletePendingPod(old)
			if e.responsible(old) {
				if !queueFirst {
					e.q.Delete(old)
				}
				if old.Status.NominatedNodeName != "" {
					e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, old, nil, lePriority(priorityOf(old)))
				}
			}
			e.deletedAtPermit(old)
		}
		e.mode.podDeleted(old)
	case change.ObjectAdd, change.ObjectUpdate, change.ObjectDelete:
		return e.applyObject(c)
	}
	return nil
}

func (e *Engine) clusterEvent(c change.Change, msg string) {
	ev := history.Event{Kind: history.EventCluster, Reason: string(c.Kind), Message: msg, Object: c.Describe()}
	if c.Node != nil {
		ev.Node = c.Node.Name
	}
	if c.Pod != nil {
		ev.Pod = key(c.Pod)
		ev.Node = c.Pod.Spec.NodeName
	}
	e.event(ev)
}

// lePriority is getLEPriorityPreCheck: a freed nomination only concerns
// pods that could not use the node because of it.
func lePriority(p int32) queue.PreEnqueueCheck {
	return func(pod *v1.Pod) bool { return priorityOf(pod) <= p }
}

func (e *Engine) addAssigned(pod *v1.Pod) {
	e.sched.AddAssignedPod(pod)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodAdd, nil, pod, nil)
}

// updateAssigned is an assigned pod's update: cache update, then one event
// per changed scheduling property.
func (e *Engine) updateAssigned(oldPod, newPod *v1.Pod) {
	e.bump()
	e.sched.UpdateAssignedPod(oldPod, newPod)
	for _, ev := range queue.PodSchedulingPropertiesChange(newPod, oldPod, false, e.sched.Features()) {
		e.q.MoveAllToActiveOrBackoffQueue(ev, oldPod, newPod, nil)
	}
}

// updatePod is the pod update handler.
func (e *Engine) updatePod(oldPod, newPod *v1.Pod) {
	switch {
	case oldPod.Spec.NodeName != "":
		e.updateAssigned(oldPod, newPod)
	case newPod.Spec.NodeName != "":
		e.addAssigned(newPod)
		if e.responsible(oldPod) {
			e.q.Delete(oldPod)
		}
	default:
		e.sched.SetPendingPod(newPod)
		if e.responsible(oldPod) {
			if oldPod.ResourceVersion != "" && oldPod.ResourceVersion == newPod.ResourceVersion {
				return
			}
			if _, assumed := e.parked[newPod.UID]; assumed {
				// Its binding cycle waits (binding_wait.go): upstream's
				// handler skips an assumed pod's update.
				return
			}
			e.unscheduledPodUpdated(oldPod, newPod)
		}
	}
}

// unscheduledPodUpdated is updatePodInSchedulingQueue: the queue's update,
// then, when a nomination was dropped or moved, the freed room is offered
// to pods of at most the same priority as an AssignedPodDelete.
func (e *Engine) unscheduledPodUpdated(oldPod, newPod *v1.Pod) {
	e.q.Update(oldPod, newPod)
	if oldPod.Status.NominatedNodeName != "" && oldPod.Status.NominatedNodeName != newPod.Status.NominatedNodeName {
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, oldPod, nil, lePriority(priorityOf(oldPod)))
	}
}

// onBound collects what PreBind decided for the pod's volumes (the PVs
// and claims as they look once bound, then the claims to provision), to be
// written once the binding is reported (see bound).
func (e *Engine) onBound(state *framework.CycleState, pod *v1.Pod, _ string) {
	if fwk := e.sched.Profile(pod.Spec.SchedulerName); fwk != nil {
		e.volumeWrites = append(e.volumeWrites, fwk.VolumeWrites(state).Objects()...)
	}
}

// onCacheError reports a failed scheduler cache mutation on the timeline,
// where upstream logs it; the engine carries on as upstream does.
func (e *Engine) onCacheError(pod *v1.Pod, err error) {
	e.event(history.Event{Kind: history.EventCluster, Pod: key(pod), Node: pod.Spec.NodeName, Reason: SchedulerCacheError, Message: err.Error()})
}

// storeObject writes a PV, a PVC or a ResourceClaim and reports its add,
// update or (a claim, framework.ClaimDeleted) delete event.
func (e *Engine) storeObject(obj any) {
	objs := e.sched.Objects()
	var ev framework.ClusterEvent
	var oldObj any
	switch o := obj.(type) {
	case *v1.PersistentVolume:
		ev = framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add}
		if old, err := objs.PersistentVolume(o.Name); err == nil {
			ev.ActionType, oldObj = framework.Update, old
		}
	case *v1.PersistentVolumeClaim:
		ev = framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add}
		if old, err := objs.PersistentVolumeClaim(o.Namespace, o.Name); err == nil {
			ev.ActionType, oldObj = framework.Update, old
		}
	case *resourcev1.ResourceClaim:
		ev = framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add}
		old, err := objs.ResourceClaim(o.Namespace, o.Name)
		if err == nil {
			ev.ActionType, oldObj = framework.Update, old
		}
		if framework.ClaimDeleted(o) {
			if err != nil {
				return
			}
			e.bump()
			objs.Delete(old)
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Delete}, old, nil, nil)
			return
		}
	default:
		return
	}
	e.bump()
	objs.Add(obj)
	e.q.MoveAllToActiveOrBackoffQueue(ev, oldObj, obj, nil)
}

// stableSortPods orders pods by creation time, keeping file order for
// equal times.
func stableSortPods(pods []*v1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp)
	})
}
