package framework

import (
	"context"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
)

// Workload-aware scheduling (GenericWorkload): a pod naming a PodGroup in
// spec.schedulingGroup is queued and scheduled with its group, the group
// being the queue's unit and the pod-group cycle trying all its queued
// members together (upstream's schedule_one_podgroup.go).

// Pod-group scheduling policies, as the views name them.
const (
	PolicyGang  = "Gang"
	PolicyBasic = "Basic"
)

// PodGroupKey is the key of a pod group: namespace/name.
func PodGroupKey(namespace, name string) string { return namespace + "/" + name }

// PodGroupNameOf is the PodGroup a pod belongs to, "" for a pod outside
// any group.
func PodGroupNameOf(pod *v1.Pod) string {
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
		return *g.PodGroupName
	}
	return ""
}

// PodGroupKeyOf is the key of the pod's PodGroup, "" for a pod outside any
// group.
func PodGroupKeyOf(pod *v1.Pod) string {
	if name := PodGroupNameOf(pod); name != "" {
		return PodGroupKey(pod.Namespace, name)
	}
	return ""
}

// PodGroupInfo is a pod group as the pod-group cycle sees it (upstream's
// framework.PodGroupInfo for a leaf group): the PodGroup object and its
// members being scheduled in this cycle, in the group's member order.
type PodGroupInfo struct {
	Namespace, Name string
	PodGroup        *schedulingv1beta1.PodGroup
	// UnscheduledPods are the members this cycle tries, in order; the
	// members already assumed or bound are in the cache's PodGroupState.
	UnscheduledPods []*v1.Pod
}

// Key is namespace/name.
func (g *PodGroupInfo) Key() string { return PodGroupKey(g.Namespace, g.Name) }

// Policy is PolicyGang or PolicyBasic.
func (g *PodGroupInfo) Policy() string { return PodGroupPolicy(g.PodGroup) }

// MinCount is the gang's minCount; 1 for a basic group (upstream's
// getMinCount).
func (g *PodGroupInfo) MinCount() int { return PodGroupMinCount(g.PodGroup) }

// PodGroupPolicy is PolicyGang for a gang policy, else PolicyBasic.
func PodGroupPolicy(pg *schedulingv1beta1.PodGroup) string {
	if pg != nil && pg.Spec.SchedulingPolicy.Gang != nil {
		return PolicyGang
	}
	return PolicyBasic
}

// PodGroupMinCount is a gang's minCount, 1 for a basic group.
func PodGroupMinCount(pg *schedulingv1beta1.PodGroup) int {
	if pg != nil && pg.Spec.SchedulingPolicy.Gang != nil {
		return int(pg.Spec.SchedulingPolicy.Gang.MinCount)
	}
	return 1
}

// PodGroupPriority is the group's priority as the queue orders it
// (upstream's util.PodGroupPriority): spec.priority, 0 when unset.
func PodGroupPriority(pg *schedulingv1beta1.PodGroup) int32 {
	if pg != nil && pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return 0
}

// QueuedPodGroupInfo is a pod group as the scheduling queue holds it, one
// entry for all its queued members (upstream's QueuedPodGroupInfo): the
// group's own queueing bookkeeping (backoff, rejector plugins, gating),
// and its queued members in the group's member order.
type QueuedPodGroupInfo struct {
	*PodGroupInfo
	QueueingParams
	// Members are the queued members, ordered by
	// PodGroupMemberPodsOrdering; UnscheduledPods mirrors their pods.
	Members []*QueuedPodInfo
}

// Priority is the group's priority.
func (g *QueuedPodGroupInfo) Priority() int32 { return PodGroupPriority(g.PodGroup) }

// Size is the number of queued members.
func (g *QueuedPodGroupInfo) Size() int { return len(g.Members) }

// AddMember inserts a member at its place in the member order.
func (g *QueuedPodGroupInfo) AddMember(pi *QueuedPodInfo) {
	i, _ := slices.BinarySearchFunc(g.Members, pi, PodGroupMemberPodsOrdering)
	g.Members = slices.Insert(g.Members, i, pi)
	g.UnscheduledPods = slices.Insert(g.UnscheduledPods, i, pi.Pod)
}

// RemoveMember removes the member with the pod's namespace and name and
// returns it, nil when it is not a member.
func (g *QueuedPodGroupInfo) RemoveMember(pod *v1.Pod) *QueuedPodInfo {
	for i, m := range g.Members {
		if m.Pod.Namespace == pod.Namespace && m.Pod.Name == pod.Name {
			g.Members = slices.Delete(g.Members, i, i+1)
			g.UnscheduledPods = slices.Delete(g.UnscheduledPods, i, i+1)
			return m
		}
	}
	return nil
}

// UpdateMember replaces a member's pod (an informer update), keeping its
// place and bookkeeping; it reports whether the pod is a member.
func (g *QueuedPodGroupInfo) UpdateMember(pod *v1.Pod) bool {
	for i, m := range g.Members {
		if m.Pod.Namespace == pod.Namespace && m.Pod.Name == pod.Name {
			m.PodInfo = NewPodInfo(pod)
			g.UnscheduledPods[i] = pod
			return true
		}
	}
	return false
}

// Member returns the queued member with the pod's namespace and name.
func (g *QueuedPodGroupInfo) Member(namespace, name string) *QueuedPodInfo {
	for _, m := range g.Members {
		if m.Pod.Namespace == namespace && m.Pod.Name == name {
			return m
		}
	}
	return nil
}

// PodGroupMemberPodsOrdering orders a group's members as upstream's
// PodGroupMemberPodsOrderingFunc: priority (descending), attempts
// (descending), timestamp (ascending), then name.
func PodGroupMemberPodsOrdering(a, b *QueuedPodInfo) int {
	if pa, pb := a.Priority(), b.Priority(); pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	if a.Attempts != b.Attempts {
		if a.Attempts > b.Attempts {
			return -1
		}
		return 1
	}
	if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
		return c
	}
	return strings.Compare(a.Pod.Name, b.Pod.Name)
}

// PlacementProgress is how far the pod-group cycle is: members still to
// try and members scheduled (assumed or bound, those of earlier cycles
// included), as upstream's framework.PlacementProgress.
type PlacementProgress struct {
	Remaining int
	Scheduled int
}

// PlacementFeasiblePlugin says whether the group's constraints can still
// be met (GangScheduling: minCount): Unschedulable ends the cycle early,
// Wait means not yet, success means met.
type PlacementFeasiblePlugin interface {
	Plugin
	PlacementFeasible(ctx context.Context, state *CycleState, group *PodGroupInfo, progress PlacementProgress) *Status
}

// ProposedAssignment is a member placed by the pod-group algorithm: its
// node and the cycle state its Filter and Score ran with.
type ProposedAssignment struct {
	PodInfo  *PodInfo
	NodeName string
	State    *CycleState
}

// PodGroupAssignments are the members the pod-group algorithm placed, in
// Placement when it tried placements.
type PodGroupAssignments struct {
	Placement           *Placement
	ProposedAssignments []ProposedAssignment
}

// PodGroupSchedulingFunc runs the pod-group algorithm once more over the
// snapshot as it stands (a PodGroupPostFilter plugin removes victims
// first), every tentative placement reverted before it returns.
type PodGroupSchedulingFunc func(ctx context.Context) (*PodGroupAssignments, *Status)

// PodGroupPostFilterResult nominates members (by namespace/name) to the
// nodes where preemption makes room.
type PodGroupPostFilterResult struct {
	NominatingInfos map[types.NamespacedName]*NominatingInfo
}

// PodGroupPostFilterPlugin runs when a pod-group cycle ends Unschedulable
// (DefaultPreemption's workload-aware preemption). Success: the group can
// be made schedulable (victims chosen, members nominated); Unschedulable
// or UnschedulableAndUnresolvable: it cannot; Error: it failed.
//
// Like PostFilter, a plugin that evaluated preemption leaves its record in
// the group cycle's state under record.PreemptionStateKey.
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(ctx context.Context, state *CycleState, group *PodGroupInfo, schedule PodGroupSchedulingFunc) (*PodGroupPostFilterResult, *Status)
}

// PodGroupState is what the scheduler's cache knows of a group's pods
// (upstream's PodGroupState): those not scheduled yet, those assumed
// (placed by a cycle, not bound), those bound. Pods are in the store's
// order.
type PodGroupState struct {
	Unscheduled, Assumed, Assigned []*v1.Pod
}

// AllPodsCount counts every pod of the group the scheduler knows.
func (s *PodGroupState) AllPodsCount() int {
	return len(s.Unscheduled) + len(s.Assumed) + len(s.Assigned)
}

// ScheduledPodsCount counts the assumed and bound pods.
func (s *PodGroupState) ScheduledPodsCount() int { return len(s.Assumed) + len(s.Assigned) }

// ScheduledPods are the bound pods, then the assumed ones.
func (s *PodGroupState) ScheduledPods() []*v1.Pod {
	return append(slices.Clone(s.Assigned), s.Assumed...)
}
