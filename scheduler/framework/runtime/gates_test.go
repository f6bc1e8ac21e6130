package runtime

import (
	"strings"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
)

// Each unimplemented gate, turned on alone over 1.37's defaults, stops
// the profile with its name before any plugin is looked at.
func TestUnimplementedGatesRefused(t *testing.T) {
	if err := RefuseUnimplementedGates(features.Default()); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, g := range unimplementedGates {
		f := features.Default()
		set := map[string]*bool{
			"CompositePodGroup":                            &f.EnableCompositePodGroup,
			"InPlacePodVerticalScalingSchedulerPreemption": &f.EnableInPlacePodVerticalScalingSchedulerPreemption,
			"DRANodeAllocatableResources":                  &f.EnableDRANodeAllocatableResources,
			"SchedulerPreQueueingHints":                    &f.EnableSchedulerPreQueueingHints,
			"SchedulerAsyncAPICalls":                       &f.EnableSchedulerAsyncAPICalls,
		}[g.name]
		if set == nil {
			t.Fatalf("no field for %s", g.name)
		}
		*set = true
		_, err := NewFramework(Registry{}, &configv1.KubeSchedulerProfile{}, Options{Features: f})
		if err == nil || !strings.Contains(err.Error(), "feature gate "+g.name+"=true") {
			t.Errorf("%s on: err = %v", g.name, err)
		}
	}
}
