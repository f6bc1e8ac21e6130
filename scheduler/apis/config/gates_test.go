package config

import (
	"strings"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

func resolved(t *testing.T, emulated, gates string) features.Features {
	t.Helper()
	r, err := features.Resolve(emulated, "", gates)
	if err != nil {
		t.Fatal(err)
	}
	return r.Features
}

func pluginList(p *configv1.Plugins) string {
	var out []string
	for _, pl := range p.MultiPoint.Enabled {
		s := pl.Name
		if pl.Weight != nil {
			s += "×" + string(rune('0'+*pl.Weight))
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// The default plugin set follows the gates as upstream's
// applyFeatureGates does.
func TestDefaultPluginsFollowGates(t *testing.T) {
	const base = "SchedulingGates PrioritySort NodeName NodeUnschedulable TaintToleration×3 NodeAffinity×2 NodePorts "
	for _, tc := range []struct {
		emulated, gates, want string
	}{
		{"1.34", "", base + "NodeResourcesFit×1 VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread×2 InterPodAffinity×2 DynamicResources×2 DefaultPreemption NodeResourcesBalancedAllocation×1 ImageLocality×1 DefaultBinder"},
		{"1.35", "", base + "NodeResourcesFit×1 VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread×2 InterPodAffinity×2 DynamicResources×2 DefaultPreemption NodeResourcesBalancedAllocation×1 ImageLocality×1 DefaultBinder"},
		{"1.36", "", base + "NodeResourcesFit×1 VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread×2 InterPodAffinity×2 DynamicResources×2 DefaultPreemption NodeResourcesBalancedAllocation×1 ImageLocality×1 DefaultBinder NodeDeclaredFeatures"},
		{"1.34", "DynamicResourceAllocation=false,DRAAdminAccess=false,DRASchedulerFilterTimeout=false,DRAPrioritizedList=false", base + "NodeResourcesFit×1 VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread×2 InterPodAffinity×2 DefaultPreemption NodeResourcesBalancedAllocation×1 ImageLocality×1 DefaultBinder"},
		{"1.37", "InPlacePodVerticalScalingSchedulerPreemption=true,GenericWorkload=true,TopologyAwareWorkloadScheduling=true", base + "DeferredPodScheduling NodeResourcesFit×1 VolumeRestrictions NodeVolumeLimits VolumeBinding VolumeZone PodTopologySpread×2 InterPodAffinity×2 DynamicResources×2 DefaultPreemption NodeResourcesBalancedAllocation×1 ImageLocality×1 DefaultBinder NodeDeclaredFeatures GangScheduling TopologyPlacementGenerator PodGroupPodsCount×1"},
	} {
		f := resolved(t, tc.emulated, tc.gates)
		if got := pluginList(DefaultPlugins(f)); got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.emulated, tc.gates, got, tc.want)
		}
	}
	got := GatedPlugins(resolved(t, "1.37", "GenericWorkload=true"))
	if len(got) != 3 || got[2] != (GatedPlugin{"GenericWorkload", names.GangScheduling}) {
		t.Errorf("GatedPlugins = %v", got)
	}
}

// Gated arg defaults: VolumeBinding's shape with StorageCapacityScoring,
// DynamicResources' timeouts with their gates.
func TestArgDefaultsFollowGates(t *testing.T) {
	for _, tc := range []struct {
		emulated, gates        string
		shape, filter, binding bool
	}{
		{"1.34", "", false, true, false},
		{"1.35", "", false, true, false},
		{"1.36", "", false, true, true},
		{"1.37", "", true, true, true},
		{"1.37", "StorageCapacityScoring=false,DRASchedulerFilterTimeout=false,DRADeviceBindingConditions=false", false, false, false},
	} {
		f := resolved(t, tc.emulated, tc.gates)
		vb := DefaultPluginArgs(names.VolumeBinding, f).(*configv1.VolumeBindingArgs)
		dra := DefaultPluginArgs(names.DynamicResources, f).(*configv1.DynamicResourcesArgs)
		if got := len(vb.Shape) > 0; got != tc.shape {
			t.Errorf("%s %s: shape defaulted %t, want %t", tc.emulated, tc.gates, got, tc.shape)
		}
		if got := dra.FilterTimeout != nil; got != tc.filter {
			t.Errorf("%s %s: filterTimeout defaulted %t, want %t", tc.emulated, tc.gates, got, tc.filter)
		}
		if got := dra.BindingTimeout != nil; got != tc.binding {
			t.Errorf("%s %s: bindingTimeout defaulted %t, want %t", tc.emulated, tc.gates, got, tc.binding)
		}
	}
}

// Fields whose gate is off are refused with upstream's messages; a
// configuration valid at 1.37 may not be at 1.35.
func TestGatedValidation(t *testing.T) {
	const cfg = cfgHeader + `profiles:
- pluginConfig:
  - name: VolumeBinding
    args: {shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]}
  - name: DynamicResources
    args: {filterTimeout: 5s, bindingTimeout: 60s}
`
	if _, r, err := LoadData("sched.yaml", []byte(cfg), features.Default()); err != nil {
		t.Fatalf("at 1.37: %v\n%s", err, r)
	}
	_, r, err := LoadData("sched.yaml", []byte(cfg), resolved(t, "1.35", "DRASchedulerFilterTimeout=false"))
	if err == nil {
		t.Fatal("at 1.35 the gated fields were accepted")
	}
	var msgs []string
	for _, p := range r.Problems {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"profiles[0].pluginConfig[0].args.shape: Invalid value: ",
		"unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
		"profiles[0].pluginConfig[1].args.filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled",
		"profiles[0].pluginConfig[1].args.bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}
