package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/tui"
)

var (
	atScenarios           = flag.Int("at-scenarios", 30, "generated scenarios (seeds 0..n-1) TestSnapshotAtReproducesAttempt writes states of")
	atPreemptionScenarios = flag.Int("at-preemption-scenarios", 20, "generated preemption-biased scenarios TestSnapshotAtReproducesAttempt writes states of")
	atPerScenario         = flag.Int("at-per-scenario", 4, "attempts per scenario TestSnapshotAtReproducesAttempt writes (0: every pod's first and last)")
)

// firstAttemptOf loads a state written by snapshot --at as run loads it
// and makes the run's first step: pod's attempt when that step was a
// group cycle with pod among its members (the state at a member's attempt
// is the cluster at its group's pop), else the step's attempt.
func firstAttemptOf(t *testing.T, path, pod string) *record.Attempt {
	t.Helper()
	s, err := load(context.Background(), &sourceFlags{snapshot: path, seed: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.engine()
	if err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok {
		t.Fatalf("%s: nothing to attempt", path)
	}
	if g, inGroup := e.GroupOf(0); inGroup {
		for _, m := range g.Members {
			if ma := e.Attempts().At(m.Attempt); ma.Pod == pod {
				return ma
			}
		}
	}
	return a
}

// checkAt writes the state at attempt pa of a run and checks that a run
// over it attempts the same pod first with the same answer.
func checkAt(t *testing.T, dir, name string, s *session, e *engine.Engine, pa history.PodAttempt) {
	t.Helper()
	c, hd, _, err := atState(s, e, pa.Attempt.Pod, pa.N)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	path := filepath.Join(dir, "at.json")
	if _, err := snapshot.WriteFile(path, c, hd); err != nil {
		t.Fatal(err)
	}
	got, want := firstAttemptOf(t, path, pa.Attempt.Pod).JSON(), pa.Attempt.JSON()
	where := fmt.Sprintf("%s %s#%d", name, pa.Attempt.Pod, pa.N)
	if got.Pod != want.Pod {
		t.Errorf("%s: the run over the state attempts %s first", where, got.Pod)
		return
	}
	sameAttempt(t, where, answerOf(got), want)
}

// demoRun loads the demo as run does and runs it to the end.
func demoRun(t *testing.T) (*session, *engine.Engine) {
	t.Helper()
	demo, err := load(context.Background(), &sourceFlags{demo: true, seed: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e, err := demo.run(0)
	if err != nil {
		t.Fatal(err)
	}
	return demo, e
}

// TestSnapshotAtReproducesAttempt: for pods of generated scenarios (every
// pod's last attempt and its first when it had more) and every attempt of
// the demo, the state snapshot --at writes makes run attempt that pod
// first, with the same outcome, node, message, nomination and victims.
func TestSnapshotAtReproducesAttempt(t *testing.T) {
	dir := t.TempDir()
	checked := 0
	demo, e := demoRun(t)
	for _, h := range e.Histories() {
		for _, pa := range h.Attempts {
			checkAt(t, dir, "demo", demo, e, pa)
			checked++
		}
	}
	scenarios := generatedScenarios(*atScenarios, *atPreemptionScenarios)
	notFirstInQueue, tried := 0, 0
	for _, sc := range scenarios {
		s, err := load(context.Background(), &sourceFlags{snapshot: writeJSONList(t, dir, sc), seed: 1}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		e, err := s.run(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pa := range sampleAttempts(e.Histories(), *atPerScenario) {
			checkAt(t, dir, sc.Name, s, e, pa)
			checked++
			// Writing and loading dominate the cost: the header's
			// necessity is shown on the first few.
			if notFirstInQueue < 3 && pa.Index > 0 {
				tried++
				if !poppedFirstAnyway(t, s, e, pa) {
					notFirstInQueue++
				}
			}
		}
	}
	t.Logf("%d attempts written with --at and re-run (demo and %d scenarios); without the attempt-first header %d of %d tried would have popped another pod first",
		checked, len(scenarios), notFirstInQueue, tried)
	if notFirstInQueue == 0 {
		t.Error("every pod would have come first anyway: the attempt-first header was never exercised")
	}
}

// sampleAttempts picks up to n attempts spread over the pods (every
// pod's first and last for n = 0): first attempts, last ones, retries.
func sampleAttempts(hs []history.PodHistory, n int) []history.PodAttempt {
	var all []history.PodAttempt
	for _, h := range hs {
		for _, pa := range h.Attempts {
			if pa.N == 1 || pa.N == len(h.Attempts) {
				all = append(all, pa)
			}
		}
	}
	if n <= 0 || len(all) <= n {
		return all
	}
	out := make([]history.PodAttempt, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

// poppedFirstAnyway reports whether a run over the state without the
// attempt-first header would also attempt the pod first.
func poppedFirstAnyway(t *testing.T, s *session, e *engine.Engine, pa history.PodAttempt) bool {
	t.Helper()
	c, hd, _, err := atState(s, e, pa.Attempt.Pod, pa.N)
	if err != nil {
		t.Fatal(err)
	}
	hd.AttemptFirst = ""
	path := filepath.Join(t.TempDir(), "plain.json")
	if _, err := snapshot.WriteFile(path, c, hd); err != nil {
		t.Fatal(err)
	}
	return firstAttemptOf(t, path, pa.Attempt.Pod).Pod == pa.Attempt.Pod
}

// TestSnapshotAtCommand: the command on the demo's cases, the header it
// writes, and its errors, each naming the pod.
func TestSnapshotAtCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "web-3.yaml")
	checkCmd(t, newSnapshotCommand, []string{"--demo", "--at", "default/web-3#1", "-o", out},
		cmdWant{stderr: []string{"the cluster at the start of attempt 1 of default/web-3"}})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# at: default/web-3#1", "# attempt-first: default/web-3", "# random-state: ", "# next-start-node-index: "} {
		if !strings.Contains(string(data), want) {
			t.Errorf("header lacks %q", want)
		}
	}
	runs := runAttempts(t, "--demo")
	after := runAttempts(t, "--snapshot", out)
	if got := after["default/web-3"]; len(got) == 0 {
		t.Fatal("run over the state never attempted web-3")
	} else {
		sameAttempt(t, "web-3#1", answerOf(got[0]), runs["default/web-3"][0])
	}
	// web-3's first attempt comes right after critical-api's preemption:
	// its victims are terminating, critical-api is nominated.
	if !strings.Contains(string(data), "DisruptionTarget") || !strings.Contains(string(data), "deletionTimestamp") {
		t.Error("the victims terminating at web-3's first attempt lost their deletionTimestamp or DisruptionTarget condition")
	}
	if !strings.Contains(string(data), "nominatedNodeName: node-b2") {
		t.Error("critical-api's nomination is not in the written state")
	}
	for _, tc := range []struct{ at, err string }{
		{"default/nope", `pod "default/nope" not found`},
		{"default/web-3#3", `pod "default/web-3" has 2 attempt(s) in this run: #3 is beyond its last`},
		{"default/gated-job", `pod "default/gated-job" was never attempted (gated by SchedulingGates`},
		{"default/web-3#0", "counts the pod's attempts from 1"},
	} {
		checkCmd(t, newSnapshotCommand, []string{"--demo", "--at", tc.at, "-o", filepath.Join(dir, "x.yaml")}, cmdWant{errSubstr: tc.err})
	}
}

// TestTUIRestartsAtSnapshotAt: the debugger over a state written by
// snapshot --at makes that attempt first, as run does, on both sides of
// compare mode, and says so on the status line. The attempt chosen is
// one the queue alone would not pop first, so the header is what decides.
func TestTUIRestartsAtSnapshotAt(t *testing.T) {
	demo, e := demoRun(t)
	var pa *history.PodAttempt
	for _, h := range e.Histories() {
		for i := range h.Attempts {
			if p := h.Attempts[i]; p.Index > 0 && !poppedFirstAnyway(t, demo, e, p) {
				pa = &p
				break
			}
		}
		if pa != nil {
			break
		}
	}
	if pa == nil {
		t.Fatal("every demo attempt would be popped first without the header: nothing to check")
	}
	c, hd, _, err := atState(demo, e, pa.Attempt.Pod, pa.N)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "at.yaml")
	if _, err := snapshot.WriteFile(path, c, hd); err != nil {
		t.Fatal(err)
	}
	var opts tui.Options
	old := runTUI
	runTUI = func(o tui.Options, _ io.Reader, _ io.Writer) error { opts = o; return nil }
	t.Cleanup(func() { runTUI = old })
	want := pa.Attempt.JSON()
	first := func(side string, b *tui.Backend) {
		t.Helper()
		a, ok := b.Step()
		if !ok {
			t.Fatalf("%s: nothing to attempt", side)
		}
		if got := a.JSON(); got.Pod != want.Pod {
			t.Errorf("%s: the debugger attempts %s first over the state at %s", side, got.Pod, hd.At)
		} else {
			sameAttempt(t, side, answerOf(got), want)
		}
	}
	open := func(f *sourceFlags) {
		t.Helper()
		if err := openTUI(context.Background(), f, strings.NewReader(""), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	open(&sourceFlags{snapshot: path, seed: 1})
	if want := "the state at " + hd.At + " (snapshot --at)"; !strings.Contains(opts.Notice, want) {
		t.Errorf("status line %q does not say %q", opts.Notice, want)
	}
	first("debugger", opts.Backend)
	open(&sourceFlags{snapshot: path, seed: 1, compareWith: "defaults"})
	first("compare mode's left side", opts.Backend)
	cmp, err := opts.NewComparison("defaults")
	if err != nil {
		t.Fatal(err)
	}
	first("compare side", cmp.Backend)
}
