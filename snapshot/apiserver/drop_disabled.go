package apiserver

// The fields the API server drops from an object it creates when the
// field's feature gate is off (k8s.io/kubernetes v1.37.1: pkg/api/pod
// DropDisabledPodFields and DropDisabledTemplateFields, which the
// ReplicationController, ReplicaSet, StatefulSet and DaemonSet registries'
// PrepareForCreate call; pkg/registry/scheduling/podgroup, workload and
// compositepodgroup strategy.go, dropDisabled*Fields). The field is dropped
// before validation, not refused. An object read back from an API server
// (it has a resourceVersion) keeps every field: the server that stored it
// took them, as PrepareForUpdate keeps a field the stored object uses.
// The API server says nothing; schedtui's callers warn, since a field the
// file holds is then not simulated.

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A DroppedField is a field DropDisabledFields cleared: its path in the
// object and the gate that is off.
type DroppedField struct {
	Path, Gate string
}

// DropDisabledFields clears, from a new object, each set field whose gate
// opts says is off, and returns them:
//   - spec.schedulingGroup (GenericWorkload) of a pod or of a workload's
//     pod template;
//   - a PodGroup's and every PodGroup template's (however deep)
//     schedulingConstraints (TopologyAwareWorkloadScheduling),
//     resourceClaims (DRAWorkloadResourceClaims) and preemptionPolicy
//     (PodGroupPreemptionPolicy); a PodGroup's
//     status.resourceClaimStatuses (DRAWorkloadResourceClaims) and
//     parentCompositePodGroupName (CompositePodGroup);
//   - a Workload's compositePodGroupTemplates (CompositePodGroup), and the
//     preemptionPolicy of a composite template and of a CompositePodGroup
//     (PodGroupPreemptionPolicy). A composite template's own
//     schedulingConstraints stay: upstream drops none.
func DropDisabledFields(obj runtime.Object, opts ValidationOptions) []DroppedField {
	acc, ok := obj.(metav1.Object)
	if !ok || acc.GetResourceVersion() != "" {
		return nil
	}
	d := dropper{opts: opts}
	if spec := PodSpecOf(obj); spec != nil && !opts.GenericWorkload && spec.SchedulingGroup != nil {
		spec.SchedulingGroup = nil
		path := "spec.template.spec.schedulingGroup"
		if _, isPod := obj.(*v1.Pod); isPod {
			path = "spec.schedulingGroup"
		}
		d.dropped = append(d.dropped, DroppedField{path, "GenericWorkload"})
	}
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		d.podGroupSpec(&o.Spec, "spec")
		if !opts.DRAWorkloadResourceClaims && len(o.Status.ResourceClaimStatuses) > 0 {
			o.Status.ResourceClaimStatuses = nil
			d.drop("status.resourceClaimStatuses", "DRAWorkloadResourceClaims")
		}
	case *schedulingv1beta1.Workload:
		if !opts.CompositePodGroup && len(o.Spec.CompositePodGroupTemplates) > 0 {
			o.Spec.CompositePodGroupTemplates = nil
			d.drop("spec.compositePodGroupTemplates", gateCompositePodGroup)
		}
		d.templates(o.Spec.PodGroupTemplates, "spec.podGroupTemplates")
		d.compositeTemplates(o.Spec.CompositePodGroupTemplates, "spec.compositePodGroupTemplates")
	case *schedulingv1alpha3.CompositePodGroup:
		if !opts.PodGroupPreemptionPolicy && o.Spec.PreemptionPolicy != nil {
			o.Spec.PreemptionPolicy = nil
			d.drop("spec.preemptionPolicy", gatePodGroupPreemptionPolicy)
		}
	}
	return d.dropped
}

type dropper struct {
	opts    ValidationOptions
	dropped []DroppedField
}

func (d *dropper) drop(path, gate string) {
	d.dropped = append(d.dropped, DroppedField{path, gate})
}

// dropClaims drops a list of claims: an empty one goes unreported.
func (d *dropper) dropClaims(claims []schedulingv1beta1.PodGroupResourceClaim, path, gate string) []schedulingv1beta1.PodGroupResourceClaim {
	if len(claims) > 0 {
		d.drop(path, gate)
	}
	return nil
}

func (d *dropper) podGroupSpec(s *schedulingv1beta1.PodGroupSpec, path string) {
	if !d.opts.TopologyAwareWorkloadScheduling && s.SchedulingConstraints != nil {
		s.SchedulingConstraints = nil
		d.drop(path+".schedulingConstraints", gateTopologyAwareWorkloadScheduling)
	}
	if !d.opts.DRAWorkloadResourceClaims {
		s.ResourceClaims = d.dropClaims(s.ResourceClaims, path+".resourceClaims", "DRAWorkloadResourceClaims")
	}
	if !d.opts.PodGroupPreemptionPolicy && s.PreemptionPolicy != nil {
		s.PreemptionPolicy = nil
		d.drop(path+".preemptionPolicy", gatePodGroupPreemptionPolicy)
	}
	if !d.opts.CompositePodGroup && s.ParentCompositePodGroupName != nil {
		s.ParentCompositePodGroupName = nil
		d.drop(path+".parentCompositePodGroupName", gateCompositePodGroup)
	}
}

func (d *dropper) templates(ts []schedulingv1beta1.PodGroupTemplate, path string) {
	for i := range ts {
		t, p := &ts[i], fmt.Sprintf("%s[%d]", path, i)
		if !d.opts.TopologyAwareWorkloadScheduling && t.SchedulingConstraints != nil {
			t.SchedulingConstraints = nil
			d.drop(p+".schedulingConstraints", gateTopologyAwareWorkloadScheduling)
		}
		if !d.opts.DRAWorkloadResourceClaims {
			t.ResourceClaims = d.dropClaims(t.ResourceClaims, p+".resourceClaims", "DRAWorkloadResourceClaims")
		}
		if !d.opts.PodGroupPreemptionPolicy && t.PreemptionPolicy != nil {
			t.PreemptionPolicy = nil
			d.drop(p+".preemptionPolicy", gatePodGroupPreemptionPolicy)
		}
	}
}

// compositeTemplates walks a tree of composite templates (present only
// with CompositePodGroup on, so their nested composites stay).
func (d *dropper) compositeTemplates(ts []schedulingv1beta1.CompositePodGroupTemplate, path string) {
	for i := range ts {
		t, p := &ts[i], fmt.Sprintf("%s[%d]", path, i)
		if !d.opts.PodGroupPreemptionPolicy && t.PreemptionPolicy != nil {
			t.PreemptionPolicy = nil
			d.drop(p+".preemptionPolicy", gatePodGroupPreemptionPolicy)
		}
		d.templates(t.PodGroupTemplates, p+".podGroupTemplates")
		d.compositeTemplates(t.CompositePodGroupTemplates, p+".compositePodGroupTemplates")
	}
}
