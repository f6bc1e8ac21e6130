package noderesources

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// InsufficientResource is one resource a node lacks for a pod.
type InsufficientResource struct {
	ResourceName v1.ResourceName
	// Reason is the Filter reason string ("Too many pods", "Insufficient cpu", ...).
	Reason    string
	Requested int64
	Used      int64
	Capacity  int64
	// Unresolvable: the pod's request alone exceeds the node's allocatable,
	// so evicting pods (preemption) cannot help.
	Unresolvable bool
}

// Fits lists what nodeInfo lacks to host pod, ignoring no resources. It is
// what the node-change queueing hint asks of a bare node. podLevelResources
// is the PodLevelResources gate; dra is the DeviceClass mapping when
// DRAExtendedResource is on, nil otherwise.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo, podLevelResources bool, dra DeviceClassResolver) []InsufficientResource {
	return fitsRequest(computePodResourceRequest(pod, podLevelResources), nodeInfo, nil, nil, dra)
}

// DeviceClassResolver maps a DRA extended resource to its DeviceClass
// (framework.ObjectLister's DeviceClassForResource).
type DeviceClassResolver interface {
	DeviceClassForResource(name v1.ResourceName) *resourcev1.DeviceClass
}

// delegatedToDRA reports a resource NodeResourcesFit leaves to
// DynamicResources: DRAExtendedResource on (dra not nil), a DeviceClass
// backs it, and the node (if given) has none of it allocatable through a
// device plugin.
func delegatedToDRA(name v1.ResourceName, nodeInfo *framework.NodeInfo, dra DeviceClassResolver) bool {
	if dra == nil {
		return false
	}
	if nodeInfo != nil && nodeInfo.Allocatable.ScalarResources[name] > 0 {
		return false
	}
	return dra.DeviceClassForResource(name) != nil
}

// fitsRequest checks the pod count, then cpu, memory, ephemeral-storage and
// scalar resources, in that order. Upstream visits scalar resources in Go
// map order, so with several insufficient scalars its reason order varies
// from run to run; we sort them by name to be deterministic (the FitError
// message counts reasons and sorts them, so it is unaffected).
//
// Only resources the pod requests (> 0) are checked, so an overcommitted
// resource the pod does not ask for never rejects it. A DRA-backed
// extended resource the node has no allocatable for is left to
// DynamicResources (delegatedToDRA), after the ignored-resource check.
func fitsRequest(podRequest *framework.Resource, nodeInfo *framework.NodeInfo, ignoredExtended, ignoredGroups sets.Set[string], dra DeviceClassResolver) []InsufficientResource {
	// Nil until a resource is short: most nodes fit, and Filter runs on
	// every node of the cycle.
	var out []InsufficientResource
	alloc, used := nodeInfo.Allocatable, nodeInfo.Requested

	// The pod count is checked even for pods that request nothing: every
	// pod takes a slot. NodeInfo.Pods counts bound, assumed and (during
	// the nominated-pods pass) nominated pods alike.
	allowedPodNumber := alloc.AllowedPodNumber
	if len(nodeInfo.Pods)+1 > allowedPodNumber {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourcePods,
			Reason:       "Too many pods",
			Requested:    1,
			Used:         int64(len(nodeInfo.Pods)),
			Capacity:     int64(allowedPodNumber),
		})
	}
	if requestsNothing(podRequest) {
		return out
	}

	if podRequest.MilliCPU > 0 && podRequest.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceCPU, Reason: "Insufficient cpu",
			Requested: podRequest.MilliCPU, Used: used.MilliCPU, Capacity: alloc.MilliCPU,
			Unresolvable: podRequest.MilliCPU > alloc.MilliCPU,
		})
	}
	if podRequest.Memory > 0 && podRequest.Memory > alloc.Memory-used.Memory {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceMemory, Reason: "Insufficient memory",
			Requested: podRequest.Memory, Used: used.Memory, Capacity: alloc.Memory,
			Unresolvable: podRequest.Memory > alloc.Memory,
		})
	}
	if podRequest.EphemeralStorage > 0 && podRequest.EphemeralStorage > alloc.EphemeralStorage-used.EphemeralStorage {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceEphemeralStorage, Reason: "Insufficient ephemeral-storage",
			Requested: podRequest.EphemeralStorage, Used: used.EphemeralStorage, Capacity: alloc.EphemeralStorage,
			Unresolvable: podRequest.EphemeralStorage > alloc.EphemeralStorage,
		})
	}

	// Most pods request no scalar resource: no allocation then.
	var names []v1.ResourceName
	for name := range podRequest.ScalarResources {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := podRequest.ScalarResources[name]
		if q <= 0 {
			continue
		}
		// Only extended resources can be ignored; hugepages and
		// kubernetes.io/ resources are always checked. An extended
		// resource name always contains a '/'.
		if framework.IsExtendedResourceName(name) {
			group := ""
			if ignoredGroups.Len() > 0 {
				group = strings.Split(string(name), "/")[0]
			}
			if ignoredExtended.Has(string(name)) || ignoredGroups.Has(group) {
				continue
			}
		}
		if delegatedToDRA(name, nodeInfo, dra) {
			continue
		}
		// A scalar missing from the node's allocatable counts as 0, so the
		// request alone exceeds it: Unresolvable.
		a, u := alloc.ScalarResources[name], used.ScalarResources[name]
		if q > a-u {
			out = append(out, InsufficientResource{
				ResourceName: name, Reason: fmt.Sprintf("Insufficient %v", name),
				Requested: q, Used: u, Capacity: a,
				Unresolvable: q > a,
			})
		}
	}
	return out
}
