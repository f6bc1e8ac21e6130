// Package dynamicresources is upstream's DynamicResources (DRA) plugin: it
// finds a pod's ResourceClaims (named or generated from templates), allocates
// devices for the unallocated ones with upstream's own allocator
// (k8s.io/dynamic-resource-allocation/structured) node by node in Filter,
// scores prioritized-list choices, holds the chosen allocation in flight from
// Reserve to PreBind, and in PreBind writes the allocation and the pod's
// reservation into the claim. PostFilter deallocates a claim no other pod
// uses when it is what keeps the pod off every node.
//
// Claim writes go through framework.ClaimWriterPlugin: the scheduler stores
// them right after the extension point, where upstream's API writes reach
// the claim informer.
//
// DRA-backed extended resources (DRAExtendedResource) add one special
// claim per pod, last in its claim list (extended.go).
//
// In a pod-group cycle (GenericWorkload), PodGroupPostFilter does for the
// group's members what PostFilter does for a pod (podgroup.go), and members
// share a claim's allocation pending from an earlier member's Reserve;
// with DRAWorkloadResourceClaims a claim the PodGroup owns is reserved for
// the group, not the pod (workload_claims.go).
//
// Not simulated: node-allocatable resources (alpha).
package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.DynamicResources

	// stateKey is upstream's key (the plugin name).
	stateKey framework.StateKey = Name

	// defaultFilterTimeout is upstream's filterTimeout default when the
	// DRASchedulerFilterTimeout gate is on.
	defaultFilterTimeout = 10 * time.Second
)

// DynamicResources is the DRA plugin.
type DynamicResources struct {
	h             framework.Handle
	fts           features.Features
	enabled       bool
	filterTimeout time.Duration
	// bindingTimeout bounds PreBind's wait for binding conditions
	// (binding.go).
	bindingTimeout time.Duration
	celCache       *cel.Cache

	// inFlight holds the claims Reserve allocated, by UID, until PreBind
	// wrote them (or Unreserve dropped them for every member sharing
	// them): their devices count as taken for every other pod, and pods
	// sharing the claim outside the group cycle wait.
	mu       sync.Mutex
	inFlight map[types.UID]*inFlightAllocation

	// cache keeps the allocator's inputs and answers across cycles.
	cache *allocationCache
}

var (
	_ framework.PreEnqueuePlugin    = &DynamicResources{}
	_ framework.PreFilterPlugin     = &DynamicResources{}
	_ framework.FilterPlugin        = &DynamicResources{}
	_ framework.PostFilterPlugin    = &DynamicResources{}
	_ framework.ScorePlugin         = &DynamicResources{}
	_ framework.ScoreExtensions     = &DynamicResources{}
	_ framework.ReservePlugin       = &DynamicResources{}
	_ framework.PreBindPlugin       = &DynamicResources{}
	_ framework.EnqueueExtensions   = &DynamicResources{}
	_ framework.ClaimWriterPlugin   = &DynamicResources{}
	_ framework.PreBindWaiterPlugin = &DynamicResources{}
)

// New takes *configv1.DynamicResourcesArgs or nil.
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	pl := &DynamicResources{h: h, inFlight: map[types.UID]*inFlightAllocation{}, cache: newAllocationCache()}
	if h != nil {
		pl.fts = h.Features()
	} else {
		pl.fts = features.Default()
	}
	pl.enabled = pl.fts.EnableDynamicResourceAllocation
	switch a := args.(type) {
	case nil:
	case *configv1.DynamicResourcesArgs:
		if a.BindingTimeout != nil {
			pl.bindingTimeout = a.BindingTimeout.Duration
		} else {
			pl.bindingTimeout = configv1.DynamicResourcesBindingTimeoutDefault
		}
		if a.FilterTimeout != nil {
			pl.filterTimeout = a.FilterTimeout.Duration
		} else if pl.fts.EnableDRASchedulerFilterTimeout {
			pl.filterTimeout = defaultFilterTimeout
		}
	default:
		return nil, fmt.Errorf("got args of type %T, want *DynamicResourcesArgs", args)
	}
	if args == nil {
		pl.bindingTimeout = configv1.DynamicResourcesBindingTimeoutDefault
		if pl.fts.EnableDRASchedulerFilterTimeout {
			pl.filterTimeout = defaultFilterTimeout
		}
	}
	pl.celCache = cel.NewCache(10, cel.Features{
		EnableConsumableCapacity: pl.fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: pl.fts.EnableDRAListTypeAttributes,
	})
	return pl, nil
}

// Name returns the plugin's name.
func (pl *DynamicResources) Name() string { return Name }

// stateData is what PreFilter found, shared by the cycle's extension
// points (Clone returns the same pointer, as upstream).
type stateData struct {
	// claims are the pod's claims in spec order.
	claims []*resourcev1.ResourceClaim
	// availableOnNodes is the allocation's node selector of each
	// allocated claim (nil: everywhere, or not allocated).
	availableOnNodes []*nodeaffinity.NodeSelector
	// bindTo is the consumer each claim is reserved for, the pod or
	// (DRAWorkloadResourceClaims) its PodGroup; nil with the gate off.
	bindTo []resourcev1.ResourceClaimConsumerReference
	// pending are the allocations of unallocated claims an earlier member
	// of the group cycle reserved, by claim index: reused, not allocated.
	pending map[int]*resourcev1.AllocationResult
	// prioritized: some request of the claims has a firstAvailable list
	// (else every node scores 0).
	prioritized bool
	// allocation is nil when no claim needs allocating.
	allocation *cycleAllocation

	mu sync.Mutex
	// unavailable are the indices of claims some node could not use.
	unavailable map[int]bool
	// nodeAllocations are Filter's allocations per node, one per
	// unallocated claim in claim order.
	nodeAllocations map[string][]resourcev1.AllocationResult
	// reserved are the allocations Reserve chose, by claim index.
	reserved map[int]*resourcev1.AllocationResult
	// claimWrites are the claims written and not yet taken by the
	// scheduler.
	claimWrites

	// ext is the special claim of DRA-backed extended resources.
	ext extendedState
}

// Clone shares the state, as upstream.
func (d *stateData) Clone() framework.StateData { return d }

func (d *stateData) empty() bool { return len(d.claims) == 0 }

func getStateData(cs *framework.CycleState) (*stateData, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	s, err := cs.Read(stateKey)
	if err != nil {
		return nil, err
	}
	d, ok := s.(*stateData)
	if !ok {
		return nil, errors.New("unable to convert state into stateData")
	}
	return d, nil
}

// statusUnschedulable is upstream's helper: every DRA rejection is
// UnschedulableAndUnresolvable.
func statusUnschedulable(reason string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
}

// PreEnqueue gates a pod whose claims cannot all be found (a template's
// claim not generated yet, a missing or deleted claim, a foreign claim).
func (pl *DynamicResources) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	if !pl.enabled {
		return nil
	}
	if err := pl.foreachPodResourceClaim(pod, nil); err != nil {
		return statusUnschedulable(err.Error())
	}
	return nil
}

// foreachPodResourceClaim resolves the pod's claims in spec order, as
// upstream (resourceclaim.Name, the claim lookup, deletion and owner
// checks); cb, if not nil, gets each claim found.
func (pl *DynamicResources) foreachPodResourceClaim(pod *v1.Pod, cb func(claim *resourcev1.ResourceClaim)) error {
	for i := range pod.Spec.ResourceClaims {
		name, mustCheckOwner, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return err
		}
		if name == nil {
			// No claim was generated for this entry, on purpose.
			continue
		}
		claim, err := pl.h.Objects().ResourceClaim(pod.Namespace, *name)
		if err != nil {
			return err
		}
		if claim.DeletionTimestamp != nil {
			return fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, pl.fts.EnableDRAWorkloadResourceClaims); err != nil {
				return err
			}
		}
		if cb != nil {
			cb(claim)
		}
	}
	return nil
}

// PreFilter resolves the claims, checks the requests' device classes and
// brings the allocator's inputs up to date (allocation_cache.go).
func (pl *DynamicResources) PreFilter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if pl.resizeDeferred(pod) || !pl.enabled {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &stateData{nodeAllocations: map[string][]resourcev1.AllocationResult{}, ext: extendedState{index: -1}}
	cs.Write(stateKey, s)
	// A member of a pod-group cycle: its state is kept for the group's
	// PodGroupPostFilter, whether or not it has claims.
	if err := joinPodGroupState(cs, pod, s); err != nil {
		return nil, framework.AsStatus(err)
	}

	var claims []*resourcev1.ResourceClaim
	if err := pl.foreachPodResourceClaim(pod, func(c *resourcev1.ResourceClaim) { claims = append(claims, c) }); err != nil {
		return nil, statusUnschedulable(err.Error())
	}
	if ext := pl.preFilterExtended(pod, s); ext != nil {
		s.ext.index = len(claims)
		s.ext.nodes = map[string]nodeExtendedClaim{}
		claims = append(claims, ext)
	}
	bindTo, err := pl.podResourceClaimBindings(pod)
	if err != nil {
		return nil, statusUnschedulable(err.Error())
	}
	s.bindTo = bindTo
	if len(claims) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s.availableOnNodes = make([]*nodeaffinity.NodeSelector, len(claims))
	toAllocate := 0
	for i, claim := range claims {
		for _, req := range claim.Spec.Devices.Requests {
			s.prioritized = s.prioritized || len(req.FirstAvailable) > 0
		}
		if claim.Status.Allocation != nil {
			if !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, pl.fts.EnableDRAWorkloadResourceClaims) {
				return nil, statusUnschedulable("resourceclaim in use")
			}
			sel, err := nodeSelectorFromAllocation(claim.Status.Allocation)
			if err != nil {
				return nil, framework.AsStatus(err)
			}
			s.availableOnNodes[i] = sel
			continue
		}
		toAllocate++
		reused, err := pl.reusePendingAllocation(cs, s, i, claim)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		if reused {
			continue
		}
		if pl.pendingAllocation(claim.UID) != nil {
			return nil, statusUnschedulable(fmt.Sprintf("resource claim %s/%s is in the process of being allocated", claim.Namespace, claim.Name))
		}
		if s.isExtended(i) {
			// Its requests are the node's (Filter); a stale one is
			// refused there.
			continue
		}
		for _, req := range claim.Spec.Devices.Requests {
			switch {
			case req.Exactly != nil:
				if st := pl.validateDeviceClass(req.Exactly.DeviceClassName, req.Name); st != nil {
					return nil, st
				}
			case len(req.FirstAvailable) > 0:
				if !pl.fts.EnableDRAPrioritizedList {
					return nil, statusUnschedulable(fmt.Sprintf("resource claim %s/%s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claim.Namespace, claim.Name, req.Name))
				}
				for _, sub := range req.FirstAvailable {
					if st := pl.validateDeviceClass(sub.DeviceClassName, resourceclaim.CreateSubRequestRef(req.Name, sub.Name)); st != nil {
						return nil, st
					}
				}
			default:
				return nil, statusUnschedulable(fmt.Sprintf("resource claim %s/%s, request %s: unknown request type", claim.Namespace, claim.Name, req.Name))
			}
		}
	}
	if toAllocate > 0 {
		// The allocator is built per node in Filter (allocation_cache.go);
		// one over nothing surfaces the error upstream's PreFilter returns
		// when no allocator supports the features.
		if _, err := structured.NewAllocator(ctx, AllocatorFeatures(pl.fts), structured.AllocatedState{}, classLister{pl.h.Objects()}, nil, pl.celCache); err != nil {
			return nil, framework.AsStatus(err)
		}
		a := &cycleAllocation{}
		for i, claim := range claims {
			if claim.Status.Allocation == nil && s.pending[i] == nil {
				a.claims = append(a.claims, claim)
			}
		}
		key, err := claimsKey(a.claims)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		a.key = key
		pl.cache.sync(pl.h.Objects(), pl.inFlightClaims(),
			pl.fts.EnableDRADeviceTaints && pl.fts.EnableDRADeviceTaintRules, pl.fts.EnableDRAConsumableCapacity)
		s.allocation = a
	}
	s.claims = claims
	return nil, nil
}

// AllocatorFeatures maps the gates onto the allocator's features, as
// upstream's function of the same name.
func AllocatorFeatures(fts features.Features) structured.Features {
	return structured.Features{
		AdminAccess:             fts.EnableDRAAdminAccess,
		PrioritizedList:         fts.EnableDRAPrioritizedList,
		PartitionableDevices:    fts.EnableDRAPartitionableDevices,
		DeviceTaints:            fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus:  fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:      fts.EnableDRAConsumableCapacity,
		FractionalCapacityRange: fts.EnableDRAFractionalCapacityRange,
		ListTypeAttributes:      fts.EnableDRAListTypeAttributes,
		OptionalNodeOperations:  fts.EnableDRAOptionalNodeOperations,
		DerivedAttributes:       fts.EnableDRADerivedAttributes,
		CompatibilityGroups:     fts.EnableDRADeviceCompatibilityGroups,
	}
}

func (pl *DynamicResources) validateDeviceClass(class, request string) *framework.Status {
	if class == "" {
		return framework.AsStatus(fmt.Errorf("request %s: unsupported request type", request))
	}
	if _, err := pl.h.Objects().DeviceClass(class); err != nil {
		return statusUnschedulable(fmt.Sprintf("request %s: device class %s does not exist", request, class))
	}
	return nil
}

// PreFilterExtensions: none, as upstream.
func (pl *DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks the allocated claims' node selectors and asks the
// allocator for the unallocated ones on this node.
func (pl *DynamicResources) Filter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if pl.resizeDeferred(pod) || !pl.enabled {
		return nil
	}
	s, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return nil
	}
	node := nodeInfo.Node()
	bindingGates := pl.fts.EnableDRADeviceBindingConditions && pl.fts.EnableDRAResourceClaimDeviceStatus
	nodeExt, mappings, st := pl.filterExtended(s, pod, nodeInfo)
	if st != nil {
		return st
	}
	if nodeExt == nil && s.noUserClaim() {
		// Only device-plugin resources on this node: NodeResourcesFit's.
		return nil
	}
	var unavailable []int
	for i, claim := range s.claims {
		if sel := s.availableOnNodes[i]; sel != nil && !sel.Match(node) {
			unavailable = append(unavailable, i)
			continue
		}
		if claim.Status.Allocation != nil && requiresOptionalNodeOperations(claim.Status.Allocation) &&
			!slices.Contains(node.Status.DeclaredFeatures, optionalNodeOperationsFeature) {
			unavailable = append(unavailable, i)
			continue
		}
		if claim.Status.Allocation != nil && bindingGates && pl.unusableForBinding(claim) {
			unavailable = append(unavailable, i)
		}
	}
	var allocations []resourcev1.AllocationResult
	if s.allocation != nil {
		var timeout time.Duration
		if pl.fts.EnableDRASchedulerFilterTimeout {
			timeout = pl.filterTimeout
		}
		toAllocate, key := s.allocation.claims, s.allocation.key
		if nodeExt != nil {
			// The special claim's requests are this node's own
			// (extended.go), so the claims differ from the cycle's.
			toAllocate = nil
			for i, claim := range s.claims {
				if claim.Status.Allocation == nil && s.pending[i] == nil {
					if s.isExtended(i) {
						claim = nodeExt
					}
					toAllocate = append(toAllocate, claim)
				}
			}
			k, err := claimsKey(toAllocate)
			if err != nil {
				return framework.AsStatus(err)
			}
			key = k
		}
		// The allocations an earlier member of the group cycle reserved
		// are reused as they are, checked only against the node's
		// features.
		pendingResults, st := pendingOnNode(s, node)
		if st != nil {
			return st
		}
		var result []resourcev1.AllocationResult
		if len(toAllocate) > 0 {
			result, err = pl.allocate(ctx, node, toAllocate, key, timeout)
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return framework.AsStatus(fmt.Errorf("node %s: timed out trying to allocate devices", node.Name))
		case errors.Is(err, structured.ErrFailedAllocationOnNode):
			return statusUnschedulable(err.Error())
		case ctx.Err() != nil:
			return statusUnschedulable(fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
		case err != nil:
			return framework.AsStatus(err)
		}
		if len(result) != len(s.allocation.claims) {
			return statusUnschedulable("cannot allocate all claims")
		}
		// Upstream's order: the new allocations, then the pending ones,
		// which Reserve assigns to the unallocated claims in claim order.
		allocations = append(slices.Clip(result), pendingResults...)
	}
	if s.allocation == nil && len(unavailable) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(unavailable) > 0 {
		if s.unavailable == nil {
			s.unavailable = map[int]bool{}
		}
		for _, i := range unavailable {
			s.unavailable[i] = true
		}
		return statusUnschedulable("resourceclaim not available on the node")
	}
	s.nodeAllocations[node.Name] = allocations
	if s.ext.index >= 0 {
		s.ext.nodes[node.Name] = nodeExtendedClaim{claim: nodeExt, mappings: mappings}
	}
	return nil
}

// PostFilter deallocates one claim that some node could not use and that
// no other pod has reserved, so that the next attempt may allocate it
// elsewhere. Upstream picks among such claims in Go map order (at
// random); the lowest index is taken here, which gives the same message.
func (pl *DynamicResources) PostFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if !pl.enabled || pl.resizeDeferred(pod) {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	s, err := getStateData(cs)
	if err != nil {
		// PreFilter never ran (an earlier PreFilter rejected the pod):
		// upstream's read error stops the PostFilter chain, and the
		// FitError message ends in " not found".
		return nil, framework.AsStatus(err)
	}
	if s.empty() {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	_, st := pl.deallocateOrDeletePodClaims(pod, s)
	return nil, st
}

// deallocateOrDeletePodClaims is upstream's function of the same name, what
// PostFilter does for a pod (and PodGroupPostFilter for each member):
// deallocate one claim some node could not use that no other pod has
// reserved, else delete the pod's stale extended-resource claim; found
// says whether it did either.
func (pl *DynamicResources) deallocateOrDeletePodClaims(pod *v1.Pod, s *stateData) (found bool, st *framework.Status) {
	for i := range s.claims {
		if !s.unavailable[i] || s.isExtended(i) {
			continue
		}
		claim := s.claims[i]
		if r := claim.Status.ReservedFor; len(r) == 0 || len(r) == 1 && r[0].UID == pod.UID {
			c := claim.DeepCopy()
			c.Status.ReservedFor = nil
			c.Status.Allocation = nil
			c.Status.Devices = nil
			s.write(c)
			return true, framework.NewStatus(framework.Unschedulable, "deallocation of ResourceClaim completed")
		}
	}
	if s.ext.index >= 0 && s.claims[s.ext.index].Name != specialClaimInMemName {
		// Created by an earlier cycle: stale, so it goes.
		pl.deleteExtendedClaim(s, s.claims[s.ext.index])
		return true, framework.NewStatus(framework.Unschedulable, "deletion of ResourceClaim completed")
	}
	return false, framework.NewStatus(framework.Unschedulable)
}

// claimWrites are a cycle's claim writes not yet taken by the scheduler.
type claimWrites struct {
	writesMu sync.Mutex
	writes   []*resourcev1.ResourceClaim
}

func (w *claimWrites) write(c *resourcev1.ResourceClaim) {
	w.writesMu.Lock()
	w.writes = append(w.writes, c)
	w.writesMu.Unlock()
}

// takeWrites returns the claims written since the last call and forgets
// them.
func (w *claimWrites) takeWrites() []*resourcev1.ResourceClaim {
	w.writesMu.Lock()
	defer w.writesMu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

// TakeClaimWrites is the plugin's framework.ClaimWriterPlugin: a pod's
// cycle state, or a pod-group cycle's (PodGroupPostFilter's writes).
func (pl *DynamicResources) TakeClaimWrites(cs *framework.CycleState) []*resourcev1.ResourceClaim {
	if cs == nil {
		return nil
	}
	switch d, _ := cs.Read(stateKey); d := d.(type) {
	case *stateData:
		return d.takeWrites()
	case *podGroupStateData:
		return d.takeWrites()
	}
	return nil
}

// Score rewards prioritized-list choices: for each firstAvailable request,
// 8 minus the index of the sub-request the node's allocation used.
func (pl *DynamicResources) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	if !pl.enabled || !pl.fts.EnableDRAPrioritizedList {
		return 0, nil
	}
	s, err := getStateData(cs)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	if s.empty() || !s.prioritized {
		return 0, nil
	}
	allocations, ok := s.nodeAllocations[nodeInfo.Node().Name]
	if !ok {
		return 0, nil
	}
	var score int64
	next := 0
	for _, claim := range s.claims {
		alloc := claim.Status.Allocation
		if alloc == nil {
			if next >= len(allocations) {
				return 0, framework.AsStatus(fmt.Errorf("number of allocations %d is smaller than number of claims needing allocation", len(allocations)))
			}
			alloc = &allocations[next]
			next++
		}
		used := map[string]bool{}
		for _, r := range alloc.Devices.Results {
			if resourceclaim.IsSubRequestRef(r.Request) {
				used[r.Request] = true
			}
		}
		for _, req := range claim.Spec.Devices.Requests {
			for i, sub := range req.FirstAvailable {
				if used[resourceclaim.CreateSubRequestRef(req.Name, sub.Name)] {
					score += int64(resourcev1.FirstAvailableDeviceRequestMaxSize - i)
				}
			}
		}
	}
	return score, nil
}

// ScoreExtensions returns the plugin itself, which normalizes.
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NodeLocalScores: Score gives every node 0 when the plugin or prioritized
// lists are off, or the pod has no claim or none with a prioritized list;
// otherwise it reads the node's allocation of the cycle's claims.
func (pl *DynamicResources) NodeLocalScores(cs *framework.CycleState) bool {
	if !pl.enabled || !pl.fts.EnableDRAPrioritizedList {
		return true
	}
	s, err := getStateData(cs)
	return err == nil && (s.empty() || !s.prioritized)
}

// NormalizeScore scales to 0..100 by the highest score.
func (pl *DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	if !pl.enabled {
		return nil
	}
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// Reserve takes the node's allocations and holds them in flight (a claim
// already in flight gets one more sharer).
func (pl *DynamicResources) Reserve(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	if !pl.enabled {
		return nil
	}
	s, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() || s.allocation == nil {
		return nil
	}
	want, userToAllocate := 0, false
	for i, c := range s.claims {
		if c.Status.Allocation == nil {
			want++
			userToAllocate = userToAllocate || !s.isExtended(i)
		}
	}
	allocations, ok := s.nodeAllocations[nodeName]
	if !ok || len(allocations) == 0 {
		if !userToAllocate {
			// Only the special claim, all of it by device plugins here.
			return nil
		}
		return framework.AsStatus(errors.New("claim allocation not found for node"))
	}
	if len(allocations) != want {
		return framework.AsStatus(fmt.Errorf("internal error, have %d allocations, %d claims to allocate, want %d claims", len(allocations), want, want))
	}
	s.reserved = map[int]*resourcev1.AllocationResult{}
	next := 0
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, claim := range s.claims {
		if claim.Status.Allocation != nil {
			continue
		}
		// A copy: the answer may be kept for other pods (allocation_cache.go),
		// and PreBind stamps the allocation's time.
		alloc := allocations[next].DeepCopy()
		next++
		s.reserved[i] = alloc
		if s.isExtended(i) {
			n := s.ext.nodes[nodeName]
			if n.claim == nil {
				// The node's device plugins provide it all, next to user
				// claims: upstream dereferences the missing variant here;
				// nothing is allocated for it.
				delete(s.reserved, i)
				continue
			}
			claim = n.claim
		}
		c := claim.DeepCopy()
		if !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
			c.Finalizers = append(c.Finalizers, resourcev1.Finalizer)
		}
		c.Status.Allocation = alloc
		pl.signalPendingAllocationLocked(c)
		notePendingInGroup(cs, c.UID, pod.UID)
	}
	return nil
}

// Unreserve drops the in-flight allocations and takes back a reservation
// PreBind already wrote.
func (pl *DynamicResources) Unreserve(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ string) {
	if !pl.enabled {
		return
	}
	s, err := getStateData(cs)
	if err != nil || s.empty() {
		return
	}
	pl.mu.Lock()
	for i, c := range s.claims {
		if s.isExtended(i) {
			continue
		}
		// Still in flight while another member sharing it has not been
		// unreserved or bound.
		if pl.maybeRemovePendingAllocationLocked(c.UID, false) {
			forgetPendingInGroup(cs, c.UID)
		}
	}
	if s.ext.index >= 0 {
		delete(pl.inFlight, s.ext.tempUID)
		delete(pl.inFlight, s.claims[s.ext.index].UID)
	}
	pl.mu.Unlock()
	if s.ext.index >= 0 && s.claims[s.ext.index].Name != specialClaimInMemName {
		// Created in PreBind (or by an earlier cycle): not left behind.
		pl.deleteExtendedClaim(s, s.claims[s.ext.index])
	}
	for i, claim := range s.claims {
		if claim.Status.Allocation == nil || s.isExtended(i) {
			continue
		}
		i := slices.IndexFunc(claim.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == pod.UID })
		if i < 0 {
			continue
		}
		cur, err := pl.h.Objects().ResourceClaim(claim.Namespace, claim.Name)
		if err != nil || cur.UID != claim.UID {
			continue
		}
		c := cur.DeepCopy()
		c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == pod.UID })
		s.write(c)
	}
}

// PreBindPreFlight Skips a pod without claims.
func (pl *DynamicResources) PreBindPreFlight(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	if !pl.enabled {
		return framework.NewStatus(framework.Skip)
	}
	s, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// PreBind writes each claim not yet reserved for the pod: the allocation
// Reserve chose (with the finalizer), and the pod in reservedFor.
func (pl *DynamicResources) PreBind(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	if !pl.enabled {
		return nil
	}
	s, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.empty() {
		return nil
	}
	bindingGates := pl.fts.EnableDRADeviceBindingConditions && pl.fts.EnableDRAResourceClaimDeviceStatus
	var bound []types.UID
	written := map[types.UID]*resourcev1.ResourceClaim{}
	for i, claim := range s.claims {
		if resourceclaim.IsReservedForPod(pod, claim, pl.fts.EnableDRAWorkloadResourceClaims) {
			continue
		}
		extended := s.isExtended(i)
		if extended {
			if s.reserved[i] == nil && claim.Spec.Devices.Requests == nil {
				// All of it from device plugins.
				continue
			}
			bound = append(bound, s.ext.tempUID)
			if claim.Name == specialClaimInMemName {
				created, err := pl.createExtendedClaim(s, nodeName)
				if err != nil {
					return framework.AsStatus(err)
				}
				s.write(created)
				s.claims[i], claim = created, created
				written[created.UID] = created
			}
		}
		// The latest claim, as upstream's update retries on a conflict
		// with what the API server holds: this PreBind's own earlier write
		// (a pod may list the same claim twice), else the stored one.
		cur, err := pl.h.Objects().ResourceClaim(claim.Namespace, claim.Name)
		if w, ok := written[claim.UID]; ok {
			cur, err = w, nil
		}
		if err != nil || cur.UID != claim.UID || cur.DeletionTimestamp != nil {
			return framework.AsStatus(fmt.Errorf("claim %s/%s got deleted in the meantime", claim.Namespace, claim.Name))
		}
		c := cur.DeepCopy()
		if alloc := s.reserved[i]; alloc != nil {
			if c.Status.Allocation != nil {
				return framework.AsStatus(fmt.Errorf("claim %s/%s got allocated elsewhere in the meantime", claim.Namespace, claim.Name))
			}
			if !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
				c.Finalizers = append(c.Finalizers, resourcev1.Finalizer)
			}
			c.Status.Allocation = alloc
		}
		if bindingGates {
			if c.Status.Allocation == nil {
				return framework.AsStatus(fmt.Errorf("claim %s/%s got deallocated elsewhere in the meantime", claim.Namespace, claim.Name))
			}
			if c.Status.Allocation.AllocationTimestamp == nil {
				now := metav1.NewTime(pl.h.Now())
				c.Status.Allocation.AllocationTimestamp = &now
			}
		}
		ref := s.binding(i, pod)
		if err := duplicateReservation(c, ref, s.reserved[i] != nil); err != nil {
			return framework.AsStatus(err)
		}
		c.Status.ReservedFor = append(c.Status.ReservedFor, ref)
		s.claims[i] = c
		written[c.UID] = c
		s.write(c)
		bound = append(bound, c.UID)
		if extended {
			if err := recordExtendedStatus(s, pod, c, nodeName); err != nil {
				return framework.AsStatus(err)
			}
		}
	}
	pl.mu.Lock()
	for _, uid := range bound {
		if pl.maybeRemovePendingAllocationLocked(uid, true) {
			forgetPendingInGroup(cs, uid)
		}
	}
	pl.mu.Unlock()
	if !bindingGates || !hasBindingConditions(s.claims) {
		return nil
	}
	// The poll's immediate check; a wait goes on in PollBindingWait.
	ready, err := pl.podReadyForBinding(s, false)
	switch {
	case err != nil:
		return framework.AsStatus(err)
	case ready:
		return nil
	}
	return framework.NewStatus(framework.Wait, bindingWaitMessage(nodeName))
}

// resizeDeferred: with InPlacePodVerticalScalingSchedulerPreemption (alpha)
// a pod whose resize is deferred is left alone by this plugin (its claims
// were already allocated when it was scheduled).
func (pl *DynamicResources) resizeDeferred(pod *v1.Pod) bool {
	return pl.fts.EnableInPlacePodVerticalScalingSchedulerPreemption && resourcehelper.IsPodResizeDeferred(pod)
}

func nodeSelectorFromAllocation(a *resourcev1.AllocationResult) (*nodeaffinity.NodeSelector, error) {
	if a.NodeSelector == nil {
		return nil, nil
	}
	return nodeaffinity.NewNodeSelector(a.NodeSelector)
}
