package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

func loadConfig(t *testing.T, data string) (*configv1.KubeSchedulerConfiguration, *docread.Report, error) {
	t.Helper()
	return LoadData("sched.yaml", []byte(data), features.Default())
}

func args[T any](t *testing.T, prof configv1.KubeSchedulerProfile, plugin string) T {
	t.Helper()
	for _, pc := range prof.PluginConfig {
		if pc.Name == plugin {
			a, ok := pc.Args.Object.(T)
			if !ok {
				t.Fatalf("%s args are %T", plugin, pc.Args.Object)
			}
			return a
		}
	}
	t.Fatalf("no pluginConfig for %s", plugin)
	var zero T
	return zero
}

func TestDefaultConfig(t *testing.T) {
	cfg := Default(features.Default())
	if *cfg.Parallelism != 16 || *cfg.PercentageOfNodesToScore != 0 || *cfg.PodInitialBackoffSeconds != 1 || *cfg.PodMaxBackoffSeconds != 10 {
		t.Errorf("top-level defaults: %+v", cfg)
	}
	if cfg.ClientConnection.QPS != 50 || cfg.ClientConnection.Burst != 100 || cfg.LeaderElection.ResourceNamespace != "kube-system" ||
		cfg.LeaderElection.ResourceName != "kube-scheduler" || cfg.LeaderElection.ResourceLock != "leases" ||
		cfg.LeaderElection.LeaseDuration.Duration != 15*time.Second {
		t.Errorf("client/leader election defaults: %+v %+v", cfg.ClientConnection, cfg.LeaderElection)
	}
	if len(cfg.Profiles) != 1 || *cfg.Profiles[0].SchedulerName != "default-scheduler" {
		t.Fatalf("profiles %+v", cfg.Profiles)
	}
	prof := cfg.Profiles[0]
	var enabled []string
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		enabled = append(enabled, p.Name)
	}
	if got := strings.Join(enabled, ","); got != "SchedulingGates,PrioritySort,NodeName,NodeUnschedulable,TaintToleration,NodeAffinity,NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,NodeDeclaredFeatures" {
		t.Errorf("default plugins %s", got)
	}
	var cfgNames []string
	for _, pc := range prof.PluginConfig {
		cfgNames = append(cfgNames, pc.Name)
	}
	if got := strings.Join(cfgNames, ","); got != "DefaultPreemption,DynamicResources,InterPodAffinity,NodeAffinity,NodeResourcesBalancedAllocation,NodeResourcesFit,PodTopologySpread,VolumeBinding" {
		t.Errorf("plugin configs %s", got)
	}
	fit := args[*configv1.NodeResourcesFitArgs](t, prof, names.NodeResourcesFit)
	if fit.ScoringStrategy.Type != configv1.LeastAllocated || len(fit.ScoringStrategy.Resources) != 2 ||
		fit.ScoringStrategy.Resources[0] != (configv1.ResourceSpec{Name: "cpu", Weight: 1}) ||
		fit.ScoringStrategy.Resources[1] != (configv1.ResourceSpec{Name: "memory", Weight: 1}) {
		t.Errorf("fit args %+v", fit.ScoringStrategy)
	}
	if p := args[*configv1.DefaultPreemptionArgs](t, prof, names.DefaultPreemption); *p.MinCandidateNodesPercentage != 10 || *p.MinCandidateNodesAbsolute != 100 {
		t.Errorf("preemption args %+v", p)
	}
	if a := args[*configv1.InterPodAffinityArgs](t, prof, names.InterPodAffinity); *a.HardPodAffinityWeight != 1 {
		t.Errorf("IPA args")
	}
	if a := args[*configv1.PodTopologySpreadArgs](t, prof, names.PodTopologySpread); a.DefaultingType != configv1.SystemDefaulting || a.DefaultConstraints != nil {
		t.Errorf("PTS args %+v", a)
	}
	vb := args[*configv1.VolumeBindingArgs](t, prof, names.VolumeBinding)
	if *vb.BindTimeoutSeconds != 600 || !reflect.DeepEqual(vb.Shape, []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}) {
		t.Errorf("VolumeBinding args %+v", vb)
	}
	ba := args[*configv1.NodeResourcesBalancedAllocationArgs](t, prof, names.NodeResourcesBalancedAllocation)
	if len(ba.Resources) != 2 || ba.Resources[0].Name != "cpu" || ba.Resources[1].Weight != 1 {
		t.Errorf("BA args %+v", ba)
	}
	dra := args[*configv1.DynamicResourcesArgs](t, prof, names.DynamicResources)
	if dra.FilterTimeout.Duration != 10*time.Second || dra.BindingTimeout.Duration != 600*time.Second {
		t.Errorf("DRA args %+v", dra)
	}
	if errs := validation.ValidateKubeSchedulerConfiguration(cfg, features.Default()); len(errs) != 0 {
		t.Errorf("default config invalid: %v", errs)
	}
	// Defaulting is idempotent.
	again := cfg.DeepCopy()
	SetDefaults(again, features.Default())
	if !equality.Semantic.DeepEqual(cfg, again) {
		t.Errorf("defaulting twice changed the configuration")
	}
	// An empty file yields the same.
	empty, r, err := loadConfig(t, "# nothing\n")
	if err != nil || !equality.Semantic.DeepEqual(empty, cfg) {
		t.Errorf("empty file: %v\n%s", err, r)
	}
}

func TestDefaultPluginArgs(t *testing.T) {
	d := features.Default()
	if a := DefaultPluginArgs(names.NodeResourcesFit, d).(*configv1.NodeResourcesFitArgs); a.Kind != "NodeResourcesFitArgs" || a.ScoringStrategy == nil {
		t.Errorf("%+v", a)
	}
	if a := DefaultPluginArgs(names.DefaultPreemption, d).(*configv1.DefaultPreemptionArgs); *a.MinCandidateNodesAbsolute != 100 {
		t.Errorf("%+v", a)
	}
	if DefaultPluginArgs(names.TaintToleration, d) != nil {
		t.Errorf("TaintToleration has no args")
	}
	// Fresh objects each time.
	a, b := DefaultPluginArgs(names.NodeResourcesFit, d).(*configv1.NodeResourcesFitArgs), DefaultPluginArgs(names.NodeResourcesFit, d).(*configv1.NodeResourcesFitArgs)
	a.ScoringStrategy.Resources[0].Weight = 7
	if b.ScoringStrategy.Resources[0].Weight != 1 {
		t.Errorf("shared default slices")
	}
}

const cfgHeader = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

func TestLoadConfigDecodesArgs(t *testing.T) {
	cfg, r, err := loadConfig(t, cfgHeader+`parallelism: 4
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - {name: ImageLocality, weight: 5}
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 0}, {name: example.com/gpu, weight: 3}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{maxSkew: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]
  - name: DefaultPreemption
    args: {apiVersion: kubescheduler.config.k8s.io/v1, kind: DefaultPreemptionArgs, minCandidateNodesAbsolute: 5}
- schedulerName: other
`)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if *cfg.Parallelism != 4 || len(cfg.Profiles) != 2 || *cfg.Profiles[1].SchedulerName != "other" {
		t.Fatalf("cfg %+v", cfg)
	}
	prof := cfg.Profiles[0]
	fit := args[*configv1.NodeResourcesFitArgs](t, prof, names.NodeResourcesFit)
	if fit.ScoringStrategy.Type != configv1.MostAllocated || fit.ScoringStrategy.Resources[0].Weight != 1 || fit.ScoringStrategy.Resources[1].Weight != 3 {
		t.Errorf("fit %+v", fit.ScoringStrategy)
	}
	pts := args[*configv1.PodTopologySpreadArgs](t, prof, names.PodTopologySpread)
	if pts.DefaultingType != configv1.ListDefaulting || len(pts.DefaultConstraints) != 1 {
		t.Errorf("pts %+v", pts)
	}
	dp := args[*configv1.DefaultPreemptionArgs](t, prof, names.DefaultPreemption)
	if *dp.MinCandidateNodesAbsolute != 5 || *dp.MinCandidateNodesPercentage != 10 {
		t.Errorf("preemption %+v", dp)
	}
	// The profile's ImageLocality weight replaces the default in place.
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		if p.Name == names.ImageLocality && *p.Weight != 5 {
			t.Errorf("ImageLocality weight %d", *p.Weight)
		}
	}
	if len(prof.Plugins.Score.Disabled) != 1 {
		t.Errorf("score disabled %+v", prof.Plugins.Score)
	}
	// Raw follows the typed, defaulted args.
	for _, pc := range prof.PluginConfig {
		if pc.Name == names.NodeResourcesFit && !strings.Contains(string(pc.Args.Raw), `"weight":1`) {
			t.Errorf("raw args not synced: %s", pc.Args.Raw)
		}
	}
	// The second profile gets its own defaults.
	if fit2 := args[*configv1.NodeResourcesFitArgs](t, cfg.Profiles[1], names.NodeResourcesFit); fit2.ScoringStrategy.Type != configv1.LeastAllocated {
		t.Errorf("profile 2 fit %+v", fit2.ScoringStrategy)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		parse bool     // a *docread.ParseError, no configuration
		want  []string // problems
	}{
		{"not yaml", "a: [\n", true, nil},
		{"wrong kind", "apiVersion: v1\nkind: Pod\n", true, nil},
		{"old version", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", true, nil},
		{"two documents", cfgHeader + "---\n" + cfgHeader, true, nil},
		{"bad type", cfgHeader + "parallelism: many\n", true, []string{"parallelism: cannot unmarshal string into a value of type int32"}},
		{"percentage", cfgHeader + "percentageOfNodesToScore: 101\nprofiles:\n- schedulerName: a\n  percentageOfNodesToScore: -1\n", false, []string{
			"KubeSchedulerConfiguration: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
			"profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
		}},
		{"unknown plugin in pluginConfig", cfgHeader + "profiles:\n- schedulerName: s1\n  pluginConfig:\n  - name: NodeResourcesFit\n  - name: NodeResoucesFit\n    args: {}\n", false, []string{
			`profiles[0].pluginConfig[1].name: Invalid value: "NodeResoucesFit": unknown plugin (profile "s1")`,
		}},
		{"unknown enabled plugin", cfgHeader + "profiles:\n- plugins:\n    filter:\n      enabled: [{name: Nope}]\n", false, []string{
			`profiles[0].plugins.filter.enabled[0].name: Invalid value: "Nope": unknown plugin (profile "default-scheduler")`,
		}},
		{"removed plugin", cfgHeader + "profiles:\n- pluginConfig:\n  - name: EBSLimits\n", false, []string{
			`profiles[0].pluginConfig[0]: Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")`,
		}},
		{"duplicate pluginConfig", cfgHeader + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n  - name: InterPodAffinity\n", false, []string{
			`profiles[0].pluginConfig[1]: Duplicate value: "InterPodAffinity"`,
		}},
		{"weights", cfgHeader + `profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: Balanced, resources: [{name: cpu, weight: 101}]}}
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu, weight: 2}, {name: cpu}]}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 101}
`, false, []string{
			`profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Balanced": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`,
			`profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]`,
			`profiles[0].pluginConfig[1].args.resources[0].weight: Invalid value: 2: must be 1`,
			`profiles[0].pluginConfig[1].args.resources[1].name: Duplicate value: "cpu"`,
			`profiles[0].pluginConfig[2].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]`,
		}},
		{"spread defaults", cfgHeader + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: {defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}\n", false, []string{
			`profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty`,
		}},
		{"preemption zeros", cfgHeader + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}\n", false, []string{
			"minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
			"minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage",
		}},
		{"args of another kind", cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {kind: InterPodAffinityArgs, apiVersion: kubescheduler.config.k8s.io/v1}\n", false, []string{
			"profiles[0].pluginConfig[0].args: args for plugin NodeResourcesFit were not of type NodeResourcesFitArgs.kubescheduler.config.k8s.io, got InterPodAffinityArgs.kubescheduler.config.k8s.io",
		}},
		{"unknown field", cfgHeader + "parallelizm: 3\nprofiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: {bindTimeout: 3}\n", false, []string{
			"KubeSchedulerConfiguration: parallelizm: unknown field",
			"profiles[0].pluginConfig[0].args.bindTimeout: unknown field",
		}},
		{"profiles", cfgHeader + "profiles:\n- schedulerName: a\n- {}\n- schedulerName: a\n  plugins: {queueSort: {enabled: [{name: PrioritySort}]}}\n", false, []string{
			"profiles[1].schedulerName: Required value",
			`profiles[2].schedulerName: Duplicate value: "a (as profiles[0].schedulerName)"`,
			"profiles[2].plugins.queueSort: Invalid value:",
		}},
		{"backoff", cfgHeader + "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\nparallelism: 0\n", false, []string{
			"podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds",
			"parallelism: Invalid value: 0: should be an integer value greater than zero",
		}},
		{"node affinity args", cfgHeader + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]\n", false, []string{
			"profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, r, err := loadConfig(t, tc.data)
			if err == nil {
				t.Fatalf("no error; report:\n%s", r)
			}
			if !strings.HasPrefix(err.Error(), "sched.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			_, isParse := err.(*docread.ParseError)
			if isParse != tc.parse {
				t.Errorf("parse error %v, want %v: %v", isParse, tc.parse, err)
			}
			if tc.parse && cfg != nil {
				t.Errorf("configuration returned with a parse error")
			}
			if !tc.parse && cfg == nil {
				t.Errorf("no configuration returned for display")
			}
			for _, w := range tc.want {
				if !hasProblem(r, w) {
					t.Errorf("missing %q in\n%s", w, r)
				}
			}
			if len(tc.want) > 0 && len(r.Errors()) != len(tc.want) {
				t.Errorf("%d errors, want %d:\n%s", len(r.Errors()), len(tc.want), r)
			}
		})
	}
}

func TestLoadConfigFile(t *testing.T) {
	if _, _, err := Load("/nonexistent/sched.yaml", features.Default()); err == nil || !strings.Contains(err.Error(), "cannot read file") {
		t.Errorf("err = %v", err)
	}
}

func TestMergePluginsIdempotent(t *testing.T) {
	custom := &configv1.Plugins{
		MultiPoint: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "*"}}, Enabled: []configv1.Plugin{{Name: names.PrioritySort}, {Name: names.DefaultBinder}}},
		Filter:     configv1.PluginSet{Enabled: []configv1.Plugin{{Name: names.NodeName}}},
	}
	once := MergePlugins(DefaultPlugins(features.Default()), custom.DeepCopy())
	twice := MergePlugins(DefaultPlugins(features.Default()), once.DeepCopy())
	if len(once.MultiPoint.Enabled) != 2 || len(once.Filter.Enabled) != 1 {
		t.Errorf("merge with * disabled: %+v", once.MultiPoint)
	}
	if !reflect.DeepEqual(once.MultiPoint.Enabled, twice.MultiPoint.Enabled) || !reflect.DeepEqual(once.Filter, twice.Filter) {
		t.Errorf("merge not idempotent:\n%+v\n%+v", once, twice)
	}
}

// hasProblem reports whether a problem of r renders with want in it.
func hasProblem(r *docread.Report, want string) bool {
	for _, p := range r.Problems {
		if strings.Contains(p.String(), want) {
			return true
		}
	}
	return false
}

func TestMergePlugins(t *testing.T) {
	w := int32(5)
	custom := &configv1.Plugins{MultiPoint: configv1.PluginSet{
		Enabled:  []configv1.Plugin{{Name: "ImageLocality", Weight: &w}, {Name: "Custom"}},
		Disabled: []configv1.Plugin{{Name: "NodePorts"}},
	}}
	got := MergePlugins(DefaultPlugins(features.Default()), custom).MultiPoint
	n := enabledNames(got.Enabled)
	if n[len(n)-1] != "Custom" {
		t.Errorf("custom plugins go last: %v", n)
	}
	for _, p := range got.Enabled {
		if p.Name == "NodePorts" {
			t.Error("disabled plugin kept")
		}
		if p.Name == "ImageLocality" && (p.Weight == nil || *p.Weight != 5) {
			t.Error("re-enabled default must take the custom weight in place")
		}
	}
	all := MergePlugins(DefaultPlugins(features.Default()), &configv1.Plugins{Score: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "*"}}}})
	if len(all.Score.Enabled) != 0 || len(all.Score.Disabled) != 1 {
		t.Errorf("score disabled *: %+v", all.Score)
	}
}

func enabledNames(ps []configv1.Plugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}
