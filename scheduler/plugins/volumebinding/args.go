package volumebinding

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
)

// bindingArgs copies, defaults and validates the args (nil means the
// defaults) under the feature gates f: with StorageCapacityScoring an empty
// shape gets the default "prefer free space" shape; without it a shape is
// refused.
func bindingArgs(obj runtime.Object, f features.Features) (*configv1.VolumeBindingArgs, error) {
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
	config.SetPluginArgsDefaults(args, f)
	if err := validation.ValidateVolumeBindingArgs(nil, args, f).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
}
