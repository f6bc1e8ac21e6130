package apiserver

// The Priority admission plugin on pod groups, written from
// k8s.io/kubernetes v1.37.1 plugin/pkg/admission/priority (admitPodGroup,
// admitCompositePodGroup): on create, with GenericWorkload (a PodGroup) or
// CompositePodGroup (a CompositePodGroup) on, the group's priorityClassName
// (or the globalDefault class) is resolved into spec.priority and, with
// PodGroupPreemptionPolicy, spec.preemptionPolicy, as for a pod. Workloads
// are not admitted: their templates' priorities are only validated.

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// AdmitGroup applies the Priority admission plugin to a PodGroup (under
// GenericWorkload) or a CompositePodGroup (under CompositePodGroup), in
// place, under the API server's gates opts; any other object, or a kind
// whose gate is off, passes untouched. As AdmitPod, a stored group (read
// back from an API server) keeps its stored priority, with warnings where
// it disagrees with the classes; rejection, when not nil, says why the API
// server would refuse to create it.
func AdmitGroup(obj runtime.Object, classes []*schedulingv1.PriorityClass, opts ValidationOptions) (warnings []AdmissionIssue, rejection *AdmissionIssue) {
	switch g := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		return admitGroupPriority(groupPriority[schedulingv1beta1.PreemptionPolicy]{gate: opts.GenericWorkload, meta: &g.ObjectMeta, resource: "podgroups", what: "pod group",
			className: &g.Spec.PriorityClassName, priority: &g.Spec.Priority, policy: &g.Spec.PreemptionPolicy}, classes, opts.PodGroupPreemptionPolicy)
	case *schedulingv1alpha3.CompositePodGroup:
		return admitGroupPriority(groupPriority[schedulingv1alpha3.PreemptionPolicy]{gate: opts.CompositePodGroup, meta: &g.ObjectMeta, resource: "compositepodgroups", what: "composite pod group",
			className: &g.Spec.PriorityClassName, priority: &g.Spec.Priority, policy: &g.Spec.PreemptionPolicy}, classes, opts.PodGroupPreemptionPolicy)
	}
	return nil, nil
}

// groupPriority is a group kind's priority fields, whether the gate that
// makes the plugin admit the kind is on, and how the plugin names the kind
// (resource for the Forbidden error, what in its messages).
type groupPriority[P ~string] struct {
	gate           bool
	meta           *metav1.ObjectMeta
	resource, what string
	className      *string
	priority       **int32
	policy         **P
}

func admitGroupPriority[P ~string](g groupPriority[P], classes []*schedulingv1.PriorityClass, policyGate bool) (warnings []AdmissionIssue, rejection *AdmissionIssue) {
	if !g.gate {
		return nil, nil
	}
	forbidden := func(err error) string {
		return apierrors.NewForbidden(schema.GroupResource{Group: schedulingv1beta1.GroupName, Resource: g.resource}, g.meta.Name, err).Error()
	}
	admitted := IsStored(g.meta) && *g.priority != nil
	// refuse rejects a group being created; a stored one keeps its field,
	// warned about.
	refuse := func(fieldPath string, err error, kept string) *AdmissionIssue {
		if !admitted {
			return &AdmissionIssue{Field: fieldPath, Message: forbidden(err)}
		}
		warnings = append(warnings, AdmissionIssue{Field: fieldPath, Message: forbidden(err) + "; " + kept})
		return nil
	}
	name, priority, classPolicy, err := ResolvePriority(*g.className, classes)
	if err != nil {
		if admitted {
			return append(warnings, AdmissionIssue{Field: "spec.priorityClassName",
				Message: fmt.Sprintf("%s; keeping the stored priority %d", forbidden(err), **g.priority)}), nil
		}
		return nil, &AdmissionIssue{Field: "spec.priorityClassName", Message: forbidden(err)}
	}
	if *g.priority != nil && **g.priority != priority {
		err := fmt.Errorf("priority set in the %s (%d) must match the priority computed (%d) based on the priority class set in the spec", g.what, **g.priority, priority)
		if r := refuse("spec.priority", err, "keeping the stored priority"); r != nil {
			return warnings, r
		}
	} else if !admitted {
		*g.priority, *g.className = ptrTo(priority), name
	}
	if !policyGate || classPolicy == nil {
		return warnings, nil
	}
	var policy P
	switch *classPolicy {
	case v1.PreemptLowerPriority:
		policy = P(schedulingv1beta1.PreemptLowerPriority)
	case v1.PreemptNever:
		policy = P(schedulingv1beta1.PreemptNever)
	default:
		err := fmt.Errorf("preemptionPolicy set in the PriorityClass object (%v) must match one of the allowed values of PreemptionPolicy type in %s", *classPolicy, g.what)
		return warnings, refuse("spec.preemptionPolicy", err, "keeping the stored policy")
	}
	switch {
	case *g.policy != nil && **g.policy != policy:
		err := fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in %s spec; priority admission controller computed %s from the given PriorityClass name", **g.policy, g.what, policy)
		return warnings, refuse("spec.preemptionPolicy", err, "keeping the stored policy")
	case *g.policy == nil:
		*g.policy = &policy
	}
	return warnings, nil
}
