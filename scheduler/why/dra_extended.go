package why

// DRA-backed extended resources in DynamicResources' groups: what the pod
// asks through a DeviceClass, and the special claim once there is one.

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// extendedDetail names each DRA-backed extended resource the pod requests
// with the class backing it ("example.com/gpu: 2 through class gpu on
// nodes without it allocatable"), then the pod's special claim: the one
// its status names, else one an earlier attempt created (which the next
// attempt deletes).
func extendedDetail(in Input) []string {
	if !in.Sched.Features().EnableDRAExtendedResource {
		return nil
	}
	objs := in.Sched.Objects()
	var parts []string
	reqs := resourcehelper.PodRequests(in.Pod, resourcehelper.PodResourcesOptions{})
	names := make([]v1.ResourceName, 0, len(reqs))
	for n, q := range reqs {
		if !q.IsZero() && framework.IsDRAExtendedResourceName(n) && objs.DeviceClassForResource(n) != nil {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	for _, n := range names {
		q := reqs[n]
		parts = append(parts, fmt.Sprintf("%s: %s through class %s on nodes without it allocatable", n, q.String(), objs.DeviceClassForResource(n).Name))
	}
	if st := in.Pod.Status.ExtendedResourceClaimStatus; st != nil {
		if c, err := objs.ResourceClaim(in.Pod.Namespace, st.ResourceClaimName); err == nil {
			parts = append(parts, "extended resources "+describeDeviceClaim(c))
		} else {
			parts = append(parts, err.Error())
		}
		return parts
	}
	for _, c := range objs.ResourceClaims() {
		if c.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		for _, o := range c.OwnerReferences {
			if o.UID == in.Pod.UID && o.Controller != nil && *o.Controller {
				parts = append(parts, "extended resources "+describeDeviceClaim(c)+" left from an earlier attempt")
			}
		}
	}
	return parts
}
