package conformance

import (
	"flag"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/features"
)

var numFlipScenarios = flag.Int("flip-scenarios", 12, "generated scenarios (plain and preemption-biased, alternating) per flipped gate")

// flippedGates are gates a 1.37 kube-scheduler lets a user flip (not
// locked) whose effect the ScheduleOne loop can see, each set away from
// its default. upstream also turns off the gates that depend on a gate
// turned off, as kube-scheduler refuses them otherwise; ours sets the
// same values in schedtui's Features.
var flippedGates = []struct {
	name     string
	upstream map[string]bool
	ours     func(*features.Features)
}{
	{"PodLevelResources=false",
		map[string]bool{"PodLevelResources": false, "PodLevelResourcesFixDefaulting": false, "PodLevelResourcesFixKubeletQOSClass": false, "InPlacePodLevelResourcesVerticalScaling": false},
		func(f *features.Features) {
			f.EnablePodLevelResources, f.EnableInPlacePodLevelResourcesVerticalScaling = false, false
		}},
	{"InPlacePodLevelResourcesVerticalScaling=false",
		map[string]bool{"InPlacePodLevelResourcesVerticalScaling": false},
		func(f *features.Features) { f.EnableInPlacePodLevelResourcesVerticalScaling = false }},
	{"MatchLabelKeysInPodTopologySpread=false",
		map[string]bool{"MatchLabelKeysInPodTopologySpread": false, "MatchLabelKeysInPodTopologySpreadSelectorMerge": false},
		func(f *features.Features) { f.EnableMatchLabelKeysInPodTopologySpread = false }},
	{"VolumeLimitScaling=false",
		map[string]bool{"VolumeLimitScaling": false},
		func(f *features.Features) { f.EnableVolumeLimitScaling = false }},
	{"StorageCapacityScoring=false",
		map[string]bool{"StorageCapacityScoring": false},
		func(f *features.Features) { f.EnableStorageCapacityScoring = false }},
	{"TaintTolerationComparisonOperators=true",
		map[string]bool{"TaintTolerationComparisonOperators": true},
		func(f *features.Features) { f.EnableTaintTolerationComparisonOperators = true }},
	{"InterPodAffinityHostnameFastPath=true",
		map[string]bool{"InterPodAffinityHostnameFastPath": true},
		func(f *features.Features) { f.EnableInterPodAffinityHostnameFastPath = true }},
}

// TestConformanceGates runs generated scenarios with one gate flipped at a
// time, on both sides: schedtui through Options.Features, upstream through
// its process-wide gates, restored afterwards. The subtests run one after
// the other, never in parallel, as the upstream gates are global.
func TestConformanceGates(t *testing.T) {
	var scenarios []*scenario.Scenario
	for i := int64(0); i < int64(*numFlipScenarios); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{Preemption: i%2 == 1}))
	}
	for _, g := range flippedGates {
		t.Run(g.name, func(t *testing.T) {
			// As kube-scheduler's flags would set them, restored after the
			// test exactly (never left explicitly set, which would break a
			// later change of the emulated version).
			overrides := featuregatetesting.FeatureOverrides{}
			for name, on := range g.upstream {
				overrides[featuregate.Feature(name)] = on
			}
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
			gates := features.Default()
			g.ours(&gates)
			runScenariosWithGates(t, scenarios, &gates)
		})
	}
}
