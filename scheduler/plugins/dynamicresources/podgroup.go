package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// The plugin's part in the pod-group cycle (GenericWorkload): each member's
// PreFilter leaves its claims in the group cycle's state, and
// PodGroupPostFilter, when the group could not be placed, deallocates what
// PostFilter would have for each member, as upstream's PodGroupPostFilter
// does before DefaultPreemption's.

var _ framework.PodGroupPostFilterPlugin = &DynamicResources{}

// podGroupStateData is upstream's state of the same name, kept in the pod-group
// cycle's state under stateKey: every member's stateData as its PreFilter
// made it (a later placement's replacing an earlier one's), and the claims
// PodGroupPostFilter wrote.
type podGroupStateData struct {
	members map[types.NamespacedName]*stateData
	// pending are the claims whose allocation a member's Reserve left in
	// flight in this cycle, each with the members sharing it
	// (workload_claims.go).
	pending map[types.UID]sets.Set[types.UID]
	claimWrites
}

// Clone shares the state, as upstream.
func (d *podGroupStateData) Clone() framework.StateData { return d }

// podGroupState reads the plugin's state from a pod-group cycle's state;
// framework.ErrNotFound when no member's PreFilter ran.
func podGroupState(group *framework.CycleState) (*podGroupStateData, error) {
	s, err := group.Read(stateKey)
	if err != nil {
		return nil, err
	}
	d, ok := s.(*podGroupStateData)
	if !ok {
		return nil, errors.New("state is not podGroupStateData")
	}
	return d, nil
}

// joinPodGroupState keeps a member's state in its pod-group cycle's state
// (upstream's getOrCreatePodGroupStateData, in PreFilter); nothing outside
// a pod-group cycle.
func joinPodGroupState(cs *framework.CycleState, pod *v1.Pod, s *stateData) error {
	group := cs.PodGroupCycle()
	if group == nil {
		return nil
	}
	d, err := podGroupState(group)
	if errors.Is(err, framework.ErrNotFound) {
		d = &podGroupStateData{members: map[types.NamespacedName]*stateData{}, pending: map[types.UID]sets.Set[types.UID]{}}
		group.Write(stateKey, d)
	} else if err != nil {
		return err
	}
	d.members[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}] = s
	return nil
}

// PodGroupPostFilter runs when the pod-group cycle found no placement for
// the group. For a leaf group without a topology constraint, each member
// not scheduled whose PreFilter ran gets what PostFilter would do for it
// (one of its claims deallocated, or its stale extended-resource claim
// deleted); when some member had none, the claims of the group are
// released (DRAWorkloadResourceClaims). It never makes the group
// schedulable: its answer is Unschedulable, whose reason the framework
// joins with DefaultPreemption's.
func (pl *DynamicResources) PodGroupPostFilter(_ context.Context, state *framework.CycleState, group *framework.PodGroupInfo, _ framework.PodGroupSchedulingFunc) (*framework.PodGroupPostFilterResult, *framework.Status) {
	if !pl.enabled {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	if group.Composite {
		// Upstream's plugin does not support CompositePodGroups.
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	if pl.fts.EnableTopologyAwareWorkloadScheduling && group.PodGroup != nil && group.PodGroup.Spec.SchedulingConstraints != nil {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	gs, err := podGroupState(state)
	if err != nil {
		// No member reached this plugin's PreFilter: upstream's read
		// error is the plugin's Error.
		return nil, framework.AsStatus(err)
	}

	unreserveGroup := false
	for _, pod := range group.UnscheduledPods {
		ms := gs.members[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
		if ms == nil {
			continue
		}
		found, st := pl.deallocateOrDeletePodClaims(pod, ms)
		for _, c := range ms.takeWrites() {
			gs.write(c)
		}
		if st.IsError() {
			return nil, st
		}
		if !found {
			unreserveGroup = true
		}
	}
	if unreserveGroup && pl.fts.EnableDRAWorkloadResourceClaims && len(group.UnscheduledPods) > 0 {
		if st := pl.deallocatePodGroupClaims(gs, group, group.UnscheduledPods[0]); st != nil {
			return nil, st
		}
	}
	return nil, framework.NewStatus(framework.Unschedulable, "deallocation and deletion of ResourceClaims completed")
}

// deallocatePodGroupClaims is upstream's function of the same name: with
// none of the group's pods assumed or bound, the first unavailable claim of
// a member that nobody (or only the group) has reserved is deallocated;
// else the first allocated claim of the PodGroup's own reserved for it is
// unreserved. nil when there was nothing to do.
func (pl *DynamicResources) deallocatePodGroupClaims(gs *podGroupStateData, group *framework.PodGroupInfo, pod *v1.Pod) *framework.Status {
	groupName := framework.PodGroupNameOf(pod)
	if groupName == "" {
		return nil
	}
	// The cache's state, without what this cycle assumed (all reverted by
	// now): a group some of whose pods are placed keeps its claims.
	if pl.h.PodGroupState(pod.Namespace, groupName).ScheduledPodsCount() > 0 {
		return nil
	}
	podGroup, err := pl.podGroupSnapshot(pod)
	if err != nil {
		return framework.AsStatus(err)
	}

	// Upstream walks the members in map order, at random; the members'
	// order here.
	for _, member := range group.UnscheduledPods {
		ms := gs.members[types.NamespacedName{Namespace: member.Namespace, Name: member.Name}]
		if ms == nil {
			continue
		}
		for i, claim := range ms.claims {
			if !ms.unavailable[i] {
				continue
			}
			r := claim.Status.ReservedFor
			if len(r) != 0 && (len(r) != 1 || r[0].UID != podGroup.UID) {
				continue
			}
			if err := staleClaimWrite(gs, claim); err != nil {
				// The member's own deallocation above already changed
				// the claim: upstream's update from PreFilter's copy
				// conflicts.
				return framework.AsStatus(err)
			}
			c := claim.DeepCopy()
			c.Status.ReservedFor = nil
			c.Status.Allocation = nil
			c.Status.Devices = nil
			gs.write(c)
			return framework.NewStatus(framework.Unschedulable, "deallocation of PodGroup ResourceClaim completed")
		}
	}

	for i := range podGroup.Spec.ResourceClaims {
		name, mustCheckOwner, err := resourceclaim.NameFromPodGroup(podGroup, &podGroup.Spec.ResourceClaims[i])
		if err != nil {
			return framework.AsStatus(err)
		}
		if name == nil {
			continue
		}
		claim, err := pl.h.Objects().ResourceClaim(podGroup.Namespace, *name)
		if err != nil {
			return framework.AsStatus(err)
		}
		if mustCheckOwner && resourceclaim.IsForPodGroup(podGroup, claim) != nil {
			continue
		}
		if claim.Status.Allocation == nil || !resourceclaim.IsReservedForPod(pod, claim, pl.fts.EnableDRAWorkloadResourceClaims) {
			continue
		}
		// Upstream's strategic-merge patch deletes the group's entry
		// (reservedFor is keyed by uid).
		c := claim.DeepCopy()
		c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == podGroup.UID })
		gs.write(c)
		return statusUnschedulable("ResourceClaim unreserved for PodGroup")
	}
	return nil
}

// staleClaimWrite is the API server's answer to an update of claim from
// the copy PreFilter read, when this PodGroupPostFilter already wrote it:
// a conflict, or not found when the write deleted it.
func staleClaimWrite(gs *podGroupStateData, claim *resourcev1.ResourceClaim) error {
	gs.writesMu.Lock()
	defer gs.writesMu.Unlock()
	gr := schema.GroupResource{Group: resourcev1.GroupName, Resource: "resourceclaims"}
	for i := len(gs.writes) - 1; i >= 0; i-- {
		w := gs.writes[i]
		if w.UID != claim.UID {
			continue
		}
		if framework.ClaimDeleted(w) {
			return apierrors.NewNotFound(gr, claim.Name)
		}
		return apierrors.NewConflict(gr, claim.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}
