package runtime

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// unimplementedGate is a gate whose "on" adds plugins or a scheduling mode
// schedtui does not have; running without them would answer differently
// from kube-scheduler without saying so.
type unimplementedGate struct {
	name   string
	on     func(features.Features) bool
	effect string
}

// unimplementedGates are refused when on, in upstream's gate order.
var unimplementedGates = []unimplementedGate{
	{"InPlacePodVerticalScalingSchedulerPreemption", func(f features.Features) bool { return f.EnableInPlacePodVerticalScalingSchedulerPreemption },
		"adds the DeferredPodScheduling plugin and schedules deferred resizes"},
	{"DRANodeAllocatableResources", func(f features.Features) bool { return f.EnableDRANodeAllocatableResources },
		"makes DynamicResources and NodeResourcesFit account node allocatable resources allocated through DRA claims"},
	{"SchedulerPreQueueingHints", func(f features.Features) bool { return f.EnableSchedulerPreQueueingHints },
		"narrows which pods a cluster event requeues with the plugins' pre-queueing hints"},
	{"SchedulerAsyncAPICalls", func(f features.Features) bool { return f.EnableSchedulerAsyncAPICalls },
		"sends the scheduler's API calls (bindings, status and nomination updates) through an asynchronous dispatcher"},
}

// RefuseUnimplementedGates names the first gate that is on but that
// schedtui cannot honour.
func RefuseUnimplementedGates(f features.Features) error {
	for _, g := range unimplementedGates {
		if g.on(f) {
			return fmt.Errorf("feature gate %s=true %s, which schedtui does not implement", g.name, g.effect)
		}
	}
	return nil
}

// podSigners are the in-tree plugins with upstream's SignPod. A profile
// signs pods (for OpportunisticBatching) only when every PreFilter,
// Filter, PreScore and Score plugin is one of them.
var podSigners = sets.New(
	names.NodeResourcesFit, names.NodeResourcesBalancedAllocation, names.NodeVolumeLimits, names.DynamicResources,
	names.VolumeBinding, names.VolumeZone, names.NodeDeclaredFeatures, names.TaintToleration, names.InterPodAffinity,
	names.VolumeRestrictions, names.NodePorts, names.PodTopologySpread, names.NodeAffinity, names.NodeName,
	names.ImageLocality, names.NodeUnschedulable,
)

// UnsignablePlugin is a signing plugin that refuses every pod's signature
// as configured (PodTopologySpread with default constraints).
type UnsignablePlugin interface {
	SignsNoPod() bool
}

// refuseOpportunisticBatching refuses a profile whose pods upstream would
// batch with OpportunisticBatching: consecutive pods of one signature take
// the previous cycle's next-best node as a hint, which schedtui does not
// implement. With 1.37's default profile nothing is ever batched, because
// PodTopologySpread's system default constraints make every pod
// unsignable; nor with extenders.
func (f *Framework) refuseOpportunisticBatching() error {
	if !f.opts.Features.EnableOpportunisticBatching || len(f.opts.Extenders) > 0 {
		// Upstream signs no pod of a profile when the configuration has
		// extenders: nothing is batched then either.
		return nil
	}
	var points []framework.Plugin
	for _, p := range f.preFilterPlugins {
		points = append(points, p)
	}
	for _, p := range f.filterPlugins {
		points = append(points, p)
	}
	for _, p := range f.preScorePlugins {
		points = append(points, p)
	}
	for _, p := range f.scorePlugins {
		points = append(points, p)
	}
	for _, p := range points {
		if !podSigners.Has(p.Name()) {
			return nil
		}
		if u, ok := p.(UnsignablePlugin); ok && u.SignsNoPod() {
			return nil
		}
	}
	return fmt.Errorf("profile %q: feature gate OpportunisticBatching=true batches its pods (every plugin signs pods; PodTopologySpread has no default constraints), which schedtui does not implement; set OpportunisticBatching=false", f.profileName)
}
