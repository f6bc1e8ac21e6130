package apiserver

// The resource claims a PodGroup or a Workload's PodGroup templates own
// (DRAWorkloadResourceClaims, beta, off by default), as the API server's
// strategies for them treat a new object (k8s.io/kubernetes v1.37.1
// pkg/registry/scheduling/podgroup/strategy.go
// dropDisabledDRAWorkloadResourceClaimsFields and
// dropDisabledPodGroupStatusFields, workload/strategy.go
// dropDisabledPodGroupTemplatesFields): with the gate off the fields are
// dropped before validation, not refused. An object read back from an API
// server (IsStored) keeps them: the server that stored it took them.

import (
	"fmt"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DropDisabledWorkloadClaims clears from a new PodGroup its
// spec.resourceClaims and status.resourceClaimStatuses, and from a new
// Workload each podGroupTemplates[i].resourceClaims, when
// DRAWorkloadResourceClaims is off; it returns the paths of the fields it
// dropped, for the caller to say so.
func DropDisabledWorkloadClaims(obj runtime.Object, opts ValidationOptions) (dropped []string) {
	if opts.DRAWorkloadResourceClaims {
		return nil
	}
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		if IsStored(&o.ObjectMeta) {
			return nil
		}
		if len(o.Spec.ResourceClaims) > 0 {
			o.Spec.ResourceClaims = nil
			dropped = append(dropped, "spec.resourceClaims")
		}
		if len(o.Status.ResourceClaimStatuses) > 0 {
			o.Status.ResourceClaimStatuses = nil
			dropped = append(dropped, "status.resourceClaimStatuses")
		}
	case *schedulingv1beta1.Workload:
		if IsStored(&o.ObjectMeta) {
			return nil
		}
		for i := range o.Spec.PodGroupTemplates {
			if t := &o.Spec.PodGroupTemplates[i]; len(t.ResourceClaims) > 0 {
				t.ResourceClaims = nil
				dropped = append(dropped, fmt.Sprintf("spec.podGroupTemplates[%d].resourceClaims", i))
			}
		}
	}
	return dropped
}
