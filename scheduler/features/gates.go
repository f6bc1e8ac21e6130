package features

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

// BinaryVersion is the kube-scheduler release schedtui re-implements.
const BinaryVersion = "1.37.1"

// versionFloor is the lowest --emulated-version and
// --min-compatibility-version kube-scheduler 1.37 accepts: the binary's
// minor minus 3, never below 1.31 (k8s.io/apiserver's
// DefaultBuildEffectiveVersion).
var versionFloor = version.MajorMinor(1, 34)

// gateFields ties each field of Features to the gate it carries.
var gateFields = []struct {
	gate  featuregate.Feature
	field func(*Features) *bool
}{
	{"DRAExtendedResource", func(f *Features) *bool { return &f.EnableDRAExtendedResource }},
	{"DRAPrioritizedList", func(f *Features) *bool { return &f.EnableDRAPrioritizedList }},
	{"DRAAdminAccess", func(f *Features) *bool { return &f.EnableDRAAdminAccess }},
	{"DRAConsumableCapacity", func(f *Features) *bool { return &f.EnableDRAConsumableCapacity }},
	{"DRADeviceCompatibilityGroups", func(f *Features) *bool { return &f.EnableDRADeviceCompatibilityGroups }},
	{"DRAFractionalCapacityRange", func(f *Features) *bool { return &f.EnableDRAFractionalCapacityRange }},
	{"DRADerivedAttributes", func(f *Features) *bool { return &f.EnableDRADerivedAttributes }},
	{"DRADeviceTaints", func(f *Features) *bool { return &f.EnableDRADeviceTaints }},
	{"DRADeviceTaintRules", func(f *Features) *bool { return &f.EnableDRADeviceTaintRules }},
	{"DRADeviceBindingConditions", func(f *Features) *bool { return &f.EnableDRADeviceBindingConditions }},
	{"DRAListTypeAttributes", func(f *Features) *bool { return &f.EnableDRAListTypeAttributes }},
	{"DRANodeAllocatableResources", func(f *Features) *bool { return &f.EnableDRANodeAllocatableResources }},
	{"DRAOptionalNodeOperations", func(f *Features) *bool { return &f.EnableDRAOptionalNodeOperations }},
	{"DRAPartitionableDevices", func(f *Features) *bool { return &f.EnableDRAPartitionableDevices }},
	{"DRAResourceClaimDeviceStatus", func(f *Features) *bool { return &f.EnableDRAResourceClaimDeviceStatus }},
	{"DRASchedulerFilterTimeout", func(f *Features) *bool { return &f.EnableDRASchedulerFilterTimeout }},
	{"DRAWorkloadResourceClaims", func(f *Features) *bool { return &f.EnableDRAWorkloadResourceClaims }},
	{"DynamicResourceAllocation", func(f *Features) *bool { return &f.EnableDynamicResourceAllocation }},
	{"VolumeAttributesClass", func(f *Features) *bool { return &f.EnableVolumeAttributesClass }},
	{"VolumeLimitScaling", func(f *Features) *bool { return &f.EnableVolumeLimitScaling }},
	{"NodeInclusionPolicyInPodTopologySpread", func(f *Features) *bool { return &f.EnableNodeInclusionPolicyInPodTopologySpread }},
	{"MatchLabelKeysInPodTopologySpread", func(f *Features) *bool { return &f.EnableMatchLabelKeysInPodTopologySpread }},
	{"InPlacePodVerticalScaling", func(f *Features) *bool { return &f.EnableInPlacePodVerticalScaling }},
	{"SchedulerAsyncPreemption", func(f *Features) *bool { return &f.EnableAsyncPreemption }},
	{"PodLevelResources", func(f *Features) *bool { return &f.EnablePodLevelResources }},
	{"StorageCapacityScoring", func(f *Features) *bool { return &f.EnableStorageCapacityScoring }},
	{"NodeDeclaredFeatures", func(f *Features) *bool { return &f.EnableNodeDeclaredFeatures }},
	{"GenericWorkload", func(f *Features) *bool { return &f.EnableGenericWorkload }},
	{"TaintTolerationComparisonOperators", func(f *Features) *bool { return &f.EnableTaintTolerationComparisonOperators }},
	{"InPlacePodLevelResourcesVerticalScaling", func(f *Features) *bool { return &f.EnableInPlacePodLevelResourcesVerticalScaling }},
	{"InPlacePodVerticalScalingSchedulerPreemption", func(f *Features) *bool { return &f.EnableInPlacePodVerticalScalingSchedulerPreemption }},
	{"TopologyAwareWorkloadScheduling", func(f *Features) *bool { return &f.EnableTopologyAwareWorkloadScheduling }},
	{"InterPodAffinityHostnameFastPath", func(f *Features) *bool { return &f.EnableInterPodAffinityHostnameFastPath }},
	{"PodGroupPreemptionPolicy", func(f *Features) *bool { return &f.EnablePodGroupPreemptionPolicy }},
	{"CompositePodGroup", func(f *Features) *bool { return &f.EnableCompositePodGroup }},
	{"OpportunisticBatching", func(f *Features) *bool { return &f.EnableOpportunisticBatching }},
	{"SchedulerPopFromBackoffQ", func(f *Features) *bool { return &f.EnableSchedulerPopFromBackoffQ }},
	{"NominatedNodeNameForExpectation", func(f *Features) *bool { return &f.EnableNominatedNodeNameForExpectation }},
	{"SchedulerAsyncAPICalls", func(f *Features) *bool { return &f.EnableSchedulerAsyncAPICalls }},
	{"SchedulerPreQueueingHints", func(f *Features) *bool { return &f.EnableSchedulerPreQueueingHints }},
	{"PodObservedGenerationTracking", func(f *Features) *bool { return &f.EnablePodObservedGenerationTracking }},
}

// FromGate reads every scheduling gate of a resolved gate into Features
// (upstream's NewSchedulerFeaturesFromGates, plus the gates the queue and
// the cycle read).
func FromGate(g featuregate.FeatureGate) Features {
	var f Features
	for _, gf := range gateFields {
		*gf.field(&f) = g.Enabled(gf.gate)
	}
	return f
}

// AffectsScheduling says whether a gate changes what the scheduler does:
// it is one of the gates Features carries. kube-scheduler registers every
// Kubernetes gate; the others change nothing in scheduling.
func AffectsScheduling(gate string) bool {
	for _, gf := range gateFields {
		if string(gf.gate) == gate {
			return true
		}
	}
	return false
}

// quietGate is the gate with its warnings kept from klog (which would
// write them over the debugger's screen); Resolve reports them as notes.
type quietGate struct {
	featuregate.MutableVersionedFeatureGate
}

// gateWithLoggers is what featuregate's gate implements besides
// MutableVersionedFeatureGate.
type gateWithLoggers interface {
	featuregate.MutableFeatureGateWithLogger
	featuregate.MutableVersionedFeatureGateWithLogger
}

func (g quietGate) Set(value string) error {
	return g.MutableVersionedFeatureGate.(gateWithLoggers).SetWithLogger(klog.Logger{}, value)
}

func (g quietGate) SetEmulationVersionAndMinCompatibilityVersion(emu, minCompat *version.Version) error {
	return g.MutableVersionedFeatureGate.(gateWithLoggers).SetEmulationVersionAndMinCompatibilityVersionWithLogger(klog.Logger{}, emu, minCompat)
}

// NewGate returns kube-scheduler v1.37's feature gate: every gate it
// registers (zz_generated_gates.go), at emulation version 1.37 with
// minimum compatibility version 1.36, nothing set.
func NewGate() featuregate.MutableVersionedFeatureGate {
	g := featuregate.NewVersionedFeatureGate(version.MustParse(BinaryVersion).WithPatch(0))
	// The table is generated from the registry kube-scheduler builds and
	// pinned by conformance/gatetable: it cannot fail to register.
	if err := g.AddVersioned(kubeSchedulerGates); err != nil {
		panic(fmt.Sprintf("registering kube-scheduler's feature gates: %v", err))
	}
	deps := make(map[featuregate.Feature][]featuregate.Feature, len(kubeSchedulerGateDependencies))
	for k, v := range kubeSchedulerGateDependencies {
		deps[k] = append([]featuregate.Feature(nil), v...)
	}
	if err := g.AddDependencies(deps); err != nil {
		panic(fmt.Sprintf("registering kube-scheduler's feature gate dependencies: %v", err))
	}
	return quietGate{g}
}

// Resolved is the scheduler kube-scheduler's flags describe: the version
// it emulates and every gate's value there.
type Resolved struct {
	// EmulatedVersion and MinCompatibilityVersion are major.minor.
	EmulatedVersion         string
	MinCompatibilityVersion string
	// Gate is the resolved gate: every gate kube-scheduler registers.
	Gate featuregate.FeatureGate
	// Features are the scheduling gates' values.
	Features Features
	// NonDefault lists, sorted, the scheduling gates whose value differs
	// from their default at the emulated version ("Gate=true").
	NonDefault []string
	// Notes are what kube-scheduler would warn about, and the gates set
	// that do not change scheduling.
	Notes []string
}

// Version is how the header names the scheduler: "kube-scheduler 1.37".
func (r *Resolved) Version() string { return "kube-scheduler " + r.EmulatedVersion }

// Summary is the version with the non-default scheduling gates, for
// headers: "kube-scheduler 1.35 (gates: DRAPrioritizedList=false)".
func (r *Resolved) Summary() string {
	if len(r.NonDefault) == 0 {
		return r.Version()
	}
	return r.Version() + " (gates: " + strings.Join(r.NonDefault, ",") + ")"
}

// Short is the version with the number of non-default scheduling gates,
// where a line is short: "kube-scheduler 1.35 +2 gates".
func (r *Resolved) Short() string {
	switch n := len(r.NonDefault); n {
	case 0:
		return r.Version()
	case 1:
		return r.Version() + " +1 gate"
	default:
		return fmt.Sprintf("%s +%d gates", r.Version(), n)
	}
}

// Defaults is kube-scheduler v1.37 with nothing set, resolved once and
// shared: callers only read it.
var Defaults = sync.OnceValue(func() *Resolved {
	r, err := Resolve("", "", "")
	if err != nil {
		panic(fmt.Sprintf("resolving the default feature gates: %v", err))
	}
	return r
})

// Resolve resolves kube-scheduler's --emulated-version,
// --min-compatibility-version and --feature-gates values (each as the flag
// takes it, "" when not given) exactly as kube-scheduler v1.37 does: the
// same component-globals registry parses the flags, sets the gate's
// emulation version and then the gates, and validates the versions'
// ranges, so the errors are upstream's ("unrecognized feature gate: X",
// "cannot set feature gate X to false, feature is locked to true",
// "emulation version 1.33 is not between [1.34, 1.37.0]", ...).
func Resolve(emulatedVersion, minCompatibilityVersion, featureGates string) (*Resolved, error) {
	gate := NewGate()
	effective := compatibility.NewEffectiveVersion(version.MustParse(BinaryVersion), false, versionFloor, versionFloor)
	registry := compatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(compatibility.DefaultKubeComponent, effective, gate); err != nil {
		return nil, err
	}
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	registry.AddFlags(fs)
	for _, fl := range []struct{ name, value string }{
		{"emulated-version", emulatedVersion},
		{"min-compatibility-version", minCompatibilityVersion},
		{"feature-gates", featureGates},
	} {
		if strings.TrimSpace(fl.value) == "" {
			continue
		}
		if err := fs.Set(fl.name, fl.value); err != nil {
			return nil, fmt.Errorf("invalid argument %q for \"--%s\" flag: %w", fl.value, fl.name, err)
		}
	}
	if err := registry.Set(); err != nil {
		return nil, err
	}
	// The registry's Validate would warn through klog; its two checks are
	// these.
	errs := effective.Validate()
	errs = append(errs, gate.Validate()...)
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	r := &Resolved{
		EmulatedVersion:         effective.EmulationVersion().String(),
		MinCompatibilityVersion: effective.MinCompatibilityVersion().String(),
		Gate:                    gate,
		Features:                FromGate(gate),
	}
	r.NonDefault, r.Notes = differences(gate, featureGates)
	return r, nil
}

// differences lists the scheduling gates whose value is not their default
// at the gate's emulation version, and notes on the gates the flag set:
// kube-scheduler's warnings for GA and deprecated ones, alpha gates on
// when emulating an older version, and those that do not change
// scheduling (said once).
func differences(gate featuregate.MutableVersionedFeatureGate, featureGates string) (nonDefault, notes []string) {
	specs := gate.GetAll()
	for _, gf := range gateFields {
		spec, ok := specs[gf.gate]
		if !ok {
			continue // PreAlpha at this version: always off, never set
		}
		if v := gate.Enabled(gf.gate); v != spec.Default {
			nonDefault = append(nonDefault, fmt.Sprintf("%s=%t", gf.gate, v))
		}
	}
	sort.Strings(nonDefault)

	var noEffect, ga, deprecated, alpha []string
	for _, name := range setGates(featureGates) {
		spec, ok := specs[featuregate.Feature(name)]
		if !ok {
			continue
		}
		switch spec.PreRelease {
		case featuregate.GA:
			ga = append(ga, name)
		case featuregate.Deprecated:
			deprecated = append(deprecated, name)
		}
		if name != "AllAlpha" && name != "AllBeta" && !AffectsScheduling(name) {
			noEffect = append(noEffect, name)
		}
	}
	for name, spec := range specs {
		if spec.PreRelease == featuregate.Alpha && gate.Enabled(name) {
			alpha = append(alpha, string(name))
		}
	}
	sort.Strings(alpha)
	if len(ga) > 0 {
		notes = append(notes, fmt.Sprintf("setting GA feature gates (%s): kube-scheduler warns that they will be removed in a future release", strings.Join(ga, ", ")))
	}
	if len(deprecated) > 0 {
		notes = append(notes, fmt.Sprintf("setting deprecated feature gates (%s): kube-scheduler warns that they will be removed in a future release", strings.Join(deprecated, ", ")))
	}
	if len(alpha) > 0 && gate.EmulationVersion().LessThan(version.MustParse(BinaryVersion).WithPatch(0)) {
		notes = append(notes, fmt.Sprintf("alpha features enabled in emulated version %s (%s): kube-scheduler warns this is unsupported", gate.EmulationVersion(), strings.Join(alpha, ", ")))
	}
	if len(noEffect) > 0 {
		what := "feature gate " + noEffect[0] + " is accepted as kube-scheduler accepts it, but it does"
		if len(noEffect) > 1 {
			what = "feature gates " + strings.Join(noEffect, ", ") + " are accepted as kube-scheduler accepts them, but they do"
		}
		notes = append(notes, what+" not change scheduling")
	}
	return nonDefault, notes
}

// setGates are the gate names a --feature-gates value sets, in order, once
// each ("kube:" prefixes dropped); Resolve has accepted the value.
func setGates(featureGates string) []string {
	var out []string
	seen := map[string]bool{}
	for _, kv := range strings.Split(featureGates, ",") {
		k, _, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		k = strings.TrimPrefix(k, compatibility.DefaultKubeComponent+":")
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
