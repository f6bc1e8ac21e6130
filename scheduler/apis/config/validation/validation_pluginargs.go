package validation

import (
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
)

// ValidatePluginArgs validates typed plugin args as upstream's
// validation_pluginargs.go does under the feature gates f; p is the path
// of the args (nil for field paths that start at the args' own fields, as
// a plugin's constructor reports them).
func ValidatePluginArgs(p *field.Path, args any, f features.Features) field.ErrorList {
	switch a := args.(type) {
	case *configv1.DefaultPreemptionArgs:
		return ValidateDefaultPreemptionArgs(p, a)
	case *configv1.InterPodAffinityArgs:
		return ValidateInterPodAffinityArgs(p, a)
	case *configv1.NodeAffinityArgs:
		return ValidateNodeAffinityArgs(p, a)
	case *configv1.NodeResourcesBalancedAllocationArgs:
		return ValidateNodeResourcesBalancedAllocationArgs(p, a)
	case *configv1.NodeResourcesFitArgs:
		return ValidateNodeResourcesFitArgs(p, a)
	case *configv1.PodTopologySpreadArgs:
		return ValidatePodTopologySpreadArgs(p, a)
	case *configv1.VolumeBindingArgs:
		return ValidateVolumeBindingArgs(p, a, f)
	case *configv1.DynamicResourcesArgs:
		return ValidateDynamicResourcesArgs(p, a, f)
	}
	return nil
}

// ValidateInterPodAffinityArgs validates InterPodAffinity args.
func ValidateInterPodAffinityArgs(p *field.Path, a *configv1.InterPodAffinityArgs) field.ErrorList {
	if w := deref(a.HardPodAffinityWeight); w < 0 || w > 100 {
		return field.ErrorList{field.Invalid(p.Child("hardPodAffinityWeight"), w, "not in valid range [0, 100]")}
	}
	return nil
}

// ValidateNodeResourcesBalancedAllocationArgs validates
// NodeResourcesBalancedAllocation args.
func ValidateNodeResourcesBalancedAllocationArgs(p *field.Path, a *configv1.NodeResourcesBalancedAllocationArgs) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, r := range a.Resources {
		if seen[r.Name] {
			errs = append(errs, field.Duplicate(p.Child("resources").Index(i).Child("name"), r.Name))
		}
		seen[r.Name] = true
		if r.Weight != 1 {
			errs = append(errs, field.Invalid(p.Child("resources").Index(i).Child("weight"), r.Weight, "must be 1"))
		}
	}
	return errs
}

// ValidateVolumeBindingArgs validates VolumeBinding args
// (ValidateVolumeBindingArgsWithOptions): the shape is checked when
// StorageCapacityScoring is on and refused when it is off.
func ValidateVolumeBindingArgs(p *field.Path, a *configv1.VolumeBindingArgs, f features.Features) field.ErrorList {
	var errs field.ErrorList
	if t := deref(a.BindTimeoutSeconds); t < 0 {
		errs = append(errs, field.Invalid(p.Child("bindTimeoutSeconds"), t, "invalid BindTimeoutSeconds, should not be a negative value"))
	}
	if f.EnableStorageCapacityScoring {
		return append(errs, validateFunctionShape(a.Shape, p.Child("shape"))...)
	}
	if a.Shape != nil {
		// Refused rather than ignored, so that it does not take effect
		// unnoticed once the gate turns on.
		errs = append(errs, field.Invalid(p.Child("shape"), a.Shape, "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
	}
	return errs
}

// ValidateDynamicResourcesArgs validates DynamicResources args; a field
// whose gate is off is refused (the message's gate name is upstream's,
// misspelt).
func ValidateDynamicResourcesArgs(p *field.Path, a *configv1.DynamicResourcesArgs, f features.Features) field.ErrorList {
	var errs field.ErrorList
	if f.EnableDRASchedulerFilterTimeout {
		if a.FilterTimeout != nil && a.FilterTimeout.Duration < 0 {
			errs = append(errs, field.Invalid(p.Child("filterTimeout"), a.FilterTimeout, "must be zero or positive"))
		}
	} else if a.FilterTimeout != nil {
		errs = append(errs, field.Forbidden(p.Child("filterTimeout"), "DRASchedulingFilterTimeout feature gate is disabled"))
	}
	if f.EnableDRADeviceBindingConditions && f.EnableDRAResourceClaimDeviceStatus {
		if a.BindingTimeout != nil && a.BindingTimeout.Duration < time.Second {
			errs = append(errs, field.Invalid(p.Child("bindingTimeout"), a.BindingTimeout, "must be at least 1 second"))
		}
	} else if a.BindingTimeout != nil {
		errs = append(errs, field.Forbidden(p.Child("bindingTimeout"), "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
	}
	return errs
}

// ValidateDefaultPreemptionArgs validates DefaultPreemption args.
func ValidateDefaultPreemptionArgs(p *field.Path, a *configv1.DefaultPreemptionArgs) field.ErrorList {
	var errs field.ErrorList
	pct, abs := deref(a.MinCandidateNodesPercentage), deref(a.MinCandidateNodesAbsolute)
	pp, ap := p.Child("minCandidateNodesPercentage"), p.Child("minCandidateNodesAbsolute")
	if pct < 0 || pct > 100 {
		errs = append(errs, field.Invalid(pp, pct, "not in valid range [0, 100]"))
	}
	if abs < 0 {
		errs = append(errs, field.Invalid(ap, abs, "not in valid range [0, inf)"))
	}
	if pct == 0 && abs == 0 {
		errs = append(errs,
			field.Invalid(pp, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"),
			field.Invalid(ap, abs, "cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errs
}

// fieldErrors unpacks the (aggregated) field errors of component-helpers.
func fieldErrors(err error) field.ErrorList {
	if err == nil {
		return nil
	}
	var out field.ErrorList
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			out = append(out, fieldErrors(e)...)
		}
		return out
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return field.ErrorList{fe}
	}
	return field.ErrorList{field.InternalError(nil, err)}
}

// ValidateNodeAffinityArgs validates NodeAffinity args: the added
// affinity must parse as a node selector and preferred terms.
func ValidateNodeAffinityArgs(p *field.Path, a *configv1.NodeAffinityArgs) field.ErrorList {
	if a.AddedAffinity == nil {
		return nil
	}
	var errs field.ErrorList
	ap := p.Child("addedAffinity")
	if ns := a.AddedAffinity.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		_, err := nodeaffinity.NewNodeSelector(ns, field.WithPath(ap.Child("requiredDuringSchedulingIgnoredDuringExecution")))
		errs = append(errs, fieldErrors(err)...)
	}
	if terms := a.AddedAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) != 0 {
		_, err := nodeaffinity.NewPreferredSchedulingTerms(terms, field.WithPath(ap.Child("preferredDuringSchedulingIgnoredDuringExecution")))
		errs = append(errs, fieldErrors(err)...)
	}
	return errs
}

var scoringStrategyTypes = []string{string(configv1.LeastAllocated), string(configv1.MostAllocated), string(configv1.RequestedToCapacityRatio)}

// ValidateNodeResourcesFitArgs validates NodeResourcesFit args.
func ValidateNodeResourcesFitArgs(p *field.Path, a *configv1.NodeResourcesFitArgs) field.ErrorList {
	var errs field.ErrorList
	for i, r := range a.IgnoredResources {
		errs = append(errs, metav1validation.ValidateLabelName(r, p.Child("ignoredResources").Index(i))...)
	}
	for i, g := range a.IgnoredResourceGroups {
		gp := p.Child("ignoredResourceGroups").Index(i)
		if strings.Contains(g, "/") {
			errs = append(errs, field.Invalid(gp, g, "resource group name can't contain '/'"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(g, gp)...)
	}
	sp := p.Child("scoringStrategy")
	s := a.ScoringStrategy
	if s == nil {
		return append(errs, field.Required(sp, "ScoringStrategy field is required"))
	}
	switch s.Type {
	case configv1.LeastAllocated, configv1.MostAllocated, configv1.RequestedToCapacityRatio:
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Type, scoringStrategyTypes))
	}
	for i, r := range s.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			errs = append(errs, field.Invalid(sp.Child("resources").Index(i).Child("weight"), r.Weight,
				fmt.Sprintf("resource weight of %v not in valid range (0, 100]", r.Name)))
		}
	}
	if s.Type == configv1.RequestedToCapacityRatio {
		if s.RequestedToCapacityRatio == nil {
			errs = append(errs, field.Required(sp.Child("requestedToCapacityRatio"), "must be specified when type is RequestedToCapacityRatio"))
		} else {
			errs = append(errs, validateFunctionShape(s.RequestedToCapacityRatio.Shape, sp.Child("requestedToCapacityRatio", "shape"))...)
		}
	} else if s.RequestedToCapacityRatio != nil {
		errs = append(errs, field.Forbidden(sp.Child("requestedToCapacityRatio"), "must be nil when type is not RequestedToCapacityRatio"))
	}
	return errs
}

func validateFunctionShape(shape []configv1.UtilizationShapePoint, p *field.Path) field.ErrorList {
	if len(shape) == 0 {
		return field.ErrorList{field.Required(p, "at least one point must be specified")}
	}
	var errs field.ErrorList
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, field.Invalid(p.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, pt := range shape {
		if pt.Utilization < 0 || pt.Utilization > 100 {
			errs = append(errs, field.Invalid(p.Index(i).Child("utilization"), pt.Utilization, "not in valid range [0, 100]"))
		}
		if pt.Score < 0 || pt.Score > MaxCustomPriorityScore {
			errs = append(errs, field.Invalid(p.Index(i).Child("score"), pt.Score, fmt.Sprintf("not in valid range [%d, %d]", 0, MaxCustomPriorityScore)))
		}
	}
	return errs
}

// ValidatePodTopologySpreadArgs validates PodTopologySpread args.
func ValidatePodTopologySpreadArgs(p *field.Path, a *configv1.PodTopologySpreadArgs) field.ErrorList {
	var errs field.ErrorList
	dp := p.Child("defaultingType")
	switch a.DefaultingType {
	case configv1.SystemDefaulting:
		if len(a.DefaultConstraints) > 0 {
			errs = append(errs, field.Invalid(dp, a.DefaultingType, "when .defaultConstraints are not empty"))
		}
	case configv1.ListDefaulting:
	default:
		errs = append(errs, field.NotSupported(dp, a.DefaultingType, []string{string(configv1.SystemDefaulting), string(configv1.ListDefaulting)}))
	}
	cp := p.Child("defaultConstraints")
	for i, c := range a.DefaultConstraints {
		ip := cp.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, ip.Child("topologyKey"))...)
		}
		wp := ip.Child("whenUnsatisfiable")
		switch c.WhenUnsatisfiable {
		case v1.DoNotSchedule, v1.ScheduleAnyway:
		case "":
			errs = append(errs, field.Required(wp, "can not be empty"))
		default:
			errs = append(errs, field.NotSupported(wp, c.WhenUnsatisfiable, []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(ip.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		for j := range a.DefaultConstraints[:i] {
			o := &a.DefaultConstraints[j]
			if c.TopologyKey == o.TopologyKey && c.WhenUnsatisfiable == o.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cp.Index(i), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
	}
	return errs
}
