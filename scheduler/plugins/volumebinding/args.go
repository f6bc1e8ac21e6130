package volumebinding

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
)

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
	config.SetPluginArgsDefaults(args)
	if err := validation.ValidateVolumeBindingArgs(nil, args).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
}
