package apiserver

// The status of the pod-group kinds, as the API server validates it.
// Creating a group clears its status (PrepareForCreate); the scheduler
// then writes it through the status subresource, whose update the
// server validates: a PodGroup's conditions and resourceClaimStatuses,
// a CompositePodGroup's conditions. A snapshot holds the groups with the
// status so written, so it is checked on every group, new or stored, as
// that update checks it. Written from the behaviour of k8s.io/kubernetes
// v1.37.1 pkg/apis/scheduling/validation (ValidatePodGroupStatusUpdate,
// ValidateCompositePodGroupStatusUpdate) and the declarative rules
// pkg/apis/scheduling/v1beta1 generates for PodGroupStatus (those marked
// alpha, on the conditions, are not enforced; the hand-written
// ValidateConditions, apimachinery's, is).

import (
	"context"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodGroupStatus: the conditions are well formed and unique by
// type; each resource claim status names one of spec.resourceClaims
// (the hand-written rules), at most 4 of them, unique by name, each
// generated claim's name a DNS subdomain (the declarative ones).
func validatePodGroupStatus(pg *schedulingv1beta1.PodGroup) field.ErrorList {
	p := field.NewPath("status")
	errs := metav1validation.ValidateConditions(pg.Status.Conditions, p.Child("conditions"))
	statuses, sp := pg.Status.ResourceClaimStatuses, p.Child("resourceClaimStatuses")
	for i := range statuses {
		if !podGroupHasClaim(pg, statuses[i].Name) {
			errs = append(errs, field.Invalid(sp.Index(i).Child("name"), statuses[i].Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
	}
	ctx, op := context.Background(), operation.Operation{Type: operation.Update}
	if tooMany := validate.MaxItems(ctx, op, sp, statuses, nil, schedulingv1beta1.MaxPodGroupResourceClaims); len(tooMany) > 0 {
		return append(errs, tooMany...)
	}
	errs = append(errs, validate.ValSliceUnique(ctx, op, sp, statuses, nil,
		func(a, b *schedulingv1beta1.PodGroupResourceClaimStatus) bool { return a.Name == b.Name })...)
	for i := range statuses {
		if name := statuses[i].ResourceClaimName; name != nil {
			errs = append(errs, validate.LongName(ctx, op, sp.Index(i).Child("resourceClaimName"), name, nil)...)
		}
	}
	return errs
}

func podGroupHasClaim(pg *schedulingv1beta1.PodGroup, name string) bool {
	for _, c := range pg.Spec.ResourceClaims {
		if c.Name == name {
			return true
		}
	}
	return false
}

// validateCompositePodGroupStatus: its conditions, as a PodGroup's.
func validateCompositePodGroupStatus(cpg *schedulingv1alpha3.CompositePodGroup) field.ErrorList {
	return metav1validation.ValidateConditions(cpg.Status.Conditions, field.NewPath("status", "conditions"))
}
