package runtime

import (
	"fmt"

	"github.com/schedtui/schedtui/scheduler/features"
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
	{"GenericWorkload", func(f features.Features) bool { return f.EnableGenericWorkload },
		"adds the GangScheduling plugin and pod-group scheduling cycles"},
	{"TopologyAwareWorkloadScheduling", func(f features.Features) bool { return f.EnableTopologyAwareWorkloadScheduling },
		"adds the TopologyPlacementGenerator and PodGroupPodsCount plugins"},
	{"CompositePodGroup", func(f features.Features) bool { return f.EnableCompositePodGroup },
		"schedules composite pod groups"},
	{"PodGroupPreemptionPolicy", func(f features.Features) bool { return f.EnablePodGroupPreemptionPolicy },
		"applies pod groups' preemption policy"},
	{"InPlacePodVerticalScalingSchedulerPreemption", func(f features.Features) bool { return f.EnableInPlacePodVerticalScalingSchedulerPreemption },
		"adds the DeferredPodScheduling plugin and schedules deferred resizes"},
}

// refuseUnimplementedGates names the first gate that is on but that
// schedtui cannot honour.
func refuseUnimplementedGates(f features.Features) error {
	for _, g := range unimplementedGates {
		if g.on(f) {
			return fmt.Errorf("feature gate %s=true %s, which schedtui does not implement", g.name, g.effect)
		}
	}
	return nil
}
