package engine

import (
	"errors"
	"fmt"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/record"

	"github.com/schedtui/schedtui/internal/extendertest"
	"github.com/schedtui/schedtui/scheduler"
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

// TestExtenderAnswersSlideWithCheckpoints: a long session keeps the
// extenders' answers of the attempts that can still be replayed (from the
// oldest checkpoint on), not every answer ever given, and a rewind into
// that window still replays its attempts without calling the extender.
func TestExtenderAnswersSlideWithCheckpoints(t *testing.T) {
	yaml := listHeader + nodeYAML("a", "16", "") + nodeYAML("b", "16", "")
	for i := range 12 {
		yaml += podYAML(fmt.Sprintf("p%02d", i), "1", 0, "")
	}
	c, _, err := snapshot.Load("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	srv := extendertest.Start(c.Nodes)
	defer srv.Close()
	answers := scheduler.NewExtenderAnswers()
	e := build(t, c, Options{Seed: 1, ExtenderAnswers: answers, CheckpointInterval: 3, MaxCheckpoints: 2,
		Retention: Retention{Detailed: 100, Sliding: true},
		Config: &configv1.KubeSchedulerConfiguration{Extenders: []configv1.Extender{
			{URLPrefix: srv.URL(), FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: true}}}})
	e.RunToQuiescence()
	attempts := e.Attempts().Len()
	calls := len(srv.Calls())
	from := e.Retained().RewindableFrom
	if from == 0 || from >= attempts-1 {
		t.Fatalf("%d attempts, rewindable from %d: the window did not slide", attempts, from)
	}
	windowCalls := 0
	for i := from; i < attempts; i++ {
		windowCalls += len(e.Attempts().At(i).ExtenderCalls)
	}
	// What is kept is the window's answers: not fewer (its attempts may
	// be replayed), not all.
	if kept := answers.Len(); kept >= calls || kept < windowCalls || windowCalls == 0 {
		t.Errorf("%d answers kept of %d calls; the window's %d attempts made %d calls", kept, calls, attempts-from, windowCalls)
	}
	// Back to the window's second attempt: its first is replayed from the
	// oldest checkpoint with the answers it got.
	if err := e.Rewind(attempts - from - 1); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Calls()); got != calls {
		t.Errorf("rewinding into the window called the extender %d more times", got-calls)
	}
	if a := e.Attempts().At(from); len(a.ExtenderCalls) == 0 || !a.ExtenderCalls[0].Replayed {
		t.Errorf("the replayed attempt %d did not get its answers: %+v", from, a.ExtenderCalls)
	}
}
