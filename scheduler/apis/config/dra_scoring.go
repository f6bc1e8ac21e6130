package config

import (
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

// noteDRAScoredResources warns about scoring resources a DeviceClass may
// back (DRAExtendedResource): on a node without the resource as
// device-plugin allocatable, kube-scheduler's NodeResourcesFit and
// NodeResourcesBalancedAllocation count the class's devices on the node
// (PreScore), which schedtui does not: it scores such a node as lacking
// the resource. Filtering and allocation are simulated; only this score
// differs.
func noteDRAScoredResources(name string, cfg *configv1.KubeSchedulerConfiguration, r *docread.Report) {
	for i, p := range cfg.Profiles {
		for j, pc := range p.PluginConfig {
			var resources []configv1.ResourceSpec
			field := ""
			switch a := pc.Args.Object.(type) {
			case *configv1.NodeResourcesFitArgs:
				if a.ScoringStrategy != nil {
					resources, field = a.ScoringStrategy.Resources, "scoringStrategy.resources"
				}
			case *configv1.NodeResourcesBalancedAllocationArgs:
				resources, field = a.Resources, "resources"
			}
			for k, res := range resources {
				if !mayBeDRABacked(res.Name) {
					continue
				}
				path := fmt.Sprintf("profiles[%d].pluginConfig[%d].args.%s[%d]", i, j, field, k)
				r.Warnf(name, 0, configObject, path, "%s: if a DeviceClass backs %s, nodes without it as device-plugin allocatable score as lacking it, where kube-scheduler counts the class's devices on the node (DRAExtendedResource); schedtui does not simulate that part of the score", path, res.Name)
			}
		}
	}
}

// mayBeDRABacked: an implicit DeviceClass name, or an extended resource
// name (qualified, outside kubernetes.io, not a quota "requests." name).
func mayBeDRABacked(name string) bool {
	if strings.HasPrefix(name, resourcev1.ResourceDeviceClassPrefix) {
		return true
	}
	return strings.Contains(name, "/") && !strings.Contains(name, "kubernetes.io/") && !strings.HasPrefix(name, "requests.")
}
