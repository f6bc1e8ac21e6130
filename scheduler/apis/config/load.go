// Package config reads kube-scheduler configuration files: it decodes a
// v1 KubeSchedulerConfiguration strictly (with every pluginConfig's typed
// args), applies kube-scheduler's v1 defaulting (upstream's
// pkg/scheduler/apis/config/v1: defaults and default plugins, following the
// feature gates) and validates the result with package
// validation, reporting each finding with its field.
package config

import (
	"fmt"
	"os"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
)

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

// Load reads a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1,
// YAML or JSON), decodes every pluginConfig's args into its typed struct,
// applies kube-scheduler's v1 defaulting and validates the result, both
// under the feature gates f.
//
// The error is non-nil when the file cannot be read or parsed, is not a v1
// KubeSchedulerConfiguration, or is invalid (kube-scheduler would refuse
// to start); the Report has one problem per finding. An invalid
// configuration is still returned, defaulted, for display.
func Load(path string, f features.Features) (*configv1.KubeSchedulerConfiguration, *docread.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &docread.Report{}, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	return LoadData(path, data, f)
}

// LoadData is Load for data in memory; name is used in problems.
func LoadData(name string, data []byte, f features.Features) (*configv1.KubeSchedulerConfiguration, *docread.Report, error) {
	r := &docread.Report{}
	docs, err := docread.ReadDocuments(name, data)
	if err != nil {
		return nil, r, err
	}
	if len(docs) == 0 {
		r.Warnf(name, 0, "", "", "empty configuration: using the defaults")
		return Default(f), r, nil
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
	noteInertFields(name, cfg, r)
	SetDefaults(cfg, f)
	for _, e := range validation.ValidateKubeSchedulerConfiguration(cfg, f) {
		r.Errorf(name, 0, configObject, e.Field, "%s", e.ErrorBody())
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
			into := validation.NewPluginArgs(pc.Name)
			if into == nil {
				if validation.IsInTreePlugin(pc.Name) && !emptyRaw(pc.Args.Raw) {
					r.Warnf(name, 0, configObject, path, "plugin %s takes no arguments; ignored", pc.Name)
				}
				continue
			}
			gvk := configv1.SchemeGroupVersion.WithKind(pc.Name + "Args")
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

// InertFields are the fields of a KubeSchedulerConfiguration that run
// kube-scheduler the process (its API connection, leader election,
// profiling, cache warm-up, worker count) rather than decide where pods
// go, each with what the user is told (why schedtui ignores it). A file that sets one is told
// so once (noteInertFields), never silently.
var InertFields = []struct {
	Field string
	Why   string
	isSet func(*configv1.KubeSchedulerConfiguration) bool
}{
	{"parallelism", "is not simulated: schedtui checks nodes one by one, as kube-scheduler with parallelism 1 does; with more workers, " +
		"when percentageOfNodesToScore leaves nodes unchecked, kube-scheduler's search may end on another set of feasible nodes",
		func(c *configv1.KubeSchedulerConfiguration) bool { return c.Parallelism != nil }},
	{"leaderElection", "does not change scheduling decisions (only one scheduler instance is simulated)",
		func(c *configv1.KubeSchedulerConfiguration) bool { return !reflect.ValueOf(c.LeaderElection).IsZero() }},
	{"clientConnection", "does not change scheduling decisions (schedtui reads the cluster with its own flags (--kubeconfig, --context))",
		func(c *configv1.KubeSchedulerConfiguration) bool {
			return !reflect.ValueOf(c.ClientConnection).IsZero()
		}},
	{"enableProfiling", "does not change scheduling decisions (it serves kube-scheduler's pprof handlers)",
		func(c *configv1.KubeSchedulerConfiguration) bool { return c.EnableProfiling != nil }},
	{"enableContentionProfiling", "does not change scheduling decisions (it serves kube-scheduler's lock contention profiles)",
		func(c *configv1.KubeSchedulerConfiguration) bool { return c.EnableContentionProfiling != nil }},
	{"delayCacheUntilActive", "does not change scheduling decisions (it delays filling kube-scheduler's cache until it leads; schedtui's cluster state is complete before the first attempt)",
		func(c *configv1.KubeSchedulerConfiguration) bool { return c.DelayCacheUntilActive }},
}

// InertArgs are the plugin arguments that bound how long PreBind waits
// for another controller, which schedtui does not simulate waiting for:
// its PreBind writes the volumes' binding at once, so the timeout never
// expires. (DynamicResources' bindingTimeout is not one: its PreBind waits
// for devices' binding conditions.)
var InertArgs = []struct {
	Field string
	Why   string
	isSet func(runtime.Object) bool
}{
	{"bindTimeoutSeconds", "VolumeBinding's PreBind does not wait for the PV controller here",
		func(o runtime.Object) bool {
			a, ok := o.(*configv1.VolumeBindingArgs)
			return ok && a.BindTimeoutSeconds != nil
		}},
}

// noteInertFields warns once per inert field the file sets.
func noteInertFields(name string, cfg *configv1.KubeSchedulerConfiguration, r *docread.Report) {
	for _, f := range InertFields {
		if f.isSet(cfg) {
			r.Warnf(name, 0, configObject, f.Field, "field %s of the KubeSchedulerConfiguration %s; schedtui reads it and ignores it", f.Field, f.Why)
		}
	}
	for i, p := range cfg.Profiles {
		noteInertWeights(name, i, p.Plugins, r)
		for j, pc := range p.PluginConfig {
			for _, f := range InertArgs {
				if pc.Args.Object != nil && f.isSet(pc.Args.Object) {
					path := fmt.Sprintf("profiles[%d].pluginConfig[%d].args.%s", i, j, f.Field)
					r.Warnf(name, 0, configObject, path, "field %s of the KubeSchedulerConfiguration does not change scheduling decisions (%s); schedtui reads it and ignores it", path, f.Why)
				}
			}
		}
	}
}

// noteInertWeights warns about weights kube-scheduler never reads: those
// of disabled plugins, and of plugins enabled at a point other than score
// and multiPoint (only Score plugins have a weight).
func noteInertWeights(name string, i int, p *configv1.Plugins, r *docread.Report) {
	if p == nil {
		return
	}
	for _, pt := range []struct {
		name string
		set  configv1.PluginSet
	}{
		{"preEnqueue", p.PreEnqueue}, {"queueSort", p.QueueSort}, {"preFilter", p.PreFilter}, {"filter", p.Filter},
		{"postFilter", p.PostFilter}, {"preScore", p.PreScore}, {"score", p.Score}, {"reserve", p.Reserve},
		{"permit", p.Permit}, {"preBind", p.PreBind}, {"bind", p.Bind}, {"postBind", p.PostBind},
		{"multiPoint", p.MultiPoint}, {"placementGenerate", p.PlacementGenerate}, {"placementScore", p.PlacementScore},
		{"podGroupPostFilter", p.PodGroupPostFilter},
	} {
		for k, pl := range pt.set.Enabled {
			if pl.Weight != nil && pt.name != "score" && pt.name != "multiPoint" {
				path := fmt.Sprintf("profiles[%d].plugins.%s.enabled[%d].weight", i, pt.name, k)
				r.Warnf(name, 0, configObject, path, "field %s of the KubeSchedulerConfiguration does not change scheduling decisions (only Score plugins have a weight, as in kube-scheduler); schedtui reads it and ignores it", path)
			}
		}
		for k, pl := range pt.set.Disabled {
			if pl.Weight != nil {
				path := fmt.Sprintf("profiles[%d].plugins.%s.disabled[%d].weight", i, pt.name, k)
				r.Warnf(name, 0, configObject, path, "field %s of the KubeSchedulerConfiguration does not change scheduling decisions (a disabled plugin has no weight, as in kube-scheduler); schedtui reads it and ignores it", path)
			}
		}
	}
}
