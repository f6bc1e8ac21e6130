package config

import (
	"encoding/json"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

func ptrTo[T any](v T) *T { return &v }

func defaultResourceSpec() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{{Name: string(v1.ResourceCPU), Weight: 1}, {Name: string(v1.ResourceMemory), Weight: 1}}
}

// gatedDefaults are the plugins feature gates add to the default plugins,
// in the order upstream's applyFeatureGates (pkg/scheduler/apis/config/v1/
// default_plugins.go) adds them: each appended, or inserted before another.
var gatedDefaults = []struct {
	gate   string
	on     func(features.Features) bool
	plugin configv1.Plugin
	before string
}{
	{"NodeDeclaredFeatures", func(f features.Features) bool { return f.EnableNodeDeclaredFeatures },
		configv1.Plugin{Name: names.NodeDeclaredFeatures}, ""},
	{"InPlacePodVerticalScalingSchedulerPreemption", func(f features.Features) bool { return f.EnableInPlacePodVerticalScalingSchedulerPreemption },
		configv1.Plugin{Name: names.DeferredPodScheduling}, names.NodeResourcesFit},
	// Before DefaultPreemption: deallocating an idle claim is tried before
	// evicting pods.
	{"DynamicResourceAllocation", func(f features.Features) bool { return f.EnableDynamicResourceAllocation },
		configv1.Plugin{Name: names.DynamicResources, Weight: ptrTo[int32](2)}, names.DefaultPreemption},
	{"GenericWorkload", func(f features.Features) bool { return f.EnableGenericWorkload },
		configv1.Plugin{Name: names.GangScheduling}, ""},
	{"TopologyAwareWorkloadScheduling", func(f features.Features) bool { return f.EnableTopologyAwareWorkloadScheduling },
		configv1.Plugin{Name: names.TopologyPlacementGenerator}, ""},
	{"TopologyAwareWorkloadScheduling", func(f features.Features) bool { return f.EnableTopologyAwareWorkloadScheduling },
		configv1.Plugin{Name: names.PodGroupPodsCount, Weight: ptrTo[int32](1)}, ""},
}

// DefaultPlugins returns the default plugin set of a v1 profile under the
// feature gates f: one MultiPoint list, as getDefaultPlugins builds it.
func DefaultPlugins(f features.Features) *configv1.Plugins {
	w := func(n int32) *int32 { return &n }
	enabled := []configv1.Plugin{
		{Name: names.SchedulingGates},
		{Name: names.PrioritySort},
		{Name: names.NodeName},
		{Name: names.NodeUnschedulable},
		{Name: names.TaintToleration, Weight: w(3)},
		{Name: names.NodeAffinity, Weight: w(2)},
		{Name: names.NodePorts},
		{Name: names.NodeResourcesFit, Weight: w(1)},
		{Name: names.VolumeRestrictions},
		{Name: names.NodeVolumeLimits},
		{Name: names.VolumeBinding},
		{Name: names.VolumeZone},
		{Name: names.PodTopologySpread, Weight: w(2)},
		{Name: names.InterPodAffinity, Weight: w(2)},
		{Name: names.DefaultPreemption},
		{Name: names.NodeResourcesBalancedAllocation, Weight: w(1)},
		{Name: names.ImageLocality, Weight: w(1)},
		{Name: names.DefaultBinder},
	}
	for _, g := range gatedDefaults {
		if !g.on(f) {
			continue
		}
		p := g.plugin
		if p.Weight != nil {
			p.Weight = w(*p.Weight)
		}
		at := slices.IndexFunc(enabled, func(e configv1.Plugin) bool { return g.before != "" && e.Name == g.before })
		if at < 0 {
			enabled = append(enabled, p)
		} else {
			enabled = slices.Insert(enabled, at, p)
		}
	}
	return &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: enabled}}
}

// GatedPlugin is a plugin a feature gate adds to the default plugins.
type GatedPlugin struct{ Gate, Plugin string }

// GatedPlugins lists the plugins the gates on in f add to the default
// plugins, in the order DefaultPlugins adds them.
func GatedPlugins(f features.Features) []GatedPlugin {
	var out []GatedPlugin
	for _, g := range gatedDefaults {
		if g.on(f) {
			out = append(out, GatedPlugin{g.gate, g.plugin.Name})
		}
	}
	return out
}

// MergePlugins merges a profile's plugins into the defaults, in place
// (mergePlugins in upstream's default_plugins.go): per extension point,
// disabled defaults drop out ("*" drops all), a re-enabled default keeps
// the default's position with the custom settings, other custom plugins
// follow. Merging an already merged set changes nothing.
func MergePlugins(defaults, custom *configv1.Plugins) *configv1.Plugins {
	if custom == nil {
		return defaults
	}
	defaults.MultiPoint = mergePluginSet(defaults.MultiPoint, custom.MultiPoint)
	defaults.PreEnqueue = mergePluginSet(defaults.PreEnqueue, custom.PreEnqueue)
	defaults.QueueSort = mergePluginSet(defaults.QueueSort, custom.QueueSort)
	defaults.PreFilter = mergePluginSet(defaults.PreFilter, custom.PreFilter)
	defaults.Filter = mergePluginSet(defaults.Filter, custom.Filter)
	defaults.PostFilter = mergePluginSet(defaults.PostFilter, custom.PostFilter)
	defaults.PreScore = mergePluginSet(defaults.PreScore, custom.PreScore)
	defaults.Score = mergePluginSet(defaults.Score, custom.Score)
	defaults.Reserve = mergePluginSet(defaults.Reserve, custom.Reserve)
	defaults.Permit = mergePluginSet(defaults.Permit, custom.Permit)
	defaults.PreBind = mergePluginSet(defaults.PreBind, custom.PreBind)
	defaults.Bind = mergePluginSet(defaults.Bind, custom.Bind)
	defaults.PostBind = mergePluginSet(defaults.PostBind, custom.PostBind)
	defaults.PlacementGenerate = mergePluginSet(defaults.PlacementGenerate, custom.PlacementGenerate)
	defaults.PlacementScore = mergePluginSet(defaults.PlacementScore, custom.PlacementScore)
	defaults.PodGroupPostFilter = mergePluginSet(defaults.PodGroupPostFilter, custom.PodGroupPostFilter)
	return defaults
}

func mergePluginSet(def, custom configv1.PluginSet) configv1.PluginSet {
	disabled := map[string]bool{}
	var disabledList []configv1.Plugin
	for _, p := range custom.Disabled {
		disabledList = append(disabledList, configv1.Plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	for _, p := range def.Disabled {
		disabledList = append(disabledList, configv1.Plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	customIdx := map[string]int{}
	for i, p := range custom.Enabled {
		customIdx[p.Name] = i
	}
	replaced := map[int]bool{}
	var enabled []configv1.Plugin
	if !disabled["*"] {
		for _, p := range def.Enabled {
			if disabled[p.Name] {
				continue
			}
			if i, ok := customIdx[p.Name]; ok {
				p = custom.Enabled[i]
				replaced[i] = true
			}
			enabled = append(enabled, p)
		}
	}
	for i, p := range custom.Enabled {
		if !replaced[i] {
			enabled = append(enabled, p)
		}
	}
	return configv1.PluginSet{Enabled: enabled, Disabled: disabledList}
}

// pluginNames lists, sorted, the plugins enabled at the extension points
// whose plugins get default args (pluginsNames in upstream's v1 defaulting).
func pluginNames(p *configv1.Plugins) []string {
	if p == nil {
		return nil
	}
	set := map[string]bool{}
	for _, ps := range []configv1.PluginSet{p.MultiPoint, p.PreFilter, p.Filter, p.PostFilter, p.Reserve, p.PreScore,
		p.Score, p.PreBind, p.Bind, p.PostBind, p.Permit, p.PreEnqueue, p.QueueSort, p.PlacementGenerate, p.PlacementScore} {
		for _, pl := range ps.Enabled {
			set[pl.Name] = true
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Default returns what an empty configuration file yields under the
// feature gates f: one profile "default-scheduler" with the default
// plugins and the default args of every plugin that has args.
func Default(f features.Features) *configv1.KubeSchedulerConfiguration {
	cfg := &configv1.KubeSchedulerConfiguration{}
	cfg.SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind("KubeSchedulerConfiguration"))
	SetDefaults(cfg, f)
	return cfg
}

// SetDefaults applies kube-scheduler's v1 defaulting
// (SetDefaults_KubeSchedulerConfiguration) in place, under the feature
// gates f (kube-scheduler defaults its configuration after setting its
// gates). Typed plugin args are defaulted; plugins that need args and have
// no pluginConfig get one.
func SetDefaults(cfg *configv1.KubeSchedulerConfiguration, f features.Features) {
	if cfg.Parallelism == nil {
		cfg.Parallelism = ptrTo[int32](16)
	}
	if len(cfg.Profiles) == 0 {
		cfg.Profiles = append(cfg.Profiles, configv1.KubeSchedulerProfile{})
	}
	if len(cfg.Profiles) == 1 && cfg.Profiles[0].SchedulerName == nil {
		cfg.Profiles[0].SchedulerName = ptrTo(v1.DefaultSchedulerName)
	}
	for i := range cfg.Profiles {
		setProfileDefaults(&cfg.Profiles[i], f)
	}
	if cfg.PercentageOfNodesToScore == nil {
		cfg.PercentageOfNodesToScore = ptrTo[int32](0) // adaptive
	}
	le := &cfg.LeaderElection
	if le.ResourceLock == "" {
		le.ResourceLock = "leases"
	}
	if le.ResourceNamespace == "" {
		le.ResourceNamespace = configv1.SchedulerDefaultLockObjectNamespace
	}
	if le.ResourceName == "" {
		le.ResourceName = configv1.SchedulerDefaultLockObjectName
	}
	cc := &cfg.ClientConnection
	if cc.ContentType == "" {
		cc.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if cc.QPS == 0 {
		cc.QPS = 50
	}
	if cc.Burst == 0 {
		cc.Burst = 100
	}
	// RecommendedDefaultLeaderElectionConfiguration
	if le.LeaseDuration == (metav1.Duration{}) {
		le.LeaseDuration = metav1.Duration{Duration: 15 * time.Second}
	}
	if le.RenewDeadline == (metav1.Duration{}) {
		le.RenewDeadline = metav1.Duration{Duration: 10 * time.Second}
	}
	if le.RetryPeriod == (metav1.Duration{}) {
		le.RetryPeriod = metav1.Duration{Duration: 2 * time.Second}
	}
	if le.LeaderElect == nil {
		le.LeaderElect = ptrTo(true)
	}
	if cfg.PodInitialBackoffSeconds == nil {
		cfg.PodInitialBackoffSeconds = ptrTo[int64](1)
	}
	if cfg.PodMaxBackoffSeconds == nil {
		cfg.PodMaxBackoffSeconds = ptrTo[int64](10)
	}
	if cfg.EnableProfiling == nil {
		cfg.EnableProfiling = ptrTo(true)
	}
	if *cfg.EnableProfiling && cfg.EnableContentionProfiling == nil {
		cfg.EnableContentionProfiling = ptrTo(true)
	}
	syncRawArgs(cfg)
}

// syncRawArgs re-encodes typed args into Args.Raw, so that the raw form
// (which is what gets serialized) shows the defaulted values.
func syncRawArgs(cfg *configv1.KubeSchedulerConfiguration) {
	for i := range cfg.Profiles {
		for j := range cfg.Profiles[i].PluginConfig {
			a := &cfg.Profiles[i].PluginConfig[j].Args
			if a.Object == nil {
				continue
			}
			if raw, err := json.Marshal(a.Object); err == nil {
				a.Raw = raw
			}
		}
	}
}

func setProfileDefaults(prof *configv1.KubeSchedulerProfile, f features.Features) {
	prof.Plugins = MergePlugins(DefaultPlugins(f), prof.Plugins)
	existing := map[string]bool{}
	for j := range prof.PluginConfig {
		existing[prof.PluginConfig[j].Name] = true
		if args := prof.PluginConfig[j].Args.Object; args != nil {
			SetPluginArgsDefaults(args, f)
		}
	}
	for _, name := range pluginNames(prof.Plugins) {
		if existing[name] {
			continue
		}
		args := DefaultPluginArgs(name, f)
		if args == nil {
			continue // no args, or not in tree
		}
		prof.PluginConfig = append(prof.PluginConfig, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Object: args}})
	}
}

// DefaultPluginArgs returns the defaulted args of a plugin under the
// feature gates f, or nil when the plugin takes none.
func DefaultPluginArgs(plugin string, f features.Features) runtime.Object {
	args := validation.NewPluginArgs(plugin)
	if args == nil {
		return nil
	}
	SetPluginArgsDefaults(args, f)
	args.GetObjectKind().SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind(plugin + "Args"))
	return args
}

// SetPluginArgsDefaults applies the v1 defaulting of any typed plugin args
// under the feature gates f; other objects are left alone.
func SetPluginArgsDefaults(args runtime.Object, f features.Features) {
	switch a := args.(type) {
	case *configv1.DefaultPreemptionArgs:
		if a.MinCandidateNodesPercentage == nil {
			a.MinCandidateNodesPercentage = ptrTo[int32](10)
		}
		if a.MinCandidateNodesAbsolute == nil {
			a.MinCandidateNodesAbsolute = ptrTo[int32](100)
		}
	case *configv1.InterPodAffinityArgs:
		if a.HardPodAffinityWeight == nil {
			a.HardPodAffinityWeight = ptrTo[int32](1)
		}
	case *configv1.VolumeBindingArgs:
		if a.BindTimeoutSeconds == nil {
			a.BindTimeoutSeconds = ptrTo[int64](600)
		}
		if len(a.Shape) == 0 && f.EnableStorageCapacityScoring {
			a.Shape = []configv1.UtilizationShapePoint{{Utilization: 0, Score: validation.MaxCustomPriorityScore}, {Utilization: 100, Score: 0}}
		}
	case *configv1.NodeResourcesBalancedAllocationArgs:
		if len(a.Resources) == 0 {
			a.Resources = defaultResourceSpec()
			return
		}
		for i := range a.Resources {
			if a.Resources[i].Weight == 0 {
				a.Resources[i].Weight = 1
			}
		}
	case *configv1.PodTopologySpreadArgs:
		if a.DefaultingType == "" {
			a.DefaultingType = configv1.SystemDefaulting
		}
	case *configv1.NodeResourcesFitArgs:
		if a.ScoringStrategy == nil {
			a.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated, Resources: defaultResourceSpec()}
		}
		if len(a.ScoringStrategy.Resources) == 0 {
			a.ScoringStrategy.Resources = defaultResourceSpec()
		}
		for i := range a.ScoringStrategy.Resources {
			if a.ScoringStrategy.Resources[i].Weight == 0 {
				a.ScoringStrategy.Resources[i].Weight = 1
			}
		}
	case *configv1.DynamicResourcesArgs:
		if a.FilterTimeout == nil && f.EnableDRASchedulerFilterTimeout {
			a.FilterTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesFilterTimeoutDefault}
		}
		if a.BindingTimeout == nil && f.EnableDRADeviceBindingConditions && f.EnableDRAResourceClaimDeviceStatus {
			a.BindingTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesBindingTimeoutDefault}
		}
	case *configv1.NodeAffinityArgs:
		// no defaults
	}
}
