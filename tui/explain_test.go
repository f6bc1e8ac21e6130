package tui

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/record"
)

// TestScoreExplanationsMatchRecord recomputes every LeastAllocated and
// BalancedAllocation cell of every demo attempt from the fork and checks
// the teaching pane's arithmetic lands on the number the scheduler
// recorded (the pane says so when it does not).
func TestScoreExplanationsMatchRecord(t *testing.T) {
	b := demoBackend(t)
	var attempts []*record.Attempt
	b.Locked(func() {
		for {
			if _, ok := b.Step(); !ok {
				break
			}
		}
		attempts = b.Attempts().Slice(0, b.Attempts().Len())
	})
	checked := 0
	for i, a := range attempts {
		if !a.Scored {
			continue
		}
		sched, pod, err := b.Fork(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, col := range a.Scores {
			if col.Plugin != "NodeResourcesFit" && col.Plugin != "NodeResourcesBalancedAllocation" {
				continue
			}
			raw := col.RawScores()
			for j, n := range a.Feasible {
				ni, err := sched.Snapshot().Get(a.Nodes.Names[n])
				if err != nil {
					t.Fatal(err)
				}
				text := strings.Join(explainScore(scoreInputs{plugin: col.Plugin, weight: col.Weight, raw: raw[j], pod: pod, ni: ni, numNodes: len(a.Nodes.Names)}), "\n")
				if strings.Contains(text, "the scheduler recorded") {
					t.Errorf("%s on %s for %s: recomputation disagrees with raw %d:\n%s", col.Plugin, a.Nodes.Names[n], a.Pod, raw[j], text)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no score cell checked")
	}
}

func TestExplainFit(t *testing.T) {
	b := demoBackend(t)
	var a *record.Attempt
	b.Locked(func() { a, _ = b.Step() })
	sched, pod, err := b.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		node string
		want string
	}{
		{"node-a1", "cpu: requests 3500m, node has 4000m allocatable, 2500m requested by 3 pods → 1500m free: Insufficient cpu (3500m > 1500m)"},
		{"node-b2", "cpu: requests 3500m, node has 4000m allocatable, 3000m requested by 2 pods → 1000m free: Insufficient cpu (3500m > 1000m)"},
		{"node-a2", "cpu: requests 3500m, node has 8000m allocatable, 6000m requested by 2 pods → 2000m free: Insufficient cpu (3500m > 2000m)"},
		{"node-b1", "memory: requests 2Gi, node has 8Gi allocatable, 3Gi requested by 2 pods → 5Gi free: fits"},
	}
	for _, tc := range tests {
		ni, err := sched.Snapshot().Get(tc.node)
		if err != nil {
			t.Fatal(err)
		}
		st := record.Status{Code: record.CodeUnschedulable, Plugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}}
		got := strings.Join(explainFilter("NodeResourcesFit", st, pod, ni, nil, nil), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.node, tc.want, got)
		}
	}
	if a.Pod != "default/critical-api" {
		t.Fatalf("first attempt is %s", a.Pod)
	}
}
