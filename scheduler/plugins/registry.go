// Package plugins assembles the in-tree plugins of kube-scheduler v1.37.
package plugins

import (
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/plugins/defaultbinder"
	"github.com/schedtui/schedtui/scheduler/plugins/defaultpreemption"
	"github.com/schedtui/schedtui/scheduler/plugins/dynamicresources"
	"github.com/schedtui/schedtui/scheduler/plugins/gangscheduling"
	"github.com/schedtui/schedtui/scheduler/plugins/imagelocality"
	"github.com/schedtui/schedtui/scheduler/plugins/interpodaffinity"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/plugins/nodeaffinity"
	"github.com/schedtui/schedtui/scheduler/plugins/nodedeclaredfeatures"
	"github.com/schedtui/schedtui/scheduler/plugins/nodename"
	"github.com/schedtui/schedtui/scheduler/plugins/nodeports"
	"github.com/schedtui/schedtui/scheduler/plugins/noderesources"
	"github.com/schedtui/schedtui/scheduler/plugins/nodeunschedulable"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits"
	"github.com/schedtui/schedtui/scheduler/plugins/podgrouppodscount"
	"github.com/schedtui/schedtui/scheduler/plugins/podtopologyspread"
	"github.com/schedtui/schedtui/scheduler/plugins/queuesort"
	"github.com/schedtui/schedtui/scheduler/plugins/schedulinggates"
	"github.com/schedtui/schedtui/scheduler/plugins/tainttoleration"
	"github.com/schedtui/schedtui/scheduler/plugins/topologyaware"
	"github.com/schedtui/schedtui/scheduler/plugins/volumebinding"
	"github.com/schedtui/schedtui/scheduler/plugins/volumerestrictions"
	"github.com/schedtui/schedtui/scheduler/plugins/volumezone"
)

// NewInTreeRegistry returns the factories of every default plugin.
func NewInTreeRegistry() runtime.Registry {
	return runtime.Registry{
		names.SchedulingGates:                 schedulinggates.New,
		names.PrioritySort:                    queuesort.New,
		names.NodeName:                        nodename.New,
		names.NodeUnschedulable:               nodeunschedulable.New,
		names.TaintToleration:                 tainttoleration.New,
		names.NodeAffinity:                    nodeaffinity.New,
		names.NodePorts:                       nodeports.New,
		names.NodeResourcesFit:                noderesources.NewFit,
		names.VolumeRestrictions:              volumerestrictions.New,
		names.NodeVolumeLimits:                nodevolumelimits.New,
		names.VolumeBinding:                   volumebinding.New,
		names.VolumeZone:                      volumezone.New,
		names.PodTopologySpread:               podtopologyspread.New,
		names.InterPodAffinity:                interpodaffinity.New,
		names.DynamicResources:                dynamicresources.New,
		names.DefaultPreemption:               defaultpreemption.New,
		names.NodeResourcesBalancedAllocation: noderesources.NewBalancedAllocation,
		names.ImageLocality:                   imagelocality.New,
		names.DefaultBinder:                   defaultbinder.New,
		names.NodeDeclaredFeatures:            nodedeclaredfeatures.New,
		names.GangScheduling:                  gangscheduling.New,
		names.TopologyPlacementGenerator:      topologyaware.New,
		names.PodGroupPodsCount:               podgrouppodscount.New,
	}
}
