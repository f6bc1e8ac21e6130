package engine

import (
	"strings"
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// bindingCluster: one node, a GPU class, and pod a with its own claim for
// one GPU (parkA adds what a test needs besides).
var bindingCluster = listHeader + nodeYAML("n1", "4", "") + gpuClassYAML + gpuClaimYAML("a") + gpuClaimPodYAML("a")

// attachSlice is gpuSlice with a device that must be attached before a
// pod using it binds.
func attachSlice() *resourcev1.ResourceSlice {
	s := gpuSlice()
	s.Spec.Devices[0].BindingConditions = []string{"attached"}
	s.Spec.Devices[0].BindingFailureConditions = []string{"failed"}
	return s
}

// parkA loads bindingCluster (plus extra), publishes attachSlice and
// steps a, whose binding cycle must park in PreBind.
func parkA(t *testing.T, extra string, opts Options) *Engine {
	t.Helper()
	e := load(t, bindingCluster+extra, opts)
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: attachSlice()}); err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok || a.Pod != "default/a" || a.Outcome != record.Waiting || a.Node != "n1" ||
		a.Message != "waiting for binding conditions for device on node n1" {
		t.Fatalf("a's attempt: %v %+v", ok, a)
	}
	if ph := a.Phases[record.PhasePreBind]; ph.Code != record.CodeWait || ph.Plugin != "DynamicResources" {
		t.Fatalf("PreBind phase: %+v", ph)
	}
	if ph := a.Phases[record.PhaseBind]; ph.Code != record.CodeNotRun {
		t.Fatalf("Bind ran: %+v", ph)
	}
	c := claimOf(t, e)
	if c.Status.Allocation == nil || c.Status.Allocation.AllocationTimestamp == nil || len(c.Status.ReservedFor) != 1 {
		t.Fatalf("claim while a waits: %+v", c.Status)
	}
	// Assumed: its request counts on n1, but it is not bound.
	if p := e.Pod("default/a"); p.Spec.NodeName != "" {
		t.Fatalf("a bound while waiting: %+v", p.Spec)
	}
	if ni, err := e.Scheduler().Snapshot().Get("n1"); err != nil || len(ni.Pods) != 1 {
		t.Fatalf("a not assumed on n1: %v", err)
	}
	return e
}

func claimOf(t *testing.T, e *Engine) *resourcev1.ResourceClaim {
	t.Helper()
	c, err := e.Scheduler().Objects().ResourceClaim("default", "a-gpu")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withDeviceConditions is the claim's status update by the driver, at
// virtual time at.
func withDeviceConditions(t *testing.T, e *Engine, at time.Time, conds ...metav1.Condition) change.Change {
	c := claimOf(t, e).DeepCopy()
	c.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0", Conditions: conds}}
	return change.Change{Kind: change.ObjectUpdate, Object: c, At: at}
}

func bindingEvents(e *Engine) []history.Event {
	var out []history.Event
	for _, ev := range e.Timeline().All() {
		if ev.Kind == history.EventBinding {
			out = append(out, ev)
		}
	}
	return out
}

// The device's condition turns True 7s into the wait: the next poll (10s,
// polls every 5s from PreBind) binds the pod, the attempt becomes
// Scheduled and a binding event reports it.
func TestBindingConditionsMet(t *testing.T) {
	e := parkA(t, "", Options{})
	start := e.Now()
	// An update of the assumed pod meanwhile is not the queue's business.
	labelled := e.Pod("default/a").DeepCopy()
	labelled.Labels = map[string]string{"touched": "yes"}
	labelled.ResourceVersion = "2"
	if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: labelled}); err != nil {
		t.Fatal(err)
	}
	if q := e.Queue(); len(q.ActiveQ)+len(q.BackoffQ)+len(q.Unschedulable) != 0 {
		t.Fatalf("the waiting pod was queued: %+v", q)
	}
	if err := e.Apply(withDeviceConditions(t, e, start.Add(7*time.Second), metav1.Condition{Type: "attached", Status: metav1.ConditionTrue})); err != nil {
		t.Fatal(err)
	}
	if a, ok := e.Step(); ok {
		t.Fatalf("an attempt while nothing is pending: %+v", a)
	}
	if p := e.Pod("default/a"); p.Spec.NodeName != "n1" {
		t.Fatalf("a not bound: %+v", p.Spec)
	}
	evs := bindingEvents(e)
	if len(evs) != 1 || evs[0].Reason != "Scheduled" || evs[0].Node != "n1" || evs[0].Attempt != 0 || !evs[0].Time.Equal(start.Add(10*time.Second)) {
		t.Fatalf("binding events: %+v", evs)
	}
	if j, ok := EventJSON(evs[0]); !ok || j != (BindingJSON{Kind: "binding", Time: FormatTime(start.Add(10 * time.Second)), Pod: "default/a",
		Node: "n1", Outcome: "Scheduled", Attempt: 1}) {
		t.Errorf("binding line: %v %+v", ok, j)
	}
	if c := e.Cursor(); c.Attempt != 0 || c.Phase != record.PhaseBind {
		t.Fatalf("cursor after the wait: %+v", c)
	}
	a := e.Attempts().At(0)
	if a.Outcome != record.Scheduled || a.Node != "n1" || a.Phases[record.PhasePreBind].Code != record.CodeSuccess || a.Phases[record.PhaseBind].Code != record.CodeSuccess {
		t.Fatalf("attempt after the wait: %+v", a)
	}
	if len(e.Scheduler().WaitingBindings()) != 0 {
		t.Fatal("still parked")
	}
}

// A failure condition turns True: the next poll fails PreBind with
// upstream's error, the pod is forgotten (the claim keeps its allocation,
// loses the reservation) and requeued; its next attempt finds the claim
// unusable (Filter) and PostFilter deallocates it.
func TestBindingConditionFailed(t *testing.T) {
	e := parkA(t, "", Options{})
	start := e.Now()
	if err := e.Apply(withDeviceConditions(t, e, start.Add(3*time.Second),
		metav1.Condition{Type: "failed", Status: metav1.ConditionTrue, Reason: "NoFabric", Message: "fabric down"})); err != nil {
		t.Fatal(err)
	}
	const want = `running PreBind plugin "DynamicResources": device binding failed: claim=a-gpu, reason=NoFabric, message="fabric down"`
	a, ok := e.Step()
	if !ok || a.Pod != "default/a" {
		t.Fatalf("next attempt: %v %+v", ok, a)
	}
	evs := bindingEvents(e)
	if len(evs) != 1 || evs[0].Reason != "Error" || evs[0].Message != want || !evs[0].Time.Equal(start.Add(5*time.Second)) {
		t.Fatalf("binding events: %+v", evs)
	}
	first := e.Attempts().At(0)
	if first.Outcome != record.Error || first.Message != want || first.Node != "" ||
		first.Phases[record.PhasePreBind].Code != record.CodeError {
		t.Fatalf("parked attempt after the failure: %+v", first)
	}
	if !requeuedAfterBindingError(e) {
		t.Fatal("a not requeued through the backoff queue after its binding failed")
	}
	if a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "resourceclaim not available on the node") ||
		!strings.Contains(a.Message, "deallocation of ResourceClaim completed") {
		t.Fatalf("attempt after the failure: %+v", a)
	}
	if c := claimOf(t, e); c.Status.Allocation != nil || len(c.Status.ReservedFor) != 0 {
		t.Fatalf("claim not deallocated: %+v", c.Status)
	}
}

// requeuedAfterBindingError: pod a went from in flight to the backoff
// queue right after its binding cycle failed.
func requeuedAfterBindingError(e *Engine) bool {
	var prev history.Event
	for _, ev := range e.Timeline().All() {
		if prev.Kind == history.EventBinding && prev.Reason == "Error" {
			return ev.Kind == history.EventQueueMove && ev.Pod == "default/a" && ev.From == history.InFlight && ev.To == history.BackoffQ &&
				ev.Reason == "ScheduleAttemptFailure" && ev.Time.Equal(prev.Time)
		}
		prev = ev
	}
	return false
}

// Nothing happens to the device: the wait ends at bindingTimeout (600s by
// default) with the context's timeout, not at the poll that falls on it;
// then the claim, allocated 600s ago and not ready, is unusable, PostFilter
// deallocates it, and the pod waits again on its new allocation. That
// wait would repeat forever: the engine is quiescent, until the driver
// reports the device attached.
func TestBindingConditionsTimeout(t *testing.T) {
	e := parkA(t, "", Options{})
	start := e.Now()
	const want = `running PreBind plugin "DynamicResources": device binding timeout: context deadline exceeded`
	a, ok := e.Step()
	if !ok || a.Pod != "default/a" {
		t.Fatalf("next attempt: %v %+v", ok, a)
	}
	evs := bindingEvents(e)
	if len(evs) != 1 || evs[0].Reason != "Error" || evs[0].Message != want || !evs[0].Time.Equal(start.Add(600*time.Second)) {
		t.Fatalf("binding events: %+v", evs)
	}
	if a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "deallocation of ResourceClaim completed") {
		t.Fatalf("attempt after the timeout: %+v", a)
	}
	a, ok = e.Step()
	if !ok || a.Outcome != record.Waiting {
		t.Fatalf("after the deallocation: %v %+v", ok, a)
	}
	if a, ok := e.Step(); ok || len(e.Scheduler().WaitingBindings()) != 1 {
		t.Fatalf("the repeating wait was not quiescent: %v %+v", ok, a)
	}
	if err := e.Apply(withDeviceConditions(t, e, time.Time{}, metav1.Condition{Type: "attached", Status: metav1.ConditionTrue})); err != nil {
		t.Fatal(err)
	}
	e.Step()
	if evs := bindingEvents(e); len(evs) != 2 || evs[1].Reason != "Scheduled" || e.Pod("default/a").Spec.NodeName != "n1" {
		t.Fatalf("after the driver's update: %+v", evs)
	}
}

// Rewinding to an attempt made while a's binding waited restores the wait
// (a assumed on n1, its claim allocated, the poll timers), and the run
// goes on as it did.
func TestRewindAcrossParkedBinding(t *testing.T) {
	e := parkA(t, podYAML("b", "1", 0, ""), Options{CheckpointInterval: 1})
	start := e.Now()
	b, ok := e.Step()
	if !ok || b.Pod != "default/b" || b.Outcome != record.Scheduled {
		t.Fatalf("b: %v %+v", ok, b)
	}
	if err := e.Apply(withDeviceConditions(t, e, start.Add(12*time.Second), metav1.Condition{Type: "attached", Status: metav1.ConditionTrue})); err != nil {
		t.Fatal(err)
	}
	e.Step()
	if p := e.Pod("default/a"); p.Spec.NodeName != "n1" {
		t.Fatalf("a not bound: %+v", p.Spec)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if w := e.Scheduler().WaitingBindings(); len(w) != 1 || e.Pod("default/a").Spec.NodeName != "" {
		t.Fatalf("after the rewind: waiting %v, a %+v", w, e.Pod("default/a").Spec)
	}
	if ni, err := e.Scheduler().Snapshot().Get("n1"); err != nil || len(ni.Pods) != 1 {
		t.Fatalf("a not assumed on n1 after the rewind: %v", err)
	}
	if e.Attempts().At(0).Outcome != record.Waiting || len(bindingEvents(e)) != 0 {
		t.Fatalf("a's attempt after the rewind: %+v", e.Attempts().At(0))
	}
	b, ok = e.Step()
	if !ok || b.Pod != "default/b" || b.Outcome != record.Scheduled {
		t.Fatalf("b again: %v %+v", ok, b)
	}
	if err := e.Apply(withDeviceConditions(t, e, start.Add(12*time.Second), metav1.Condition{Type: "attached", Status: metav1.ConditionTrue})); err != nil {
		t.Fatal(err)
	}
	e.Step()
	evs := bindingEvents(e)
	if len(evs) != 1 || evs[0].Reason != "Scheduled" || !evs[0].Time.Equal(start.Add(15*time.Second)) || e.Pod("default/a").Spec.NodeName != "n1" {
		t.Fatalf("after the replayed wait: %+v", evs)
	}
}

// A rewind to the repeated wait restores what made it quiescent (the pod's
// wait that ran out), from a checkpoint taken between the two waits.
func TestRewindToRepeatingWait(t *testing.T) {
	e := parkA(t, "", Options{CheckpointInterval: 1})
	for range 2 {
		if _, ok := e.Step(); !ok {
			t.Fatal("no attempt after the timeout")
		}
	}
	if a, ok := e.Step(); ok {
		t.Fatalf("not quiescent: %+v", a)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if a, ok := e.Step(); !ok || a.Outcome != record.Waiting {
		t.Fatalf("replayed wait: %v %+v", ok, a)
	}
	if a, ok := e.Step(); ok {
		t.Fatalf("not quiescent after the rewind: %+v", a)
	}
}

// In real time (a live cluster) the polls fire as the clock passes them:
// the claim's update at 7s after PreBind binds the pod at the 10s poll,
// not before.
func TestRealTimeBindingWait(t *testing.T) {
	clk := newFakeClock()
	e := parkA(t, "", realTime(clk))
	start := e.Now()
	clk.t = start.Add(7 * time.Second)
	e.Tick()
	if err := e.Apply(withDeviceConditions(t, e, time.Time{}, metav1.Condition{Type: "attached", Status: metav1.ConditionTrue})); err != nil {
		t.Fatal(err)
	}
	clk.t = start.Add(9 * time.Second)
	e.Tick()
	if e.Pod("default/a").Spec.NodeName != "" || len(bindingEvents(e)) != 0 {
		t.Fatal("bound before the poll")
	}
	clk.t = start.Add(10 * time.Second)
	e.Tick()
	if evs := bindingEvents(e); len(evs) != 1 || evs[0].Reason != "Scheduled" || !evs[0].Time.Equal(start.Add(10*time.Second)) ||
		e.Pod("default/a").Spec.NodeName != "n1" {
		t.Fatalf("after the 10s poll: %+v", evs)
	}
}
