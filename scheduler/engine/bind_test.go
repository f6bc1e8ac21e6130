package engine

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// fakeCluster records the bindings an engine makes under --bind.
type fakeCluster struct {
	bound []string
	fail  error
}

func (f *fakeCluster) bind(_ context.Context, pod *v1.Pod, node string) error {
	if f.fail != nil {
		return f.fail
	}
	f.bound = append(f.bound, pod.Namespace+"/"+pod.Name+"@"+node)
	return nil
}

func TestBindForReal(t *testing.T) {
	cluster := &fakeCluster{}
	e := demo(t, Options{Seed: 1, Bind: cluster.bind})
	if !e.Binds() {
		t.Fatal("Binds() is false with Options.Bind set")
	}
	e.RunToQuiescence()
	var scheduled []string
	first := -1
	for i, a := range e.Attempts().All() {
		if a.Outcome == record.Scheduled {
			scheduled = append(scheduled, a.Pod+"@"+a.Node)
			if first < 0 {
				first = i
			}
		}
	}
	if len(scheduled) == 0 || len(scheduled) != len(cluster.bound) {
		t.Fatalf("bound in the cluster %v, scheduled %v", cluster.bound, scheduled)
	}
	for i := range scheduled {
		if scheduled[i] != cluster.bound[i] {
			t.Errorf("binding %d: cluster %s, engine %s", i, cluster.bound[i], scheduled[i])
		}
	}
	// The demo's critical-api preempts: decided, shown, not carried out.
	pe := findEvents(e, history.EventPreemption, "default/critical-api")
	if len(pe) == 0 || pe[0].Message != NotCarriedOut {
		t.Errorf("preemption events under --bind: %+v", pe)
	}
	if ev := findEvents(e, history.EventEviction, ""); len(ev) != 0 {
		t.Errorf("victims evicted under --bind: %+v", ev)
	}
	// A fork (the what-if editor) binds in memory only.
	n := len(cluster.bound)
	s, pod, err := e.Fork(first)
	if err != nil {
		t.Fatal(err)
	}
	if a := s.ScheduleOne(pod); a.Outcome != record.Scheduled {
		t.Fatalf("fork: %s %s", a.Outcome, a.Message)
	}
	if len(cluster.bound) != n {
		t.Errorf("a fork bound in the cluster: %v", cluster.bound[n:])
	}
	if err := e.Rewind(1); !errors.Is(err, ErrRewindAfterBind) {
		t.Errorf("Rewind after real bindings: %v", err)
	}
}

// TestBindFailure: a refused binding fails the attempt's Bind phase and
// the pod goes back to the queue, as an API error does upstream.
func TestBindFailure(t *testing.T) {
	cluster := &fakeCluster{fail: errors.New(`pods "web-1" is forbidden`)}
	e := demo(t, Options{Seed: 1, Bind: cluster.bind})
	var a *record.Attempt
	for {
		var ok bool
		if a, ok = e.Step(); !ok {
			t.Fatal("no attempt reached Bind")
		}
		if a.Phases[record.PhaseBind].Code != record.CodeNotRun {
			break
		}
	}
	if a.Outcome != record.Error || a.Phases[record.PhaseBind].Code != record.CodeError {
		t.Fatalf("attempt %s: outcome %s, bind phase %+v", a.Pod, a.Outcome, a.Phases[record.PhaseBind])
	}
	if p := e.Pod(a.Pod); p == nil || p.Spec.NodeName != "" {
		t.Errorf("pod after a failed binding: %+v", p)
	}
	q := e.Queue()
	found := false
	for _, l := range [][]QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable} {
		for _, p := range l {
			found = found || p.Pod == a.Pod
		}
	}
	if !found {
		t.Errorf("%s is not queued after its binding failed: %+v", a.Pod, q)
	}
	// Nothing was bound: rewinding is fine.
	if err := e.Rewind(1); err != nil {
		t.Errorf("Rewind without real bindings: %v", err)
	}
}
