package noderesources

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// computePodResourceRequest is the request NodeResourcesFit's Filter holds a
// pending pod to: spec requests only (a pod that has not been scheduled has
// no status resources to consider), pod-level requests honoured with the
// PodLevelResources gate, init and sidecar containers folded in by
// PodRequests, overhead added, and no defaults for missing requests.
func computePodResourceRequest(pod *v1.Pod, podLevelResources bool) *framework.Resource {
	r := &framework.Resource{}
	setMaxResource(r, resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: !podLevelResources}))
	return r
}

// setMaxResource mirrors upstream Resource.SetMaxResource: "pods" and
// names that are neither cpu, memory, ephemeral-storage nor scalar are
// dropped, and a scalar requested as 0 still gets a (zero) map entry,
// which is what takes a pod requesting "example.com/foo: 0" past Filter's
// "requests nothing" shortcut.
func setMaxResource(r *framework.Resource, rl v1.ResourceList) {
	for name, q := range rl {
		switch name {
		case v1.ResourceMemory:
			r.Memory = max(r.Memory, q.Value())
		case v1.ResourceCPU:
			r.MilliCPU = max(r.MilliCPU, q.MilliValue())
		case v1.ResourceEphemeralStorage:
			r.EphemeralStorage = max(r.EphemeralStorage, q.Value())
		default:
			if framework.IsScalarResourceName(name) {
				r.SetScalar(name, max(r.ScalarResources[name], q.Value()))
			}
		}
	}
}

// requestsNothing is upstream's "all zero and no scalar entries" test.
func requestsNothing(r *framework.Resource) bool {
	return r.MilliCPU == 0 && r.Memory == 0 && r.EphemeralStorage == 0 && len(r.ScalarResources) == 0
}
