package engine

import (
	"errors"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/record"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// A fork replays the attempts before the one it stops at: their extender
// requests get the answers recorded the first time, without calling out,
// and the fork's own attempt too when it asks what the attempt asked.
func TestForkReplaysExtenderAnswers(t *testing.T) {
	c, _, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes {
		if n.Name == "node-b1" {
			n.Labels["extender.test/filter"] = "fail"
		}
	}
	srv := extendertest.Start(c.Nodes)
	defer srv.Close()
	e := build(t, c, Options{Seed: 1, Config: &configv1.KubeSchedulerConfiguration{Extenders: []configv1.Extender{
		{URLPrefix: srv.URL(), FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: true}}}})
	e.RunToQuiescence()
	calls := len(srv.Calls())
	if calls == 0 {
		t.Fatal("the extender was never called")
	}
	last := -1
	for i, a := range e.Attempts().All() {
		if len(a.ExtenderCalls) > 0 {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("no attempt called the extender")
	}
	s, pod, err := e.Fork(last)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Calls()); got != calls {
		t.Errorf("replaying to the last attempt called the extender %d more times", got-calls)
	}
	a := s.ScheduleOne(pod)
	if got := len(srv.Calls()); got != calls {
		t.Errorf("the fork's attempt called the extender %d more times", got-calls)
	}
	orig := e.Attempts().At(last)
	if a.Outcome != orig.Outcome || a.Node != orig.Node || len(a.ExtenderCalls) != len(orig.ExtenderCalls) {
		t.Fatalf("fork: %v %q %d calls; engine: %v %q %d calls", a.Outcome, a.Node, len(a.ExtenderCalls), orig.Outcome, orig.Node, len(orig.ExtenderCalls))
	}
	for _, call := range a.ExtenderCalls {
		if !call.Replayed {
			t.Errorf("fork call %s not replayed", call.Verb)
		}
	}
}

// A bind extender binds only when schedtui binds for real (--bind), in
// place of the Bind plugins; otherwise it is never called.
func TestBindExtenderOnlyWithBind(t *testing.T) {
	c, _, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	if err != nil {
		t.Fatal(err)
	}
	srv := extendertest.Start(c.Nodes)
	defer srv.Close()
	cfg := &configv1.KubeSchedulerConfiguration{Extenders: []configv1.Extender{{URLPrefix: srv.URL(), BindVerb: "bind"}}}
	bindCalls := func() int {
		n := 0
		for _, call := range srv.Calls() {
			if call.Verb == "bind" {
				n++
			}
		}
		return n
	}
	e := build(t, c.DeepCopy(), Options{Seed: 1, Config: cfg})
	e.RunToQuiescence()
	if n := bindCalls(); n != 0 {
		t.Fatalf("without --bind the bind extender was called %d times", n)
	}
	cluster := &fakeCluster{}
	e = build(t, c.DeepCopy(), Options{Seed: 1, Config: cfg, Bind: cluster.bind})
	e.RunToQuiescence()
	scheduled := 0
	for _, a := range e.Attempts().All() {
		if a.Outcome == record.Scheduled {
			scheduled++
		}
	}
	if n := bindCalls(); n == 0 || n != scheduled || len(cluster.bound) != 0 {
		t.Errorf("with --bind: %d extender bindings, %d pods scheduled, %d bound by the Bind plugin", n, scheduled, len(cluster.bound))
	}
	if err := e.Rewind(1); !errors.Is(err, ErrRewindAfterBind) {
		t.Errorf("rewind over the extender's bindings: %v", err)
	}
}
