package features

import (
	"strings"
	"testing"
)

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		emulated, minCompat, g string
		want                   string
	}{
		{name: "unknown gate", g: "NoSuchGate=true", want: "unrecognized feature gate: NoSuchGate"},
		{name: "removed gate", g: "SchedulerQueueingHints=false", want: "unrecognized feature gate: SchedulerQueueingHints"},
		{name: "locked", g: "DynamicResourceAllocation=false", want: "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"},
		{name: "prealpha", emulated: "1.35", g: "DRADerivedAttributes=true", want: "cannot set feature gate DRADerivedAttributes to true, feature is PreAlpha at emulated version 1.35, min compatibility version 1.34"},
		{name: "dependency", g: "DRAConsumableCapacity=true,DRAFractionalCapacityRange=true,DRAPartitionableDevices=true,DRADeviceCompatibilityGroups=true,DRAPartitionableDevices=false", want: "DRADeviceCompatibilityGroups is enabled, but depends on features that are disabled: [DRAPartitionableDevices]"},
		{name: "bad bool", g: "DRAAdminAccess=yes", want: `invalid value of DRAAdminAccess=yes`},
		{name: "missing value", g: "DRAAdminAccess", want: `missing bool value for DRAAdminAccess`},
		{name: "too old", emulated: "1.33", want: "emulation version 1.33 is not between [1.34, 1.37.0]"},
		{name: "too new", emulated: "1.38", want: "emulation version 1.38 is not between [1.34, 1.37.0]"},
		{name: "patch", emulated: "1.35.1", want: "patch version not allowed, got: kube=1.35.1"},
		{name: "duplicate", emulated: "1.35,kube=1.36", want: "duplicate version flag, kube=1.35 and kube=1.36"},
		{name: "other component", emulated: "wardle=1.2", want: "component not registered: wardle"},
		{name: "min compat above emulated", emulated: "1.35", minCompat: "1.36", want: "minCompatibilityVersion version 1.36 is not between [1.34, 1.35]"},
		{name: "mixed prefixes", g: "kube:DRAAdminAccess=true,DRAPrioritizedList=true", want: "set kube feature gates with default empty prefix or kube: prefix consistently"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.emulated, tc.minCompat, tc.g)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Resolve(%q, %q, %q) = %v, want an error containing %q", tc.emulated, tc.minCompat, tc.g, err, tc.want)
			}
		})
	}
}

func TestResolveDefaultsIsDefault(t *testing.T) {
	r := Defaults()
	if r.Features != Default() {
		t.Errorf("resolved 1.37 defaults differ from Default():\n%+v\n%+v", r.Features, Default())
	}
	if r.EmulatedVersion != "1.37" || r.MinCompatibilityVersion != "1.36" || len(r.NonDefault) != 0 || len(r.Notes) != 0 {
		t.Errorf("defaults: %+v", r)
	}
	if r.Summary() != "kube-scheduler 1.37" {
		t.Errorf("Summary() = %q", r.Summary())
	}
}

// The design note's probed gate table (dra-extenders-versions.md §4.2) at
// a few points: each gate's default at each emulated version.
func TestResolveVersions(t *testing.T) {
	type row struct {
		gate string
		at   [4]bool // 1.34, 1.35, 1.36, 1.37
		get  func(Features) bool
	}
	rows := []row{
		{"NodeDeclaredFeatures", [4]bool{false, false, true, true}, func(f Features) bool { return f.EnableNodeDeclaredFeatures }},
		{"StorageCapacityScoring", [4]bool{false, false, false, true}, func(f Features) bool { return f.EnableStorageCapacityScoring }},
		{"DRAExtendedResource", [4]bool{false, false, true, true}, func(f Features) bool { return f.EnableDRAExtendedResource }},
		{"DRADeviceTaintRules", [4]bool{false, false, false, true}, func(f Features) bool { return f.EnableDRADeviceTaintRules }},
		{"OpportunisticBatching", [4]bool{false, true, true, true}, func(f Features) bool { return f.EnableOpportunisticBatching }},
		{"NominatedNodeNameForExpectation", [4]bool{false, true, true, true}, func(f Features) bool { return f.EnableNominatedNodeNameForExpectation }},
		{"VolumeLimitScaling", [4]bool{false, false, false, true}, func(f Features) bool { return f.EnableVolumeLimitScaling }},
		{"DRAFractionalCapacityRange", [4]bool{false, false, false, false}, func(f Features) bool { return f.EnableDRAFractionalCapacityRange }},
		{"DynamicResourceAllocation", [4]bool{true, true, true, true}, func(f Features) bool { return f.EnableDynamicResourceAllocation }},
	}
	for i, v := range []string{"1.34", "1.35", "1.36", "1.37"} {
		r, err := Resolve(v, "", "")
		if err != nil {
			t.Fatalf("Resolve(%s): %v", v, err)
		}
		if r.EmulatedVersion != v {
			t.Errorf("EmulatedVersion = %s, want %s", r.EmulatedVersion, v)
		}
		for _, rw := range rows {
			if got := rw.get(r.Features); got != rw.at[i] {
				t.Errorf("%s at %s = %t, want %t", rw.gate, v, got, rw.at[i])
			}
		}
	}
	// Beta, default-on only with min compatibility 1.37.
	r, err := Resolve("kube=1.37", "1.37", "")
	if err != nil || !r.Features.EnableDRAFractionalCapacityRange {
		t.Errorf("DRAFractionalCapacityRange with --min-compatibility-version 1.37: %v, %+v", err, r)
	}
}

func TestResolveNonDefaultAndNotes(t *testing.T) {
	r, err := Resolve("1.35", "", "DRAPrioritizedList=false,NodeDeclaredFeatures=true,APIResponseCompression=false,InPlacePodVerticalScaling=true")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(r.NonDefault, ","), "DRAPrioritizedList=false,NodeDeclaredFeatures=true"; got != want {
		t.Errorf("NonDefault = %s, want %s", got, want)
	}
	if got, want := r.Summary(), "kube-scheduler 1.35 (gates: DRAPrioritizedList=false,NodeDeclaredFeatures=true)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{
		"feature gate APIResponseCompression is accepted as kube-scheduler accepts it, but it does not change scheduling",
		"setting GA feature gates (InPlacePodVerticalScaling)",
		"alpha features enabled in emulated version 1.35 (NodeDeclaredFeatures)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if r.Features.EnableDRAPrioritizedList || !r.Features.EnableNodeDeclaredFeatures {
		t.Errorf("features: %+v", r.Features)
	}
}

func TestResolveAllAlphaAllBeta(t *testing.T) {
	// As in kube-scheduler, AllAlpha alone turns on alpha gates whose
	// beta dependencies stay off.
	if _, err := Resolve("", "", "AllAlpha=true"); err == nil || !strings.Contains(err.Error(), "TopologyAwareWorkloadScheduling is enabled, but depends on features that are disabled: [GenericWorkload]") {
		t.Errorf("AllAlpha=true: %v", err)
	}
	r, err := Resolve("", "", "AllAlpha=true,AllBeta=true")
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Features; !f.EnableInterPodAffinityHostnameFastPath || !f.EnableTaintTolerationComparisonOperators || !f.EnableGenericWorkload {
		t.Errorf("AllAlpha=true,AllBeta=true left gates off: %+v", f)
	}
	r, err = Resolve("", "", "AllBeta=false")
	if err != nil {
		t.Fatal(err)
	}
	// Beta gates off, GA ones untouched.
	if f := r.Features; f.EnableOpportunisticBatching || f.EnableDRAConsumableCapacity || !f.EnableDRAPrioritizedList {
		t.Errorf("AllBeta=false: %+v", f)
	}
}
