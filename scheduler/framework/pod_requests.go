package framework

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// podRequests returns what the scheduler cache counts for pod under g:
// its requests (upstream's PodRequests with the gates' options) and its
// requests with the cpu and memory defaults for containers that request
// none (the same call with NonMissingContainerRequests), as upstream's
// calculateResource does with two calls.
//
// Those calls allocate about a dozen maps a pod: with
// InPlacePodVerticalScaling each aggregates the containers three times
// (spec, allocated and actuated resources) and copies every container's
// list again for the defaults. Loading 300,000 bound pods spent most of
// the scheduler's start in them. For the common pod the answer is the
// same with less. When its status resources add nothing to its spec (the
// pod's own at most the spec's sums, or else each container's equal to
// its spec), the larger of spec and status that upstream counts is the
// spec, so one aggregation of the spec gives the same sums; when moreover
// every container requests both cpu and memory, the defaults change
// nothing and the second call would return the first's values. Every
// other pod (pod-level requests, an infeasible resize, status resources
// above the spec, overhead beside the pod's own status resources) takes
// upstream's two calls as they are; TestPodRequestsShortcutsAgree checks
// both ways on every shape of pod.
func podRequests(pod *v1.Pod, g ResourceGates) (requests, non0 v1.ResourceList) {
	requests, non0, _ = podRequestsCounted(pod, g)
	return requests, non0
}

// podRequestsPath is how podRequestsCounted found a pod's requests.
type podRequestsPath int

const (
	upstreamCalls podRequestsPath = iota // upstream's two calls
	specCalls                            // the spec alone, twice
	oneSpecCall                          // the spec alone, once
)

// podRequestsCounted is podRequests, saying which way it took.
func podRequestsCounted(pod *v1.Pod, g ResourceGates) (requests, non0 v1.ResourceList, path podRequestsPath) {
	opts := g.PodRequestsOptions()
	if g.PodLevelResources && resourcehelper.IsPodLevelRequestsSet(pod) {
		requests, non0 = podRequestsUpstream(pod, g)
		return requests, non0, upstreamCalls
	}
	// Which status resources upstream compares the spec with: the pod's
	// own (pod-level) when InPlacePodLevelResourcesVerticalScaling is on
	// and the kubelet has written them, else each container's.
	podLevelStatus := opts.UseStatusResources && opts.InPlacePodLevelResourcesVerticalScalingEnabled &&
		pod.Status.AllocatedResources != nil && pod.Status.Resources != nil && pod.Status.Resources.Requests != nil
	if opts.UseStatusResources {
		if resourcehelper.IsPodResizeInfeasible(pod) || (podLevelStatus && pod.Spec.Overhead != nil) ||
			(!podLevelStatus && !containerStatusesEqualSpec(pod)) {
			requests, non0 = podRequestsUpstream(pod, g)
			return requests, non0, upstreamCalls
		}
	}
	specOnly := opts
	specOnly.UseStatusResources = false
	requests = specRequests(pod, specOnly)
	if podLevelStatus && !(atMost(pod.Status.AllocatedResources, requests) && atMost(pod.Status.Resources.Requests, requests)) {
		requests, non0 = podRequestsUpstream(pod, g)
		return requests, non0, upstreamCalls
	}
	if everyContainerRequestsCPUAndMemory(pod) {
		return requests, requests, oneSpecCall
	}
	// The defaults only raise the spec's sums, which stay at least the
	// pod-level status resources.
	specOnly.NonMissingContainerRequests = NonMissingContainerRequests(requests, false)
	return requests, resourcehelper.PodRequests(pod, specOnly), specCalls
}

// specRequests is resourcehelper.PodRequests(pod, opts) for opts that
// leave the status resources out, to be read and not changed. A pod of
// containers and nothing else to add (no init containers, overhead,
// pod-level requests, defaults for missing requests or DRA claim
// resources) requests the sum of its containers' requests, added in
// their order as upstream's aggregation does, into one map instead of
// its four; of one container (most pods of a large cluster), that
// container's list itself.
func specRequests(pod *v1.Pod, opts resourcehelper.PodResourcesOptions) v1.ResourceList {
	containers := pod.Spec.Containers
	if len(containers) == 0 || len(pod.Spec.InitContainers) > 0 || opts.UseStatusResources ||
		opts.Reuse != nil || len(opts.NonMissingContainerRequests) > 0 || opts.SkipContainerLevelResources ||
		(!opts.ExcludeOverhead && pod.Spec.Overhead != nil) ||
		(!opts.SkipPodLevelResources && resourcehelper.IsPodLevelRequestsSet(pod)) ||
		(opts.UseDRANodeAllocatableResourceClaimStatus && len(pod.Status.NodeAllocatableResourceClaimStatuses) > 0) {
		return resourcehelper.PodRequests(pod, opts)
	}
	if len(containers) == 1 {
		return containers[0].Resources.Requests
	}
	sum := make(v1.ResourceList, len(containers[0].Resources.Requests))
	for i := range containers {
		for name, q := range containers[i].Resources.Requests {
			if total, ok := sum[name]; ok {
				total.Add(q)
				sum[name] = total
			} else {
				sum[name] = q.DeepCopy()
			}
		}
	}
	return sum
}

// podRequestsUpstream is podRequests as upstream computes it: two calls
// with every option the gates set.
func podRequestsUpstream(pod *v1.Pod, g ResourceGates) (requests, non0 v1.ResourceList) {
	opts := g.PodRequestsOptions()
	requests = resourcehelper.PodRequests(pod, opts)
	nonMissing := NonMissingContainerRequests(requests, g.PodLevelResources && resourcehelper.IsPodLevelRequestsSet(pod))
	if len(nonMissing) == 0 {
		return requests, requests
	}
	opts.NonMissingContainerRequests = nonMissing
	return requests, resourcehelper.PodRequests(pod, opts)
}

// containerStatusesEqualSpec reports whether every container's allocated
// and actuated requests, where its status has them, equal its spec's: then
// aggregating them, with or without the defaults for missing requests,
// gives the spec's sums. The status is found by name in both status
// lists, as component-helpers does.
func containerStatusesEqualSpec(pod *v1.Pod) bool {
	for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			st := containerStatusNamed(pod, cs[i].Name)
			if st == nil {
				continue
			}
			spec := cs[i].Resources.Requests
			if st.AllocatedResources != nil && !sameQuantities(st.AllocatedResources, spec) {
				return false
			}
			if st.Resources != nil && st.Resources.Requests != nil && !sameQuantities(st.Resources.Requests, spec) {
				return false
			}
		}
	}
	return true
}

// atMost reports whether every resource of a is in b with at least its
// quantity: then the larger of the two, resource by resource, is b.
func atMost(a, b v1.ResourceList) bool {
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) > 0 {
			return false
		}
	}
	return true
}

func containerStatusNamed(pod *v1.Pod, name string) *v1.ContainerStatus {
	for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// sameQuantities reports whether a and b name the same resources with
// equal quantities.
func sameQuantities(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

// everyContainerRequestsCPUAndMemory reports whether every container and
// init container names cpu and memory in its requests (even as zero):
// then the defaults for missing requests apply nowhere.
func everyContainerRequestsCPUAndMemory(pod *v1.Pod) bool {
	for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			r := cs[i].Resources.Requests
			if _, ok := r[v1.ResourceCPU]; !ok {
				return false
			}
			if _, ok := r[v1.ResourceMemory]; !ok {
				return false
			}
		}
	}
	return true
}

// RequestsBeyondBasics reports whether pod's spec names a request (of a
// container, an init container, the pod, or its overhead) for anything
// but cpu, memory and ephemeral storage: hugepages, extended resources
// (a DeviceClass may back those), and the like. It looks at names only,
// without summing anything.
func RequestsBeyondBasics(pod *v1.Pod) bool {
	beyond := func(rl v1.ResourceList) bool {
		for name := range rl {
			if name != v1.ResourceCPU && name != v1.ResourceMemory && name != v1.ResourceEphemeralStorage {
				return true
			}
		}
		return false
	}
	spec := &pod.Spec
	if beyond(spec.Overhead) || (spec.Resources != nil && beyond(spec.Resources.Requests)) {
		return true
	}
	for _, cs := range [][]v1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			if beyond(cs[i].Resources.Requests) {
				return true
			}
		}
	}
	return false
}
