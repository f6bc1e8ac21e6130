package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// refuseReserve is a Reserve plugin that refuses pod's Reserve on the
// calls refuse says (numbered from 1): a pod-group cycle reserves each
// member once in its algorithm and again before binding, so refusing the
// second call fails a member after its gang was found schedulable.
type refuseReserve struct {
	pod    string
	refuse func(call int) bool
	calls  int
}

func (pl *refuseReserve) Name() string { return "RefuseReserve" }

func (pl *refuseReserve) Reserve(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) *framework.Status {
	if pod.Name != pl.pod {
		return nil
	}
	pl.calls++
	if pl.refuse(pl.calls) {
		return framework.NewStatus(framework.Unschedulable, "reserve refused")
	}
	return nil
}

func (pl *refuseReserve) Unreserve(context.Context, *framework.CycleState, *v1.Pod, string) {}

// permitWaitEngine: a gang of three 1-CPU workers (minCount 3) on one
// node with room for all, w2's Reserve refused on the calls refuse says.
func permitWaitEngine(t *testing.T, refuse func(call int) bool) *Engine {
	t.Helper()
	gates := genericWorkload(t, true)
	reg := plugins.NewInTreeRegistry()
	pl := &refuseReserve{pod: "w2", refuse: refuse}
	reg["RefuseReserve"] = func(runtime.Object, framework.Handle) (framework.Plugin, error) { return pl, nil }
	cfg := config.Default(*gates)
	cfg.Profiles[0].Plugins.Reserve.Enabled = append(cfg.Profiles[0].Plugins.Reserve.Enabled, configv1.Plugin{Name: "RefuseReserve"})
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job"), gangPod("w2", "job")}
	e, err := New([]*v1.Node{gangNode("n1", "4")}, pods, []any{podGroup("job", 3)},
		Options{Registry: reg, Features: gates, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// bindingEnds are the ends of the parked binding cycles, per pod (the
// last one).
func bindingEnds(e *Engine) map[string]history.Event {
	out := map[string]history.Event{}
	for _, ev := range bindingEvents(e) {
		out[ev.Pod] = ev
	}
	return out
}

// A gang's members that wait at Permit for a quorum no later member
// completes are rejected when GangScheduling's Permit timeout (5m) has
// passed in virtual time, in upstream's words; until then they stay
// assumed on their node.
func TestGangPermitWaitTimesOut(t *testing.T) {
	e := permitWaitEngine(t, func(call int) bool { return call >= 2 })
	start := e.Now()
	if _, ok := e.Step(); !ok {
		t.Fatal("no step")
	}
	for _, w := range []string{"w0", "w1"} {
		a := lastAttempt(t, e, w)
		if a.Outcome != record.Waiting || a.Node != "n1" {
			t.Fatalf("%s after the group cycle: %v on %q (%s), want Waiting on n1", w, a.Outcome, a.Node, a.Message)
		}
		if !strings.HasPrefix(a.Message, "waiting for minCount pods from a gang to be scheduled") {
			t.Errorf("%s's message %q", w, a.Message)
		}
	}
	e.RunUntil(10 * time.Minute)
	const msg = "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
	ends := bindingEnds(e)
	for _, w := range []string{"default/w0", "default/w1"} {
		ev, ok := ends[w]
		if !ok {
			t.Fatalf("%s: its binding cycle never ended", w)
		}
		if ev.Reason != record.Unschedulable.String() || ev.Message != msg {
			t.Errorf("%s's binding cycle ended %s: %q, want Unschedulable: %q", w, ev.Reason, ev.Message, msg)
		}
		if got := ev.Time.Sub(start); got != 5*time.Minute {
			t.Errorf("%s rejected after %v, want 5m0s", w, got)
		}
	}
}

// A member waiting at Permit is allowed when a later member of its gang
// finds the quorum, in a later group cycle: the refused member, retried,
// completes the gang, and the waiting members' binding cycles go on
// right after its attempt (not at the Permit timeout): all three bind.
// The retry comes at once, without backoff, as upstream's: the refused
// member waits for its group's cycle to end (pendingPodGroupPods), and a
// cycle whose algorithm succeeded requeues the group straight to activeQ
// (AddAttemptedPodGroupIfNeeded with the root's Success status), whatever
// its members' Reserve or Permit did after.
func TestGangPermitWaitReleasedByLaterMember(t *testing.T) {
	e := permitWaitEngine(t, func(call int) bool { return call == 2 })
	start := e.Now()
	e.RunUntil(time.Minute)
	for _, w := range []string{"w0", "w1", "w2"} {
		if nodeOf(e, w) != "n1" {
			t.Errorf("%s not bound (%s)", w, podMessage(e, w))
		}
	}
	// The timeline: w2's second attempt, then w0's and w1's bindings.
	var order []string
	for _, ev := range e.Timeline().All() {
		switch {
		case ev.Kind == history.EventAttempt && ev.Pod == "default/w2":
			order = append(order, "attempt w2 "+ev.Reason)
			if !ev.Time.Equal(start) {
				t.Errorf("w2's attempt (%s) after %v, want at once (no backoff)", ev.Reason, ev.Time.Sub(start))
			}
		case ev.Kind == history.EventBinding:
			order = append(order, "binding "+strings.TrimPrefix(ev.Pod, "default/")+" "+ev.Reason)
		}
	}
	want := []string{"attempt w2 Unschedulable", "attempt w2 Scheduled", "binding w0 Scheduled", "binding w1 Scheduled"}
	if strings.Join(order, "; ") != strings.Join(want, "; ") {
		t.Errorf("timeline:\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if e.Now().Sub(e.Start()) >= 5*time.Minute {
		t.Errorf("the run reached the Permit timeout: %v", e.Now().Sub(e.Start()))
	}
}

// A member deleted while it waits at Permit is rejected at once
// ("removed", as upstream's handleAssumedPodDeletion), its room freed;
// the other waits on to the timeout.
func TestGangPermitWaitDeleted(t *testing.T) {
	e := permitWaitEngine(t, func(call int) bool { return call >= 2 })
	start := e.Now()
	if _, ok := e.Step(); !ok {
		t.Fatal("no step")
	}
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod("default/w0"), At: start.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	e.RunUntil(10 * time.Minute)
	ends := bindingEnds(e)
	if ev := ends["default/w0"]; ev.Message != "removed" || ev.Time.Sub(start) != time.Minute {
		t.Errorf("w0's binding cycle ended %s after %v: %q, want \"removed\" after 1m0s", ev.Reason, ev.Time.Sub(start), ev.Message)
	}
	if ev := ends["default/w1"]; ev.Time.Sub(start) != 5*time.Minute {
		t.Errorf("w1's binding cycle ended after %v: %q, want at the 5m timeout", ev.Time.Sub(start), ev.Message)
	}
}

func lastAttempt(t *testing.T, e *Engine, pod string) *record.Attempt {
	t.Helper()
	log := e.Attempts()
	for i := log.Len() - 1; i >= 0; i-- {
		if a := log.At(i); a.Pod == "default/"+pod {
			return a
		}
	}
	t.Fatalf("no attempt of %s", pod)
	return nil
}
