package dynamicresources

// Claims shared by the members of a pod group, as upstream v1.37.1's
// plugin handles them:
//
//   - in a pod-group cycle (GenericWorkload) a claim one member's Reserve
//     allocated is in flight until PreBind writes it; a later member of
//     the same cycle naming the claim reuses that pending allocation
//     instead of waiting for it ("is in the process of being allocated"
//     is only for pods outside the cycle), and the allocation stays in
//     flight until every member sharing it was bound or unreserved
//     (upstream's claimTracker counts the sharers);
//   - with DRAWorkloadResourceClaims (beta, off by default) a pod's claim
//     that matches one of its PodGroup's spec.resourceClaims (same name,
//     same resourceClaimName or resourceClaimTemplateName) is the group's:
//     PreBind reserves it for the PodGroup (reservedFor
//     scheduling.k8s.io/podgroups), a member finds it reserved for itself
//     when it is reserved for its group, and Unreserve leaves the group's
//     reservation alone (PodGroupPostFilter may release it, podgroup.go).

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// inFlightAllocation is a claim whose allocation Reserve chose and PreBind
// has not written yet, and how many pods share it.
type inFlightAllocation struct {
	claim   *resourcev1.ResourceClaim
	sharers int
}

// signalPendingAllocationLocked is upstream's SignalClaimPendingAllocation:
// one more sharer of a claim already in flight (its first allocation
// kept), else the claim goes in flight unless it is already allocated in
// the store (a cycle state older than the claim). pl.mu is held.
func (pl *DynamicResources) signalPendingAllocationLocked(c *resourcev1.ResourceClaim) {
	if f := pl.inFlight[c.UID]; f != nil {
		f.sharers++
		return
	}
	if stored, err := pl.h.Objects().ResourceClaim(c.Namespace, c.Name); err == nil &&
		stored.UID == c.UID && stored.Status.Allocation != nil {
		return
	}
	pl.inFlight[c.UID] = &inFlightAllocation{claim: c, sharers: 1}
}

// maybeRemovePendingAllocationLocked is upstream's
// MaybeRemoveClaimPendingAllocation: the claim leaves flight when forced
// (PreBind wrote it) or when its last sharer goes; removed says it left.
// pl.mu is held.
func (pl *DynamicResources) maybeRemovePendingAllocationLocked(uid types.UID, force bool) (removed bool) {
	f := pl.inFlight[uid]
	if f == nil {
		return false
	}
	if force || f.sharers == 1 {
		delete(pl.inFlight, uid)
		return true
	}
	f.sharers--
	return false
}

// inFlightClaims lists the in-flight claims.
func (pl *DynamicResources) inFlightClaims() []*resourcev1.ResourceClaim {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	out := make([]*resourcev1.ResourceClaim, 0, len(pl.inFlight))
	for _, f := range pl.inFlight {
		out = append(out, f.claim)
	}
	return out
}

// pendingAllocation is the in-flight allocation of a claim, if any.
func (pl *DynamicResources) pendingAllocation(uid types.UID) *resourcev1.ResourceClaim {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if f := pl.inFlight[uid]; f != nil {
		return f.claim
	}
	return nil
}

// reusePendingAllocation: in a pod-group cycle, the unallocated claim i
// that an earlier member of this cycle reserved takes that member's
// pending allocation (and its node selector); reused says so.
func (pl *DynamicResources) reusePendingAllocation(cs *framework.CycleState, s *stateData, i int, claim *resourcev1.ResourceClaim) (reused bool, err error) {
	group := cs.PodGroupCycle()
	if group == nil {
		return false, nil
	}
	gs, err := podGroupState(group)
	if err != nil {
		return false, err
	}
	if gs.pending[claim.UID] == nil {
		return false, nil
	}
	inFlight := pl.pendingAllocation(claim.UID)
	if inFlight == nil {
		return false, nil
	}
	sel, err := nodeSelectorFromAllocation(inFlight.Status.Allocation)
	if err != nil {
		return false, err
	}
	if s.pending == nil {
		s.pending = map[int]*resourcev1.AllocationResult{}
	}
	s.pending[i] = inFlight.Status.Allocation
	s.availableOnNodes[i] = sel
	return true, nil
}

// pendingOnNode are the pending allocations the pod reuses, in claim
// order, refused on a node without the DRAOptionalNodeOperations feature
// when one of their devices needs it.
func pendingOnNode(s *stateData, node *v1.Node) ([]resourcev1.AllocationResult, *framework.Status) {
	if len(s.pending) == 0 {
		return nil, nil
	}
	var out []resourcev1.AllocationResult
	for i, claim := range s.claims {
		alloc := s.pending[i]
		if alloc == nil {
			continue
		}
		if requiresOptionalNodeOperations(alloc) && !slices.Contains(node.Status.DeclaredFeatures, optionalNodeOperationsFeature) {
			return nil, statusUnschedulable(fmt.Sprintf("resource claim %s/%s allocation requires DRAOptionalNodeOperations feature on the node", claim.Namespace, claim.Name))
		}
		out = append(out, *alloc)
	}
	return out, nil
}

// notePendingInGroup records, in a pod-group cycle, that pod shares the
// pending allocation of claim uid (upstream's pendingAllocations).
func notePendingInGroup(cs *framework.CycleState, uid, pod types.UID) {
	gs := cycleGroupState(cs)
	if gs == nil {
		return
	}
	if gs.pending[uid] == nil {
		gs.pending[uid] = sets.New[types.UID]()
	}
	gs.pending[uid].Insert(pod)
}

// forgetPendingInGroup: the allocation of claim uid is no longer pending
// in this pod-group cycle.
func forgetPendingInGroup(cs *framework.CycleState, uid types.UID) {
	if gs := cycleGroupState(cs); gs != nil {
		delete(gs.pending, uid)
	}
}

// cycleGroupState is the plugin's state in the pod-group cycle cs runs
// in, nil outside one (or once the member went to binding).
func cycleGroupState(cs *framework.CycleState) *podGroupStateData {
	if cs == nil || cs.PodGroupCycle() == nil {
		return nil
	}
	gs, err := podGroupState(cs.PodGroupCycle())
	if err != nil {
		return nil
	}
	return gs
}

// podResourceClaimBindings is upstream's function of the same name: with
// DRAWorkloadResourceClaims, the consumer each of the pod's claims is to
// be reserved for (resourceclaim.BindTo: the PodGroup for a claim its
// spec.resourceClaims lists alike, else the pod); nil with the gate off.
func (pl *DynamicResources) podResourceClaimBindings(pod *v1.Pod) ([]resourcev1.ResourceClaimConsumerReference, error) {
	if !pl.fts.EnableDRAWorkloadResourceClaims {
		return nil, nil
	}
	out := make([]resourcev1.ResourceClaimConsumerReference, 0, len(pod.Spec.ResourceClaims))
	podGroup, err := pl.podGroupSnapshot(pod)
	if err != nil {
		return nil, err
	}
	for i := range pod.Spec.ResourceClaims {
		ref, err := resourceclaim.BindTo(pod, podGroup, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return nil, err
		}
		out = append(out, ref)
	}
	return out, nil
}

// binding is the consumer claim i is reserved for: bindTo's entry, else
// (the gate off, or the special claim of extended resources) the pod.
func (s *stateData) binding(i int, pod *v1.Pod) resourcev1.ResourceClaimConsumerReference {
	if i < len(s.bindTo) {
		return s.bindTo[i]
	}
	return resourcev1.ResourceClaimConsumerReference{APIGroup: v1.GroupName, Resource: "pods", Name: pod.Name, UID: pod.UID}
}

// duplicateReservation is the API server's answer to PreBind's status
// update when the claim, as stored, already lists ref: reservedFor is a
// set by uid, so the update is invalid. This happens when members of one
// group cycle share a group claim their PreFilter saw unreserved: the
// first member's PreBind reserved it for the PodGroup, the next one's
// update (retried on the conflict) adds the group again. allocating says
// PreBind wrote an allocation too (upstream's error then says so).
func duplicateReservation(c *resourcev1.ResourceClaim, ref resourcev1.ResourceClaimConsumerReference, allocating bool) error {
	if !slices.ContainsFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == ref.UID }) {
		return nil
	}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: resourcev1.GroupName, Kind: "ResourceClaim"}, c.Name, field.ErrorList{
		field.Duplicate(field.NewPath("status", "reservedFor").Index(len(c.Status.ReservedFor)), ref.UID),
	})
	what := "reservation"
	if allocating {
		what = "allocation and reservation"
	}
	return fmt.Errorf("add %s to claim %s/%s: %w", what, c.Namespace, c.Name, invalid)
}

// podGroupSnapshot is upstream's getPodGroupSnapshot: the pod's PodGroup
// from the scheduler's snapshot (nil for a pod of no group), or the
// snapshot lister's error: the cache tracks a group's state while the
// PodGroup or any of its pods exists.
func (pl *DynamicResources) podGroupSnapshot(pod *v1.Pod) (*schedulingv1beta1.PodGroup, error) {
	name := framework.PodGroupNameOf(pod)
	if name == "" {
		return nil, nil
	}
	pg, err := pl.h.Objects().PodGroup(pod.Namespace, name)
	if err == nil {
		return pg, nil
	}
	key := "podgroup/" + pod.Namespace + "/" + name
	if pl.h.PodGroupState(pod.Namespace, name).AllPodsCount() > 0 {
		return nil, fmt.Errorf("pod group object not found for pod group %s", key)
	}
	return nil, fmt.Errorf("pod group state not found for pod group %s", key)
}
