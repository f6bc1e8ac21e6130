// Package validation validates a defaulted v1 KubeSchedulerConfiguration
// and the typed args of the in-tree plugins, with upstream's field paths and
// messages (pkg/scheduler/apis/config/validation). It is the one place
// plugin args are validated: the config loader calls it for every
// pluginConfig and each plugin's constructor for its own args.
//
// Upstream validates the internal form; the checks below read the v1
// fields (pointers are set by defaulting, a nil one reads as zero as
// conversion would make it). On top of upstream: unknown plugin names are
// errors here (kube-scheduler fails when building the framework), and the
// args of every in-tree plugin are validated as the plugins' constructors
// do (upstream's validatePluginConfig misses NodeResourcesFit: it keys it
// as "NodeResourcesFitArgs").
package validation

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ValidateKubeSchedulerConfiguration validates a configuration defaulted
// under the feature gates f; each error names the field by its JSON path.
func ValidateKubeSchedulerConfiguration(cfg *configv1.KubeSchedulerConfiguration, f features.Features) field.ErrorList {
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
			errs = append(errs, validateProfile(path, apiVersion, prof, f)...)
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
	return append(errs, validateExtenders(field.NewPath("extenders"), cfg.Extenders)...)
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

func validateProfile(path *field.Path, apiVersion string, prof *configv1.KubeSchedulerProfile, f features.Features) field.ErrorList {
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
				case !IsInTreePlugin(pl.Name):
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
		case !IsInTreePlugin(pc.Name):
			errs = append(errs, field.Invalid(pcPath.Child("name"), pc.Name, fmt.Sprintf("unknown plugin (profile %q)", profName)))
		default:
			want := NewPluginArgs(pc.Name)
			if want == nil || pc.Args.Object == nil {
				continue // no args, or they failed to decode (reported)
			}
			argsPath := pcPath.Child("args")
			if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", pc.Args.Object) {
				errs = append(errs, field.Invalid(argsPath, pc.Args, "has to match plugin args"))
				continue
			}
			errs = append(errs, ValidatePluginArgs(argsPath, pc.Args.Object, f)...)
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
			if len(nameErrs) == 0 && !framework.IsExtendedResourceName(v1.ResourceName(r.Name)) {
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
