package conformance

import (
	"testing"

	"github.com/schedtui/schedtui/internal/scenario"
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
