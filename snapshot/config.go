package snapshot

// Scheduler configuration files: decoding, v1 defaulting and validation,
// written from k8s.io/kubernetes v1.37.1
//   pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go,
//   pkg/scheduler/apis/config/validation/validation.go, validation_pluginargs.go,
// with the 1.37 default feature gates.

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

// Plugin names of kube-scheduler v1.37 (pkg/scheduler/framework/plugins/names).
const (
	PrioritySort                    = "PrioritySort"
	DefaultBinder                   = "DefaultBinder"
	DefaultPreemption               = "DefaultPreemption"
	DynamicResources                = "DynamicResources"
	GangScheduling                  = "GangScheduling"
	ImageLocality                   = "ImageLocality"
	InterPodAffinity                = "InterPodAffinity"
	NodeAffinity                    = "NodeAffinity"
	NodeDeclaredFeatures            = "NodeDeclaredFeatures"
	NodeName                        = "NodeName"
	NodePorts                       = "NodePorts"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	NodeResourcesFit                = "NodeResourcesFit"
	NodeUnschedulable               = "NodeUnschedulable"
	NodeVolumeLimits                = "NodeVolumeLimits"
	PodTopologySpread               = "PodTopologySpread"
	DeferredPodScheduling           = "DeferredPodScheduling"
	SchedulingGates                 = "SchedulingGates"
	TaintToleration                 = "TaintToleration"
	VolumeBinding                   = "VolumeBinding"
	VolumeRestrictions              = "VolumeRestrictions"
	VolumeZone                      = "VolumeZone"
	TopologyPlacementGenerator      = "TopologyPlacementGenerator"
	PodGroupPodsCount               = "PodGroupPodsCount"
)

// KnownPlugins is the in-tree registry of kube-scheduler v1.37.
var KnownPlugins = map[string]bool{
	PrioritySort: true, DefaultBinder: true, DefaultPreemption: true, DynamicResources: true,
	GangScheduling: true, ImageLocality: true, InterPodAffinity: true, NodeAffinity: true,
	NodeDeclaredFeatures: true, NodeName: true, NodePorts: true, NodeResourcesBalancedAllocation: true,
	NodeResourcesFit: true, NodeUnschedulable: true, NodeVolumeLimits: true, PodTopologySpread: true,
	DeferredPodScheduling: true, SchedulingGates: true, TaintToleration: true, VolumeBinding: true,
	VolumeRestrictions: true, VolumeZone: true, TopologyPlacementGenerator: true, PodGroupPodsCount: true,
}

// Plugins removed from kube-scheduler, rejected in configurations.
var removedPlugins = map[string]bool{"AzureDiskLimits": true, "CinderLimits": true, "EBSLimits": true, "GCEPDLimits": true}

// pluginArgsTypes maps plugin names to their typed args.
var pluginArgsTypes = map[string]func() runtime.Object{
	DefaultPreemption:               func() runtime.Object { return &configv1.DefaultPreemptionArgs{} },
	InterPodAffinity:                func() runtime.Object { return &configv1.InterPodAffinityArgs{} },
	NodeAffinity:                    func() runtime.Object { return &configv1.NodeAffinityArgs{} },
	NodeResourcesBalancedAllocation: func() runtime.Object { return &configv1.NodeResourcesBalancedAllocationArgs{} },
	NodeResourcesFit:                func() runtime.Object { return &configv1.NodeResourcesFitArgs{} },
	PodTopologySpread:               func() runtime.Object { return &configv1.PodTopologySpreadArgs{} },
	VolumeBinding:                   func() runtime.Object { return &configv1.VolumeBindingArgs{} },
	DynamicResources:                func() runtime.Object { return &configv1.DynamicResourcesArgs{} },
}

var (
	configScheme  = runtime.NewScheme()
	configDecoder *kjson.Serializer
)

func init() {
	if err := configv1.AddToScheme(configScheme); err != nil {
		panic(err) // static registration; cannot fail
	}
	configDecoder = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, configScheme, configScheme, kjson.SerializerOptions{Strict: true})
}

const configObject = "KubeSchedulerConfiguration"

// LoadConfig reads a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1,
// YAML or JSON), decodes every pluginConfig's args into its typed struct,
// applies kube-scheduler's v1 defaulting and validates the result.
//
// The error is non-nil when the file cannot be read or parsed, is not a v1
// KubeSchedulerConfiguration, or is invalid (kube-scheduler would refuse
// to start); the Report has one problem per finding. An invalid
// configuration is still returned, defaulted, for display.
func LoadConfig(path string) (*configv1.KubeSchedulerConfiguration, *docread.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &docread.Report{}, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	return LoadConfigData(path, data)
}

// LoadConfigData is LoadConfig for data in memory; name is used in problems.
func LoadConfigData(name string, data []byte) (*configv1.KubeSchedulerConfiguration, *docread.Report, error) {
	r := &docread.Report{}
	docs, err := docread.ReadDocuments(name, data)
	if err != nil {
		return nil, r, err
	}
	if len(docs) == 0 {
		r.Warnf(name, 0, "", "", "empty configuration: using the defaults")
		return DefaultConfig(), r, nil
	}
	if len(docs) > 1 {
		return nil, r, &docread.ParseError{File: name, Line: docs[1].Line, Msg: "a scheduler configuration file holds exactly one document"}
	}
	doc := docs[0]
	if doc.Err != nil {
		return nil, r, &docread.ParseError{File: name, Line: doc.Line, Msg: doc.Err.Error(), Err: doc.Err}
	}
	h, err := docread.ReadHeader(doc.JSON)
	if err != nil {
		return nil, r, &docread.ParseError{File: name, Line: doc.Line, Msg: err.Error(), Err: err}
	}
	if h.Kind != "KubeSchedulerConfiguration" || h.APIVersion != configv1.SchemeGroupVersion.String() {
		return nil, r, &docread.ParseError{File: name, Line: doc.Line, Msg: fmt.Sprintf(
			"not a %s KubeSchedulerConfiguration (apiVersion %q, kind %q)", configv1.SchemeGroupVersion, h.APIVersion, h.Kind)}
	}

	cfg := &configv1.KubeSchedulerConfiguration{}
	out, _, err := configDecoder.Decode(doc.JSON, nil, cfg)
	if err != nil && runtime.IsStrictDecodingError(err) && out != nil {
		// kube-scheduler decodes its configuration strictly.
		for _, w := range strictIssues(err) {
			r.Errorf(name, 0, configObject, w.Field, "%s", w.Message)
		}
		err = nil
	}
	if err != nil {
		issues := docread.LocateDecodeErrors(doc.JSON, reflect.TypeOf(cfg), 20)
		if len(issues) == 0 {
			issues = []docread.FieldIssue{{Message: docread.CleanDecodeError(err)}}
		}
		for _, is := range issues {
			r.Errorf(name, 0, configObject, is.Field, "%s", is.Message)
		}
		first := docread.Problem{Field: issues[0].Field, Message: issues[0].Message}
		return nil, r, &docread.ParseError{File: name, Line: doc.Line, Msg: "cannot decode KubeSchedulerConfiguration: " + first.String()}
	}
	decodePluginArgs(name, cfg, r)
	SetConfigDefaults(cfg)
	for _, e := range ValidateConfig(cfg) {
		r.Errorf(name, 0, configObject, e.Field, "%s", e.Message)
	}
	if errs := r.Errors(); len(errs) > 0 {
		return cfg, r, fmt.Errorf("%s: invalid KubeSchedulerConfiguration: %d error(s), the first: %s", name, len(errs), errs[0].String())
	}
	return cfg, r, nil
}

func strictIssues(err error) []docread.FieldIssue {
	var out []docread.FieldIssue
	se, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		return nil
	}
	for _, e := range se.Errors() {
		msg := e.Error()
		if what, fld, ok := docread.StrictField(msg); ok {
			out = append(out, docread.FieldIssue{Field: fld, Message: what + " field"})
		} else {
			out = append(out, docread.FieldIssue{Message: msg})
		}
	}
	return out
}

// decodePluginArgs turns every pluginConfig's raw args into the typed
// args of the plugin it names (as KubeSchedulerConfiguration.DecodeNestedObjects
// does). Plugins without args keep them raw.
func decodePluginArgs(name string, cfg *configv1.KubeSchedulerConfiguration, r *docread.Report) {
	for i := range cfg.Profiles {
		for j := range cfg.Profiles[i].PluginConfig {
			pc := &cfg.Profiles[i].PluginConfig[j]
			path := fmt.Sprintf("profiles[%d].pluginConfig[%d].args", i, j)
			newArgs, ok := pluginArgsTypes[pc.Name]
			if !ok {
				if KnownPlugins[pc.Name] && !emptyRaw(pc.Args.Raw) {
					r.Warnf(name, 0, configObject, path, "plugin %s takes no arguments; ignored", pc.Name)
				}
				continue
			}
			gvk := configv1.SchemeGroupVersion.WithKind(pc.Name + "Args")
			into := newArgs()
			var obj runtime.Object = into
			if !emptyRaw(pc.Args.Raw) {
				decoded, actual, err := configDecoder.Decode(pc.Args.Raw, &gvk, into)
				if err != nil && runtime.IsStrictDecodingError(err) && decoded != nil {
					for _, w := range strictIssues(err) {
						r.Errorf(name, 0, configObject, docread.JoinField(path, w.Field), "%s", w.Message)
					}
					err = nil
				}
				if err != nil {
					issues := docread.LocateDecodeErrors(pc.Args.Raw, reflect.TypeOf(into), 20)
					if len(issues) == 0 {
						issues = []docread.FieldIssue{{Message: fmt.Sprintf("decoding args for plugin %s: %s", pc.Name, docread.CleanDecodeError(err))}}
					}
					for _, is := range issues {
						r.Errorf(name, 0, configObject, docread.JoinField(path, is.Field), "%s", is.Message)
					}
					continue
				}
				if actual == nil || actual.GroupKind() != gvk.GroupKind() {
					got := "<unknown>"
					if actual != nil {
						got = actual.GroupKind().String()
					}
					r.Errorf(name, 0, configObject, path, "args for plugin %s were not of type %s, got %s", pc.Name, gvk.GroupKind(), got)
					continue
				}
				obj = decoded
			}
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			pc.Args.Object = obj
		}
	}
}

func emptyRaw(raw []byte) bool {
	s := string(raw)
	return s == "" || s == "null" || s == "{}"
}

// --- defaults ------------------------------------------------------------------

func defaultResourceSpec() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{{Name: string(v1.ResourceCPU), Weight: 1}, {Name: string(v1.ResourceMemory), Weight: 1}}
}

// DefaultPlugins returns the default plugin set of a v1 profile (one
// MultiPoint list, as pkg/scheduler/apis/config/v1/default_plugins.go
// builds it with the 1.37 default feature gates: NodeDeclaredFeatures and
// DynamicResources on; DeferredPodScheduling, GangScheduling and the
// topology-aware placement plugins off).
func DefaultPlugins() *configv1.Plugins {
	w := func(n int32) *int32 { return &n }
	return &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: []configv1.Plugin{
		{Name: SchedulingGates},
		{Name: PrioritySort},
		{Name: NodeName},
		{Name: NodeUnschedulable},
		{Name: TaintToleration, Weight: w(3)},
		{Name: NodeAffinity, Weight: w(2)},
		{Name: NodePorts},
		{Name: NodeResourcesFit, Weight: w(1)},
		{Name: VolumeRestrictions},
		{Name: NodeVolumeLimits},
		{Name: VolumeBinding},
		{Name: VolumeZone},
		{Name: PodTopologySpread, Weight: w(2)},
		{Name: InterPodAffinity, Weight: w(2)},
		{Name: DynamicResources, Weight: w(2)},
		{Name: DefaultPreemption},
		{Name: NodeResourcesBalancedAllocation, Weight: w(1)},
		{Name: ImageLocality, Weight: w(1)},
		{Name: DefaultBinder},
		{Name: NodeDeclaredFeatures},
	}}}
}

// mergePlugins merges a profile's plugins into the defaults (mergePlugins
// in default_plugins.go); merging an already merged set changes nothing.
func mergePlugins(defaults, custom *configv1.Plugins) *configv1.Plugins {
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
// whose plugins get default args (pluginsNames in defaults.go).
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

// DefaultConfig returns what an empty configuration file yields: one
// profile "default-scheduler" with the default plugins and the default args
// of every plugin that has args.
func DefaultConfig() *configv1.KubeSchedulerConfiguration {
	cfg := &configv1.KubeSchedulerConfiguration{}
	cfg.SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind("KubeSchedulerConfiguration"))
	SetConfigDefaults(cfg)
	return cfg
}

// SetConfigDefaults applies kube-scheduler's v1 defaulting
// (SetDefaults_KubeSchedulerConfiguration) in place. Typed plugin args are
// defaulted; plugins that need args and have no pluginConfig get one.
func SetConfigDefaults(cfg *configv1.KubeSchedulerConfiguration) {
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
		setProfileDefaults(&cfg.Profiles[i])
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

func setProfileDefaults(prof *configv1.KubeSchedulerProfile) {
	prof.Plugins = mergePlugins(DefaultPlugins(), prof.Plugins)
	existing := map[string]bool{}
	for j := range prof.PluginConfig {
		existing[prof.PluginConfig[j].Name] = true
		if args := prof.PluginConfig[j].Args.Object; args != nil {
			SetPluginArgsDefaults(args)
		}
	}
	for _, name := range pluginNames(prof.Plugins) {
		if existing[name] {
			continue
		}
		args := DefaultPluginArgs(name)
		if args == nil {
			continue // no args, or not in tree
		}
		prof.PluginConfig = append(prof.PluginConfig, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Object: args}})
	}
}

// DefaultPluginArgs returns the defaulted args of a plugin, or nil when the
// plugin takes none.
func DefaultPluginArgs(plugin string) runtime.Object {
	newArgs, ok := pluginArgsTypes[plugin]
	if !ok {
		return nil
	}
	args := newArgs()
	SetPluginArgsDefaults(args)
	args.GetObjectKind().SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind(plugin + "Args"))
	return args
}

// SetPluginArgsDefaults applies the v1 defaulting of any typed plugin args;
// other objects are left alone.
func SetPluginArgsDefaults(args runtime.Object) {
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
		// StorageCapacityScoring: beta, on in 1.37.
		if len(a.Shape) == 0 {
			a.Shape = []configv1.UtilizationShapePoint{{Utilization: 0, Score: maxCustomPriorityScore}, {Utilization: 100, Score: 0}}
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
		// DRASchedulerFilterTimeout: beta, on.
		if a.FilterTimeout == nil {
			a.FilterTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesFilterTimeoutDefault}
		}
		// DRADeviceBindingConditions (beta, on) and DRAResourceClaimDeviceStatus (GA).
		if a.BindingTimeout == nil {
			a.BindingTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesBindingTimeoutDefault}
		}
	case *configv1.NodeAffinityArgs:
		// no defaults
	}
}

// maxCustomPriorityScore is the highest score of a utilization shape point.
const maxCustomPriorityScore = 10

// DefaultDefaultPreemptionArgs returns defaulted DefaultPreemption args.
func DefaultDefaultPreemptionArgs() *configv1.DefaultPreemptionArgs {
	return DefaultPluginArgs(DefaultPreemption).(*configv1.DefaultPreemptionArgs)
}

// DefaultInterPodAffinityArgs returns defaulted InterPodAffinity args.
func DefaultInterPodAffinityArgs() *configv1.InterPodAffinityArgs {
	return DefaultPluginArgs(InterPodAffinity).(*configv1.InterPodAffinityArgs)
}

// DefaultNodeAffinityArgs returns defaulted NodeAffinity args.
func DefaultNodeAffinityArgs() *configv1.NodeAffinityArgs {
	return DefaultPluginArgs(NodeAffinity).(*configv1.NodeAffinityArgs)
}

// DefaultNodeResourcesBalancedAllocationArgs returns defaulted
// NodeResourcesBalancedAllocation args.
func DefaultNodeResourcesBalancedAllocationArgs() *configv1.NodeResourcesBalancedAllocationArgs {
	return DefaultPluginArgs(NodeResourcesBalancedAllocation).(*configv1.NodeResourcesBalancedAllocationArgs)
}

// DefaultNodeResourcesFitArgs returns defaulted NodeResourcesFit args.
func DefaultNodeResourcesFitArgs() *configv1.NodeResourcesFitArgs {
	return DefaultPluginArgs(NodeResourcesFit).(*configv1.NodeResourcesFitArgs)
}

// DefaultPodTopologySpreadArgs returns defaulted PodTopologySpread args.
func DefaultPodTopologySpreadArgs() *configv1.PodTopologySpreadArgs {
	return DefaultPluginArgs(PodTopologySpread).(*configv1.PodTopologySpreadArgs)
}

// DefaultVolumeBindingArgs returns defaulted VolumeBinding args.
func DefaultVolumeBindingArgs() *configv1.VolumeBindingArgs {
	return DefaultPluginArgs(VolumeBinding).(*configv1.VolumeBindingArgs)
}

// DefaultDynamicResourcesArgs returns defaulted DynamicResources args.
func DefaultDynamicResourcesArgs() *configv1.DynamicResourcesArgs {
	return DefaultPluginArgs(DynamicResources).(*configv1.DynamicResourcesArgs)
}
