package framework

import (
	"context"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
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
// framework.PodGroupInfo): a leaf PodGroup and its members being scheduled
// in this cycle, in the group's member order; or, with CompositePodGroup,
// a CompositePodGroup and its child groups (PodGroups or
// CompositePodGroups), the hierarchy's root being the queue's unit.
type PodGroupInfo struct {
	Namespace, Name string
	// Composite is true for a CompositePodGroup's node (upstream's
	// CompositePodGroupKeyType), whose object may be nil while the cycle
	// reconciles it.
	Composite         bool
	PodGroup          *schedulingv1beta1.PodGroup
	CompositePodGroup *schedulingv1alpha3.CompositePodGroup
	// Children are a composite node's child groups in upstream's
	// GetChildGroups order: creation time, then name.
	Children []*PodGroupInfo
	// UnscheduledPods are the members this cycle tries, in order (a leaf
	// only); the members already assumed or bound are in the cache's
	// PodGroupState.
	UnscheduledPods []*v1.Pod
}

// NewPodGroupInfo is the leaf node of a PodGroup.
func NewPodGroupInfo(pg *schedulingv1beta1.PodGroup) *PodGroupInfo {
	return &PodGroupInfo{Namespace: pg.Namespace, Name: pg.Name, PodGroup: pg}
}

// NewCompositePodGroupInfo is the node of a CompositePodGroup, without
// children.
func NewCompositePodGroupInfo(cpg *schedulingv1alpha3.CompositePodGroup) *PodGroupInfo {
	return &PodGroupInfo{Namespace: cpg.Namespace, Name: cpg.Name, Composite: true, CompositePodGroup: cpg}
}

// Key is namespace/name.
func (g *PodGroupInfo) Key() string { return PodGroupKey(g.Namespace, g.Name) }

// Kind is "PodGroup" or "CompositePodGroup".
func (g *PodGroupInfo) Kind() string {
	if g.Composite {
		return KindCompositePodGroup
	}
	return KindPodGroup
}

// EntityKey tells a PodGroup from a CompositePodGroup of the same name:
// Kind/namespace/name (upstream's PodGroupInfo.GetKey).
func (g *PodGroupInfo) EntityKey() string { return g.Kind() + "/" + g.Key() }

// Policy is PolicyGang or PolicyBasic.
func (g *PodGroupInfo) Policy() string {
	if g.Composite {
		if g.CompositePodGroup != nil && g.CompositePodGroup.Spec.SchedulingPolicy.Gang != nil {
			return PolicyGang
		}
		return PolicyBasic
	}
	return PodGroupPolicy(g.PodGroup)
}

// MinCount is the gang's minCount (a composite gang's minGroupCount: the
// children that must be placed); 1 for a basic group (upstream's
// getMinCount).
func (g *PodGroupInfo) MinCount() int {
	if g.Composite {
		return CompositePodGroupMinGroupCount(g.CompositePodGroup)
	}
	return PodGroupMinCount(g.PodGroup)
}

// AllUnscheduledPods are the members the cycle tries in the whole subtree
// (upstream's GetUnscheduledPods), leaf by leaf in child order.
func (g *PodGroupInfo) AllUnscheduledPods() []*v1.Pod {
	if !g.Composite {
		return g.UnscheduledPods
	}
	var pods []*v1.Pod
	for _, c := range g.Children {
		pods = append(pods, c.AllUnscheduledPods()...)
	}
	return pods
}

// Leaves are the subtree's PodGroups, depth first in child order.
func (g *PodGroupInfo) Leaves() []*PodGroupInfo {
	if !g.Composite {
		return []*PodGroupInfo{g}
	}
	var out []*PodGroupInfo
	for _, c := range g.Children {
		out = append(out, c.Leaves()...)
	}
	return out
}

// Nodes are the subtree's nodes, the node itself first, depth first.
func (g *PodGroupInfo) Nodes() []*PodGroupInfo {
	out := []*PodGroupInfo{g}
	for _, c := range g.Children {
		out = append(out, c.Nodes()...)
	}
	return out
}

// Find is upstream's findNodeAndParent: the node named name in the
// subtree (depth first) and its parent (nil for g itself).
func (g *PodGroupInfo) Find(name string) (node, parent *PodGroupInfo) {
	return g.find(nil, name)
}

func (g *PodGroupInfo) find(parent *PodGroupInfo, name string) (*PodGroupInfo, *PodGroupInfo) {
	if g.Name == name {
		return g, parent
	}
	for _, c := range g.Children {
		if n, p := c.find(g, name); n != nil {
			return n, p
		}
	}
	return nil, nil
}

// AddChild inserts a child at its place in the child order; a child of the
// same name is kept.
func (g *PodGroupInfo) AddChild(child *PodGroupInfo) {
	for _, c := range g.Children {
		if c.Name == child.Name {
			return
		}
	}
	i, _ := slices.BinarySearchFunc(g.Children, child, childGroupOrder)
	g.Children = slices.Insert(g.Children, i, child)
}

// CloneTree copies the subtree's nodes (the API objects are shared),
// without their members.
func (g *PodGroupInfo) CloneTree() *PodGroupInfo {
	c := &PodGroupInfo{Namespace: g.Namespace, Name: g.Name, Composite: g.Composite, PodGroup: g.PodGroup, CompositePodGroup: g.CompositePodGroup}
	for _, ch := range g.Children {
		c.Children = append(c.Children, ch.CloneTree())
	}
	return c
}

// RemoveChild removes the child named name.
func (g *PodGroupInfo) RemoveChild(name string) {
	g.Children = slices.DeleteFunc(g.Children, func(c *PodGroupInfo) bool { return c.Name == name })
}

// creation is the node's object's creation time.
func (g *PodGroupInfo) creation() time.Time {
	if g.PodGroup != nil {
		return g.PodGroup.CreationTimestamp.Time
	}
	if g.CompositePodGroup != nil {
		return g.CompositePodGroup.CreationTimestamp.Time
	}
	return time.Time{}
}

// childGroupOrder is GetChildGroups' order: creation time, then name.
func childGroupOrder(a, b *PodGroupInfo) int {
	if c := a.creation().Compare(b.creation()); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// Kinds of group, as entity keys and views name them.
const (
	KindPodGroup          = "PodGroup"
	KindCompositePodGroup = "CompositePodGroup"
)

// ParentOfPodGroup is the CompositePodGroup a PodGroup belongs to, "" for
// none.
func ParentOfPodGroup(pg *schedulingv1beta1.PodGroup) string {
	if pg != nil && pg.Spec.ParentCompositePodGroupName != nil {
		return *pg.Spec.ParentCompositePodGroupName
	}
	return ""
}

// ParentOfCompositePodGroup is the CompositePodGroup a CompositePodGroup
// belongs to, "" for a root.
func ParentOfCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) string {
	if cpg != nil && cpg.Spec.ParentCompositePodGroupName != nil {
		return *cpg.Spec.ParentCompositePodGroupName
	}
	return ""
}

// CompositePodGroupMinGroupCount is a composite gang's minGroupCount, 1
// for a basic one.
func CompositePodGroupMinGroupCount(cpg *schedulingv1alpha3.CompositePodGroup) int {
	if cpg != nil && cpg.Spec.SchedulingPolicy.Gang != nil {
		return int(cpg.Spec.SchedulingPolicy.Gang.MinGroupCount)
	}
	return 1
}

// CompositePodGroupPriority is upstream's util.CompositePodGroupPriority:
// spec.priority, 0 when unset.
func CompositePodGroupPriority(cpg *schedulingv1alpha3.CompositePodGroup) int32 {
	if cpg != nil && cpg.Spec.Priority != nil {
		return *cpg.Spec.Priority
	}
	return 0
}

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

// Priority is the group's priority: a PodGroup's or a
// CompositePodGroup's (for the queue, the root's).
func (g *PodGroupInfo) Priority() int32 {
	if g.Composite {
		return CompositePodGroupPriority(g.CompositePodGroup)
	}
	return PodGroupPriority(g.PodGroup)
}

// Size is the number of queued members.
func (g *QueuedPodGroupInfo) Size() int { return len(g.Members) }

// leafOf is the leaf PodGroup of the hierarchy a pod names, nil when the
// hierarchy has none (upstream's AddPod then drops the pod).
func (g *QueuedPodGroupInfo) leafOf(pod *v1.Pod) *PodGroupInfo {
	if pod.Namespace != g.Namespace {
		return nil
	}
	leaf, _ := g.Find(PodGroupNameOf(pod))
	if leaf == nil || leaf.Composite {
		return nil
	}
	return leaf
}

// AddMember inserts a member at its place in the member order (and in its
// leaf's); a pod whose PodGroup is not in the hierarchy is dropped, as
// upstream's AddPod drops it.
func (g *QueuedPodGroupInfo) AddMember(pi *QueuedPodInfo) {
	leaf := g.leafOf(pi.Pod)
	if leaf == nil {
		return
	}
	i, _ := slices.BinarySearchFunc(g.Members, pi, PodGroupMemberPodsOrdering)
	g.Members = slices.Insert(g.Members, i, pi)
	j, _ := slices.BinarySearchFunc(g.LeafMembers(leaf), pi, PodGroupMemberPodsOrdering)
	leaf.UnscheduledPods = slices.Insert(leaf.UnscheduledPods, j, pi.Pod)
}

// LeafMembers are the queued members of one leaf PodGroup of the
// hierarchy, in member order.
func (g *QueuedPodGroupInfo) LeafMembers(leaf *PodGroupInfo) []*QueuedPodInfo {
	if !g.Composite {
		return g.Members
	}
	var out []*QueuedPodInfo
	for _, m := range g.Members {
		if PodGroupNameOf(m.Pod) == leaf.Name {
			out = append(out, m)
		}
	}
	return out
}

// RemoveMember removes the member with the pod's namespace and name and
// returns it, nil when it is not a member.
func (g *QueuedPodGroupInfo) RemoveMember(pod *v1.Pod) *QueuedPodInfo {
	for i, m := range g.Members {
		if m.Pod.Namespace == pod.Namespace && m.Pod.Name == pod.Name {
			g.Members = slices.Delete(g.Members, i, i+1)
			if leaf := g.leafOf(m.Pod); leaf != nil {
				leaf.UnscheduledPods = slices.DeleteFunc(leaf.UnscheduledPods, func(p *v1.Pod) bool { return p.Name == pod.Name })
			}
			return m
		}
	}
	return nil
}

// RemoveSubtree removes the node named name (a child group) and returns
// the queued members of its subtree (upstream's RemovePodGroup and
// RemoveCompositePodGroup).
func (g *QueuedPodGroupInfo) RemoveSubtree(name string) []*QueuedPodInfo {
	node, parent := g.Find(name)
	if node == nil {
		return nil
	}
	if parent != nil {
		parent.RemoveChild(name)
	}
	var removed []*QueuedPodInfo
	gone := map[*QueuedPodInfo]bool{}
	for _, leaf := range node.Leaves() {
		for _, m := range g.LeafMembers(leaf) {
			removed = append(removed, m)
			gone[m] = true
		}
		leaf.UnscheduledPods = nil
	}
	g.Members = slices.DeleteFunc(g.Members, func(m *QueuedPodInfo) bool { return gone[m] })
	return removed
}

// UpdateMember replaces a member's pod (an informer update), keeping its
// place and bookkeeping; it reports whether the pod is a member.
func (g *QueuedPodGroupInfo) UpdateMember(pod *v1.Pod) bool {
	for _, m := range g.Members {
		if m.Pod.Namespace == pod.Namespace && m.Pod.Name == pod.Name {
			m.PodInfo = NewPodInfo(pod)
			if leaf := g.leafOf(pod); leaf != nil {
				for i, p := range leaf.UnscheduledPods {
					if p.Name == pod.Name {
						leaf.UnscheduledPods[i] = pod
					}
				}
			}
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
