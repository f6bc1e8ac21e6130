package conformance

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/features"
)

var numGateScenarios = flag.Int("gate-scenarios", 60, "generated scenarios (half of them preemption-biased) per version and gate combination")

// gateCombinations are the versions and gates the differential suite runs
// under besides 1.37's defaults: each earlier version kube-scheduler 1.37
// emulates, and gates that change what the generated scenarios exercise.
var gateCombinations = []struct{ emulated, gates string }{
	{"1.34", ""},
	{"1.35", ""},
	{"1.36", ""},
	{"1.37", "NodeDeclaredFeatures=true,PodLevelResources=false"},
	{"1.37", "MatchLabelKeysInPodTopologySpread=false"},
	{"1.37", "InterPodAffinityHostnameFastPath=true"},
	{"1.37", "TaintTolerationComparisonOperators=true"},
	{"1.37", "VolumeLimitScaling=false"},
	{"1.37", "StorageCapacityScoring=false"},
	{"1.37", "InPlacePodLevelResourcesVerticalScaling=false"},
	{"1.37", "SchedulerAsyncPreemption=false"},
	{"1.37", "OpportunisticBatching=false,SchedulerPopFromBackoffQ=false,NominatedNodeNameForExpectation=false"},
	{"1.36", "DRAExtendedResource=false,PodLevelResources=false"},
	{"1.35", "TaintTolerationComparisonOperators=true,MatchLabelKeysInPodTopologySpread=false"},
}

// TestConformanceVersionsAndGates runs the generated scenarios with
// schedtui and the real kube-scheduler emulating the same version with the
// same gates (upstream's process-wide gate set as kube-scheduler's flags
// set it; the combinations run one after the other, never in parallel).
func TestConformanceVersionsAndGates(t *testing.T) {
	for _, c := range gateCombinations {
		name := c.emulated
		if c.gates != "" {
			name += " " + c.gates
		}
		t.Run(name, func(t *testing.T) {
			gates, err := features.Resolve(c.emulated, "", c.gates)
			if err != nil {
				t.Fatal(err)
			}
			setUpstreamGates(t, gates, c.gates)
			var scenarios []*scenario.Scenario
			for i := int64(0); i < int64(*numGateScenarios); i++ {
				scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{Preemption: i%2 == 1}))
			}
			runScenarios(t, scenarios, gates)
		})
	}
}

// setUpstreamGates sets kube-scheduler's process-wide gate to the emulated
// version and the gates given, for the test's duration.
func setUpstreamGates(t *testing.T, gates *features.Resolved, set string) {
	t.Helper()
	gate := utilfeature.DefaultFeatureGate
	featuregatetesting.SetFeatureGateVersionsDuringTest(t, gate,
		version.MustParse(gates.EmulatedVersion), version.MustParse(gates.MinCompatibilityVersion))
	overrides := featuregatetesting.FeatureOverrides{}
	for _, kv := range strings.Split(set, ",") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		b, err := strconv.ParseBool(v)
		if err != nil {
			t.Fatal(err)
		}
		overrides[featuregate.Feature(k)] = b
	}
	if len(overrides) > 0 {
		featuregatetesting.SetFeatureGatesDuringTest(t, gate, overrides)
	}
	// Both sides must see the same values.
	if got := features.FromGate(gate); got != gates.Features {
		t.Fatalf("upstream's gate resolved differently:\nupstream %+v\nschedtui %+v", got, gates.Features)
	}
}
