package scheduler

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// Every scheduler build (the engine's, its forks', what-if's) refuses a
// gate whose plugin schedtui lacks, and builds the gated default plugins
// otherwise.
func TestNewFollowsGates(t *testing.T) {
	for gate, plugin := range map[string]string{
		"InPlacePodVerticalScalingSchedulerPreemption=true": "DeferredPodScheduling",
	} {
		r, err := features.Resolve("", "", gate)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(nil, nil, nil, Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features})
		if err == nil || !strings.Contains(err.Error(), plugin) || !strings.Contains(err.Error(), "which schedtui does not implement") {
			t.Errorf("%s: err = %v", gate, err)
		}
	}
	r, err := features.Resolve("1.35", "", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(nil, nil, nil, Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, Config: config.Default(r.Features)})
	if err != nil {
		t.Fatal(err)
	}
	fwk := s.Profile("default-scheduler")
	if fwk.Plugin("NodeDeclaredFeatures") != nil || fwk.Plugin("DynamicResources") == nil {
		t.Errorf("1.35's plugins: Filter %v, Score %v", fwk.FilterPluginNames(), fwk.ScorePluginNames())
	}
	r, err = features.Resolve("", "", "GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	s, err = New(nil, nil, nil, Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, Config: config.Default(r.Features)})
	if err != nil {
		t.Fatalf("GenericWorkload=true: %v", err)
	}
	if s.Profile("default-scheduler").Plugin("GangScheduling") == nil {
		t.Error("GenericWorkload=true: no GangScheduling plugin")
	}
}
