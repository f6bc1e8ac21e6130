package validation

import (
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// MaxCustomPriorityScore is the highest score of a utilization shape point.
const MaxCustomPriorityScore = 10

var inTree = func() map[string]bool {
	m := make(map[string]bool, len(names.InTree))
	for _, n := range names.InTree {
		m[n] = true
	}
	return m
}()

// IsInTreePlugin reports whether kube-scheduler v1.37's in-tree registry
// has a plugin of that name.
func IsInTreePlugin(name string) bool { return inTree[name] }

// Plugins removed from kube-scheduler, rejected in configurations.
var removedPlugins = map[string]bool{"AzureDiskLimits": true, "CinderLimits": true, "EBSLimits": true, "GCEPDLimits": true}

// pluginArgsTypes maps plugin names to their typed args.
var pluginArgsTypes = map[string]func() runtime.Object{
	names.DefaultPreemption:               func() runtime.Object { return &configv1.DefaultPreemptionArgs{} },
	names.InterPodAffinity:                func() runtime.Object { return &configv1.InterPodAffinityArgs{} },
	names.NodeAffinity:                    func() runtime.Object { return &configv1.NodeAffinityArgs{} },
	names.NodeResourcesBalancedAllocation: func() runtime.Object { return &configv1.NodeResourcesBalancedAllocationArgs{} },
	names.NodeResourcesFit:                func() runtime.Object { return &configv1.NodeResourcesFitArgs{} },
	names.PodTopologySpread:               func() runtime.Object { return &configv1.PodTopologySpreadArgs{} },
	names.VolumeBinding:                   func() runtime.Object { return &configv1.VolumeBindingArgs{} },
	names.DynamicResources:                func() runtime.Object { return &configv1.DynamicResourcesArgs{} },
}

// NewPluginArgs returns new, empty typed args of a plugin, or nil when the
// plugin takes none.
func NewPluginArgs(plugin string) runtime.Object {
	newArgs, ok := pluginArgsTypes[plugin]
	if !ok {
		return nil
	}
	return newArgs()
}
