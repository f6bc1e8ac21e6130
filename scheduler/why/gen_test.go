package why

import (
	"fmt"
	"testing"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TestHintsProvenOnGeneratedScenarios: every hint produced for the last
// unschedulable attempt of each pod of generated scenarios makes the pod
// fit, on a fresh fork with the hint's objects applied and its pods
// removed, on every node of fitsOn (FilterOnNode: PreFilter and Filter with
// nominated pods).
func TestHintsProvenOnGeneratedScenarios(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5, 6}
	if testing.Short() {
		seeds = seeds[:2]
	}
	total, attempts := 0, 0
	for _, seed := range seeds {
		for _, pre := range []bool{false, true} {
			sc := scenario.Generate(seed, scenario.Options{MinNodes: 10, MaxNodes: 40, Preemption: pre})
			t.Run(sc.Name, func(t *testing.T) {
				c := sc.Cluster.DeepCopy()
				e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Seed: uint64(seed)})
				if err != nil {
					t.Fatal(err)
				}
				e.RunToQuiescence()
				last := map[string]int{}
				for i, a := range e.Attempts().All() {
					last[a.Pod] = i
				}
				for i, a := range e.Attempts().All() {
					if last[a.Pod] != i || a.Outcome != record.Unschedulable {
						continue
					}
					s, p, err := e.Fork(i)
					if err != nil {
						t.Fatal(err)
					}
					in := Input{Attempt: a, Sched: s, Pod: p}
					res, err := Hints(in, Options{})
					if err != nil {
						t.Fatal(err)
					}
					attempts++
					for _, h := range res.Hints {
						total++
						if len(h.FitsOn) == 0 || h.Summary == "" {
							t.Errorf("%s: empty hint %+v", a.Pod, h)
						}
						verify(t, e, in, h)
					}
					_ = Verdict(in)
				}
			})
		}
	}
	t.Logf("%d hints over %d unschedulable attempts", total, attempts)
	if total == 0 {
		t.Error("no hint at all: the generated scenarios should give some")
	}
}

// BenchmarkHints500: the hints of one unschedulable attempt on 500 nodes
// (fork and full diagnosis excluded: the TUI and explain have them).
func BenchmarkHints500(b *testing.B) {
	y := header
	for i := 0; i < 500; i++ {
		taint := ""
		if i%5 == 0 {
			taint = "taints: [{key: dedicated, value: infra, effect: NoSchedule}]"
		}
		n := fmt.Sprintf("node-%03d", i)
		y += node(n, "4", fmt.Sprintf(", topology.kubernetes.io/zone: zone-%d", i%3), taint, "")
		y += pod("busy-"+n, fmt.Sprintf("%dm", 3000+i%900), "app: busy", n, "")
	}
	y += pod("big", "1500m", "app: big", "", "")
	e := run(b, y)
	in := inputFor(b, e, "default/big")
	d, err := in.Sched.Diagnose(in.Pod)
	if err != nil {
		b.Fatal(err)
	}
	in.Diag = d
	b.ResetTimer()
	var res *Result
	for b.Loop() {
		if res, err = Hints(in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if len(res.Hints) == 0 {
		b.Fatalf("no hint: %s", res.Note)
	}
	b.ReportMetric(float64(res.Tried), "candidates")
}
