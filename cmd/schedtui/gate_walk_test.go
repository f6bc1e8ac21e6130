package main

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"

	"github.com/schedtui/schedtui/scheduler/features"
	fwkruntime "github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/plugins/dynamicresources"
)

// gateProofs name, for each scheduling gate a user can flip, the unit
// tests that fail when the flip is ignored (each must mention the gate or
// its Features field). Gates that only reach upstream's DRA allocator are
// proven below by the allocator features they change.
var gateProofs = map[string][]string{
	"DRASchedulerFilterTimeout":               {"scheduler/apis/config/gates_test.go:TestGatedValidation"},
	"VolumeLimitScaling":                      {"scheduler/plugins/nodevolumelimits/csi_test.go:TestVolumeLimitScaling"},
	"SchedulerAsyncPreemption":                {"scheduler/plugins/defaultpreemption/gates_test.go:TestAsyncPreemptionGate"},
	"StorageCapacityScoring":                  {"scheduler/plugins/volumebinding/gates_test.go:TestStorageCapacityScoringGate"},
	"TaintTolerationComparisonOperators":      {"scheduler/plugins/tainttoleration/taint_toleration_test.go:TestComparisonOperatorsGate"},
	"InPlacePodLevelResourcesVerticalScaling": {"conformance/gates_test.go:flippedGates"},
	"DRADeviceTaintRules":                     {"scheduler/plugins/dynamicresources/dynamic_resources_test.go:TestDeviceTaintRule"},
	"InterPodAffinityHostnameFastPath":        {"scheduler/plugins/interpodaffinity/hostname_test.go:filterWithFastPath"},
	"OpportunisticBatching":                   {"scheduler/gates_test.go:TestOpportunisticBatchingRefused"},
	"SchedulerPopFromBackoffQ":                {"scheduler/queue/events_gates_test.go:TestPopFromBackoffQGateOff", "scheduler/engine/engine_test.go:TestPopFromBackoffQOff"},
	"NominatedNodeNameForExpectation":         {"scheduler/gates_test.go:TestNominatedNodeNameForExpectationPreflights"},
	"GenericWorkload":                         {"scheduler/engine/podgroup_test.go:genericWorkload", "scheduler/queue/pod_groups_test.go:workloadEnv"},
}

// Every gate kube-scheduler 1.37 registers, flipped away from its default
// on its own, is refused (kube-scheduler's own refusal: locked, or a
// dependency off; or schedtui's, for a plugin or mode it does not
// implement), takes effect in scheduling (a named unit test, or the DRA
// allocator's features), or, for a gate that changes no scheduling, is
// reported on stderr as such.
func TestEverySchedulerGateTakesEffectOrIsRefused(t *testing.T) {
	specs := features.NewGate().GetAll()
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, string(name))
	}
	sort.Strings(names)
	counts := map[string]int{}
	used := map[string]bool{}
	defaults := features.Defaults()
	for _, name := range names {
		if name == "AllAlpha" || name == "AllBeta" {
			continue // sets of the others
		}
		flip := !defaults.Gate.Enabled(featuregate.Feature(name))
		r, err := features.Resolve("", "", name+"="+map[bool]string{true: "true", false: "false"}[flip])
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%t refused without naming it: %v", name, flip, err)
			}
			counts["refused by kube-scheduler's gate"]++
			continue
		}
		if !features.AffectsScheduling(name) {
			if !noteSays(r.Notes, name, "not change scheduling") {
				t.Errorf("%s=%t is accepted without saying it changes no scheduling: %v", name, flip, r.Notes)
			}
			counts["noted as not changing scheduling"]++
			continue
		}
		if err := fwkruntime.RefuseUnimplementedGates(r.Features); err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%t: refused for another gate: %v", name, flip, err)
			}
			counts["refused: not implemented"]++
			continue
		}
		if !reflect.DeepEqual(dynamicresources.AllocatorFeatures(r.Features), dynamicresources.AllocatorFeatures(defaults.Features)) {
			counts["takes effect (DRA allocator)"]++
			continue
		}
		proofs, ok := gateProofs[name]
		used[name] = true
		if !ok {
			t.Errorf("scheduling gate %s=%t is accepted, but nothing shows it takes effect: refuse it, or name the test that proves it in gateProofs", name, flip)
			continue
		}
		field := "Enable" + name
		if name == "SchedulerAsyncPreemption" {
			field = "EnableAsyncPreemption"
		}
		for _, ref := range proofs {
			if !refMentions(t, ref, field) && !refMentions(t, ref, name) {
				t.Errorf("%s mentions neither %s nor %s", ref, name, field)
			}
		}
		counts["takes effect (unit test)"]++
	}
	for name := range gateProofs {
		if !used[name] {
			t.Errorf("gateProofs names %s, which is refused or noted: drop it", name)
		}
	}
	t.Logf("%d gates: %v", len(names)-2, counts)
}

// noteSays: a note names the gate and says what.
func noteSays(notes []string, gate, what string) bool {
	for _, n := range notes {
		if strings.Contains(n, gate) && strings.Contains(n, what) {
			return true
		}
	}
	return false
}
