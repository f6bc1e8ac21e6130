package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/compare"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/testdata"
	"github.com/schedtui/schedtui/tui"
)

var (
	// The differential suite's whole set is 500 + 200 (ten engine runs per
	// scenario: 104,734 attempts compared, about 10 minutes of CPU on two
	// cores): -compare-scenarios 500 -compare-preemption-scenarios 200.
	compareScenarios           = flag.Int("compare-scenarios", 30, "generated scenarios (seeds 0..n-1) TestCompareAgreesWithRun compares (the differential suite: 500)")
	comparePreemptionScenarios = flag.Int("compare-preemption-scenarios", 15, "generated preemption-biased scenarios TestCompareAgreesWithRun compares (the differential suite: 200)")
)

// weightsConfig raises three Score plugins' weights.
const weightsConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: PodTopologySpread
        weight: 6
      - name: InterPodAffinity
        weight: 5
      - name: NodeResourcesBalancedAllocation
        weight: 4
`

// mostAllocatedConfig packs: NodeResourcesFit's MostAllocated.
const mostAllocatedConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 1
`

// comparePair is a left and right side, as compare takes them.
type comparePair struct {
	name        string
	left, right string
}

// comparePairs are the done-when pairs: weights, MostAllocated and an
// emulated older version, each against the defaults.
func comparePairs(t *testing.T) []comparePair {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return []comparePair{
		{"weights", compare.Defaults, write("weights.yaml", weightsConfig)},
		{"MostAllocated", compare.Defaults, write("most-allocated.yaml", mostAllocatedConfig)},
		{"emulated 1.34", "--emulated-version=1.34", compare.Defaults},
	}
}

// runSide runs the scenario as `run` runs it with the side's
// configuration and gates: a fresh session over a copy of the cluster.
func runSide(t *testing.T, sc *scenario.Scenario, side *compare.Resolved) map[string][]record.AttemptJSON {
	t.Helper()
	s := &session{cluster: sc.Cluster.DeepCopy(), seed: 1, stderr: io.Discard, cfg: side.Config, gates: side.Gates}
	e, err := s.run(0)
	if err != nil {
		t.Fatalf("%s: run %s: %v", sc.Name, side.Spec.Label(), err)
	}
	var out bytes.Buffer
	if err := printJSON(&out, e, func(history.Event) bool { return true }); err != nil {
		t.Fatal(err)
	}
	return attemptLines(t, sc.Name, out.String())
}

// TestCompareAgreesWithRun: on the scenarios of the differential suite's
// generator (all 500 + 200 preemption-biased with the flags above), with
// three pairs of sides,
// each side of compare reports exactly what run with that side's
// configuration reports: every attempt line (outcome, node, message,
// filter, scores, nomination, victims) in order, and per pod the last
// outcome, node and attempt count.
func TestCompareAgreesWithRun(t *testing.T) {
	pairs := comparePairs(t)
	resolved := map[string]*compare.Resolved{}
	resolve := func(raw string) *compare.Resolved {
		if r := resolved[raw]; r != nil {
			return r
		}
		r, err := resolveSide("--side", raw, "", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		resolved[raw] = r
		return r
	}
	scenarios := generatedScenarios(*compareScenarios, *comparePreemptionScenarios)
	diverged, attempts := map[string]int{}, 0
	for _, sc := range scenarios {
		runs := map[string]map[string][]record.AttemptJSON{}
		ran := func(raw string) map[string][]record.AttemptJSON {
			if r, ok := runs[raw]; ok {
				return r
			}
			runs[raw] = runSide(t, sc, resolve(raw))
			return runs[raw]
		}
		for _, p := range pairs {
			s := &session{cluster: sc.Cluster.DeepCopy(), seed: 1, stderr: io.Discard}
			rep, err := s.compare(resolve(p.left), resolve(p.right), 0)
			if err != nil {
				t.Fatalf("%s %s: %v", sc.Name, p.name, err)
			}
			where := sc.Name + " " + p.name
			attempts += checkSide(t, where+" left", rep, 0, ran(p.left))
			attempts += checkSide(t, where+" right", rep, 1, ran(p.right))
			diverged[p.name] += len(rep.Diverged())
		}
	}
	t.Logf("%d scenarios × %d pairs, %d attempts compared; pods placed differently: %v", len(scenarios), len(pairs), attempts, diverged)
	for _, p := range pairs {
		if diverged[p.name] == 0 {
			t.Errorf("%s: no pod placed differently in any scenario: the pair compares nothing", p.name)
		}
	}
}

// checkSide checks one side of a comparison against run's attempt lines
// and returns how many attempts it compared.
func checkSide(t *testing.T, where string, rep *compare.Report, side int, want map[string][]record.AttemptJSON) int {
	t.Helper()
	got := map[string][]record.AttemptJSON{}
	for _, a := range rep.Runs[side].Engine.Attempts().All() {
		got[a.Pod] = append(got[a.Pod], a.JSON())
	}
	if !reflect.DeepEqual(normalize(got), normalize(want)) {
		for pod, w := range want {
			if g := got[pod]; !reflect.DeepEqual(normalize(map[string][]record.AttemptJSON{pod: g}), normalize(map[string][]record.AttemptJSON{pod: w})) {
				t.Fatalf("%s: %s: compare's attempts\n%+v\nrun's\n%+v", where, pod, g, w)
			}
		}
		t.Fatalf("%s: compare attempted pods run did not", where)
	}
	n := 0
	for _, p := range rep.Pods {
		r := [2]compare.Result{p.Left, p.Right}[side]
		w := want[p.Pod]
		n += len(w)
		if len(w) == 0 {
			if r.Outcome != compare.NotAttempted || r.Attempts != 0 || r.Node != "" {
				t.Errorf("%s: %s: %+v, run never attempted it", where, p.Pod, r)
			}
			continue
		}
		last := w[len(w)-1]
		if r.Outcome != last.Outcome || r.Node != last.Node || r.Attempts != len(w) {
			t.Errorf("%s: %s: %+v, run: %s %q after %d attempts", where, p.Pod, r, last.Outcome, last.Node, len(w))
		}
	}
	return n
}

// normalize makes nil and empty collections alike (JSON lines decode
// empty, records render nil).
func normalize(m map[string][]record.AttemptJSON) map[string][]record.AttemptJSON {
	b, _ := json.Marshal(m)
	out := map[string][]record.AttemptJSON{}
	_ = json.Unmarshal(b, &out)
	return out
}

// TestCompareCommandAgreesWithRun runs the commands themselves on a few
// generated scenarios: compare -o json's pods against run -o json with
// each side's configuration file.
func TestCompareCommandAgreesWithRun(t *testing.T) {
	dir := t.TempDir()
	pairs := comparePairs(t)
	for _, sc := range generatedScenarios(4, 2) {
		path := writeJSONList(t, dir, sc)
		for _, p := range pairs {
			out, errOut, err := runCmd(t, newCompareCommand, "--snapshot", path, "--left", p.left, "--right", p.right, "-o", "json")
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", sc.Name, p.name, err, errOut)
			}
			var got compare.JSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%s: %v\n%s", sc.Name, err, out)
			}
			for i, raw := range []string{p.left, p.right} {
				args := []string{"--snapshot", path}
				switch {
				case strings.HasPrefix(raw, "--"):
					args = append(args, strings.Fields(raw)...)
				case raw != compare.Defaults:
					args = append(args, "--config", raw)
				}
				want := runAttempts(t, args...)
				for _, pod := range got.Pods {
					r := [2]compare.ResultJSON{pod.Left, pod.Right}[i]
					w := want[pod.Pod]
					if len(w) != r.Attempts || len(w) > 0 && (w[len(w)-1].Outcome != r.Outcome || w[len(w)-1].Node != r.Node) {
						t.Errorf("%s %s side %d: %s: %+v; run: %d attempts", sc.Name, p.name, i, pod.Pod, r, len(w))
					}
				}
			}
		}
	}
}

// TestCompareDemoPacking: the demo against demo-packing differs in the
// first minute of virtual time, and says which plugin decided.
func TestCompareDemoPacking(t *testing.T) {
	out, errOut, err := runCmd(t, newCompareCommand, "--demo", "--right", testdata.DemoPackingName, "--until", "1m", "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var got compare.JSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var decided []string
	for _, p := range got.Pods {
		if p.DivergedAt != nil {
			decided = append(decided, p.Pod+": "+p.DecidedBy)
		}
	}
	if len(decided) == 0 || !strings.Contains(got.Right.Scheduler, "demo-packing") {
		t.Fatalf("no difference in the first minute: %s", out)
	}
	if !strings.Contains(strings.Join(decided, "\n"), "default/frontend-1: NodeResourcesFit") {
		t.Errorf("frontend-1 is placed by NodeResourcesFit's strategy: %v", decided)
	}
}

// TestCompareSides: the sides' syntax and its errors.
func TestCompareSides(t *testing.T) {
	for _, c := range []struct {
		args []string
		want cmdWant
	}{
		// The demo's kube-scheduler runs with GenericWorkload: a side naming
		// no gates does too.
		{[]string{"--demo"}, cmdWant{stdout: []string{"left:  kube-scheduler 1.37 (gates: GenericWorkload=true), the default configuration", "right: kube-scheduler 1.37 (gates: GenericWorkload=true), the default configuration"}}},
		{[]string{"--demo", "--left", "--emulated-version=1.35 --feature-gates=SchedulerAsyncPreemption=false", "--right", "defaults"},
			cmdWant{stdout: []string{"left:  kube-scheduler 1.35 (gates: SchedulerAsyncPreemption=false), the default configuration"}}},
		{[]string{"--demo", "--right", "--emulated-version=1.20"}, cmdWant{errSubstr: "--right: --emulated-version=1.20"}},
		{[]string{"--demo", "--right", "--feature-gates=NoSuchGate=true"}, cmdWant{errSubstr: "unrecognized feature gate: NoSuchGate"}},
		{[]string{"--demo", "--right", "--bogus=1"}, cmdWant{errSubstr: "unknown flag: --bogus"}},
		{[]string{"--demo", "--right", "a.yaml b.yaml"}, cmdWant{errSubstr: "give one configuration file"}},
		{[]string{"--demo", "--right", "no-such.yaml"}, cmdWant{errSubstr: "no-such.yaml"}},
		{[]string{"--demo", "--config", "x.yaml", "--left", "defaults"}, cmdWant{errSubstr: "give one or the other"}},
		{[]string{"--demo", "--emulated-version", "1.35", "--left", "defaults"}, cmdWant{errSubstr: "give one or the other"}},
		{[]string{"--demo", "--emulated-version", "1.35"}, cmdWant{stdout: []string{"left:  kube-scheduler 1.35 (gates: GenericWorkload=true), the default configuration"}}},
		// At 1.34 GenericWorkload does not exist: the demo's workers are
		// ordinary pods there.
		{[]string{"--demo", "--right", "--emulated-version=1.34"}, cmdWant{stdout: []string{"right: kube-scheduler 1.34, the default configuration"}}},
		{[]string{"--demo", "-o", "yaml"}, cmdWant{errSubstr: "yaml"}},
	} {
		checkCmd(t, newCompareCommand, c.args, c.want)
	}
}

// TestCompareNamesTheDecidingPlugin: in each curated case of
// testdata/compare one plugin decides where the pod goes (its header says
// which, and whether by its Filter verdict or its score); compare must
// name it.
func TestCompareNamesTheDecidingPlugin(t *testing.T) {
	cases, err := filepath.Glob("testdata/compare/*-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range cases {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		header := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": "); ok && strings.HasPrefix(line, "# ") {
				header[k] = v
			}
		}
		if header["decidedBy"] == "" {
			continue
		}
		n++
		side := func(s string) string {
			if s == compare.Defaults {
				return s
			}
			return filepath.Join("testdata/compare", s)
		}
		args := []string{"--snapshot", path, "--left", side(header["left"]), "--right", side(header["right"])}
		out, errOut, err := runCmd(t, newCompareCommand, append(args, "-o", "json")...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", path, err, errOut)
		}
		var got compare.JSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range got.Pods {
			if p.Pod != header["pod"] {
				continue
			}
			found = true
			if p.DivergedAt == nil || *p.DivergedAt != 1 || p.DecidedBy != header["decidedBy"] {
				t.Errorf("%s: %s diverged at %v, decided by %q; want attempt 1, %s", path, p.Pod, p.DivergedAt, p.DecidedBy, header["decidedBy"])
			}
		}
		if !found {
			t.Errorf("%s: no pod %s in %s", path, header["pod"], out)
		}
		text, _, err := runCmd(t, newCompareCommand, args...)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s, attempt 1: decided by %s (%s)", header["pod"], header["decidedBy"], header["kind"]); !strings.Contains(text, want) {
			t.Errorf("%s: text lacks %q:\n%s", path, want, text)
		}
	}
	if n < 10 {
		t.Fatalf("%d curated cases, want at least 10", n)
	}
}

// TestCompareWithDemoPacking: schedtui --demo --compare-with demo-packing
// shows a difference in the first minute: stepping both sides pod by pod,
// as the debugger's n does, some attempt decides otherwise within a
// minute of virtual time.
func TestCompareWithDemoPacking(t *testing.T) {
	f := &sourceFlags{demo: true, seed: 1, compareWith: testdata.DemoPackingName}
	src, err := loadSource(context.Background(), f, io.Discard, false)
	if err != nil {
		t.Fatal(err)
	}
	left, err := tui.NewBackend(src.name, src.cluster, scheduler.Options{Config: src.cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	opts := tui.Options{Backend: left}
	if err := compareMode(&opts, src, f, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if opts.Compare == nil || opts.NewComparison == nil || !strings.Contains(opts.Backend.Name, "⇄ demo-packing") {
		t.Fatalf("compare mode not set up: %+v", opts)
	}
	right := opts.Compare.Backend
	start := left.Now()
	for left.Now().Sub(start) < time.Minute {
		la, lok := left.Step()
		ra, rok := right.Step()
		if !lok || !rok {
			break
		}
		if la.Pod == ra.Pod && !compare.Same(la, ra) {
			t.Logf("%s: left %s %s, right %s %s after %s", la.Pod, la.Outcome, la.Node, ra.Outcome, ra.Node, left.Now().Sub(start))
			return
		}
	}
	t.Fatal("no attempt diverged in the first minute")
}

// TestCompareWithRefused: compare mode needs one starting state that only
// schedtui's scheduler changes: not a live cluster, not a recording in
// shadow mode; the compare command simulates a recording.
func TestCompareWithRefused(t *testing.T) {
	if _, err := modeOf(&sourceFlags{compareWith: "defaults"}, false, true); err == nil || !strings.Contains(err.Error(), "live cluster keeps changing") {
		t.Errorf("live: %v", err)
	}
	if _, err := modeOf(&sourceFlags{compareWith: "defaults"}, true, false); err == nil || !strings.Contains(err.Error(), "needs --simulate") {
		t.Errorf("recording in shadow mode: %v", err)
	}
	for _, f := range []*sourceFlags{{compareWith: "defaults", simulate: true}, {compare: true}} {
		if m, err := modeOf(f, true, false); err != nil || m.shadows() || !m.compares() {
			t.Errorf("recording, %+v: %+v, %v", f, m, err)
		}
	}
	opts := tui.Options{}
	for _, m := range []runMode{{kind: shadowing, source: liveCluster}, {kind: simulating, source: liveCluster}, {kind: shadowing, source: recordingReplay}} {
		if err := compareMode(&opts, &source{mode: m}, &sourceFlags{}, nil, io.Discard); err != nil || opts.NewComparison != nil {
			t.Errorf("%+v: %v, C offered: %v", m, err, opts.NewComparison != nil)
		}
	}
	checkCmd(t, func() *cobra.Command { return newRootCommand(io.Discard, io.Discard) },
		[]string{"--demo", "--compare-with", "--feature-gates=Nope=true"}, cmdWant{errSubstr: "unrecognized feature gate: Nope"})
}
