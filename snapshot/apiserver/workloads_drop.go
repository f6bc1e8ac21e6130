package apiserver

// The workload kinds' gated fields as the API server's strategies treat a
// new object (k8s.io/kubernetes v1.37.1 pkg/registry/scheduling/podgroup,
// workload and compositepodgroup strategy.go, dropDisabled*Fields in
// PrepareForCreate): with the field's gate off it is dropped before
// validation, not refused. An object read back from an API server keeps
// them (DropDisabledFields leaves it alone), as PrepareForUpdate keeps a
// field the stored object already uses. The DRAWorkloadResourceClaims
// fields (resourceClaims) are not among these.

import (
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// dropDisabledGroupFields clears, from a new PodGroup, Workload or
// CompositePodGroup, each field whose gate opts says is off:
// schedulingConstraints (TopologyAwareWorkloadScheduling) and
// preemptionPolicy (PodGroupPreemptionPolicy) of a PodGroup and of every
// PodGroup template, however deep; a PodGroup's
// parentCompositePodGroupName and a Workload's compositePodGroupTemplates
// (CompositePodGroup); the preemptionPolicy of every composite template
// and of a CompositePodGroup (PodGroupPreemptionPolicy). A composite
// template's own schedulingConstraints stay: upstream drops none.
func dropDisabledGroupFields(obj runtime.Object, opts ValidationOptions) {
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		s := &o.Spec
		if !opts.TopologyAwareWorkloadScheduling {
			s.SchedulingConstraints = nil
		}
		if !opts.PodGroupPreemptionPolicy {
			s.PreemptionPolicy = nil
		}
		if !opts.CompositePodGroup {
			s.ParentCompositePodGroupName = nil
		}
	case *schedulingv1beta1.Workload:
		if !opts.CompositePodGroup {
			o.Spec.CompositePodGroupTemplates = nil
		}
		dropDisabledTemplateFields(o.Spec.PodGroupTemplates, opts)
		dropDisabledCompositeTemplateFields(o.Spec.CompositePodGroupTemplates, opts)
	case *schedulingv1alpha3.CompositePodGroup:
		if !opts.PodGroupPreemptionPolicy {
			o.Spec.PreemptionPolicy = nil
		}
	}
}

func dropDisabledTemplateFields(ts []schedulingv1beta1.PodGroupTemplate, opts ValidationOptions) {
	for i := range ts {
		if !opts.TopologyAwareWorkloadScheduling {
			ts[i].SchedulingConstraints = nil
		}
		if !opts.PodGroupPreemptionPolicy {
			ts[i].PreemptionPolicy = nil
		}
	}
}

// dropDisabledCompositeTemplateFields walks a tree of composite templates
// (present only with CompositePodGroup on, so their nested composites
// stay).
func dropDisabledCompositeTemplateFields(ts []schedulingv1beta1.CompositePodGroupTemplate, opts ValidationOptions) {
	for i := range ts {
		t := &ts[i]
		if !opts.PodGroupPreemptionPolicy {
			t.PreemptionPolicy = nil
		}
		dropDisabledTemplateFields(t.PodGroupTemplates, opts)
		dropDisabledCompositeTemplateFields(t.CompositePodGroupTemplates, opts)
	}
}
