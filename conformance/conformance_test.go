// Package conformance runs kube-scheduler v1.37.1 and schedtui's core on the
// same scenarios and compares every attempt field by field.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/conformance/upstream"
	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

var (
	numScenarios   = flag.Int("scenarios", 500, "generated scenarios (seeds 0..n-1)")
	numPreemption  = flag.Int("preemption-scenarios", 200, "generated preemption scenarios")
	firstSeed      = flag.Int64("seed", 0, "first seed")
	failureDir     = flag.String("failures", "", "directory to save failing scenarios as snapshots (default: a temp dir)")
	maxReportedBad = flag.Int("report", 5, "how many disagreeing scenarios to describe")
	only           = flag.String("only", "", "run only the scenario with this name, and print both sides' attempts")
)

// outcome is one side's attempts for a scenario.
type outcome struct {
	attempts []record.AttemptJSON
	// tied maps pod → the preemption candidates still tied after every
	// criterion, when schedtui recorded a tie (upstream then picks any).
	tied map[string][]string
	// randomTies is set when upstream breaks score ties at random (with
	// extenders, see scheduler/extenders.go): a tie it broke another way
	// than schedtui leaves the two clusters different from then on.
	randomTies bool
}

// runOurs schedules the pending pods in queue order with schedtui's core and
// returns the pods it attempted (gated pods never are), so that upstream is
// given the same sequence.
func runOurs(s *scenario.Scenario, cfg *configv1.KubeSchedulerConfiguration, gates *features.Features) (outcome, []*v1.Pod, error) {
	c := s.Cluster.DeepCopy()
	if cfg == nil {
		cfg = config.Default(*gates)
	}
	sched, err := scheduler.New(c.Nodes, c.Pods, c.SchedulerObjects(), scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Config: cfg, Features: gates})
	if err != nil {
		return outcome{}, nil, err
	}
	out := outcome{tied: map[string][]string{}, randomTies: cfg != nil && len(cfg.Extenders) > 0}
	var attempted []*v1.Pod
	for _, pod := range sched.PendingPods(c.Pods) {
		if !sched.PreEnqueue(pod).IsSuccess() {
			continue
		}
		attempted = append(attempted, pod)
		a := sched.ScheduleOne(pod)
		out.attempts = append(out.attempts, a.JSON())
		if a.Preemption != nil && len(a.Preemption.Tied) > 1 {
			out.tied[a.Pod] = a.Preemption.Tied
		}
	}
	return out, attempted, nil
}

func TestConformanceGenerated(t *testing.T) {
	var scenarios []*scenario.Scenario
	for i := int64(0); i < int64(*numScenarios); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{}))
	}
	runScenarios(t, scenarios, features.Defaults())
}

func TestConformancePreemption(t *testing.T) {
	var scenarios []*scenario.Scenario
	for i := int64(0); i < int64(*numPreemption); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{Preemption: true}))
	}
	runScenarios(t, scenarios, features.Defaults())
}

func TestConformanceCurated(t *testing.T) {
	runScenarios(t, scenario.Curated(), features.Defaults())
}

// runScenarios compares schedtui under the gates with upstream, whose
// process-wide gate the caller has set the same way.
func runScenarios(t *testing.T, scenarios []*scenario.Scenario, gates *features.Resolved) {
	t.Helper()
	runScenariosWith(t, scenarios, nil, &gates.Features)
}

// runScenariosWithGates runs schedtui with the given gates (nil: v1.37's
// defaults); upstream runs with its process-wide gates, which the caller
// has set to the same values.
func runScenariosWithGates(t *testing.T, scenarios []*scenario.Scenario, gates *features.Features) {
	runScenariosWith(t, scenarios, nil, gates)
}

// runScenariosWith runs the scenarios with the scheduler configuration cfg
// on both sides (nil: the defaults) and schedtui with gates (nil: the
// defaults; upstream's process-wide gates must match).
func runScenariosWith(t *testing.T, scenarios []*scenario.Scenario, cfg *configv1.KubeSchedulerConfiguration, gates *features.Features) {
	t.Helper()
	if gates == nil {
		gates = &features.Defaults().Features
	}
	bad, attempts, stoppedAtTie := 0, 0, 0
	for _, s := range scenarios {
		if *only != "" && s.Name != *only {
			continue
		}
		ours, pods, err := runOurs(s, cfg, gates)
		if err != nil {
			t.Fatalf("%s: schedtui: %v", s.Name, err)
		}
		theirs, err := upstream.Run(context.Background(), s.Cluster.DeepCopy(), cfg, copyPods(pods))
		if err != nil {
			t.Fatalf("%s: upstream: %v", s.Name, err)
		}

		if *only != "" {
			for i := range theirs {
				if i < len(ours.attempts) {
					o, u := ours.attempts[i], theirs[i]
					t.Logf("%2d %-24s ours %-13s %-9s nom=%-9s victims=%v | upstream %-13s %-9s nom=%-9s victims=%v\n   %s", i, o.Pod, o.Outcome, o.Node, o.NominatedNode, o.Victims, u.Outcome, u.Node, u.NominatedNode, u.Victims, u.Message)
				}
			}
		}
		diff, compared := compare(ours, theirs)
		attempts += compared
		if compared < len(theirs) && diff == "" {
			stoppedAtTie++
		}
		if diff != "" {
			bad++
			if bad <= *maxReportedBad {
				t.Errorf("%s (features %v) disagrees with upstream, saved as %s:\n%s", s.Name, s.Features, save(t, s), diff)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d scenarios disagree", bad, len(scenarios))
	}
	t.Logf("%d scenarios, %d attempts compared, %d agree (%d compared up to a preemption that upstream resolved by its random tie-break)",
		len(scenarios), attempts, len(scenarios)-bad, stoppedAtTie)
}

func copyPods(pods []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p.DeepCopy()
	}
	return out
}

// compare returns a description of the first attempt that differs, and
// how many attempts it compared. When preemption ended in a tie on every
// criterion upstream picks any tied candidate (a random offset and Go map
// order); if it picked another one than schedtui, the two clusters differ
// from then on and the rest of the scenario is not comparable.
func compare(ours outcome, theirs []record.AttemptJSON) (string, int) {
	if len(ours.attempts) != len(theirs) {
		return fmt.Sprintf("schedtui made %d attempts, upstream %d", len(ours.attempts), len(theirs)), 0
	}
	for i := range theirs {
		o, u := normalize(ours.attempts[i]), normalize(theirs[i])
		// With several nodes tied at the top either side may pick any.
		divergedAtTie := false
		if len(u.Top) > 1 && slices.Contains(u.Top, o.Node) && slices.Contains(u.Top, u.Node) {
			divergedAtTie = ours.randomTies && o.Node != u.Node
			o.Node = u.Node
		}
		if tied := ours.tied[o.Pod]; len(tied) > 1 && slices.Contains(tied, u.NominatedNode) && o.NominatedNode != u.NominatedNode {
			o.NominatedNode, o.Victims = u.NominatedNode, u.Victims
			o.Message = u.Message
			divergedAtTie = true
		}
		var diffs []string
		jsonDiff("", toTree(o), toTree(u), &diffs)
		if len(diffs) > 0 {
			if len(diffs) > 20 {
				diffs = append(diffs[:20], fmt.Sprintf("... %d more", len(diffs)-20))
			}
			return fmt.Sprintf("attempt %d (%s):\n  %s", i, o.Pod, strings.Join(diffs, "\n  ")), i
		}
		if divergedAtTie {
			return "", i + 1
		}
	}
	return "", len(theirs)
}

// normalize makes order-insensitive fields comparable: NodeResourcesFit's
// scalar-resource reasons (map order upstream) are sorted.
var noVictimsNode = regexp.MustCompile(`expected at least one victim pod on node "[^"]*"`)

func normalize(a record.AttemptJSON) record.AttemptJSON {
	// Preemption's extender call names the first node left without
	// victims in Go map order upstream (a random one of them).
	a.Message = noVictimsNode.ReplaceAllString(a.Message, `expected at least one victim pod on node "…"`)
	if a.Outcome == record.OutcomeError {
		// An error (e.g. an extender that could not be reached) ends the
		// cycle without a diagnosis upstream: SchedulePod returns only the
		// error, so the harness has no per-node verdicts to compare with
		// the ones schedtui keeps.
		a.Feasible, a.Filter = []string{}, map[string]record.FilterJSON{}
	}
	for n, f := range a.Filter {
		if f.Plugin == "NodeResourcesFit" && len(f.Reasons) > 1 {
			f.Reasons = slices.Clone(f.Reasons)
			sort.Strings(f.Reasons)
			a.Filter[n] = f
		}
	}
	return a
}

func toTree(a record.AttemptJSON) any {
	b, _ := json.Marshal(a)
	var t any
	_ = json.Unmarshal(b, &t)
	return t
}

// jsonDiff lists the paths where two decoded JSON trees differ, as
// "path: schedtui=… upstream=…".
func jsonDiff(path string, o, u any, out *[]string) {
	om, ok1 := o.(map[string]any)
	um, ok2 := u.(map[string]any)
	if ok1 && ok2 {
		keys := map[string]bool{}
		for k := range om {
			keys[k] = true
		}
		for k := range um {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			jsonDiff(path+"."+k, om[k], um[k], out)
		}
		return
	}
	ob, _ := json.Marshal(o)
	ub, _ := json.Marshal(u)
	if !bytes.Equal(ob, ub) {
		*out = append(*out, fmt.Sprintf("%s: schedtui=%s upstream=%s", path, ob, ub))
	}
}

func save(t *testing.T, s *scenario.Scenario) string {
	dir := *failureDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "schedtui-conformance")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	path := filepath.Join(dir, s.Name+".yaml")
	var buf bytes.Buffer
	if err := scenario.Dump(&buf, s); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	return path
}

var numDRA = flag.Int("dra-scenarios", 150, "generated DRA scenarios")

func TestConformanceDRA(t *testing.T) {
	runScenarios(t, generated(*numDRA, scenario.GenerateDRA), features.Defaults())
}

var numDRAPreemption = flag.Int("dra-preemption-scenarios", 60, "generated DRA preemption scenarios")

// TestConformanceDRAPreemption: victims holding devices are preempted and
// later pods need those devices. Upstream runs its own resourceclaim
// controller (and the harness the garbage collector), which release a
// victim's claims once it is gone; schedtui's ReleaseClaims must agree,
// attempt by attempt.
func TestConformanceDRAPreemption(t *testing.T) {
	runScenarios(t, generated(*numDRAPreemption, scenario.GenerateDRAPreemption), features.Defaults())
}

// generated returns the scenarios of n seeds from -seed on.
func generated(n int, gen func(seed int64) *scenario.Scenario) []*scenario.Scenario {
	out := make([]*scenario.Scenario, 0, n)
	for i := int64(0); i < int64(n); i++ {
		out = append(out, gen(*firstSeed+i))
	}
	return out
}

var numDRAExtended = flag.Int("dra-extended-scenarios", 60, "generated DRA extended-resource scenarios")

// TestConformanceDRAExtended: DeviceClasses standing for extended
// resources, NodeResourcesFit's hand-off to DynamicResources.
func TestConformanceDRAExtended(t *testing.T) {
	runScenarios(t, generated(*numDRAExtended, scenario.GenerateDRAExtended), features.Defaults())
}

func TestConformanceCuratedDRA(t *testing.T) {
	runScenarios(t, scenario.CuratedDRA(), features.Defaults())
}

// TestConformanceDRAExample runs the GPU example snapshot docs/dra.md points
// to, loaded as schedtui loads it (claims generated from templates).
func TestConformanceDRAExample(t *testing.T) {
	runSnapshotFile(t, "dra-gpus", "../testdata/dra-gpus.yaml", "")
}

// TestConformanceDemo runs the embedded demo (its GPU pods among the rest)
// against the upstream scheduler under the default gates: its training
// job's pods lose spec.schedulingGroup (GenericWorkload is off) and are
// ordinary pods to both; TestGangConformanceDemo runs it with the demo's
// gates, as schedtui --demo does.
func TestConformanceDemo(t *testing.T) {
	runSnapshotFile(t, "demo", "../testdata/demo.yaml", "GenericWorkload")
}

// runSnapshotFile runs one snapshot file as a scenario of its own, with
// the default gates; a problem loading it fails the test, but for the
// warnings that a field was dropped because gateOff is off.
func runSnapshotFile(t *testing.T, name, path, gateOff string) {
	c, rep, err := snapshot.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		if gateOff != "" && p.Severity == docread.Warning && strings.Contains(p.Message, "with feature gate "+gateOff+" off") {
			continue
		}
		t.Errorf("loading: %s", p)
	}
	runScenarios(t, []*scenario.Scenario{{Name: name, Cluster: c}}, features.Defaults())
}
