package noderesources

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// maxCustomPriorityScore is the top of a RequestedToCapacityRatio shape's
// score axis; shape scores are scaled by MaxNodeScore/maxCustomPriorityScore.
const maxCustomPriorityScore int64 = 10

var supportedScoringStrategyTypes = sets.New(
	string(configv1.LeastAllocated),
	string(configv1.MostAllocated),
	string(configv1.RequestedToCapacityRatio),
)

func defaultResourceSpec() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{
		{Name: string(v1.ResourceCPU), Weight: 1},
		{Name: string(v1.ResourceMemory), Weight: 1},
	}
}

// fitArgs copies, defaults and validates the plugin args. Defaulting is
// idempotent, so args the config loader already defaulted pass unchanged;
// a nil args gets upstream's defaults.
func fitArgs(obj runtime.Object) (*configv1.NodeResourcesFitArgs, error) {
	args := &configv1.NodeResourcesFitArgs{}
	switch a := obj.(type) {
	case nil:
	case *configv1.NodeResourcesFitArgs:
		if a != nil {
			args = a.DeepCopy()
		}
	default:
		return nil, fmt.Errorf("want args to be of type NodeResourcesFitArgs, got %T", obj)
	}
	setDefaultsFitArgs(args)
	if err := validateFitArgs(args); err != nil {
		return nil, err
	}
	return args, nil
}

// setDefaultsFitArgs follows SetDefaults_NodeResourcesFitArgs.
func setDefaultsFitArgs(args *configv1.NodeResourcesFitArgs) {
	if args.ScoringStrategy == nil {
		args.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated, Resources: defaultResourceSpec()}
	}
	if len(args.ScoringStrategy.Resources) == 0 {
		args.ScoringStrategy.Resources = defaultResourceSpec()
	}
	for i := range args.ScoringStrategy.Resources {
		if args.ScoringStrategy.Resources[i].Weight == 0 {
			args.ScoringStrategy.Resources[i].Weight = 1
		}
	}
}

// validateFitArgs follows ValidateNodeResourcesFitArgs (same paths and
// messages), so a bad config fails here as the real scheduler would fail.
func validateFitArgs(args *configv1.NodeResourcesFitArgs) error {
	var errs field.ErrorList
	resPath := field.NewPath("ignoredResources")
	for i, res := range args.IgnoredResources {
		errs = append(errs, metav1validation.ValidateLabelName(res, resPath.Index(i))...)
	}
	groupPath := field.NewPath("ignoredResourceGroups")
	for i, group := range args.IgnoredResourceGroups {
		p := groupPath.Index(i)
		if strings.Contains(group, "/") {
			errs = append(errs, field.Invalid(p, group, "resource group name can't contain '/'"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(group, p)...)
	}
	strategyPath := field.NewPath("scoringStrategy")
	if s := args.ScoringStrategy; s != nil {
		if !supportedScoringStrategyTypes.Has(string(s.Type)) {
			errs = append(errs, field.NotSupported(strategyPath.Child("type"), s.Type, sets.List(supportedScoringStrategyTypes)))
		}
		errs = append(errs, validateResourceWeights(s.Resources, strategyPath.Child("resources"))...)
		rtcrPath := strategyPath.Child("requestedToCapacityRatio")
		if s.Type == configv1.RequestedToCapacityRatio {
			if s.RequestedToCapacityRatio == nil {
				errs = append(errs, field.Required(rtcrPath, "must be specified when type is RequestedToCapacityRatio"))
			} else {
				errs = append(errs, validateFunctionShape(s.RequestedToCapacityRatio.Shape, rtcrPath.Child("shape"))...)
			}
		} else if s.RequestedToCapacityRatio != nil {
			errs = append(errs, field.Forbidden(rtcrPath, "must be nil when type is not RequestedToCapacityRatio"))
		}
	} else {
		errs = append(errs, field.Required(strategyPath, "ScoringStrategy field is required"))
	}
	if len(errs) == 0 {
		return nil
	}
	return errs.ToAggregate()
}

func validateResourceWeights(resources []configv1.ResourceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range resources {
		if r.Weight <= 0 || r.Weight > 100 {
			msg := fmt.Sprintf("resource weight of %v not in valid range (0, 100]", r.Name)
			errs = append(errs, field.Invalid(p.Index(i).Child("weight"), r.Weight, msg))
		}
	}
	return errs
}

func validateFunctionShape(shape []configv1.UtilizationShapePoint, p *field.Path) field.ErrorList {
	const minUtilization, maxUtil, minScore, maxScore = 0, 100, 0, int32(maxCustomPriorityScore)
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
		if pt.Utilization < minUtilization || pt.Utilization > maxUtil {
			msg := fmt.Sprintf("not in valid range [%d, %d]", minUtilization, maxUtil)
			errs = append(errs, field.Invalid(p.Index(i).Child("utilization"), pt.Utilization, msg))
		}
		if pt.Score < minScore || pt.Score > maxScore {
			msg := fmt.Sprintf("not in valid range [%d, %d]", minScore, maxScore)
			errs = append(errs, field.Invalid(p.Index(i).Child("score"), pt.Score, msg))
		}
	}
	return errs
}

// balancedAllocationArgs copies, defaults (SetDefaults_NodeResources-
// BalancedAllocationArgs) and validates the plugin args.
func balancedAllocationArgs(obj runtime.Object) (*configv1.NodeResourcesBalancedAllocationArgs, error) {
	args := &configv1.NodeResourcesBalancedAllocationArgs{}
	switch a := obj.(type) {
	case nil:
	case *configv1.NodeResourcesBalancedAllocationArgs:
		if a != nil {
			args = a.DeepCopy()
		}
	default:
		return nil, fmt.Errorf("want args to be of type NodeResourcesBalancedAllocationArgs, got %T", obj)
	}
	if len(args.Resources) == 0 {
		args.Resources = defaultResourceSpec()
	}
	for i := range args.Resources {
		if args.Resources[i].Weight == 0 {
			args.Resources[i].Weight = 1
		}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	p := field.NewPath("resources")
	for i, r := range args.Resources {
		if seen.Has(r.Name) {
			errs = append(errs, field.Duplicate(p.Index(i).Child("name"), r.Name))
		} else {
			seen.Insert(r.Name)
		}
		if r.Weight != 1 {
			errs = append(errs, field.Invalid(p.Index(i).Child("weight"), r.Weight, "must be 1"))
		}
	}
	if len(errs) != 0 {
		return nil, errs.ToAggregate()
	}
	return args, nil
}
