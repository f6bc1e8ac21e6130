package queue

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Pod groups (GenericWorkload), as upstream's queue keeps them: a pod
// naming a PodGroup in spec.schedulingGroup is queued with its group, the
// group being one entry (activeQ, backoffQ, the unschedulable pool) with
// its own bookkeeping; a member whose PodGroup has not been observed waits
// in incomplete (incompletePodGroupPods), and a member arriving (or
// failing) while its group is in flight waits in pending
// (pendingPodGroupPods) until the group cycle's end requeues the group
// (AddAttemptedPodGroupIfNeeded). With CompositePodGroup the entry is the
// hierarchy's root (workload_forest.go).

// WaitingForPodGroup is where a member waits while its PodGroup has not
// been observed: never attempted until it is.
const WaitingForPodGroup Location = "WaitingForPodGroup"

// A group entry's key in PriorityQueue.pods is its root's
// PodGroupInfo.EntityKey (PodGroup/namespace/name or
// CompositePodGroup/namespace/name): a pod's key (namespace/name) never
// equals one, having one slash only.

// memberPods is podGroupMemberPods: members by group key, in arrival
// order (upstream iterates a map; the order here is reproducible), each
// with where it came from for the timeline.
type memberPods map[string][]waitingMember

type waitingMember struct {
	pi   *framework.QueuedPodInfo
	from Location
}

func (m memberPods) add(pi *framework.QueuedPodInfo, from Location) {
	k := framework.PodGroupKeyOf(pi.Pod)
	m[k] = append(m[k], waitingMember{pi: pi, from: from})
}

func (m memberPods) index(pod *v1.Pod) (string, int) {
	k := framework.PodGroupKeyOf(pod)
	return k, slices.IndexFunc(m[k], func(w waitingMember) bool {
		return w.pi.Pod.Namespace == pod.Namespace && w.pi.Pod.Name == pod.Name
	})
}

func (m memberPods) remove(pod *v1.Pod) *framework.QueuedPodInfo {
	k, i := m.index(pod)
	if i < 0 {
		return nil
	}
	pi := m[k][i].pi
	m[k] = slices.Delete(m[k], i, i+1)
	if len(m[k]) == 0 {
		delete(m, k)
	}
	return pi
}

func (m memberPods) update(pod *v1.Pod) *framework.QueuedPodInfo {
	k, i := m.index(pod)
	if i < 0 {
		return nil
	}
	pi := m[k][i].pi
	pi.PodInfo = framework.NewPodInfo(pod)
	return pi
}

func (m memberPods) clear(groupKey string) []waitingMember {
	ws := m[groupKey]
	delete(m, groupKey)
	return ws
}

func (m memberPods) clone() memberPods {
	c := make(memberPods, len(m))
	for k, ws := range m {
		cw := make([]waitingMember, len(ws))
		for i, w := range ws {
			info := copyInfo(w.pi)
			cw[i] = waitingMember{pi: &info, from: w.from}
		}
		c[k] = cw
	}
	return c
}

// isPodGroupMember: with GenericWorkload, a pod naming a PodGroup is
// queued with its group.
func (q *PriorityQueue) isPodGroupMember(pod *v1.Pod) bool {
	return q.opts.Features.EnableGenericWorkload && framework.PodGroupNameOf(pod) != ""
}

// lookup is the queued entry holding pod: its own, or its group's when
// the group holds it.
func (q *PriorityQueue) lookup(pod *v1.Pod) (*entry, bool) {
	if !q.isPodGroupMember(pod) {
		e, ok := q.pods[podKey(pod)]
		return e, ok
	}
	r, ok := q.rootOfPod(pod)
	if !ok {
		return nil, false
	}
	e, ok := q.pods[r.entryKey]
	if !ok || e.group.Member(pod.Namespace, pod.Name) == nil {
		return nil, false
	}
	return e, true
}

// findMember finds a group member wherever the queue holds it: in its
// group's entry (returned too), pending or waiting for its PodGroup.
func (q *PriorityQueue) findMember(namespace, name string) (*framework.QueuedPodInfo, *entry) {
	for _, e := range q.pods {
		if e.group != nil {
			if pi := e.group.Member(namespace, name); pi != nil {
				return pi, e
			}
		}
	}
	for _, m := range []memberPods{q.pendingMembers, q.incomplete} {
		for _, ws := range m {
			for _, w := range ws {
				if w.pi.Pod.Namespace == namespace && w.pi.Pod.Name == name {
					return w.pi, nil
				}
			}
		}
	}
	return nil, nil
}

// updateWaitingMember updates a member waiting outside the queue's
// structures (pending or incomplete), nil when there is none.
func (q *PriorityQueue) updateWaitingMember(pod *v1.Pod) *framework.QueuedPodInfo {
	if !q.isPodGroupMember(pod) {
		return nil
	}
	if pi := q.incomplete.update(pod); pi != nil {
		return pi
	}
	return q.pendingMembers.update(pod)
}

func (q *PriorityQueue) newGroupEntry(g *framework.QueuedPodGroupInfo) *entry {
	q.seq++
	return &entry{QueueingParams: &g.QueueingParams, group: g, key: g.EntityKey(), seq: q.seq, heapIndex: -1}
}

// strategyOf is the strategy that puts an entry back where it was, as
// upstream's deleteFromAnyQueue reports it.
func strategyOf(w where) strategy {
	switch w {
	case inActive:
		return queueImmediately
	case inBackoff, inErrorBackoff:
		return queueAfterBackoff
	}
	return queueSkip
}

// emitMember reports one member's move (into or out of its group's entry).
func (q *PriorityQueue) emitMember(pi *framework.QueuedPodInfo, groupKey string, from, to Location, event string) {
	if q.opts.OnMove == nil || from == to {
		return
	}
	q.opts.OnMove(Move{Time: q.now(), Pod: pi.Pod, From: from, To: to, Event: event, Group: groupKey})
}

// addPodGroupMember is addPodGroupMember: the member waits for its
// PodGroup, joins its queued group (taken out and put back where it
// was), waits for its in-flight group, or starts a new group entry.
func (q *PriorityQueue) addPodGroupMember(pi *framework.QueuedPodInfo, from Location) {
	gk := framework.PodGroupKeyOf(pi.Pod)
	r, ok := q.rootOfPod(pi.Pod)
	if !ok {
		q.incomplete.add(pi, from)
		q.emitMember(pi, gk, from, WaitingForPodGroup, EventUnscheduledPodAdd.Label())
		return
	}
	label := EventUnscheduledPodAdd.Label()
	if e, ok := q.pods[r.entryKey]; ok {
		was, s := e.location(), strategyOf(e.where)
		q.detach(e)
		e.group.AddMember(pi)
		to := q.requeue(e, s, label, was)
		if to == was {
			// The group stayed put: only the newcomer moved.
			q.emitMember(pi, gk, from, to, label)
		}
		return
	}
	if q.lastPopped == r.entryKey {
		q.pendingMembers.add(pi, from)
		return
	}
	g := q.buildGroup(r)
	g.AddMember(pi)
	g.Timestamp = pi.Timestamp
	g.InitialAttemptTimestamp = pi.InitialAttemptTimestamp
	q.moveToActiveQ(q.newGroupEntry(g), label, false, from)
}

// deletePodGroupMember is deletePodGroupMember: the member leaves
// whatever holds it; a group left with members goes back where it was.
func (q *PriorityQueue) deletePodGroupMember(pod *v1.Pod) {
	gk := framework.PodGroupKeyOf(pod)
	label := EventUnscheduledPodDelete.Label()
	r, ok := q.rootOfPod(pod)
	if !ok {
		if pi := q.incomplete.remove(pod); pi != nil {
			q.emitMember(pi, gk, WaitingForPodGroup, NotQueued, label)
		}
		return
	}
	e, ok := q.pods[r.entryKey]
	if !ok {
		q.pendingMembers.remove(pod)
		return
	}
	was, s := e.location(), strategyOf(e.where)
	q.detach(e)
	if pi := e.group.RemoveMember(pod); pi != nil {
		q.emitMember(pi, gk, was, NotQueued, label)
	}
	if e.group.Size() == 0 {
		return
	}
	q.requeue(e, s, EventUnscheduledPodAdd.Label(), was)
}

// startGroupInFlight is unlockedMoveEntityToInFlight for a group: every
// member in flight (a member tracked already is dropped from the group),
// one scheduling cycle for the group.
func (q *PriorityQueue) startGroupInFlight(e *entry) bool {
	for _, m := range slices.Clone(e.group.Members) {
		if !q.activeQ.track(m.Pod) {
			e.group.RemoveMember(m.Pod)
		}
	}
	if e.group.Size() == 0 {
		return false
	}
	q.activeQ.schedulingCycle++
	for _, m := range e.group.Members {
		m.Attempts++
	}
	return true
}

// AddPodGroup is AddPodGroup: the PodGroup is observed; a queued
// hierarchy gains it, and the members below its root waiting for it (or
// for it to complete their hierarchy) join the queue.
func (q *PriorityQueue) AddPodGroup(pg *schedulingv1beta1.PodGroup) {
	gk := framework.PodGroupKey(pg.Namespace, pg.Name)
	q.podGroups[gk] = pg
	r, ok := q.rootOfPodGroup(gk)
	if !ok {
		return
	}
	if e, ok := q.pods[r.entryKey]; ok {
		if parent, has := q.podGroupHasParent(gk); has {
			if p, _ := e.group.Find(parent); p != nil && p.Composite {
				p.AddChild(framework.NewPodGroupInfo(pg))
			}
		}
	}
	q.admitIncomplete(r)
}

// UpdatePodGroup is UpdatePodGroup: the queued hierarchy sees the new
// object.
func (q *PriorityQueue) UpdatePodGroup(pg *schedulingv1beta1.PodGroup) {
	gk := framework.PodGroupKey(pg.Namespace, pg.Name)
	if _, ok := q.podGroups[gk]; !ok {
		return
	}
	q.podGroups[gk] = pg
	r, ok := q.rootOfPodGroup(gk)
	if !ok {
		return
	}
	if e, ok := q.pods[r.entryKey]; ok {
		if n, _ := e.group.Find(pg.Name); n != nil && !n.Composite {
			n.PodGroup = pg
		}
	}
}

// DeletePodGroup is DeletePodGroup: the group's members, queued or
// pending, wait for their PodGroup again; the rest of its hierarchy stays.
func (q *PriorityQueue) DeletePodGroup(pg *schedulingv1beta1.PodGroup) {
	gk := framework.PodGroupKey(pg.Namespace, pg.Name)
	if _, ok := q.podGroups[gk]; !ok {
		return
	}
	r, hadRoot := q.rootOfPodGroup(gk)
	delete(q.podGroups, gk)
	if !hadRoot {
		return
	}
	e, ok := q.pods[r.entryKey]
	if !ok {
		if q.lastPopped != r.entryKey {
			return
		}
		for _, w := range q.pendingMembers.clear(gk) {
			q.incomplete.add(w.pi, w.from)
		}
		return
	}
	q.removeSubtree(e, pg.Name)
}

// AddAttemptedPodGroupIfNeeded is AddAttemptedPodGroupIfNeeded: at the
// end of a group cycle, the members back in the queue (those that failed,
// and those that arrived meanwhile, all pending) form the group again,
// with the popped group's bookkeeping: after a success they go straight
// to activeQ (keeping the timestamp when some member failed, so that
// preemption is tried next); after a rejection or an error the group
// backs off (the error heap: a group has no rejector plugins of its own).
func (q *PriorityQueue) AddAttemptedPodGroupIfNeeded(g *framework.QueuedPodGroupInfo, st *framework.Status) error {
	gk, ek := g.Key(), g.EntityKey()
	if e, ok := q.pods[ek]; ok {
		switch e.where {
		case inUnschedulable:
			return fmt.Errorf("pod group %s is already present in unschedulable queue", gk)
		case inActive:
			return fmt.Errorf("pod group %s is already present in the active queue", gk)
		default:
			return fmt.Errorf("pod group %s is already present in the backoff queue", gk)
		}
	}
	poppedSeq, wasPopped := q.lastPoppedSeq, q.lastPopped == ek
	q.lastPopped = ""
	r := rootRef{entryKey: ek, namespace: g.Namespace, name: g.Name, composite: g.Composite}
	var pending []waitingMember
	for _, leaf := range q.leafPodGroups(r) {
		pending = append(pending, q.pendingMembers.clear(leaf)...)
	}
	if len(pending) == 0 {
		return nil
	}
	attempted := map[types.UID]bool{}
	for _, m := range g.Members {
		attempted[m.Pod.UID] = true
	}
	hadFailures := slices.ContainsFunc(pending, func(w waitingMember) bool { return attempted[w.pi.Pod.UID] })
	ng := q.buildGroup(r)
	if ng == nil {
		for _, w := range pending {
			q.incomplete.add(w.pi, w.from)
		}
		return nil
	}
	for _, w := range pending {
		ng.AddMember(w.pi)
	}
	ng.QueueingParams = g.QueueingParams
	withoutBackoff, preserveTimestamp := false, false
	switch {
	case st.IsSuccess():
		withoutBackoff, preserveTimestamp = true, hadFailures
		ng.ConsecutiveErrorsCount, ng.UnschedulableCount = 0, 0
	case st.IsRejected():
		ng.UnschedulableCount++
		ng.ConsecutiveErrorsCount = 0
		ng.BackoffExpiration = time.Time{}
	default:
		ng.ConsecutiveErrorsCount++
		ng.BackoffExpiration = time.Time{}
	}
	if !preserveTimestamp {
		ng.Timestamp = q.now()
	}
	ng.WasFlushedFromUnschedulable = false
	ng.FlushTimestamp = time.Time{}
	e := q.newGroupEntry(ng)
	if preserveTimestamp && wasPopped {
		// Upstream's timestamps never tie: the preserved one is older than
		// every entry's since. seq stands for the nanoseconds.
		e.seq = poppedSeq
	}
	from := InFlight
	if !withoutBackoff && q.backoffQ.isPodBackingoff(e) {
		q.moveToBackoffQ(e, ScheduleAttemptFailure, from)
	} else {
		q.moveToActiveQ(e, ScheduleAttemptFailure, false, from)
	}
	return nil
}

// PodGroups are the observed PodGroups' keys with their objects.
func (q *PriorityQueue) PodGroups() map[string]*schedulingv1beta1.PodGroup { return q.podGroups }

// WaitingForPodGroup lists the members waiting for their PodGroup, by
// group key then arrival.
func (q *PriorityQueue) WaitingForPodGroup() []*framework.QueuedPodInfo {
	keys := make([]string, 0, len(q.incomplete))
	for k := range q.incomplete {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []*framework.QueuedPodInfo
	for _, k := range keys {
		for _, w := range q.incomplete[k] {
			out = append(out, w.pi)
		}
	}
	return out
}
