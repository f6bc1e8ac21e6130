package noderesources

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
)

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
	// No feature gate changes these args' defaults.
	config.SetPluginArgsDefaults(args, features.Default())
	if err := validation.ValidateNodeResourcesFitArgs(nil, args).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
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
	config.SetPluginArgsDefaults(args, features.Default())
	if err := validation.ValidateNodeResourcesBalancedAllocationArgs(nil, args).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
}
