package volumebinding

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
)

// bindingArgs copies, defaults and validates the args (nil means the
// defaults). With StorageCapacityScoring on (1.37's default) an empty
// shape gets the default "prefer free space" shape; with it off, upstream
// neither defaults a shape nor accepts one, so that a shape written for a
// later version cannot take effect unnoticed.
func bindingArgs(obj runtime.Object, storageCapacityScoring bool) (*configv1.VolumeBindingArgs, error) {
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
	if !storageCapacityScoring {
		if args.Shape != nil {
			return nil, field.ErrorList{field.Invalid(field.NewPath("shape"), args.Shape, "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring")}.ToAggregate()
		}
		config.SetPluginArgsDefaults(args)
		args.Shape = nil
		if t := *args.BindTimeoutSeconds; t < 0 {
			return nil, field.ErrorList{field.Invalid(field.NewPath("bindTimeoutSeconds"), t, "invalid BindTimeoutSeconds, should not be a negative value")}.ToAggregate()
		}
		return args, nil
	}
	config.SetPluginArgsDefaults(args)
	if err := validation.ValidateVolumeBindingArgs(nil, args).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
}
