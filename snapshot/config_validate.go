package snapshot

// Validation of a defaulted v1 KubeSchedulerConfiguration, with upstream's
// messages (pkg/scheduler/apis/config/validation). Upstream validates the
// internal form; the checks below read the v1 fields (pointers are set by
// defaulting, a nil one reads as zero as conversion would make it).
// On top of upstream: unknown plugin names are errors here (kube-scheduler
// fails when building the framework), and the args of every in-tree plugin
// are validated as the plugins' constructors do (upstream's
// validatePluginConfig misses NodeResourcesFit: it keys it as
// "NodeResourcesFitArgs").

import (
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ValidateConfig validates a defaulted configuration; each issue names
// the field by its JSON path.
func ValidateConfig(cfg *configv1.KubeSchedulerConfiguration) []docread.Problem {
	var errs field.ErrorList
	apiVersion := configv1.SchemeGroupVersion.String()

	le := cfg.LeaderElection
	if deref(le.LeaderElect) && le.ResourceLock != "leases" {
		errs = append(errs, field.Invalid(field.NewPath("leaderElection", "resourceLock"), le.ResourceLock, `resourceLock value must be "leases"`))
	}
	if p := deref(cfg.Parallelism); p <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("parallelism"), p, "should be an integer value greater than zero"))
	}
	profilesPath := field.NewPath("profiles")
	if len(cfg.Profiles) == 0 {
		errs = append(errs, field.Required(profilesPath, ""))
	} else {
		seen := map[string]int{}
		for i := range cfg.Profiles {
			prof := &cfg.Profiles[i]
			path := profilesPath.Index(i)
			errs = append(errs, validateProfile(path, apiVersion, prof)...)
			name := deref(prof.SchedulerName)
			if idx, ok := seen[name]; ok {
				// upstream passes the other profile's path as the value,
				// which renders as "{}"; name the profile instead.
				errs = append(errs, field.Duplicate(path.Child("schedulerName"), fmt.Sprintf("%s (as %s)", name, profilesPath.Index(idx).Child("schedulerName"))))
			}
			seen[name] = i
		}
		errs = append(errs, validateCommonQueueSort(profilesPath, cfg.Profiles)...)
	}
	if e := validatePercentageOfNodesToScore(field.NewPath("percentageOfNodesToScore"), cfg.PercentageOfNodesToScore); e != nil {
		errs = append(errs, e)
	}
	initial, max := deref(cfg.PodInitialBackoffSeconds), deref(cfg.PodMaxBackoffSeconds)
	if initial <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("podInitialBackoffSeconds"), initial, "must be greater than 0"))
	}
	if max < initial {
		errs = append(errs, field.Invalid(field.NewPath("podMaxBackoffSeconds"), max, "must be greater than or equal to PodInitialBackoffSeconds"))
	}
	errs = append(errs, validateExtenders(field.NewPath("extenders"), cfg.Extenders)...)

	out := make([]docread.Problem, 0, len(errs))
	for _, e := range errs {
		out = append(out, docread.Problem{Severity: docread.Error, Object: configObject, Field: e.Field, Message: e.ErrorBody()})
	}
	return out
}

func validatePercentageOfNodesToScore(p *field.Path, v *int32) *field.Error {
	if v != nil && (*v < 0 || *v > 100) {
		return field.Invalid(p, *v, "not in valid range [0-100]")
	}
	return nil
}

func invalidPluginError(p *field.Path, apiVersion, name string) *field.Error {
	return field.Invalid(p, name, fmt.Sprintf("was invalid in version %q (KubeSchedulerConfiguration is version %q)", apiVersion, apiVersion))
}

func validateProfile(path *field.Path, apiVersion string, prof *configv1.KubeSchedulerProfile) field.ErrorList {
	var errs field.ErrorList
	if deref(prof.SchedulerName) == "" {
		errs = append(errs, field.Required(path.Child("schedulerName"), ""))
	}
	if e := validatePercentageOfNodesToScore(path.Child("percentageOfNodesToScore"), prof.PercentageOfNodesToScore); e != nil {
		errs = append(errs, e)
	}
	profName := deref(prof.SchedulerName)
	if p := prof.Plugins; p != nil {
		pp := path.Child("plugins")
		for _, st := range []struct {
			name string
			set  configv1.PluginSet
		}{
			{"multiPoint", p.MultiPoint}, {"preEnqueue", p.PreEnqueue}, {"queueSort", p.QueueSort}, {"preFilter", p.PreFilter},
			{"filter", p.Filter}, {"postFilter", p.PostFilter}, {"preScore", p.PreScore}, {"score", p.Score},
			{"reserve", p.Reserve}, {"permit", p.Permit}, {"preBind", p.PreBind}, {"bind", p.Bind},
			{"postBind", p.PostBind}, {"placementGenerate", p.PlacementGenerate}, {"placementScore", p.PlacementScore},
			{"podGroupPostFilter", p.PodGroupPostFilter},
		} {
			for i, pl := range st.set.Enabled {
				ip := pp.Child(st.name, "enabled").Index(i)
				switch {
				case removedPlugins[pl.Name]:
					// upstream does not check multiPoint for removed plugins;
					// the framework then fails on the unknown name.
					errs = append(errs, invalidPluginError(ip, apiVersion, pl.Name))
				case !KnownPlugins[pl.Name]:
					errs = append(errs, field.Invalid(ip.Child("name"), pl.Name, fmt.Sprintf("unknown plugin (profile %q)", profName)))
				}
			}
		}
	}
	seen := map[string]bool{}
	for i := range prof.PluginConfig {
		pc := &prof.PluginConfig[i]
		pcPath := path.Child("pluginConfig").Index(i)
		if seen[pc.Name] {
			errs = append(errs, field.Duplicate(pcPath, pc.Name))
		}
		seen[pc.Name] = true
		switch {
		case removedPlugins[pc.Name]:
			errs = append(errs, invalidPluginError(pcPath, apiVersion, pc.Name))
		case !KnownPlugins[pc.Name]:
			errs = append(errs, field.Invalid(pcPath.Child("name"), pc.Name, fmt.Sprintf("unknown plugin (profile %q)", profName)))
		default:
			newArgs, hasArgs := pluginArgsTypes[pc.Name]
			if !hasArgs || pc.Args.Object == nil {
				continue // no args, or they failed to decode (reported)
			}
			argsPath := pcPath.Child("args")
			if want := newArgs(); fmt.Sprintf("%T", want) != fmt.Sprintf("%T", pc.Args.Object) {
				errs = append(errs, field.Invalid(argsPath, pc.Args, "has to match plugin args"))
				continue
			}
			errs = append(errs, ValidatePluginArgs(argsPath, pc.Args.Object)...)
		}
	}
	return errs
}

func validateCommonQueueSort(path *field.Path, profiles []configv1.KubeSchedulerProfile) field.ErrorList {
	var errs field.ErrorList
	var canon configv1.PluginSet
	var queueSortName string
	var queueSortArgs any
	if profiles[0].Plugins != nil {
		canon = profiles[0].Plugins.QueueSort
		if len(canon.Enabled) != 0 {
			queueSortName = canon.Enabled[0].Name
		}
		if n := len(canon.Enabled); n > 1 {
			errs = append(errs, field.Invalid(path.Index(0).Child("plugins", "queueSort", "Enabled"), n, "only one queue sort plugin can be enabled"))
		}
	}
	for _, c := range profiles[0].PluginConfig {
		if queueSortName != "" && c.Name == queueSortName {
			queueSortArgs = c.Args.Object
		}
	}
	for i := 1; i < len(profiles); i++ {
		var curr configv1.PluginSet
		if profiles[i].Plugins != nil {
			curr = profiles[i].Plugins.QueueSort
		}
		if !apiequality.Semantic.DeepEqual(canon, curr) {
			errs = append(errs, field.Invalid(path.Index(i).Child("plugins", "queueSort"), curr, "must be the same for all profiles"))
		}
		for _, c := range profiles[i].PluginConfig {
			if c.Name == queueSortName && !apiequality.Semantic.DeepEqual(queueSortArgs, c.Args.Object) {
				errs = append(errs, field.Invalid(path.Index(i).Child("pluginConfig", "args"), c.Args, "queueSort must be the same for all profiles"))
			}
		}
	}
	return errs
}

func validateExtenders(p *field.Path, extenders []configv1.Extender) field.ErrorList {
	var errs field.ErrorList
	binders := 0
	managed := map[string]bool{}
	for i, e := range extenders {
		ip := p.Index(i)
		if e.PrioritizeVerb != "" && e.Weight <= 0 {
			errs = append(errs, field.Invalid(ip.Child("weight"), e.Weight, "must have a positive weight applied to it"))
		}
		if e.BindVerb != "" {
			binders++
		}
		for j, r := range e.ManagedResources {
			rp := ip.Child("managedResources").Index(j).Child("name")
			var nameErrs field.ErrorList
			for _, msg := range validation.IsQualifiedName(r.Name) {
				nameErrs = append(nameErrs, field.Invalid(rp, r.Name, msg))
			}
			if len(nameErrs) == 0 && !isExtendedResourceName(v1.ResourceName(r.Name)) {
				nameErrs = append(nameErrs, field.Invalid(rp, r.Name, "is an invalid extended resource name"))
			}
			errs = append(errs, nameErrs...)
			if managed[r.Name] {
				errs = append(errs, field.Invalid(rp, r.Name, "duplicate extender managed resource name"))
			}
			managed[r.Name] = true
		}
	}
	if binders > 1 {
		errs = append(errs, field.Invalid(p, fmt.Sprintf("found %d extenders implementing bind", binders), "only one extender can implement bind"))
	}
	return errs
}

// ValidatePluginArgs validates typed plugin args as upstream's
// validation_pluginargs.go does (1.37 default feature gates).
func ValidatePluginArgs(p *field.Path, args any) field.ErrorList {
	switch a := args.(type) {
	case *configv1.DefaultPreemptionArgs:
		return validateDefaultPreemptionArgs(p, a)
	case *configv1.InterPodAffinityArgs:
		if w := deref(a.HardPodAffinityWeight); w < 0 || w > 100 {
			return field.ErrorList{field.Invalid(p.Child("hardPodAffinityWeight"), w, "not in valid range [0, 100]")}
		}
	case *configv1.NodeAffinityArgs:
		return validateNodeAffinityArgs(p, a)
	case *configv1.NodeResourcesBalancedAllocationArgs:
		var errs field.ErrorList
		seen := map[string]bool{}
		for i, r := range a.Resources {
			if seen[r.Name] {
				errs = append(errs, field.Duplicate(p.Child("resources").Index(i).Child("name"), r.Name))
			}
			seen[r.Name] = true
			if r.Weight != 1 {
				errs = append(errs, field.Invalid(p.Child("resources").Index(i).Child("weight"), r.Weight, "must be 1"))
			}
		}
		return errs
	case *configv1.NodeResourcesFitArgs:
		return validateNodeResourcesFitArgs(p, a)
	case *configv1.PodTopologySpreadArgs:
		return validatePodTopologySpreadArgs(p, a)
	case *configv1.VolumeBindingArgs:
		var errs field.ErrorList
		if t := deref(a.BindTimeoutSeconds); t < 0 {
			errs = append(errs, field.Invalid(p.Child("bindTimeoutSeconds"), t, "invalid BindTimeoutSeconds, should not be a negative value"))
		}
		// StorageCapacityScoring is on.
		return append(errs, validateFunctionShape(a.Shape, p.Child("shape"))...)
	case *configv1.DynamicResourcesArgs:
		var errs field.ErrorList
		if a.FilterTimeout != nil && a.FilterTimeout.Duration < 0 {
			errs = append(errs, field.Invalid(p.Child("filterTimeout"), a.FilterTimeout, "must be zero or positive"))
		}
		if a.BindingTimeout != nil && a.BindingTimeout.Duration < time.Second {
			errs = append(errs, field.Invalid(p.Child("bindingTimeout"), a.BindingTimeout, "must be at least 1 second"))
		}
		return errs
	}
	return nil
}

func validateDefaultPreemptionArgs(p *field.Path, a *configv1.DefaultPreemptionArgs) field.ErrorList {
	var errs field.ErrorList
	pct, abs := deref(a.MinCandidateNodesPercentage), deref(a.MinCandidateNodesAbsolute)
	pp, ap := p.Child("minCandidateNodesPercentage"), p.Child("minCandidateNodesAbsolute")
	if pct < 0 || pct > 100 {
		errs = append(errs, field.Invalid(pp, pct, "not in valid range [0, 100]"))
	}
	if abs < 0 {
		errs = append(errs, field.Invalid(ap, abs, "not in valid range [0, inf)"))
	}
	if pct == 0 && abs == 0 {
		errs = append(errs,
			field.Invalid(pp, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"),
			field.Invalid(ap, abs, "cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errs
}

// fieldErrors unpacks the (aggregated) field errors of component-helpers.
func fieldErrors(err error) field.ErrorList {
	if err == nil {
		return nil
	}
	var out field.ErrorList
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			out = append(out, fieldErrors(e)...)
		}
		return out
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return field.ErrorList{fe}
	}
	return field.ErrorList{field.InternalError(nil, err)}
}

func validateNodeAffinityArgs(p *field.Path, a *configv1.NodeAffinityArgs) field.ErrorList {
	if a.AddedAffinity == nil {
		return nil
	}
	var errs field.ErrorList
	ap := p.Child("addedAffinity")
	if ns := a.AddedAffinity.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		_, err := nodeaffinity.NewNodeSelector(ns, field.WithPath(ap.Child("requiredDuringSchedulingIgnoredDuringExecution")))
		errs = append(errs, fieldErrors(err)...)
	}
	if terms := a.AddedAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) != 0 {
		_, err := nodeaffinity.NewPreferredSchedulingTerms(terms, field.WithPath(ap.Child("preferredDuringSchedulingIgnoredDuringExecution")))
		errs = append(errs, fieldErrors(err)...)
	}
	return errs
}

var scoringStrategyTypes = []string{string(configv1.LeastAllocated), string(configv1.MostAllocated), string(configv1.RequestedToCapacityRatio)}

func validateNodeResourcesFitArgs(p *field.Path, a *configv1.NodeResourcesFitArgs) field.ErrorList {
	var errs field.ErrorList
	for i, r := range a.IgnoredResources {
		errs = append(errs, metav1validation.ValidateLabelName(r, p.Child("ignoredResources").Index(i))...)
	}
	for i, g := range a.IgnoredResourceGroups {
		gp := p.Child("ignoredResourceGroups").Index(i)
		if strings.Contains(g, "/") {
			errs = append(errs, field.Invalid(gp, g, "resource group name can't contain '/'"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(g, gp)...)
	}
	sp := p.Child("scoringStrategy")
	s := a.ScoringStrategy
	if s == nil {
		return append(errs, field.Required(sp, "ScoringStrategy field is required"))
	}
	switch s.Type {
	case configv1.LeastAllocated, configv1.MostAllocated, configv1.RequestedToCapacityRatio:
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Type, scoringStrategyTypes))
	}
	for i, r := range s.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			errs = append(errs, field.Invalid(sp.Child("resources").Index(i).Child("weight"), r.Weight,
				fmt.Sprintf("resource weight of %v not in valid range (0, 100]", r.Name)))
		}
	}
	if s.Type == configv1.RequestedToCapacityRatio {
		if s.RequestedToCapacityRatio == nil {
			errs = append(errs, field.Required(sp.Child("requestedToCapacityRatio"), "must be specified when type is RequestedToCapacityRatio"))
		} else {
			errs = append(errs, validateFunctionShape(s.RequestedToCapacityRatio.Shape, sp.Child("requestedToCapacityRatio", "shape"))...)
		}
	} else if s.RequestedToCapacityRatio != nil {
		errs = append(errs, field.Forbidden(sp.Child("requestedToCapacityRatio"), "must be nil when type is not RequestedToCapacityRatio"))
	}
	return errs
}

func validateFunctionShape(shape []configv1.UtilizationShapePoint, p *field.Path) field.ErrorList {
	if len(shape) == 0 {
		return field.ErrorList{field.Required(p, "at least one point must be specified")}
	}
	var errs field.ErrorList
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, field.Invalid(p.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, pt := range shape {
		if pt.Utilization < 0 || pt.Utilization > 100 {
			errs = append(errs, field.Invalid(p.Index(i).Child("utilization"), pt.Utilization, "not in valid range [0, 100]"))
		}
		if pt.Score < 0 || pt.Score > maxCustomPriorityScore {
			errs = append(errs, field.Invalid(p.Index(i).Child("score"), pt.Score, fmt.Sprintf("not in valid range [%d, %d]", 0, maxCustomPriorityScore)))
		}
	}
	return errs
}

func validatePodTopologySpreadArgs(p *field.Path, a *configv1.PodTopologySpreadArgs) field.ErrorList {
	var errs field.ErrorList
	dp := p.Child("defaultingType")
	switch a.DefaultingType {
	case configv1.SystemDefaulting:
		if len(a.DefaultConstraints) > 0 {
			errs = append(errs, field.Invalid(dp, a.DefaultingType, "when .defaultConstraints are not empty"))
		}
	case configv1.ListDefaulting:
	default:
		errs = append(errs, field.NotSupported(dp, a.DefaultingType, []string{string(configv1.SystemDefaulting), string(configv1.ListDefaulting)}))
	}
	cp := p.Child("defaultConstraints")
	for i, c := range a.DefaultConstraints {
		ip := cp.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, ip.Child("topologyKey"))...)
		}
		wp := ip.Child("whenUnsatisfiable")
		switch c.WhenUnsatisfiable {
		case v1.DoNotSchedule, v1.ScheduleAnyway:
		case "":
			errs = append(errs, field.Required(wp, "can not be empty"))
		default:
			errs = append(errs, field.NotSupported(wp, c.WhenUnsatisfiable, []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(ip.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		for j := range a.DefaultConstraints[:i] {
			o := &a.DefaultConstraints[j]
			if c.TopologyKey == o.TopologyKey && c.WhenUnsatisfiable == o.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cp.Index(i), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
	}
	return errs
}
