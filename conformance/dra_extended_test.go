package conformance

import (
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
)

// TestConformanceDRAExtendedGateOff runs the DRA extended-resource
// scenarios where DRAExtendedResource is off: at 1.35 (alpha, off by
// default) and at 1.36 turned off. NodeResourcesFit then checks every
// extended resource against allocatable, and DynamicResources makes no
// special claim.
func TestConformanceDRAExtendedGateOff(t *testing.T) {
	for _, c := range []struct{ emulated, gates string }{
		{"1.35", ""},
		{"1.36", "DRAExtendedResource=false"},
	} {
		t.Run(c.emulated+" "+c.gates, func(t *testing.T) {
			gates, err := features.Resolve(c.emulated, "", c.gates)
			if err != nil {
				t.Fatal(err)
			}
			if gates.Features.EnableDRAExtendedResource {
				t.Fatalf("DRAExtendedResource is on at %s %s", c.emulated, c.gates)
			}
			setUpstreamGates(t, gates, c.gates)
			runScenarios(t, generated(15, scenario.GenerateDRAExtended), gates)
		})
	}
}

// TestConformanceDRAExtendedScoring scores a DRA-backed extended resource:
// NodeResourcesFit (MostAllocated) configured with example.com/gpu, which
// nodes without device-plugin GPUs have as devices of the class backing
// it. Not BalancedAllocation: upstream's scorer there has no CEL cache and
// panics on a class with a CEL selector.
func TestConformanceDRAExtendedScoring(t *testing.T) {
	gates := features.Defaults()
	cfg := config.Default(gates.Features)
	resources := []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "example.com/gpu", Weight: 3}}
	for i := range cfg.Profiles {
		for j, pc := range cfg.Profiles[i].PluginConfig {
			if a, ok := pc.Args.Object.(*configv1.NodeResourcesFitArgs); ok {
				a.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: resources}
				cfg.Profiles[i].PluginConfig[j] = pc
			}
		}
	}
	runScenariosWith(t, generated(30, scenario.GenerateDRAExtended), cfg, &gates.Features)
}
