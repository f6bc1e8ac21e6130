package podtopologyspread

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// validateArgs is upstream's ValidatePodTopologySpreadArgs (called with a
// nil root path, so field paths start at the args' own fields).
func validateArgs(a *configv1.PodTopologySpreadArgs) error {
	var errs field.ErrorList
	if err := validateDefaultingType(field.NewPath("defaultingType"), a.DefaultingType, a.DefaultConstraints); err != nil {
		errs = append(errs, err)
	}
	root := field.NewPath("defaultConstraints")
	for i, c := range a.DefaultConstraints {
		p := root.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		errs = append(errs, validateTopologyKey(p.Child("topologyKey"), c.TopologyKey)...)
		if err := validateWhenUnsatisfiable(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable); err != nil {
			errs = append(errs, err)
		}
		// Default constraints get their selector from the pod's workload.
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(p.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		if err := validateConstraintNotRepeat(root, a.DefaultConstraints, i); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs.ToAggregate()
}

func validateDefaultingType(p *field.Path, v configv1.PodTopologySpreadConstraintsDefaulting, constraints []v1.TopologySpreadConstraint) *field.Error {
	if v != configv1.SystemDefaulting && v != configv1.ListDefaulting {
		return field.NotSupported(p, v, []string{string(configv1.SystemDefaulting), string(configv1.ListDefaulting)})
	}
	if v == configv1.SystemDefaulting && len(constraints) > 0 {
		return field.Invalid(p, v, "when .defaultConstraints are not empty")
	}
	return nil
}

func validateTopologyKey(p *field.Path, v string) field.ErrorList {
	if len(v) == 0 {
		return field.ErrorList{field.Required(p, "can not be empty")}
	}
	return metav1validation.ValidateLabelName(v, p)
}

func validateWhenUnsatisfiable(p *field.Path, v v1.UnsatisfiableConstraintAction) *field.Error {
	supported := sets.New(string(v1.DoNotSchedule), string(v1.ScheduleAnyway))
	if len(v) == 0 {
		return field.Required(p, "can not be empty")
	}
	if !supported.Has(string(v)) {
		return field.NotSupported(p, v, sets.List(supported))
	}
	return nil
}

func validateConstraintNotRepeat(p *field.Path, constraints []v1.TopologySpreadConstraint, idx int) *field.Error {
	c := &constraints[idx]
	for i := range constraints[:idx] {
		other := &constraints[i]
		if c.TopologyKey == other.TopologyKey && c.WhenUnsatisfiable == other.WhenUnsatisfiable {
			return field.Duplicate(p.Index(idx), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable))
		}
	}
	return nil
}
