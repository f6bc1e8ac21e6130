package noderesources

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// resourceAllocationScorer turns, for each configured resource, the pod's
// request and the node's allocatable/allocated amounts into a score.
type resourceAllocationScorer struct {
	// useRequested selects NodeInfo.Requested over NonZeroRequested for cpu
	// and memory, and drops the 100m/200Mi defaults from the pod's request.
	useRequested bool
	// requestOpts are the PodRequests options for the incoming pod.
	// Upstream's Fit never copies its feature flags into its embedded
	// scorer, so Fit scores with pod-level resources skipped and no status
	// resources, while BalancedAllocation honours both.
	requestOpts resourcehelper.PodResourcesOptions
	scorer      func(requested, allocated, allocatable []int64) int64
	resources   []configv1.ResourceSpec
	// dra scores DRA-backed extended resources (dra_scoring.go); nil
	// with DRAExtendedResource off.
	dra *draScoring
	// requests are the pod's requests PreScore last computed, for the
	// next pod of its shape (podRequestsOfShape).
	requests framework.ShapeMemo[[]int64]
}

// podRequests returns the pod's request for each configured resource, in
// the configured order (cpu in millicores, the rest in base units).
func (r *resourceAllocationScorer) podRequests(pod *v1.Pod) []int64 {
	opts := r.requestOpts
	if !r.useRequested {
		opts.NonMissingContainerRequests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(framework.DefaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(framework.DefaultMemoryRequest, resource.DecimalSI),
		}
	}
	reqs := resourcehelper.PodRequests(pod, opts)
	out := make([]int64, len(r.resources))
	for i, spec := range r.resources {
		q := reqs[v1.ResourceName(spec.Name)]
		if v1.ResourceName(spec.Name) == v1.ResourceCPU {
			out[i] = q.MilliValue()
		} else {
			out[i] = q.Value()
		}
	}
	return out
}

// podRequestsOfShape is podRequests for PreScore: kept from the last
// pod of the same shape (CycleState.PodShape), as every pod of a template
// asks the same; summing them took more of a cycle than scoring hundreds
// of nodes once the framework keeps the scores. PreScore runs on the
// scheduling goroutine, one cycle at a time; the slice is only read.
func (r *resourceAllocationScorer) podRequestsOfShape(state *framework.CycleState, pod *v1.Pod) []int64 {
	return r.requests.Get(state, func() []int64 { return r.podRequests(pod) })
}

func isBestEffort(podRequests []int64) bool {
	for _, q := range podRequests {
		if q != 0 {
			return false
		}
	}
	return true
}

func (r *resourceAllocationScorer) score(nodeInfo *framework.NodeInfo, s *preScoreState) (int64, *framework.Status) {
	podRequests := s.podRequests
	if len(r.resources) == 0 {
		return 0, framework.NewStatus(framework.Error, "resources not found")
	}
	if nodeInfo == nil || len(podRequests) != len(r.resources) {
		return 0, framework.NewStatus(framework.Error, "node or pod requests missing")
	}
	requested, allocated, allocatable := r.nodeAllocatableRequest(nodeInfo, podRequests, s.dra, s.scratch)
	return r.scorer(requested, allocated, allocatable), nil
}

// nodeAllocatableRequest leaves a resource's entries at 0 (which every
// scorer skips) when the node has none of it, or when it is a scalar
// resource the pod does not request: a GPU node must not look emptier to
// a pod that does not want GPUs.
func (r *resourceAllocationScorer) nodeAllocatableRequest(nodeInfo *framework.NodeInfo, podRequests []int64, dev *draDevices, scratch []int64) (requested, allocated, allocatable []int64) {
	n := len(r.resources)
	all := scratch[:3*n]
	clear(all)
	requested, allocated, allocatable = all[:n:n], all[n:2*n:2*n], all[2*n:]
	for i := range r.resources {
		name := v1.ResourceName(r.resources[i].Name)
		if podRequests[i] == 0 && framework.IsScalarResourceName(name) {
			continue
		}
		a, used := r.resourceAllocatableRequest(nodeInfo, name, dev)
		if a == 0 {
			continue
		}
		allocatable[i] = a
		allocated[i] = used
		requested[i] = used + podRequests[i]
	}
	return requested, allocated, allocatable
}

// resourceAllocatableRequest returns the node's allocatable and already
// requested amount of a resource. Only cpu and memory use the non-zero
// (defaulted) sums; ephemeral-storage and scalars always use the plain
// ones. Names the node does not track ("pods", "storage", ...) give 0. A
// scalar the node has none of allocatable is counted on the devices of
// the DeviceClass backing it, if any (dev: PreScore's draDevices).
func (r *resourceAllocationScorer) resourceAllocatableRequest(nodeInfo *framework.NodeInfo, name v1.ResourceName, dev *draDevices) (int64, int64) {
	req := nodeInfo.NonZeroRequested
	if r.useRequested {
		req = nodeInfo.Requested
	}
	switch name {
	case v1.ResourceCPU:
		return nodeInfo.Allocatable.MilliCPU, req.MilliCPU
	case v1.ResourceMemory:
		return nodeInfo.Allocatable.Memory, req.Memory
	case v1.ResourceEphemeralStorage:
		return nodeInfo.Allocatable.EphemeralStorage, nodeInfo.Requested.EphemeralStorage
	}
	a, ok := nodeInfo.Allocatable.ScalarResources[name]
	if a == 0 && dev != nil {
		if total, taken := r.dra.capacity(nodeInfo.Node(), name, dev); total > 0 {
			return total, taken
		}
	}
	if ok {
		return a, nodeInfo.Requested.ScalarResources[name]
	}
	return 0, 0
}

// nodeLocal reports whether the scores read nothing but the pod and the
// node's NodeInfo: not so when DRA scoring is on and a scoring resource
// could be an extended resource a DeviceClass backs (the cluster's
// classes, claims and slices then count).
func (r *resourceAllocationScorer) nodeLocal() bool {
	if r.dra == nil {
		return true
	}
	for _, spec := range r.resources {
		if framework.IsDRAExtendedResourceName(v1.ResourceName(spec.Name)) {
			return false
		}
	}
	return true
}
