package conformance

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/conformance/upstream"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
	"github.com/schedtui/schedtui/snapshot"
)

// TestHintsHoldUpstream checks schedtui's hints against the real
// scheduler. Each generated scenario runs in the queue engine to
// quiescence, as run and explain do; every pod whose last attempt failed
// gets its hints as explain computes them (scheduler/why on a fork of
// that attempt); each hint is applied to the cluster as it stood at the
// attempt's start (what snapshot --at writes: objects replace theirs,
// removed pods go) and upstream's PreFilter and Filter, nominated pods
// included, must then pass the pod on every node of the hint's fitsOn.
func TestHintsHoldUpstream(t *testing.T) {
	var scenarios []*scenario.Scenario
	for i := int64(0); i < int64(*numScenarios); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{}))
	}
	for i := int64(0); i < int64(*numPreemption); i++ {
		scenarios = append(scenarios, scenario.Generate(*firstSeed+i, scenario.Options{Preemption: true}))
	}
	begin := time.Now()
	var mu sync.Mutex
	attempts, checked, bad := 0, 0, 0
	// The harness mostly waits for its informers: a few scenarios at a
	// time keep two cores busy.
	work := make(chan *scenario.Scenario)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				n, c, b := checkHints(t, s, func() int { mu.Lock(); defer mu.Unlock(); return bad })
				mu.Lock()
				attempts, checked, bad = attempts+n, checked+c, bad+b
				mu.Unlock()
			}
		}()
	}
	for _, s := range scenarios {
		if *only == "" || s.Name == *only {
			work <- s
		}
	}
	close(work)
	wg.Wait()
	t.Logf("%d scenarios: %d failed attempts with hints, %d hints checked against upstream's Filter, %d did not hold (%v)",
		len(scenarios), attempts, checked, bad, time.Since(begin).Round(time.Second))
	if checked == 0 && !t.Failed() {
		t.Error("no hint was checked")
	}
}

// checkHints checks the hints of one scenario's failed last attempts; it
// returns the attempts with hints, the hints checked and those that did
// not hold (reported while fewer than -report were, badSoFar says). It
// runs on its own goroutine: failures are Errorf, and end the scenario.
func checkHints(t *testing.T, s *scenario.Scenario, badSoFar func() int) (attempts, checked, bad int) {
	c := s.Cluster.DeepCopy()
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1})
	if err != nil {
		t.Errorf("%s: %v", s.Name, err)
		return attempts, checked, bad
	}
	e.RunToQuiescence()
	for _, h := range e.Histories() {
		pa := h.Last()
		if pa == nil || (pa.Attempt.Outcome != record.Unschedulable && pa.Attempt.Outcome != record.Error) {
			continue
		}
		sched, pod, err := e.Fork(pa.Index)
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return attempts, checked, bad
		}
		res, err := why.Hints(why.Input{Attempt: pa.Attempt, Sched: sched, Pod: pod}, why.Options{})
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return attempts, checked, bad
		}
		if len(res.Hints) == 0 {
			continue
		}
		attempts++
		st, err := e.StateAt(pa.Index)
		if err != nil {
			t.Errorf("%s %s: %v", s.Name, h.Pod, err)
			return attempts, checked, bad
		}
		for _, hint := range res.Hints {
			hc, err := withHint(c.WithSchedulerState(st.Nodes, st.Pods, st.Objects), hint)
			if err != nil {
				t.Errorf("%s %s: hint %q: %v", s.Name, h.Pod, hint.Summary, err)
				return attempts, checked, bad
			}
			feasible, err := upstream.Feasible(context.Background(), hc, nil, pod.Namespace, pod.Name)
			if err != nil {
				t.Errorf("%s %s: hint %q: %v", s.Name, h.Pod, hint.Summary, err)
				return attempts, checked, bad
			}
			checked++
			var missing []string
			for _, n := range hint.FitsOn {
				if !slices.Contains(feasible, n) {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 {
				bad++
				if badSoFar()+bad <= *maxReportedBad {
					t.Errorf("%s %s attempt %d: hint %q says it fits on %v; upstream's Filter passes it on %v only (saved as %s)",
						s.Name, h.Pod, pa.N, hint.Summary, hint.FitsOn, feasible, save(t, s))
				}
			}
		}
	}
	return attempts, checked, bad
}

// withHint applies a hint to a cluster: its objects (Pods, Nodes) replace
// the objects of the same name, or are added (the node an "add a node
// like X" hint adds, and the DaemonSet pods bound to it); its removals
// delete pods. The cluster's node and pod lists are copied, not changed.
func withHint(c *snapshot.Cluster, h why.Hint) (*snapshot.Cluster, error) {
	out := *c
	out.Nodes = slices.Clone(c.Nodes)
	out.Pods = slices.Clone(c.Pods)
	for _, o := range h.Objects {
		switch o := o.(type) {
		case *v1.Pod:
			i := slices.IndexFunc(out.Pods, func(p *v1.Pod) bool { return p.Namespace == o.Namespace && p.Name == o.Name })
			switch {
			case i >= 0:
				out.Pods[i] = o
			case o.Spec.NodeName != "" && h.NodeGroup != nil:
				out.Pods = append(out.Pods, o)
			default:
				return nil, fmt.Errorf("no pod %s/%s to replace", o.Namespace, o.Name)
			}
		case *v1.Node:
			i := slices.IndexFunc(out.Nodes, func(n *v1.Node) bool { return n.Name == o.Name })
			switch {
			case i >= 0:
				out.Nodes[i] = o
			case h.NodeGroup != nil:
				out.Nodes = append(out.Nodes, o)
			default:
				return nil, fmt.Errorf("no node %s to replace", o.Name)
			}
		default:
			return nil, fmt.Errorf("hint object of type %T", o)
		}
	}
	for _, r := range h.Remove {
		i := slices.IndexFunc(out.Pods, func(p *v1.Pod) bool { return r.Kind == "Pod" && p.Namespace == r.Namespace && p.Name == r.Name })
		if i < 0 {
			return nil, fmt.Errorf("no %s %s/%s to remove", r.Kind, r.Namespace, r.Name)
		}
		out.Pods = slices.Delete(out.Pods, i, i+1)
	}
	return &out, nil
}
