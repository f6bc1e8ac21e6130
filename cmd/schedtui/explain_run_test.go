package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// TestExplainAgreesWithRunAtScale covers the 500 + 200 scenarios;
// this flag pair sizes the command-level comparison.
var (
	explainScenarios           = flag.Int("explain-scenarios", 60, "generated scenarios (seeds 0..n-1) TestExplainAgreesWithRun compares")
	explainPreemptionScenarios = flag.Int("explain-preemption-scenarios", 30, "generated preemption-biased scenarios TestExplainAgreesWithRun compares")
)

// runAttempts runs `run -o json` and returns every attempt line, per pod
// in order.
func runAttempts(t *testing.T, args ...string) map[string][]record.AttemptJSON {
	t.Helper()
	out, errOut, err := runCmd(t, newRunCommand, append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, errOut)
	}
	return attemptLines(t, fmt.Sprint(args), out)
}

// attemptLines are the attempt lines of run -o json's output, per pod in
// order.
func attemptLines(t *testing.T, args, out string) map[string][]record.AttemptJSON {
	t.Helper()
	byPod := map[string][]record.AttemptJSON{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), `{"kind":"attempt"`) {
			continue
		}
		var a record.AttemptJSON
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("run %s: %v in %s", args, err, sc.Text())
		}
		byPod[a.Pod] = append(byPod[a.Pod], a)
	}
	return byPod
}

// explainJSON runs `explain ARGS -o json` and decodes its answer (a List
// for -A).
func explainJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, errOut, err := runCmd(t, newExplainCommand, append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("explain %v: %v in %s", args, err, out)
	}
}

// sameAttempt compares what explain says of an attempt with run's line.
func sameAttempt(t *testing.T, where string, got attemptAnswer, a record.AttemptJSON) {
	t.Helper()
	want := answerOf(a)
	if got.Outcome != want.Outcome || got.Node != want.Node || got.Message != want.Message || got.NominatedNode != want.NominatedNode ||
		!slices.Equal(got.Victims, want.Victims) {
		t.Errorf("%s: explain says %+v; run says %+v", where, got, want)
	}
}

// compareExplainRun checks explain -A against run on one source: every
// pod run attempted is explained with the same last attempt, the same
// attempt count and the same history; pods explain lists without
// attempts have none in run either. It returns the explanations.
func compareExplainRun(t *testing.T, name string, args ...string) []explanation {
	t.Helper()
	runs := runAttempts(t, args...)
	var list struct {
		Items []explanation `json:"items"`
	}
	explainJSON(t, &list, append(args, "-A")...)
	compareAnswers(t, name, runs, list.Items)
	return list.Items
}

// compareAnswers checks explain's answers against run's attempt lines.
func compareAnswers(t *testing.T, name string, runs map[string][]record.AttemptJSON, items []explanation) {
	t.Helper()
	explained := map[string]bool{}
	for _, x := range items {
		explained[x.Pod] = true
		attempts := runs[x.Pod]
		where := name + " " + x.Pod
		if x.Attempts != len(attempts) || len(x.History) != len(attempts) {
			t.Errorf("%s: explain counts %d attempts (%d in its history), run %d", where, x.Attempts, len(x.History), len(attempts))
			continue
		}
		if len(attempts) == 0 {
			if x.Outcome != notAttempted || x.Attempt != 0 {
				t.Errorf("%s: never attempted in run, explain says %s (attempt %d)", where, x.Outcome, x.Attempt)
			}
			continue
		}
		last := attempts[len(attempts)-1]
		if x.Attempt != len(attempts) || x.Hints == nil || len(x.Verdict) == 0 {
			t.Errorf("%s: explains attempt %d of %d, hints %v, verdict %v", where, x.Attempt, len(attempts), x.Hints, x.Verdict)
		}
		sameAttempt(t, where, x.attemptAnswer, last)
		for i, h := range x.History {
			sameAttempt(t, where+" history", h.attemptAnswer, attempts[i])
		}
	}
	for pod := range runs {
		if !explained[pod] {
			t.Errorf("%s: run attempted %s, explain -A does not list it", name, pod)
		}
	}
}

// generatedScenarios are the scenarios of seeds 0..plain-1 and, biased
// towards preemption, of seeds 0..preemption-1, as the differential suite
// numbers them.
func generatedScenarios(plain, preemption int) []*scenario.Scenario {
	var out []*scenario.Scenario
	for seed := int64(0); seed < int64(plain); seed++ {
		out = append(out, scenario.Generate(seed, scenario.Options{}))
	}
	for seed := int64(0); seed < int64(preemption); seed++ {
		out = append(out, scenario.Generate(seed, scenario.Options{Preemption: true}))
	}
	return out
}

// writeJSONList saves a scenario as a JSON List snapshot (JSON loads
// several times faster than scenario.Dump's YAML).
func writeJSONList(t *testing.T, dir string, s *scenario.Scenario) string {
	t.Helper()
	var items []any
	for _, o := range s.Cluster.Objects() {
		o, err := snapshot.WithKind(o)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, o)
	}
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, s.Name+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExplainAgreesWithRun: for every pod of generated scenarios, explain
// -o json gives the message, node, nomination and victims of that pod's
// last attempt in run -o json, and the same attempts. A sample of pods is
// also explained one by one (explain NS/POD), which must give the same
// answer as -A.
func TestExplainAgreesWithRun(t *testing.T) {
	dir := t.TempDir()
	scenarios := generatedScenarios(*explainScenarios, *explainPreemptionScenarios)
	pods, attempted := 0, 0
	for i, s := range scenarios {
		path := writeJSONList(t, dir, s)
		xs := compareExplainRun(t, s.Name, "--snapshot", path)
		pods += len(xs)
		for _, x := range xs {
			if x.Attempts > 0 {
				attempted++
			}
		}
		// One pod by name in every tenth scenario: the single-pod path
		// gives the -A answer.
		if i%10 == 0 && len(xs) > 0 {
			want := xs[len(xs)/2]
			var got explanation
			explainJSON(t, &got, "--snapshot", path, want.Pod)
			if !reflect.DeepEqual(got.attemptAnswer, want.attemptAnswer) || got.Attempts != want.Attempts || got.Queue != want.Queue {
				t.Errorf("%s %s alone: %+v, %d attempts, in %q; with -A %+v, %d, in %q", s.Name, want.Pod,
					got.attemptAnswer, got.Attempts, got.Queue, want.attemptAnswer, want.Attempts, want.Queue)
			}
		}
	}
	t.Logf("%d scenarios, %d pods explained, %d of them attempted", len(scenarios), pods, attempted)
	if attempted == 0 {
		t.Fatal("no pod was attempted: the comparison compared nothing")
	}
}

// TestExplainDemoCases pins the demo cases: explain answers as
// run's queue does (gated-job is gated, web-3 fails first and is
// scheduled once critical-api's victims leave), where scheduling the
// pending pods once each in order said Scheduled for both at once.
func TestExplainDemoCases(t *testing.T) {
	runs := runAttempts(t, "--demo")
	xs := compareExplainRun(t, "demo", "--demo")
	if len(xs) == 0 {
		t.Fatal("explain -A listed nothing")
	}
	var gated explanation
	explainJSON(t, &gated, "--demo", "default/gated-job")
	if gated.Outcome != notAttempted || gated.Attempts != 0 || gated.Queue != "Gated" || gated.Node != "" ||
		!strings.Contains(gated.Message, "SchedulingGates: waiting for scheduling gates") {
		t.Errorf("gated-job: %+v", gated)
	}
	web3 := runs["default/web-3"]
	if len(web3) != 2 || web3[0].Outcome != record.OutcomeUnschedulable || web3[1].Node != "node-b2" {
		t.Fatalf("run's web-3: %+v", web3)
	}
	var first, last explanation
	explainJSON(t, &first, "--demo", "web-3", "-n", "default", "--attempt", "1")
	sameAttempt(t, "web-3 attempt 1", first.attemptAnswer, web3[0])
	explainJSON(t, &last, "--demo", "pod/default/web-3")
	sameAttempt(t, "web-3", last.attemptAnswer, web3[1])
	if first.Attempt != 1 || last.Attempt != 2 || last.Attempts != 2 || !slices.Equal(last.History[1].Events, []string{"AssignedPodDelete"}) {
		t.Errorf("web-3: attempt %d then %d of %d, events %v", first.Attempt, last.Attempt, last.Attempts, last.History[1].Events)
	}
}

var (
	scaleScenarios           = flag.Int("explain-scale-scenarios", 500, "generated scenarios TestExplainAgreesWithRunAtScale compares")
	scalePreemptionScenarios = flag.Int("explain-scale-preemption-scenarios", 200, "generated preemption-biased scenarios TestExplainAgreesWithRunAtScale compares")
)

// TestExplainAgreesWithRunAtScale is TestExplainAgreesWithRun at the
// issue's scale (500 generated and 200 preemption-biased scenarios, as
// conformance/), made affordable by sharing one engine run per scenario:
// run -o json's printer and explain -A's (every pod: history, verdict,
// hints) read the same run, as each command reads its own. That both
// commands run the engine alike (same loading, same stopping rule) is
// TestExplainAgreesWithRun's part, on fewer scenarios through the
// commands themselves.
func TestExplainAgreesWithRunAtScale(t *testing.T) {
	scenarios := generatedScenarios(*scaleScenarios, *scalePreemptionScenarios)
	pods := 0
	for _, sc := range scenarios {
		s := &session{cluster: sc.Cluster.DeepCopy(), seed: 1, stderr: io.Discard}
		e, err := s.run(0)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		var runOut, explainOut bytes.Buffer
		if err := printJSON(&runOut, e, func(history.Event) bool { return true }); err != nil {
			t.Fatal(err)
		}
		if err := explainPods(&explainOut, s, e, explainQuery{output: "json"}); err != nil {
			if strings.Contains(err.Error(), "went through the scheduling queue") {
				continue
			}
			t.Fatalf("%s: explain -A: %v", sc.Name, err)
		}
		var list struct {
			Items []explanation `json:"items"`
		}
		if err := json.Unmarshal(explainOut.Bytes(), &list); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		compareAnswers(t, sc.Name, attemptLines(t, sc.Name, runOut.String()), list.Items)
		pods += len(list.Items)
	}
	t.Logf("%d scenarios, %d pods explained", len(scenarios), pods)
}

// printJSON prints a finished engine's timeline as JSON lines, as run
// -o json streams it.
func printJSON(w io.Writer, e *engine.Engine, keep func(history.Event) bool) error {
	attempts := e.Attempts()
	for _, ev := range e.Timeline().All() {
		if !keep(ev) {
			continue
		}
		var a *record.Attempt
		if ev.Kind == history.EventAttempt {
			a = attempts.At(ev.Attempt)
		}
		if err := writeJSONEvent(w, ev, a, record.DetailFull); err != nil {
			return err
		}
	}
	return nil
}
