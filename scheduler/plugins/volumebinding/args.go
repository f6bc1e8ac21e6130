package volumebinding

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// maxCustomPriorityScore is the top of a shape's score axis; shape scores
// are scaled by MaxNodeScore/maxCustomPriorityScore.
const maxCustomPriorityScore int32 = 10

// bindingArgs copies, defaults and validates the args (nil means the
// defaults). StorageCapacityScoring is on in 1.37, so an empty shape gets
// the default "prefer free space" shape.
func bindingArgs(obj runtime.Object) (*configv1.VolumeBindingArgs, error) {
	args := &configv1.VolumeBindingArgs{}
	switch a := obj.(type) {
	case nil:
	case *configv1.VolumeBindingArgs:
		if a != nil {
			args = a.DeepCopy()
		}
	default:
		return nil, fmt.Errorf("want args to be of type VolumeBindingArgs, got %T", obj)
	}
	if args.BindTimeoutSeconds == nil {
		timeout := int64(600)
		args.BindTimeoutSeconds = &timeout
	}
	if len(args.Shape) == 0 {
		args.Shape = []configv1.UtilizationShapePoint{
			{Utilization: 0, Score: maxCustomPriorityScore},
			{Utilization: 100, Score: 0},
		}
	}
	if err := validateArgs(args); err != nil {
		return nil, err
	}
	return args, nil
}

// validateArgs follows ValidateVolumeBindingArgsWithOptions with
// StorageCapacityScoring allowed (same field paths and messages).
func validateArgs(args *configv1.VolumeBindingArgs) error {
	var errs field.ErrorList
	if *args.BindTimeoutSeconds < 0 {
		errs = append(errs, field.Invalid(field.NewPath("bindTimeoutSeconds"), *args.BindTimeoutSeconds, "invalid BindTimeoutSeconds, should not be a negative value"))
	}
	shapePath := field.NewPath("shape")
	shape := args.Shape
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, field.Invalid(shapePath.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			errs = append(errs, field.Invalid(shapePath.Index(i).Child("utilization"), p.Utilization, "not in valid range [0, 100]"))
		}
		if p.Score < 0 || p.Score > maxCustomPriorityScore {
			errs = append(errs, field.Invalid(shapePath.Index(i).Child("score"), p.Score, fmt.Sprintf("not in valid range [0, %d]", maxCustomPriorityScore)))
		}
	}
	return errs.ToAggregate()
}
