package why

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/testdata"
)

// TestScoreExplanationsMatchRecord recomputes every LeastAllocated and
// BalancedAllocation cell of every demo attempt from the fork and checks
// the teaching text's arithmetic lands on the number the scheduler
// recorded (the text says so when it does not).
func TestScoreExplanationsMatchRecord(t *testing.T) {
	e := run(t, string(testdata.Demo))
	checked := 0
	for i := range e.Attempts().Len() {
		a := e.Attempts().At(i)
		if !a.Scored {
			continue
		}
		sched, pod, err := e.Fork(i)
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Sched: sched, Pod: pod}
		for _, col := range a.Scores {
			if col.Plugin != names.NodeResourcesFit && col.Plugin != names.NodeResourcesBalancedAllocation {
				continue
			}
			raw := col.RawScores()
			for j, n := range a.Feasible {
				c := ScoreCell{Plugin: col.Plugin, Node: a.Nodes.Names[n], Weight: col.Weight, Raw: raw[j], NumNodes: len(a.Nodes.Names)}
				text := strings.Join(ExplainScore(in, c), "\n")
				if !strings.Contains(text, "mean = ") && !strings.Contains(text, "score = 50 + ") {
					t.Fatalf("%s on %s for %s: no arithmetic:\n%s", col.Plugin, c.Node, a.Pod, text)
				}
				if strings.Contains(text, "the scheduler recorded") {
					t.Errorf("%s on %s for %s: recomputation disagrees with raw %d:\n%s", col.Plugin, c.Node, a.Pod, raw[j], text)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no score cell checked")
	}
}

// TestExplainFit: the demo's first attempt (critical-api, 3500m cpu) on
// each node: allocatable, requested and free against the request.
func TestExplainFit(t *testing.T) {
	e := run(t, string(testdata.Demo))
	if a := e.Attempts().At(0); a.Pod != "default/critical-api" {
		t.Fatalf("first attempt is %s", a.Pod)
	}
	sched, pod, err := e.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Sched: sched, Pod: pod}
	tests := []struct {
		node string
		want string
	}{
		{"node-a1", "cpu: requests 3500m, node has 4000m allocatable, 2500m requested by 3 pods → 1500m free: Insufficient cpu (3500m > 1500m)"},
		{"node-b2", "cpu: requests 3500m, node has 4000m allocatable, 3000m requested by 2 pods → 1000m free: Insufficient cpu (3500m > 1000m)"},
		{"node-a2", "cpu: requests 3500m, node has 8000m allocatable, 6000m requested by 2 pods → 2000m free: Insufficient cpu (3500m > 2000m)"},
		{"node-b1", "memory: requests 2Gi, node has 8Gi allocatable, 3Gi requested by 2 pods → 5Gi free: fits"},
	}
	st := record.Status{Code: record.CodeUnschedulable, Plugin: names.NodeResourcesFit, Reasons: []string{"Insufficient cpu"}}
	for _, tc := range tests {
		got := strings.Join(ExplainFilter(in, names.NodeResourcesFit, st, tc.node), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.node, tc.want, got)
		}
	}
	// Without the fork the text says it is coming, after the verdict.
	got := ExplainFilter(Input{}, names.NodeResourcesFit, st, "node-a1")
	if want := "Verdict: Unschedulable — Insufficient cpu"; !strings.Contains(strings.Join(got, "\n"), want) || got[len(got)-1] != computing {
		t.Errorf("without a fork: want %q then %q, got %q", want, computing, got)
	}
}

// TestExplainersKnowTheirNames: every explainer is keyed by an in-tree
// plugin's name and says what the plugin does; a plugin without a short
// name keeps its own.
func TestExplainersKnowTheirNames(t *testing.T) {
	inTree := map[string]bool{}
	for _, n := range names.InTree {
		inTree[n] = true
	}
	for n, e := range explainers {
		if !inTree[n] {
			t.Errorf("explainer for %q, not an in-tree plugin", n)
		}
		if e.purpose == "" {
			t.Errorf("%s: no purpose", n)
		}
	}
	if got := ShortName(names.NodeResourcesBalancedAllocation); got != "Balanced" {
		t.Errorf("ShortName(NodeResourcesBalancedAllocation) = %q", got)
	}
	if got := ShortName("example.com/Custom"); got != "example.com/Custom" {
		t.Errorf("ShortName of an out-of-tree plugin = %q, want its name", got)
	}
}
