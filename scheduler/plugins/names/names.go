// Package names holds the names of kube-scheduler v1.37's in-tree plugins,
// as upstream spells them (pkg/scheduler/framework/plugins/names), including
// those schedtui does not implement because their feature gates are off by
// default (GangScheduling, DeferredPodScheduling and the topology-aware
// placement plugins): a configuration may still name them.
package names

const (
	PrioritySort                    = "PrioritySort"
	DefaultBinder                   = "DefaultBinder"
	DefaultPreemption               = "DefaultPreemption"
	DynamicResources                = "DynamicResources"
	GangScheduling                  = "GangScheduling"
	ImageLocality                   = "ImageLocality"
	InterPodAffinity                = "InterPodAffinity"
	NodeAffinity                    = "NodeAffinity"
	NodeDeclaredFeatures            = "NodeDeclaredFeatures"
	NodeName                        = "NodeName"
	NodePorts                       = "NodePorts"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	NodeResourcesFit                = "NodeResourcesFit"
	NodeUnschedulable               = "NodeUnschedulable"
	NodeVolumeLimits                = "NodeVolumeLimits"
	PodTopologySpread               = "PodTopologySpread"
	DeferredPodScheduling           = "DeferredPodScheduling"
	SchedulingGates                 = "SchedulingGates"
	TaintToleration                 = "TaintToleration"
	VolumeBinding                   = "VolumeBinding"
	VolumeRestrictions              = "VolumeRestrictions"
	VolumeZone                      = "VolumeZone"
	TopologyPlacementGenerator      = "TopologyPlacementGenerator"
	PodGroupPodsCount               = "PodGroupPodsCount"
)

// InTree lists every name above: kube-scheduler v1.37's in-tree registry.
var InTree = []string{
	PrioritySort, DefaultBinder, DefaultPreemption, DynamicResources,
	GangScheduling, ImageLocality, InterPodAffinity, NodeAffinity,
	NodeDeclaredFeatures, NodeName, NodePorts, NodeResourcesBalancedAllocation,
	NodeResourcesFit, NodeUnschedulable, NodeVolumeLimits, PodTopologySpread,
	DeferredPodScheduling, SchedulingGates, TaintToleration, VolumeBinding,
	VolumeRestrictions, VolumeZone, TopologyPlacementGenerator, PodGroupPodsCount,
}
