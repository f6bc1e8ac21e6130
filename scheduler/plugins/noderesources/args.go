package noderesources

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
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
	if err := validation.ValidateNodeResourcesFitArgs(nil, args).ToAggregate(); err != nil {
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
	if err := validation.ValidateNodeResourcesBalancedAllocationArgs(nil, args).ToAggregate(); err != nil {
		return nil, err
	}
	return args, nil
}
