package engine

import (
	"container/heap"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
)

type timerKind uint8

const (
	// timerActuate runs a preemption's API calls.
	timerActuate timerKind = iota
	// timerTerminate removes a victim whose grace period has passed.
	timerTerminate
	// timerApply applies a scheduled cluster change.
	timerApply
	// timerBindingPoll polls a parked binding cycle (binding_wait.go).
	timerBindingPoll
)

// timer is something the engine does at a virtual time. Timers due at the
// same instant fire in the order they were set.
type timer struct {
	at   time.Time
	seq  uint64
	kind timerKind

	preemption *pendingPreemption
	// victim: the pod to remove (namespace/name and UID, so that a
	// recreated pod of the same name is left alone), its node and who
	// preempted it.
	victim    string
	victimUID string
	node      string
	preemptor string
	change    change.Change
	// pod is the pod of a parked binding cycle (timerBindingPoll), parked
	// the wait it polls: a wait that ended, or gave way to another, is
	// not polled.
	pod    types.UID
	parked *parkedBinding
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

func (h *timerHeap) peek() *timer {
	if len(*h) == 0 {
		return nil
	}
	return (*h)[0]
}

func (h *timerHeap) pop() *timer { return heap.Pop(h).(*timer) }

func (e *Engine) addTimer(t *timer) {
	e.timerSeq++
	t.seq = e.timerSeq
	heap.Push(&e.timers, t)
}

func (e *Engine) fire(t *timer) {
	switch t.kind {
	case timerActuate:
		e.actuate(t.preemption)
	case timerTerminate:
		e.terminate(t)
	case timerApply:
		if err := e.applyNow(t.change); err != nil {
			e.clusterEvent(t.change, "not applied: "+err.Error())
		}
	case timerBindingPoll:
		if p := e.parked[t.pod]; p != nil && p == t.parked {
			e.pollBinding(p)
		}
	}
}

// DefaultTerminationGracePeriod is the API default of
// terminationGracePeriodSeconds.
const DefaultTerminationGracePeriod = 30 * time.Second

// actuate is the async preemption goroutine's work, in its order: clear
// the nominations of lower-priority pods nominated to the node, then, for
// each victim, the DisruptionTarget condition and the DELETE (which sets
// deletionTimestamp = now + grace period); the pods leave the cluster when
// their grace period ends. Once the last victim has its deletionTimestamp
// the preemptor is no longer gated.
func (e *Engine) actuate(d *pendingPreemption) {
	e.clearLowerNominations(d)
	e.deleteVictims(d)
	e.setPreempting(d.preemptor, false)
}

// actuateSync is actuate without SchedulerAsyncPreemption: upstream's
// prepareCandidate runs inside PostFilter, deleting the victims first and
// clearing the nominations after, before the failure handler requeues the
// preemptor, which was never gated.
func (e *Engine) actuateSync(d *pendingPreemption) {
	e.deleteVictims(d)
	e.clearLowerNominations(d)
}

// clearLowerNominations clears the nominations of the pods of lower
// priority than the preemptor nominated to its node.
func (e *Engine) clearLowerNominations(d *pendingPreemption) {
	prio := d.preemptor.Priority
	var cleared []string
	for _, pi := range e.sched.Nominator().NominatedPodsForNode(d.node) {
		if priorityOf(pi.Pod) >= prio || pi.Pod.Status.NominatedNodeName == "" {
			// clearNominatedNodeName skips pods whose (queue) copy has no
			// status nomination, e.g. the stub of a pod in flight.
			continue
		}
		cur := e.Pod(key(pi.Pod))
		if cur == nil || cur.Spec.NodeName != "" || cur.Status.NominatedNodeName == "" {
			continue
		}
		upd := cur.DeepCopy()
		upd.Status.NominatedNodeName = ""
		e.bump()
		e.sched.SetPendingPod(upd)
		if e.responsible(cur) {
			e.unscheduledPodUpdated(cur, upd)
		}
		cleared = append(cleared, key(cur))
	}
	// Assigned, not appended: a replay after a rewind actuates again.
	d.record.NominatedPodsCleared = cleared
}

// deleteVictims marks each victim (DisruptionTarget) and deletes it; it
// leaves the cluster when its grace period ends.
func (e *Engine) deleteVictims(d *pendingPreemption) {
	msg := fmt.Sprintf("%s: preempting to accommodate a higher priority %s", d.preemptor.SchedulerName, d.preemptor.Kind)
	for _, v := range d.victims {
		cur := e.Pod(v)
		if cur == nil || cur.DeletionTimestamp != nil || cur.Spec.NodeName == "" {
			continue
		}
		marked := withDisruptionTarget(cur, msg, e.now, e.sched.Features().EnablePodObservedGenerationTracking)
		if marked != cur {
			e.updateAssigned(cur, marked)
		}
		grace := DefaultTerminationGracePeriod
		if g := marked.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
			grace = time.Duration(*g) * time.Second
		}
		deleting := marked.DeepCopy()
		ts := metav1.NewTime(e.now.Add(grace))
		deleting.DeletionTimestamp = &ts
		secs := int64(grace / time.Second)
		deleting.DeletionGracePeriodSeconds = &secs
		e.updateAssigned(marked, deleting)
		e.event(history.Event{Kind: history.EventCluster, Pod: v, Node: cur.Spec.NodeName, Reason: "Preempted",
			Message: fmt.Sprintf("Preempted by %s %s on node %s", d.preemptor.Kind, d.preemptor.UID, d.node), Preemptor: d.preemptor.Key})
		e.addTimer(&timer{at: e.now.Add(grace), kind: timerTerminate, victim: v, victimUID: string(cur.UID),
			node: cur.Spec.NodeName, preemptor: d.preemptor.Key})
	}
}

// withDisruptionTarget returns pod with the DisruptionTarget condition
// the preemption executor patches before the DELETE, or pod itself when
// the patch would not be sent (the condition already says so).
func withDisruptionTarget(pod *v1.Pod, msg string, now time.Time, trackGeneration bool) *v1.Pod {
	out := pod.DeepCopy()
	if !updatePodCondition(&out.Status, v1.PodCondition{
		Type:               v1.DisruptionTarget,
		ObservedGeneration: conditionObservedGeneration(pod, v1.DisruptionTarget, trackGeneration),
		Status:             v1.ConditionTrue,
		Reason:             v1.PodReasonPreemptionByScheduler,
		Message:            msg,
	}, now) {
		return pod
	}
	return out
}

// terminate removes a victim at the end of its grace period: the assigned
// pod's delete event.
func (e *Engine) terminate(t *timer) {
	cur := e.Pod(t.victim)
	if cur == nil || string(cur.UID) != t.victimUID || cur.Spec.NodeName == "" {
		return
	}
	e.bump()
	e.sched.RemoveAssignedPod(cur)
	e.noteEvicted(cur.UID)
	e.forgetPod(cur.UID)
	e.event(history.Event{Kind: history.EventEviction, Pod: t.victim, Node: t.node, Reason: "Preempted by " + t.preemptor, Preemptor: t.preemptor})
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, cur, nil, nil)
	// Only a simulation evicts: it plays the resourceclaim controller.
	e.releaseClaims(cur)
}
