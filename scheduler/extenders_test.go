package scheduler

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

func extPod(name, cpu string, prio int32) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: k8stypes.UID("uid-" + name)}}
	p.Spec.SchedulerName = v1.DefaultSchedulerName
	p.Spec.Priority = &prio
	p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}
	return p
}

func withExtenders(exts ...configv1.Extender) *configv1.KubeSchedulerConfiguration {
	return &configv1.KubeSchedulerConfiguration{Extenders: exts}
}

func TestExtenderFilterRejectsNodesAsUpstream(t *testing.T) {
	nodes := []*v1.Node{
		dsNode("a", "4", func(n *v1.Node) { n.Labels["extender.test/filter"] = "fail" }),
		dsNode("b", "4", func(n *v1.Node) { n.Labels["extender.test/filter"] = "unresolvable" }),
		dsNode("c", "4", func(n *v1.Node) { n.Labels["extender.test/filter"] = "fail" }),
	}
	for _, cacheCapable := range []bool{false, true} {
		srv := extendertest.Start(nodes)
		defer srv.Close()
		p := extPod("p", "1", 0)
		s, err := New(nodes, []*v1.Pod{p}, nil, Options{Registry: plugins.NewInTreeRegistry(),
			Config: withExtenders(configv1.Extender{URLPrefix: srv.URL(), FilterVerb: "filter", NodeCacheCapable: cacheCapable})})
		if err != nil {
			t.Fatal(err)
		}
		a := s.ScheduleOne(p)
		if a.Outcome != record.Unschedulable {
			t.Fatalf("cacheCapable=%v: outcome %v (%s)", cacheCapable, a.Outcome, a.Message)
		}
		want := "0/3 nodes are available: 1 unresolvable for the test extender, 2 rejected by the test extender. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
		if a.Message != want {
			t.Errorf("cacheCapable=%v: message\n got %s\nwant %s", cacheCapable, a.Message, want)
		}
		if strings.Join(a.UnschedulablePlugins, ",") != framework.ExtenderName {
			t.Errorf("unschedulable plugins %v", a.UnschedulablePlugins)
		}
		calls := srv.Calls()
		if len(calls) != 1 || calls[0].Verb != "filter" || calls[0].NodeNames != cacheCapable || len(calls[0].Nodes) != 3 {
			t.Errorf("cacheCapable=%v: calls %+v", cacheCapable, calls)
		}
		if len(a.ExtenderCalls) != 1 || a.ExtenderCalls[0].Failed["a"] == "" || a.ExtenderCalls[0].FailedAndUnresolvable["b"] == "" {
			t.Errorf("recorded calls %+v", a.ExtenderCalls)
		}
		// Upstream's statuses name no plugin; the record names the
		// extender by its URL prefix, as its score column.
		wantFilter := map[string]record.FilterJSON{
			"a": {Plugin: srv.URL(), Reasons: []string{"rejected by the test extender"}},
			"b": {Plugin: srv.URL(), Reasons: []string{"unresolvable for the test extender"}},
			"c": {Plugin: srv.URL(), Reasons: []string{"rejected by the test extender"}},
		}
		if got := a.JSON().Filter; !reflect.DeepEqual(got, wantFilter) {
			t.Errorf("cacheCapable=%v: filter\n got %v\nwant %v", cacheCapable, got, wantFilter)
		}
	}
}

func TestExtenderPrioritizeAddsWeightedScores(t *testing.T) {
	nodes := []*v1.Node{
		dsNode("a", "4", func(n *v1.Node) { n.Labels["extender.test/score"] = "1" }),
		dsNode("b", "4", func(n *v1.Node) { n.Labels["extender.test/score"] = "9" }),
	}
	srv := extendertest.Start(nodes)
	defer srv.Close()
	s, err := New(nodes, nil, nil, Options{Registry: plugins.NewInTreeRegistry(),
		Config: withExtenders(configv1.Extender{URLPrefix: srv.URL(), PrioritizeVerb: "prioritize", Weight: 3, NodeCacheCapable: true})})
	if err != nil {
		t.Fatal(err)
	}
	a := s.ScheduleOne(extPod("p", "1", 0))
	if a.Outcome != record.Scheduled || a.Node != "b" {
		t.Fatalf("outcome %v on %q (%s)", a.Outcome, a.Node, a.Message)
	}
	j := a.JSON()
	if got := j.Scores["b"][srv.URL()]; got.Raw != 9 || got.Final != 270 {
		t.Errorf("b's extender score %+v, want raw 9 final 270", got)
	}
	if j.Total["b"]-j.Total["a"] != 240 {
		t.Errorf("totals %v: the extender should put b 240 ahead", j.Total)
	}
}

func TestUnreachableExtender(t *testing.T) {
	nodes := []*v1.Node{dsNode("a", "4", nil), dsNode("b", "4", nil)}
	url, err := extendertest.UnreachableURL()
	if err != nil {
		t.Fatal(err)
	}
	for _, ignorable := range []bool{false, true} {
		s, err := New(nodes, nil, nil, Options{Registry: plugins.NewInTreeRegistry(),
			Config: withExtenders(configv1.Extender{URLPrefix: url, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, Ignorable: ignorable,
				HTTPTimeout: metav1.Duration{Duration: time.Second}})})
		if err != nil {
			t.Fatal(err)
		}
		a := s.ScheduleOne(extPod("p", "1", 0))
		if ignorable {
			if a.Outcome != record.Scheduled || len(a.ExtenderCalls) != 2 || !a.ExtenderCalls[0].Skipped() {
				t.Errorf("ignorable: outcome %v (%s), calls %+v", a.Outcome, a.Message, a.ExtenderCalls)
			}
			continue
		}
		if a.Outcome != record.Error || !strings.Contains(a.Message, "/filter") || !strings.Contains(a.Message, "connection refused") {
			t.Errorf("not ignorable: outcome %v, message %q", a.Outcome, a.Message)
		}
	}
}

func TestExtenderManagedResourcesAndIgnoredByScheduler(t *testing.T) {
	nodes := []*v1.Node{dsNode("a", "4", func(n *v1.Node) { n.Labels["extender.test/filter"] = "fail" })}
	srv := extendertest.Start(nodes)
	defer srv.Close()
	cfg := withExtenders(configv1.Extender{URLPrefix: srv.URL(), FilterVerb: "filter",
		ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu", IgnoredByScheduler: true}}})
	s, err := New(nodes, nil, nil, Options{Registry: plugins.NewInTreeRegistry(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	// Not interested: the extender is not called and the pod fits.
	if a := s.ScheduleOne(extPod("plain", "1", 0)); a.Outcome != record.Scheduled || len(srv.Calls()) != 0 {
		t.Fatalf("plain pod: %v %s, calls %v", a.Outcome, a.Message, srv.Calls())
	}
	// Interested: NodeResourcesFit ignores the resource the node lacks,
	// and the extender rejects the node.
	gpu := extPod("gpu", "1", 0)
	gpu.Spec.Containers[0].Resources.Limits = v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	gpu.Spec.Containers[0].Resources.Requests["example.com/gpu"] = resource.MustParse("1")
	a := s.ScheduleOne(gpu)
	if a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "1 rejected by the test extender") || strings.Contains(a.Message, "Insufficient") {
		t.Errorf("gpu pod: %v %q", a.Outcome, a.Message)
	}
	if cfg.Profiles != nil {
		t.Errorf("the caller's configuration was changed: %+v", cfg.Profiles)
	}
}

func TestExtenderPreemptDropsCandidates(t *testing.T) {
	nodes := []*v1.Node{
		dsNode("a", "2", func(n *v1.Node) { n.Labels["extender.test/preempt"] = "deny" }),
		dsNode("b", "2", nil),
	}
	low := func(name, node string) *v1.Pod {
		p := extPod(name, "2", 0)
		p.Spec.NodeName = node
		return p
	}
	srv := extendertest.Start(nodes)
	defer srv.Close()
	high := extPod("high", "2", 100)
	s, err := New(nodes, []*v1.Pod{low("la", "a"), low("lb", "b"), high}, nil, Options{Registry: plugins.NewInTreeRegistry(),
		Config: withExtenders(configv1.Extender{URLPrefix: srv.URL(), PreemptVerb: "preempt", NodeCacheCapable: true})})
	if err != nil {
		t.Fatal(err)
	}
	a := s.ScheduleOne(high)
	if a.Nominated != "b" || strings.Join(a.Victims, ",") != "default/lb" {
		t.Fatalf("nominated %q victims %v (%s)", a.Nominated, a.Victims, a.Message)
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Verb != "preempt" || strings.Join(calls[0].Nodes, ",") != "a,b" {
		t.Errorf("calls %+v", calls)
	}
}

// Hints are proven with the extenders too: PassExtenders drops what they
// reject, and the record names the extender behind a rejection.
func TestPassExtendersAndRejectingExtender(t *testing.T) {
	nodes := []*v1.Node{dsNode("a", "4", nil), dsNode("b", "4", func(n *v1.Node) { n.Labels["extender.test/filter"] = "fail" })}
	srv := extendertest.Start(nodes)
	defer srv.Close()
	p := extPod("p", "8", 0)
	s, err := New(nodes, []*v1.Pod{p}, nil, Options{Registry: plugins.NewInTreeRegistry(),
		Config: withExtenders(configv1.Extender{URLPrefix: srv.URL(), FilterVerb: "filter", NodeCacheCapable: true})})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.PassExtenders(p, []string{"a", "b"}); err != nil || strings.Join(got, ",") != "a" {
		t.Errorf("PassExtenders: %v %v", got, err)
	}
	p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("1")
	a := s.ScheduleOne(p)
	if a.RejectingExtender("b") != srv.URL() || a.RejectingExtender("a") != "" || a.Node != "a" {
		t.Errorf("rejecting extender of b %q, of a %q; node %q", a.RejectingExtender("b"), a.RejectingExtender("a"), a.Node)
	}
}

// A profile with extenders registers the Extender pseudo-plugin for every
// cluster event, so that a pod only extenders rejected is requeued by any.
func TestExtenderPseudoPluginRegistersEvents(t *testing.T) {
	for _, exts := range [][]configv1.Extender{nil, {{URLPrefix: "http://127.0.0.1:1", FilterVerb: "filter"}}} {
		s, err := New(nil, nil, nil, Options{Registry: plugins.NewInTreeRegistry(), Config: withExtenders(exts...)})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range s.Profile(v1.DefaultSchedulerName).EnqueueExtensions() {
			if e.Name() == framework.ExtenderName {
				evs, _ := e.EventsToRegister(context.Background())
				found = len(evs) > 5
			}
		}
		if found != (len(exts) > 0) {
			t.Errorf("%d extenders: Extender registered for every event: %v", len(exts), found)
		}
	}
}
