package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/extender"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	fwkruntime "github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// How a configuration field or a gate is honoured.
const (
	takesEffect = "takes effect"
	refused     = "refused"
	noted       = "noted as not changing scheduling"
)

// fieldCheck classifies one leaf field and proves the classification.
type fieldCheck struct {
	how   string
	check func(t *testing.T)
}

// configLeaves walks KubeSchedulerConfiguration v1 by reflection and
// returns every leaf field's JSON path ("profiles[].plugins.filter.enabled[].name"),
// descending into each in-tree plugin's typed args
// ("profiles[].pluginConfig[].args(NodeResourcesFit).scoringStrategy.type").
// Types from outside the configuration API (core/v1 affinity and spread
// constraints, durations) are leaves.
func configLeaves() []string {
	var out []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == reflect.TypeOf(k8sruntime.RawExtension{}):
			for _, name := range inTreeArgPlugins() {
				walk(reflect.TypeOf(validation.NewPluginArgs(name)), path+"("+name+")")
			}
			return
		case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
			walk(t.Elem(), path+"[]")
			return
		case t.Kind() != reflect.Struct || !strings.HasPrefix(t.PkgPath(), "k8s.io/kube-scheduler/") &&
			!strings.HasPrefix(t.PkgPath(), "k8s.io/component-base/"):
			if t == reflect.TypeOf(metav1.TypeMeta{}) {
				walk(reflect.TypeOf(struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
				}{}), path)
				return
			}
			if t.Kind() == reflect.Struct && t.Name() == "" {
				break // the TypeMeta stand-in above
			}
			out = append(out, path)
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" {
				continue
			}
			if tag == "" && f.Anonymous {
				walk(f.Type, path)
				continue
			}
			name := tag
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			walk(f.Type, p)
		}
	}
	walk(reflect.TypeOf(configv1.KubeSchedulerConfiguration{}), "")
	sort.Strings(out)
	return out
}

// inTreeArgPlugins are the in-tree plugins that take typed args.
func inTreeArgPlugins() []string {
	var out []string
	for n := range plugins.NewInTreeRegistry() {
		if validation.NewPluginArgs(n) != nil {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Every field of KubeSchedulerConfiguration v1, down to every in-tree
// plugin's args, either takes effect (shown by a real run below, or by the
// named unit test that fails when the field is ignored), is refused with an
// error, or is reported on load as not changing what schedtui simulates. A
// field added upstream fails this test until it is classified.
func TestEveryConfigFieldTakesEffectOrIsRefused(t *testing.T) {
	checks := configFieldChecks()
	leaves := configLeaves()
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, leaf := range leaves {
		c, ok := checks[leaf]
		if !ok {
			t.Errorf("field %s of KubeSchedulerConfiguration v1 is not classified: make it take effect, refuse it, or say on load that it changes nothing, then add it here", leaf)
			continue
		}
		seen[leaf] = true
		counts[c.how]++
		t.Run(leaf, c.check)
	}
	for k := range checks {
		if !seen[k] {
			t.Errorf("classified field %s is not a field of KubeSchedulerConfiguration v1 any more", k)
		}
	}
	t.Logf("%d fields: %d take effect, %d refused, %d noted", len(leaves), counts[takesEffect], counts[refused], counts[noted])
}

func configFieldChecks() map[string]fieldCheck {
	m := map[string]fieldCheck{
		"apiVersion": {refused, refusedCheck(`apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
`, "not a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration")},
		"kind": {refused, refusedCheck(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeProxyConfiguration
`, "not a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration")},

		"percentageOfNodesToScore":            {takesEffect, checkPercentage("percentageOfNodesToScore: 100\n")},
		"profiles[].percentageOfNodesToScore": {takesEffect, checkPercentage("profiles:\n- schedulerName: default-scheduler\n  percentageOfNodesToScore: 100\n")},
		"podInitialBackoffSeconds":            {takesEffect, checkInitialBackoff},
		"podMaxBackoffSeconds":                {takesEffect, checkMaxBackoff},
		"profiles[].schedulerName":            {takesEffect, checkProfiles},
		"profiles[].pluginConfig[].name":      {takesEffect, checkProfiles},
	}
	for _, f := range config.InertFields {
		m[f.Field] = fieldCheck{noted, checkNoted(inertYAML[f.Field], f.Field)}
	}
	for _, sub := range []string{"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock", "resourceName", "resourceNamespace"} {
		m["leaderElection."+sub] = m["leaderElection"]
	}
	for _, sub := range []string{"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"} {
		m["clientConnection."+sub] = m["clientConnection"]
	}
	delete(m, "leaderElection")
	delete(m, "clientConnection")

	for _, pt := range []string{"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
		"reserve", "permit", "preBind", "bind", "postBind", "multiPoint"} {
		base := "profiles[].plugins." + pt
		m[base+".enabled[].name"] = fieldCheck{takesEffect, checkPointEnabled(pt)}
		m[base+".disabled[].name"] = fieldCheck{takesEffect, checkPointDisabled(pt)}
		m[base+".disabled[].weight"] = fieldCheck{noted, checkNoted(pluginsYAML(pt+":\n      disabled:\n      - name: NodeName\n        weight: 2"), "disabled[0].weight")}
		if pt == "score" || pt == "multiPoint" {
			m[base+".enabled[].weight"] = fieldCheck{takesEffect, checkWeight(pt)}
		} else {
			m[base+".enabled[].weight"] = fieldCheck{noted, checkNoted(pluginsYAML(pt+":\n      enabled:\n      - name: NodeName\n        weight: 2"), "enabled[0].weight")}
		}
	}
	for _, pt := range []string{"placementGenerate", "placementScore", "podGroupPostFilter"} {
		base := "profiles[].plugins." + pt
		m[base+".enabled[].name"] = fieldCheck{takesEffect, checkPodGroupPoint(pt)}
		m[base+".enabled[].weight"] = m[base+".enabled[].name"]
		// Disabling every plugin at the point leaves it empty.
		m[base+".disabled[].name"] = fieldCheck{takesEffect, checkPodGroupPointDisabled(pt)}
		m[base+".disabled[].weight"] = fieldCheck{noted, checkNoted(pluginsYAML(pt+":\n      disabled:\n      - name: NodeName\n        weight: 2"), "disabled[0].weight")}
	}

	for _, p := range inTreeArgPlugins() {
		m["profiles[].pluginConfig[].args("+p+").apiVersion"] = argsTypeRefused(p, "apiVersion")
		m["profiles[].pluginConfig[].args("+p+").kind"] = argsTypeRefused(p, "kind")
	}
	for k, v := range pluginArgChecks() {
		m["profiles[].pluginConfig[].args("+k] = v
	}
	for k, v := range extenderChecks() {
		m["extenders[]."+k] = v
	}
	return m
}

// inertYAML sets each inert field.
var inertYAML = map[string]string{
	"parallelism":               "parallelism: 4\n",
	"leaderElection":            "leaderElection:\n  leaderElect: false\n",
	"clientConnection":          "clientConnection:\n  qps: 100\n",
	"enableProfiling":           "enableProfiling: false\n",
	"enableContentionProfiling": "enableContentionProfiling: true\n",
	"delayCacheUntilActive":     "delayCacheUntilActive: true\n",
}

const cfgHeader = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

func pluginsYAML(body string) string {
	return "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    " + body + "\n"
}

func loadCfg(t *testing.T, body string) *configv1.KubeSchedulerConfiguration {
	t.Helper()
	cfg, r, err := config.LoadData("test.yaml", []byte(cfgHeader+body), features.Default())
	if err != nil {
		t.Fatalf("%v\n%v", err, r.Problems)
	}
	return cfg
}

// witnessCfg is a configuration naming the test's Witness plugins, which
// the loader's validation rightly does not know: decoded and defaulted as
// the loader does, without validation.
func witnessCfg(t *testing.T, body string) *configv1.KubeSchedulerConfiguration {
	t.Helper()
	cfg := &configv1.KubeSchedulerConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(cfgHeader+body), cfg); err != nil {
		t.Fatal(err)
	}
	config.SetDefaults(cfg, features.Default())
	return cfg
}

func refusedCheck(doc, want string) func(t *testing.T) {
	return func(t *testing.T) {
		_, _, err := config.LoadData("test.yaml", []byte(doc), features.Default())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// checkNoted: the field loads, with a warning naming it that says
// schedtui ignores it.
func checkNoted(body, field string) func(t *testing.T) {
	return func(t *testing.T) {
		if body == "" {
			t.Fatalf("no YAML sets %s", field)
		}
		cfg, r, err := config.LoadData("test.yaml", []byte(cfgHeader+body), features.Default())
		if err != nil || cfg == nil {
			t.Fatalf("%v", err)
		}
		for _, p := range r.Problems {
			if strings.Contains(p.String(), field) && strings.Contains(p.String(), "schedtui reads it and ignores it") {
				return
			}
		}
		t.Errorf("loading %q says nothing about %s: %v", body, field, r.Problems)
	}
}

func cfNode(name, cpu string, labels map[string]string) *v1.Node {
	l := map[string]string{v1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: l},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}}}
}

func cfPod(name, cpu, schedulerName string) *v1.Pod {
	if schedulerName == "" {
		schedulerName = v1.DefaultSchedulerName
	}
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: v1.PodSpec{SchedulerName: schedulerName, Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("1Gi")}}}}}}
}

// runEngine schedules pods on nodes to quiescence under cfg.
func runEngine(t *testing.T, cfg *configv1.KubeSchedulerConfiguration, reg fwkruntime.Registry, nodes []*v1.Node, pods []*v1.Pod) []*record.Attempt {
	t.Helper()
	e := newEngine(t, cfg, reg, nodes, pods)
	e.RunToQuiescence()
	return e.Attempts().Slice(0, e.Attempts().Len())
}

func newEngine(t *testing.T, cfg *configv1.KubeSchedulerConfiguration, reg fwkruntime.Registry, nodes []*v1.Node, pods []*v1.Pod) *engine.Engine {
	t.Helper()
	if reg == nil {
		reg = plugins.NewInTreeRegistry()
	}
	e, err := engine.New(nodes, pods, nil, engine.Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkPercentage: 300 nodes, where the adaptive default finds 144
// feasible nodes; the field set to 100 makes the attempt look for all.
func checkPercentage(body string) func(t *testing.T) {
	return func(t *testing.T) {
		var nodes []*v1.Node
		for i := 0; i < 300; i++ {
			nodes = append(nodes, cfNode(fmt.Sprintf("n%03d", i), "4", nil))
		}
		find := func(cfg *configv1.KubeSchedulerConfiguration) int32 {
			a := runEngine(t, cfg, nil, nodes, []*v1.Pod{cfPod("p", "1", "")})
			if len(a) != 1 {
				t.Fatalf("%d attempts", len(a))
			}
			return a[0].NodesToFind
		}
		if def, set := find(loadCfg(t, "")), find(loadCfg(t, body)); def != 144 || set != 300 {
			t.Errorf("nodes to find: %d by default, %d with %q; want 144 and 300", def, set, body)
		}
	}
}

// retryGaps: a pod too big for n0 is retried each time a node that fits
// it arrives (NodeResourcesFit queues it) but is tainted; the gaps between
// its attempts are its backoff. SchedulerPopFromBackoffQ is off: with it,
// an idle scheduler takes a backing-off pod at once, so no backoff would
// show in a run of one pod.
func retryGaps(t *testing.T, body string) []time.Duration {
	t.Helper()
	gates := features.Default()
	gates.EnableSchedulerPopFromBackoffQ = false
	cfg, r, err := config.LoadData("test.yaml", []byte(cfgHeader+body), gates)
	if err != nil {
		t.Fatalf("%v\n%v", err, r.Problems)
	}
	e, err := engine.New([]*v1.Node{cfNode("n0", "1", nil)}, []*v1.Pod{cfPod("big", "4", "")}, nil,
		engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Features: &gates})
	if err != nil {
		t.Fatal(err)
	}
	tainted := func(name string) *v1.Node {
		n := cfNode(name, "8", nil)
		n.Spec.Taints = []v1.Taint{{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}}
		return n
	}
	start := e.Now()
	for i := 1; i <= 160; i++ {
		at := time.Duration(i) * 500 * time.Millisecond
		if err := e.Apply(change.Change{Kind: change.NodeAdd, Node: tainted(fmt.Sprintf("t%d", i)), At: start.Add(at)}); err != nil {
			t.Fatal(err)
		}
	}
	e.RunUntil(80 * time.Second)
	var gaps []time.Duration
	as := e.Attempts().Slice(0, e.Attempts().Len())
	for i := 1; i < len(as); i++ {
		gaps = append(gaps, as[i].Time.Sub(as[i-1].Time))
	}
	return gaps
}

// The gaps are the backoff rounded up to the backoff queue's one-second
// flush.
func checkInitialBackoff(t *testing.T) {
	def, set := retryGaps(t, ""), retryGaps(t, "podInitialBackoffSeconds: 5\n")
	if len(def) < 1 || len(set) < 1 || def[0] > 2*time.Second || set[0] < 5*time.Second || set[0] > 6*time.Second {
		t.Errorf("retry gaps %v by default, %v with podInitialBackoffSeconds 5; want the first 1-2s and 5-6s", def, set)
	}
}

func checkMaxBackoff(t *testing.T) {
	// 5s, 10s, 20s, 40s, ... capped at podMaxBackoffSeconds (default 10).
	def := retryGaps(t, "podInitialBackoffSeconds: 5\n")
	set := retryGaps(t, "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 30\n")
	if slices.Max(def) > 11*time.Second || slices.Max(set) < 30*time.Second || slices.Max(set) > 31*time.Second {
		t.Errorf("retry gaps %v with max 10s, %v with max 30s", def, set)
	}
}

// checkProfiles: each pod is scheduled by the profile its schedulerName
// names, with that profile's pluginConfig: the packing profile puts the
// pod on the busier node, the default one on the emptier.
func checkProfiles(t *testing.T) {
	cfg := loadCfg(t, `profiles:
- schedulerName: default-scheduler
- schedulerName: packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`)
	nodes := []*v1.Node{cfNode("busy", "4", nil), cfNode("empty", "4", nil)}
	filler := cfPod("filler", "2", "")
	filler.Spec.NodeName = "busy"
	got := map[string]string{}
	for _, a := range runEngine(t, cfg, nil, nodes, []*v1.Pod{filler, cfPod("spread", "1", ""), cfPod("packed", "1", "packing")}) {
		got[a.Pod] = a.Profile + "→" + a.Node
	}
	want := map[string]string{"default/spread": "default-scheduler→empty", "default/packed": "packing→busy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("attempts %v, want %v", got, want)
	}
}

// witness is a plugin at every extension point that counts its calls.
type witness struct {
	mu    sync.Mutex
	calls map[string]int
}

func (w *witness) hit(pt string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[pt]++
}

func (w *witness) count(pt string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[pt]
}

func (w *witness) Name() string { return "Witness" }
func (w *witness) PreEnqueue(context.Context, *v1.Pod) *framework.Status {
	w.hit("preEnqueue")
	return nil
}
func (w *witness) PreFilter(context.Context, *framework.CycleState, *v1.Pod, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	w.hit("preFilter")
	return nil, nil
}
func (w *witness) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (w *witness) Filter(context.Context, *framework.CycleState, *v1.Pod, *framework.NodeInfo) *framework.Status {
	w.hit("filter")
	return nil
}
func (w *witness) PostFilter(context.Context, *framework.CycleState, *v1.Pod, *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	w.hit("postFilter")
	return nil, framework.NewStatus(framework.Unschedulable)
}
func (w *witness) PreScore(context.Context, *framework.CycleState, *v1.Pod, []*framework.NodeInfo) *framework.Status {
	w.hit("preScore")
	return nil
}
func (w *witness) Score(context.Context, *framework.CycleState, *v1.Pod, *framework.NodeInfo) (int64, *framework.Status) {
	w.hit("score")
	return 50, nil
}
func (w *witness) ScoreExtensions() framework.ScoreExtensions { return nil }
func (w *witness) Reserve(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	w.hit("reserve")
	return nil
}
func (w *witness) Unreserve(context.Context, *framework.CycleState, *v1.Pod, string) {}
func (w *witness) Permit(context.Context, *framework.CycleState, *v1.Pod, string) (*framework.Status, time.Duration) {
	w.hit("permit")
	return nil, 0
}
func (w *witness) PreBindPreFlight(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return nil
}
func (w *witness) PreBind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	w.hit("preBind")
	return nil
}
func (w *witness) Bind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	w.hit("bind")
	return nil
}
func (w *witness) PostBind(context.Context, *framework.CycleState, *v1.Pod, string) {
	w.hit("postBind")
}

// witnessSort is the queue sort that counts its calls.
type witnessSort struct{ *witness }

func (w witnessSort) Name() string { return "WitnessSort" }
func (w witnessSort) Less(a, b framework.QueuedEntity) bool {
	w.hit("queueSort")
	return a.Params().Timestamp.Before(b.Params().Timestamp)
}

// runWitness runs a pod that fits and one that fits nowhere (so that
// PostFilter runs) under plugins configured by body.
func runWitness(t *testing.T, body string) *witness {
	t.Helper()
	w := &witness{calls: map[string]int{}}
	reg := plugins.NewInTreeRegistry()
	reg["Witness"] = func(k8sruntime.Object, framework.Handle) (framework.Plugin, error) { return w, nil }
	reg["WitnessSort"] = func(k8sruntime.Object, framework.Handle) (framework.Plugin, error) { return witnessSort{w}, nil }
	runEngine(t, witnessCfg(t, pluginsYAML(body)), reg, []*v1.Node{cfNode("n", "2", nil), cfNode("m", "2", nil)},
		[]*v1.Pod{cfPod("fits", "1", ""), cfPod("fits2", "500m", ""), cfPod("big", "10", "")})
	return w
}

// witnessPoints are where a plugin enabled at multiPoint runs. Not bind:
// DefaultBinder comes first there and binds.
var witnessPoints = []string{"preEnqueue", "preFilter", "filter", "postFilter", "preScore", "score", "reserve", "permit", "preBind", "postBind"}

// checkPointEnabled: a plugin enabled at the point is run there.
func checkPointEnabled(pt string) func(t *testing.T) {
	return func(t *testing.T) {
		switch pt {
		case "queueSort":
			w := runWitness(t, "queueSort:\n      enabled:\n      - name: WitnessSort\n      disabled:\n      - name: '*'")
			if w.count("queueSort") == 0 {
				t.Errorf("the queue sort enabled at queueSort was never asked")
			}
		case "bind":
			w := runWitness(t, "bind:\n      enabled:\n      - name: Witness\n      disabled:\n      - name: DefaultBinder")
			if w.count("bind") == 0 {
				t.Errorf("enabled at bind in place of DefaultBinder, the plugin never bound")
			}
		case "multiPoint":
			w := runWitness(t, "multiPoint:\n      enabled:\n      - name: Witness")
			for _, p := range witnessPoints {
				if w.count(p) == 0 {
					t.Errorf("enabled at multiPoint, the plugin never ran at %s: %v", p, w.calls)
				}
			}
		default:
			w := runWitness(t, pt+":\n      enabled:\n      - name: Witness")
			for _, p := range witnessPoints {
				if n := w.count(p); (n > 0) != (p == pt) {
					t.Errorf("enabled at %s, the plugin ran %d times at %s", pt, n, p)
				}
			}
		}
	}
}

// checkPointDisabled: a plugin enabled everywhere (multiPoint) but
// disabled at the point runs everywhere else; at multiPoint, disabling a
// default plugin there removes it (NodeResourcesFit: the big pod fits).
func checkPointDisabled(pt string) func(t *testing.T) {
	return func(t *testing.T) {
		switch pt {
		case "queueSort":
			w := runWitness(t, "multiPoint:\n      enabled:\n      - name: WitnessSort\n    queueSort:\n      disabled:\n      - name: PrioritySort")
			if w.count("queueSort") == 0 {
				t.Errorf("with PrioritySort disabled at queueSort, the other queue sort was never asked")
			}
		case "bind":
			if w := runWitness(t, "multiPoint:\n      enabled:\n      - name: Witness"); w.count("bind") != 0 {
				t.Errorf("after DefaultBinder, the plugin bound")
			}
			if w := runWitness(t, "multiPoint:\n      enabled:\n      - name: Witness\n    bind:\n      disabled:\n      - name: DefaultBinder"); w.count("bind") == 0 {
				t.Errorf("with DefaultBinder disabled at bind, the plugin never bound")
			}
		case "multiPoint":
			nodes := []*v1.Node{cfNode("n", "2", nil)}
			def := runEngine(t, loadCfg(t, ""), nil, nodes, []*v1.Pod{cfPod("big", "10", "")})
			off := runEngine(t, loadCfg(t, pluginsYAML("multiPoint:\n      disabled:\n      - name: NodeResourcesFit")), nil, nodes, []*v1.Pod{cfPod("big", "10", "")})
			if def[0].Outcome != record.Unschedulable || off[0].Outcome != record.Scheduled {
				t.Errorf("big pod: %s by default, %s with NodeResourcesFit disabled at multiPoint", def[0].Outcome, off[0].Outcome)
			}
		default:
			w := runWitness(t, "multiPoint:\n      enabled:\n      - name: Witness\n    "+pt+":\n      disabled:\n      - name: Witness")
			for _, p := range witnessPoints {
				if n := w.count(p); (n > 0) == (p == pt) {
					t.Errorf("disabled at %s, the plugin ran %d times at %s", pt, n, p)
				}
			}
		}
	}
}

// checkWeight: the weight is the one the attempt's score column carries.
func checkWeight(pt string) func(t *testing.T) {
	return func(t *testing.T) {
		for _, weight := range []int32{3, 7} {
			w := &witness{calls: map[string]int{}}
			reg := plugins.NewInTreeRegistry()
			reg["Witness"] = func(k8sruntime.Object, framework.Handle) (framework.Plugin, error) { return w, nil }
			as := runEngine(t, witnessCfg(t, pluginsYAML(fmt.Sprintf("%s:\n      enabled:\n      - name: Witness\n        weight: %d", pt, weight))), reg,
				[]*v1.Node{cfNode("a", "2", nil), cfNode("b", "2", nil)}, []*v1.Pod{cfPod("p", "1", "")})
			got := int32(-1)
			for _, c := range as[0].Scores {
				if c.Plugin == "Witness" {
					got = c.Weight
				}
			}
			if got != weight {
				t.Errorf("weight %d at %s: the attempt scored Witness with weight %d", weight, pt, got)
			}
		}
	}
}

// checkPodGroupPoint: a plugin enabled at a pod-group extension point is
// built there, so one that does not implement it is refused with
// upstream's error.
func checkPodGroupPoint(pt string) func(t *testing.T) {
	return func(t *testing.T) {
		cfg := loadCfg(t, pluginsYAML(pt+":\n      enabled:\n      - name: NodeName\n        weight: 1"))
		_, err := engine.New([]*v1.Node{cfNode("n", "2", nil)}, nil, nil, engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry()})
		point := strings.ToUpper(pt[:1]) + pt[1:] + "Plugin"
		if err == nil || !strings.Contains(err.Error(), `plugin "NodeName" does not extend `+point+" plugin") {
			t.Errorf("err = %v", err)
		}
	}
}

func checkPodGroupPointDisabled(pt string) func(t *testing.T) {
	return func(t *testing.T) {
		cfg := loadCfg(t, pluginsYAML(pt+":\n      disabled:\n      - name: '*'"))
		if _, err := engine.New([]*v1.Node{cfNode("n", "2", nil)}, nil, nil, engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry()}); err != nil {
			t.Errorf("disabling at %s: %v", pt, err)
		}
	}
}

// provenBy points to the unit tests that fail when the field is ignored:
// each names a test function (or a table: a var) and the file holding it,
// which must exist and set the field.
func provenBy(goField string, tests ...string) fieldCheck {
	return fieldCheck{takesEffect, func(t *testing.T) {
		for _, ref := range tests {
			if !refMentions(t, ref, goField) {
				t.Errorf("%s does not set %s", ref, goField)
			}
		}
	}}
}

// refMentions: the function or var ref ("file:name", the file relative to
// the repository) exists and its text holds what.
func refMentions(t *testing.T, ref, what string) bool {
	t.Helper()
	file, name, _ := strings.Cut(ref, ":")
	src, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	text := string(src)
	i := strings.Index(text, "\nfunc "+name+"(")
	if i < 0 {
		i = strings.Index(text, "\nvar "+name+" ")
	}
	if i < 0 {
		t.Errorf("%s: no func or var %s", file, name)
		return true
	}
	rest := text[i+1:]
	if j := strings.Index(rest, "\nfunc "); j >= 0 {
		rest = rest[:j]
	}
	return strings.Contains(rest, what)
}

// argsRun is the scenario the plugin args are checked on: ten nodes in
// three zones, a web pod on each with a required and a preferred
// affinity to web pods, a Service selecting them, incoming web pods, a
// pod asking for an extended resource no node has, and a high-priority
// pod that must preempt.
func argsRun(t *testing.T, plugin, args string) string {
	t.Helper()
	body := ""
	if args != "" {
		body = "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: " + plugin + "\n    args:\n      " +
			strings.ReplaceAll(strings.TrimSpace(args), "\n", "\n      ") + "\n"
	}
	// OpportunisticBatching is off: it refuses a PodTopologySpread without
	// default constraints (defaultingType List), which batches.
	gates := features.Default()
	gates.EnableOpportunisticBatching = false
	cfg, r, err := config.LoadData("test.yaml", []byte(cfgHeader+body), gates)
	if err != nil {
		t.Fatalf("%v\n%v", err, r.Problems)
	}
	var nodes []*v1.Node
	var pods []*v1.Pod
	web := map[string]string{"app": "web"}
	webTerm := v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: web}, TopologyKey: v1.LabelTopologyZone}
	for i := 0; i < 10; i++ {
		labels := map[string]string{v1.LabelTopologyZone: fmt.Sprintf("z%d", i%3)}
		if i < 4 {
			labels["disk"] = "ssd"
		}
		n := cfNode(fmt.Sprintf("n%d", i), fmt.Sprint(2+i%3), labels)
		nodes = append(nodes, n)
		p := cfPod(fmt.Sprintf("old-%d", i), fmt.Sprintf("%dm", 500+100*i), "")
		p.Spec.NodeName = n.Name
		p.Labels = map[string]string{"app": "old"}
		prio := int32(10 * i)
		p.Spec.Priority = &prio
		p.Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = resource.MustParse(fmt.Sprintf("%dGi", 1+i%4))
		switch i % 3 {
		case 0:
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{webTerm}}}
		case 1:
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: webTerm}}}}
		}
		pods = append(pods, p)
	}
	for i := 0; i < 4; i++ {
		p := cfPod(fmt.Sprintf("web-%d", i), "300m", "")
		p.Labels = web
		p.Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = resource.MustParse(fmt.Sprintf("%dMi", 256*(i+1)))
		pods = append(pods, p)
	}
	foo := cfPod("foo", "100m", "")
	foo.Spec.Containers[0].Resources.Requests["example.com/foo"] = resource.MustParse("1")
	pods = append(pods, foo)
	pre := cfPod("preemptor", "3500m", "")
	high := int32(1000)
	pre.Spec.Priority = &high
	pods = append(pods, pre)
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: v1.ServiceSpec{Selector: web}}
	e, err := engine.New(nodes, pods, []any{svc}, engine.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: &gates})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	var b strings.Builder
	for _, a := range e.Attempts().All() {
		fmt.Fprintf(&b, "%s %s %s %q %s %v %d\n", a.Pod, a.Outcome, a.Node, a.Message, a.Nominated, a.Victims, a.NodesToFind)
		for _, c := range a.Scores {
			fmt.Fprintf(&b, "  %s ×%d %v %v\n", c.Plugin, c.Weight, c.Raw, c.Normalized)
		}
	}
	return b.String()
}

// argDiffers: the args change the scenario's attempts.
func argDiffers(plugin, args string) fieldCheck {
	return fieldCheck{takesEffect, func(t *testing.T) {
		if def, set := argsRun(t, plugin, ""), argsRun(t, plugin, args); def == set {
			t.Errorf("%s args %q change no attempt:\n%s", plugin, args, def)
		}
	}}
}

func pluginArgChecks() map[string]fieldCheck {
	return map[string]fieldCheck{
		"DefaultPreemption).minCandidateNodesPercentage":       argDiffers("DefaultPreemption", "minCandidateNodesPercentage: 0\nminCandidateNodesAbsolute: 1"),
		"DefaultPreemption).minCandidateNodesAbsolute":         argDiffers("DefaultPreemption", "minCandidateNodesPercentage: 1\nminCandidateNodesAbsolute: 0"),
		"InterPodAffinity).hardPodAffinityWeight":              argDiffers("InterPodAffinity", "hardPodAffinityWeight: 100"),
		"InterPodAffinity).ignorePreferredTermsOfExistingPods": argDiffers("InterPodAffinity", "ignorePreferredTermsOfExistingPods: true"),
		"NodeAffinity).addedAffinity":                          argDiffers("NodeAffinity", "addedAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n  - weight: 100\n    preference:\n      matchExpressions:\n      - {key: disk, operator: In, values: [ssd]}"),
		"NodeResourcesBalancedAllocation).resources[].name":    argDiffers("NodeResourcesBalancedAllocation", "resources:\n- name: cpu\n  weight: 1"),
		"NodeResourcesBalancedAllocation).resources[].weight": {refused, refusedCheck(cfgHeader+pluginArgsYAML("NodeResourcesBalancedAllocation",
			"resources:\n      - name: cpu\n        weight: 5"), "resources[0].weight: Invalid value: 5: must be 1")},
		"NodeResourcesFit).ignoredResources[]":               argDiffers("NodeResourcesFit", "ignoredResources: [example.com/foo]"),
		"NodeResourcesFit).ignoredResourceGroups[]":          argDiffers("NodeResourcesFit", "ignoredResourceGroups: [example.com]"),
		"NodeResourcesFit).scoringStrategy.type":             argDiffers("NodeResourcesFit", "scoringStrategy:\n  type: MostAllocated"),
		"NodeResourcesFit).scoringStrategy.resources[].name": argDiffers("NodeResourcesFit", "scoringStrategy:\n  type: LeastAllocated\n  resources:\n  - name: cpu\n    weight: 1"),
		"NodeResourcesFit).scoringStrategy.resources[].weight": argDiffers("NodeResourcesFit",
			"scoringStrategy:\n  type: LeastAllocated\n  resources:\n  - name: cpu\n    weight: 1\n  - name: memory\n    weight: 9"),
		"NodeResourcesFit).scoringStrategy.requestedToCapacityRatio.shape[].utilization": argDiffers("NodeResourcesFit",
			"scoringStrategy:\n  type: RequestedToCapacityRatio\n  requestedToCapacityRatio:\n    shape:\n    - {utilization: 0, score: 0}\n    - {utilization: 30, score: 10}"),
		"NodeResourcesFit).scoringStrategy.requestedToCapacityRatio.shape[].score": argDiffers("NodeResourcesFit",
			"scoringStrategy:\n  type: RequestedToCapacityRatio\n  requestedToCapacityRatio:\n    shape:\n    - {utilization: 0, score: 3}\n    - {utilization: 100, score: 10}"),
		"PodTopologySpread).defaultConstraints[]": argDiffers("PodTopologySpread",
			"defaultingType: List\ndefaultConstraints:\n- {maxSkew: 1, topologyKey: disk, whenUnsatisfiable: ScheduleAnyway}"),
		"PodTopologySpread).defaultingType":  argDiffers("PodTopologySpread", "defaultingType: List"),
		"VolumeBinding).bindTimeoutSeconds":  {noted, checkNoted(pluginArgsYAML("VolumeBinding", "bindTimeoutSeconds: 30"), "args.bindTimeoutSeconds")},
		"VolumeBinding).shape[].utilization": provenBy("Shape", "scheduler/plugins/volumebinding/gates_test.go:TestStorageCapacityScoringGate"),
		"VolumeBinding).shape[].score":       provenBy("Shape", "scheduler/plugins/volumebinding/gates_test.go:TestStorageCapacityScoringGate"),
		"DynamicResources).filterTimeout":    {takesEffect, checkFilterTimeout},
		"DynamicResources).bindingTimeout":   provenBy("BindingTimeout", "scheduler/plugins/dynamicresources/binding_test.go:TestFilterBindingTimeout"),
	}
}

// checkFilterTimeout: on the DRA example, a filterTimeout of 1ns makes
// every allocation time out.
func checkFilterTimeout(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte(cfgHeader+pluginArgsYAML("DynamicResources", "filterTimeout: 1ns")), 0o600); err != nil {
		t.Fatal(err)
	}
	const timedOut = "timed out trying to allocate devices"
	def, _, err := runCmd(t, newRunCommand, "--snapshot", "../../testdata/dra-gpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, _, err := runCmd(t, newRunCommand, "--snapshot", "../../testdata/dra-gpus.yaml", "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(def, timedOut) || !strings.Contains(set, timedOut) {
		t.Errorf("filterTimeout 1ns: want %q only with it; default:\n%s\nwith it:\n%s", timedOut, def, set)
	}
}

// argsTypeRefused: args of another kind or version than the plugin's are
// refused.
func argsTypeRefused(plugin, field string) fieldCheck {
	args := "apiVersion: kubescheduler.config.k8s.io/v1\n      kind: NotTheArgs"
	want := "decoding args for plugin " + plugin + `: no kind "NotTheArgs"`
	if field == "apiVersion" {
		args = "apiVersion: kubescheduler.config.k8s.io/v1beta3\n      kind: " + plugin + "Args"
		want = "decoding args for plugin " + plugin + `: no kind "` + plugin + `Args" is registered for version "kubescheduler.config.k8s.io/v1beta3"`
	}
	return fieldCheck{refused, refusedCheck(cfgHeader+pluginArgsYAML(plugin, args), want)}
}

func pluginArgsYAML(plugin, args string) string {
	return "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: " + plugin + "\n    args:\n      " + args + "\n"
}

func extenderChecks() map[string]fieldCheck {
	const s = "scheduler/extenders_test.go:"
	filter := s + "TestExtenderFilterRejectsNodesAsUpstream"
	return map[string]fieldCheck{
		"urlPrefix":                             provenBy("URLPrefix", filter),
		"filterVerb":                            provenBy("FilterVerb", filter),
		"nodeCacheCapable":                      provenBy("NodeCacheCapable", filter, "scheduler/extender/extender_test.go:TestFilterModes"),
		"prioritizeVerb":                        provenBy("PrioritizeVerb", s+"TestExtenderPrioritizeAddsWeightedScores"),
		"weight":                                provenBy("Weight", s+"TestExtenderPrioritizeAddsWeightedScores"),
		"preemptVerb":                           provenBy("PreemptVerb", s+"TestExtenderPreemptDropsCandidates"),
		"managedResources[].name":               provenBy("ManagedResources", s+"TestExtenderManagedResourcesAndIgnoredByScheduler"),
		"managedResources[].ignoredByScheduler": provenBy("IgnoredByScheduler", s+"TestExtenderManagedResourcesAndIgnoredByScheduler"),
		"ignorable":                             provenBy("Ignorable", s+"TestUnreachableExtender"),
		"httpTimeout":                           provenBy("HTTPTimeout", s+"TestUnreachableExtender"),
		"bindVerb":                              provenBy("BindVerb", "scheduler/engine/extenders_test.go:TestBindExtenderOnlyWithBind"),
		"enableHTTPS":                           provenBy("EnableHTTPS", "scheduler/extender/extender_test.go:TestTLS"),
		"tlsConfig.insecure":                    provenBy("Insecure", "scheduler/extender/extender_test.go:TestTLS"),
		"tlsConfig.caData":                      provenBy("CAData", "scheduler/extender/extender_test.go:TestTLS"),
		"tlsConfig.caFile":                      {takesEffect, checkTLS("caFile")},
		"tlsConfig.serverName":                  {takesEffect, checkTLS("serverName")},
		"tlsConfig.certFile":                    {takesEffect, checkTLS("certFile")},
		"tlsConfig.keyFile":                     {takesEffect, checkTLS("certFile")},
		"tlsConfig.certData":                    {takesEffect, checkTLS("certData")},
		"tlsConfig.keyData":                     {takesEffect, checkTLS("certData")},
	}
}

// checkTLS: against a TLS server that requires a client certificate, the
// extender's filter call succeeds only with the field set right.
func checkTLS(field string) func(t *testing.T) {
	return func(t *testing.T) {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"NodeNames":["n"]}`))
		}))
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
		srv.StartTLS()
		defer srv.Close()
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		keyDER, err := x509.MarshalPKCS8PrivateKey(srv.TLS.Certificates[0].PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		key := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
		dir := t.TempDir()
		write := func(name string, data []byte) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		call := func(tc configv1.ExtenderTLSConfig) error {
			e, err := extender.New(configv1.Extender{URLPrefix: srv.URL, FilterVerb: "filter", NodeCacheCapable: true, TLSConfig: &tc})
			if err != nil {
				return err
			}
			n := cfNode("n", "1", nil)
			ni := framework.NewNodeInfo()
			ni.SetNode(n)
			_, _, _, err = e.Filter(cfPod("p", "1", ""), []*framework.NodeInfo{ni})
			return err
		}
		// The client certificate is the server's own: RequireAnyClientCert
		// asks for one without verifying it.
		withCert := configv1.ExtenderTLSConfig{CAData: ca, CertData: ca, KeyData: key}
		var without, with configv1.ExtenderTLSConfig
		switch field {
		case "caFile":
			without = configv1.ExtenderTLSConfig{CertData: ca, KeyData: key}
			with = configv1.ExtenderTLSConfig{CAFile: write("ca.crt", ca), CertData: ca, KeyData: key}
		case "serverName":
			without = withCert
			with = withCert
			without.ServerName = "not-the-server.test"
			with.ServerName = "example.com" // httptest's certificate names it
		case "certFile":
			without = configv1.ExtenderTLSConfig{CAData: ca}
			with = configv1.ExtenderTLSConfig{CAData: ca, CertFile: write("c.crt", ca), KeyFile: write("c.key", key)}
		case "certData":
			without = configv1.ExtenderTLSConfig{CAData: ca}
			with = withCert
		}
		if err := call(without); err == nil {
			t.Errorf("%s: the call succeeded without it", field)
		}
		if err := call(with); err != nil {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// Extenders are global in a KubeSchedulerConfiguration: kube-scheduler
// gives every profile the same extenders. A filter extender rejecting a
// node keeps the pods of both profiles off it.
func TestExtendersApplyToEveryProfile(t *testing.T) {
	nodes := []*v1.Node{cfNode("a", "4", map[string]string{"extender.test/filter": "fail"}), cfNode("b", "4", nil)}
	srv := extendertest.Start(nodes)
	defer srv.Close()
	cfg := loadCfg(t, fmt.Sprintf(`profiles:
- schedulerName: default-scheduler
- schedulerName: packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
extenders:
- urlPrefix: %s
  filterVerb: filter
  nodeCacheCapable: true
`, srv.URL()))
	as := runEngine(t, cfg, nil, nodes, []*v1.Pod{cfPod("p1", "1", ""), cfPod("p2", "1", "packing")})
	if len(as) != 2 {
		t.Fatalf("%d attempts", len(as))
	}
	for _, a := range as {
		if a.Node != "b" || len(a.ExtenderCalls) != 1 {
			t.Errorf("%s (profile %s): node %q, %d extender calls; want b and 1", a.Pod, a.Profile, a.Node, len(a.ExtenderCalls))
		}
	}
	calls := map[string]bool{}
	for _, c := range srv.Calls() {
		calls[c.Pod] = true
	}
	if !calls["default/p1"] || !calls["default/p2"] {
		t.Errorf("the extender was asked about %v; want both pods", calls)
	}
}
