package queue_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// start is a whole second, as the engine's epoch is.
var start = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// env is a queue over the real default profile, with a settable clock.
type env struct {
	t     *testing.T
	now   time.Time
	sched *scheduler.Scheduler
	q     *queue.PriorityQueue
	moves []queue.Move
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWithGates(t, features.Default())
}

func newEnvWithGates(t *testing.T, gates features.Features) *env {
	t.Helper()
	e := &env{t: t, now: start}
	s, err := scheduler.New(nil, nil, nil, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Clock: func() time.Time { return e.now }, Features: &gates})
	if err != nil {
		t.Fatal(err)
	}
	profiles := map[string]queue.Profile{}
	for name, f := range s.Profiles() {
		profiles[name] = f
	}
	q, err := queue.New(queue.Options{
		Clock: func() time.Time { return e.now }, Less: s.Profile(v1.DefaultSchedulerName).QueueSortLess,
		Profiles: profiles, Nominator: s.Nominator(),
		OnMove:   func(m queue.Move) { e.moves = append(e.moves, m) },
		Features: s.Features(),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.sched, e.q = s, q
	return e
}

func (e *env) at(d time.Duration) { e.now = start.Add(d) }

// where returns the pod's location.
func (e *env) where(p *v1.Pod) queue.Location {
	_, loc := e.q.Get(p.Namespace, p.Name)
	return loc
}

func (e *env) lastMove(p *v1.Pod) queue.Move {
	for i := len(e.moves) - 1; i >= 0; i-- {
		if e.moves[i].Pod.Name == p.Name {
			return e.moves[i]
		}
	}
	return queue.Move{}
}

// popPod pops the head, which must be a pod.
func popPod(q *queue.PriorityQueue) (*framework.QueuedPodInfo, bool) {
	en, ok := q.Pop()
	if !ok {
		return nil, false
	}
	pi, ok := en.(*framework.QueuedPodInfo)
	return pi, ok
}

// fail pops the pod (which must be the head) and requeues it as rejected
// by plugins (none: an error).
func (e *env) fail(p *v1.Pod, plugins ...string) *framework.QueuedPodInfo {
	e.t.Helper()
	pi, ok := popPod(e.q)
	if !ok || pi.Pod.Name != p.Name {
		e.t.Fatalf("pop: got %v, want %s", pi, p.Name)
	}
	c := *pi
	c.UnschedulablePlugins = sets.New(plugins...)
	c.PendingPlugins = sets.New[string]()
	if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
		e.t.Fatal(err)
	}
	return &c
}

func pod(name string, prio int32, cpu string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)}}
	p.Spec.SchedulerName = v1.DefaultSchedulerName
	p.Spec.Priority = &prio
	c := v1.Container{Name: "c"}
	if cpu != "" {
		c.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
	}
	p.Spec.Containers = []v1.Container{c}
	return p
}

func node(name, cpu string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
	n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	return n
}

func TestBackoffDuration(t *testing.T) {
	q := newEnv(t).q
	want := []time.Duration{0, 1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	for count, w := range want {
		if got := q.BackoffDuration(count); got != w {
			t.Errorf("BackoffDuration(%d) = %v, want %v", count, got, w)
		}
	}
	if got := q.BackoffDuration(200); got != 10*time.Second {
		t.Errorf("BackoffDuration(200) = %v, want the 10s cap", got)
	}
}

// TestBackoffWindows fails a pod n times at .300 of a second and checks
// where the expiration lands (aligned down to the window) and when a
// flush releases it: the first whole second after the expiration window.
func TestBackoffWindows(t *testing.T) {
	tests := []struct {
		name     string
		failures int
		wantExp  time.Duration // after the last failure's second
		release  time.Duration // first flush that releases it, from the same second
	}{
		{"first failure: 1s", 1, 1 * time.Second, 2 * time.Second},
		{"second failure: 2s", 2, 2 * time.Second, 3 * time.Second},
		{"third failure: 4s", 3, 4 * time.Second, 5 * time.Second},
		{"fifth failure: capped at 10s", 5, 10 * time.Second, 11 * time.Second},
		{"eighth failure: still 10s", 8, 10 * time.Second, 11 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := pod("p", 0, "")
			e.q.Add(p)
			var base time.Duration
			for i := 0; i < tt.failures; i++ {
				base = time.Duration(i) * time.Minute
				e.at(base + 300*time.Millisecond)
				if i > 0 {
					e.q.Activate([]*v1.Pod{p})
				}
				// An error (no rejector plugin) backs off in the error heap.
				e.fail(p)
			}
			pi, loc := e.q.Get("default", "p")
			if loc != queue.Backoff {
				t.Fatalf("after failing: %s, want Backoff", loc)
			}
			if want := start.Add(base + tt.wantExp); !pi.BackoffExpiration.Equal(want) {
				t.Errorf("expiration %v, want %v", pi.BackoffExpiration, want)
			}
			rel, ok := e.q.NextBackoffRelease()
			if want := start.Add(base + tt.release); !ok || !rel.Equal(want) {
				t.Errorf("NextBackoffRelease = %v, want %v", rel, want)
			}
			// A flush inside the expiration's window keeps it.
			e.at(base + tt.release - 500*time.Millisecond)
			e.q.FlushBackoffQCompleted()
			if e.where(p) != queue.Backoff {
				t.Errorf("flush at %v released it early", e.now)
			}
			e.at(base + tt.release)
			e.q.FlushBackoffQCompleted()
			if e.where(p) != queue.Active {
				t.Errorf("flush at %v: %s, want Active", e.now, e.where(p))
			}
			if m := e.lastMove(p); m.Event != queue.BackoffComplete || m.From != queue.Backoff {
				t.Errorf("move %+v, want Backoff->Active BackoffComplete", m)
			}
		})
	}
}

// TestBackoffQOrderingWindow: pods whose expirations fall in the same
// window leave backoffQ in priority order; an earlier window goes first.
func TestBackoffQOrderingWindow(t *testing.T) {
	e := newEnv(t)
	low, high, early := pod("low", 1, ""), pod("high", 100, ""), pod("early", 0, "")
	for _, p := range []*v1.Pod{early, low, high} {
		e.q.Add(p)
	}
	// Pop order is by priority; fail each at a different instant.
	e.at(100 * time.Millisecond)
	e.fail(high, "NodeResourcesFit")
	e.at(200 * time.Millisecond)
	e.fail(low, "NodeResourcesFit")
	e.at(300 * time.Millisecond)
	e.fail(early, "NodeResourcesFit")
	// Unschedulable now (no in-flight event). A node add moves them all
	// to backoffQ (their hint queues; the empty node fits them).
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("n", "4"), nil)
	_, backoff, _ := e.q.Contents()
	var got []string
	for _, b := range backoff {
		got = append(got, b.Info.Pod.Name)
	}
	// All three expire at 12:00:01 (window aligned): priority decides,
	// not the failure order.
	if want := []string{"high", "low", "early"}; !equal(got, want) {
		t.Errorf("backoffQ order %v, want %v", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPopFromBackoffQ: with activeQ empty, the plugin-rejected backoff
// heap's head is popped before its backoff expires; the error heap never
// is.
func TestPopFromBackoffQ(t *testing.T) {
	e := newEnv(t)
	rejected, errored := pod("rejected", 0, ""), pod("errored", 10, "")
	e.q.Add(errored)
	e.q.Add(rejected)
	e.fail(errored) // error heap
	e.fail(rejected, "NodeResourcesFit")
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("n", "4"), nil)
	if e.where(rejected) != queue.Backoff || e.where(errored) != queue.Backoff {
		t.Fatalf("setup: %s %s", e.where(rejected), e.where(errored))
	}
	pi, ok := popPod(e.q)
	if !ok || pi.Pod.Name != "rejected" {
		t.Fatalf("Pop = %v %v, want the rejected pod from backoffQ", pi, ok)
	}
	if m := e.lastMove(rejected); m.Event != queue.PopFromBackoffQ || m.From != queue.Backoff || m.To != queue.InFlight {
		t.Errorf("move %+v, want Backoff->InFlight PopFromBackoffQ", m)
	}
	if pi, ok := popPod(e.q); ok {
		t.Errorf("popped %s from the error heap", pi.Pod.Name)
	}
	if e.q.Poppable() {
		t.Error("Poppable with only the error heap left")
	}
}

// TestUnschedulableLeftoverFlush: a pod moves after more than 5 minutes
// in the pool, counted from its last attempt or last flush.
func TestUnschedulableLeftoverFlush(t *testing.T) {
	e := newEnv(t)
	p := pod("p", 0, "")
	e.q.Add(p)
	e.fail(p, "NodeAffinity")
	if e.where(p) != queue.Unschedulable {
		t.Fatalf("after failure: %s", e.where(p))
	}
	to, ok := e.q.NextUnschedulableTimeout()
	if !ok || !to.Equal(start.Add(5*time.Minute)) {
		t.Errorf("NextUnschedulableTimeout = %v, want start+5m", to)
	}
	for _, tc := range []struct {
		at   time.Duration
		want queue.Location
	}{
		{4*time.Minute + 30*time.Second, queue.Unschedulable},
		{5 * time.Minute, queue.Unschedulable}, // not strictly more than 5m
		{5*time.Minute + 30*time.Second, queue.Active},
	} {
		e.at(tc.at)
		e.q.FlushUnschedulablePodsLeftover()
		if got := e.where(p); got != tc.want {
			t.Errorf("flush at +%v: %s, want %s", tc.at, got, tc.want)
		}
	}
	if m := e.lastMove(p); m.Event != queue.UnschedulableTimeout {
		t.Errorf("move %+v, want UnschedulableTimeout", m)
	}
	pi, _ := e.q.Get("default", "p")
	if !pi.WasFlushedFromUnschedulable || !pi.FlushTimestamp.Equal(start.Add(5*time.Minute+30*time.Second)) {
		t.Errorf("flush bookkeeping: %v %v", pi.WasFlushedFromUnschedulable, pi.FlushTimestamp)
	}
	// Failing again clears the flush flags and restarts the clock.
	e.fail(p, "NodeAffinity")
	pi, _ = e.q.Get("default", "p")
	if pi.WasFlushedFromUnschedulable || !pi.FlushTimestamp.IsZero() {
		t.Errorf("flush flags survived a failure")
	}
	if to, _ := e.q.NextUnschedulableTimeout(); !to.Equal(start.Add(10*time.Minute + 30*time.Second)) {
		t.Errorf("next timeout %v", to)
	}
}

// TestGatedPodFlushedStaysGated: the leftover flush re-runs PreEnqueue on
// gated pods (wildcard event) and they stay gated, with FlushTimestamp set
// so that the next flush is 5 minutes later.
func TestGatedPodFlushedStaysGated(t *testing.T) {
	e := newEnv(t)
	p := pod("p", 0, "")
	p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/wait"}}
	e.q.Add(p)
	e.at(5*time.Minute + time.Second)
	e.q.FlushUnschedulablePodsLeftover()
	pi, loc := e.q.Get("default", "p")
	if loc != queue.Gated || pi.GatingPlugin != names.SchedulingGates {
		t.Fatalf("after flush: %s %q", loc, pi.GatingPlugin)
	}
	if pi.WasFlushedFromUnschedulable {
		t.Error("a pod that stays gated keeps WasFlushedFromUnschedulable")
	}
	if to, _ := e.q.NextUnschedulableTimeout(); !to.Equal(start.Add(10*time.Minute + time.Second)) {
		t.Errorf("next timeout %v, want flush time + 5m", to)
	}
}

// TestGatingAndUngating: a gated pod ignores events other than its gating
// plugin's; removing the last scheduling gate moves it to activeQ.
func TestGatingAndUngating(t *testing.T) {
	e := newEnv(t)
	gated := pod("gated", 0, "")
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "a"}, {Name: "b"}}
	e.q.Add(gated)
	m := e.lastMove(gated)
	if m.To != queue.Gated || m.Event != "UnscheduledPodAdd" || m.GatingPlugin != names.SchedulingGates ||
		m.GatingMessage != "waiting for scheduling gates: [a b]" {
		t.Fatalf("add: %+v", m)
	}
	if e.q.Poppable() {
		t.Fatal("a gated pod is poppable")
	}
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("n", "4"), nil)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, pod("x", 0, ""), nil, nil)
	if e.where(gated) != queue.Gated {
		t.Fatalf("moved by an event its gating plugin did not register: %s", e.where(gated))
	}
	// Removing one gate of two: still gated.
	one := gated.DeepCopy()
	one.Spec.SchedulingGates = one.Spec.SchedulingGates[:1]
	e.q.Update(gated, one)
	if e.where(gated) != queue.Gated {
		t.Fatalf("one gate left: %s", e.where(gated))
	}
	none := one.DeepCopy()
	none.Spec.SchedulingGates = nil
	e.q.Update(one, none)
	if e.where(gated) != queue.Active {
		t.Fatalf("no gate left: %s", e.where(gated))
	}
	if m := e.lastMove(gated); m.Event != "TargetPodUpdatePodSchedulingGatesEliminated" || m.From != queue.Gated {
		t.Errorf("move %+v", m)
	}
	pi, _ := popPod(e.q)
	if len(pi.Pod.Spec.SchedulingGates) != 0 {
		t.Error("popped the old pod object")
	}
}

// TestHintsByEvent offers one event to a pod rejected by one plugin and
// checks where the real plugin's hint sends it.
func TestHintsByEvent(t *testing.T) {
	small, big := node("small", "1"), node("big", "8")
	cordoned := node("c", "8")
	cordoned.Spec.Unschedulable = true
	uncordoned := cordoned.DeepCopy()
	uncordoned.Spec.Unschedulable = false
	tainted := node("t", "8")
	tainted.Spec.Taints = []v1.Taint{{Key: "k", Value: "v", Effect: v1.TaintEffectNoSchedule}}
	untainted := tainted.DeepCopy()
	untainted.Spec.Taints = nil
	unlabeled := node("l", "8")
	labeled := unlabeled.DeepCopy()
	labeled.Labels["disk"] = "ssd"
	grown := small.DeepCopy()
	grown.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourcePods: resource.MustParse("110")}
	bound := pod("bound", 0, "1")
	bound.Spec.NodeName = "small"
	unbound := pod("unbound", 0, "1")
	withSelector := func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }

	tests := []struct {
		name     string
		plugin   string
		podMod   func(*v1.Pod)
		event    framework.ClusterEvent
		old, new any
		want     queue.Location
	}{
		{"NodeResourcesFit: node added that fits", names.NodeResourcesFit, nil, queue.EventNodeAdd, nil, big, queue.Backoff},
		{"NodeResourcesFit: node added too small", names.NodeResourcesFit, nil, queue.EventNodeAdd, nil, small, queue.Unschedulable},
		{"NodeResourcesFit: allocatable grew", names.NodeResourcesFit, nil,
			framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeAllocatable}, small, grown, queue.Backoff},
		{"NodeResourcesFit: bound pod deleted", names.NodeResourcesFit, nil, queue.EventAssignedPodDelete, bound, nil, queue.Backoff},
		{"NodeResourcesFit: unbound pod deleted", names.NodeResourcesFit, nil, queue.EventAssignedPodDelete, unbound, nil, queue.Unschedulable},
		{"NodeResourcesFit: label change not registered", names.NodeResourcesFit, nil,
			framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeLabel}, unlabeled, labeled, queue.Unschedulable},
		{"NodeUnschedulable: uncordoned", names.NodeUnschedulable, nil,
			framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeTaint}, cordoned, uncordoned, queue.Backoff},
		{"NodeUnschedulable: added cordoned", names.NodeUnschedulable, nil, queue.EventNodeAdd, nil, cordoned, queue.Unschedulable},
		{"TaintToleration: taint removed", names.TaintToleration, nil,
			framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeTaint}, tainted, untainted, queue.Backoff},
		{"TaintToleration: added tainted", names.TaintToleration, nil, queue.EventNodeAdd, nil, tainted, queue.Unschedulable},
		{"NodeAffinity: label added that matches", names.NodeAffinity, withSelector,
			framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeLabel}, unlabeled, labeled, queue.Backoff},
		{"NodeAffinity: node added that does not match", names.NodeAffinity, withSelector, queue.EventNodeAdd, nil, unlabeled, queue.Unschedulable},
		{"wildcard UnschedulableTimeout", names.NodeAffinity, withSelector, queue.EventUnschedulableTimeout, nil, nil, queue.Backoff},
		{"ForceActivate for another pod", names.NodeAffinity, nil, queue.EventForceActivate, nil, pod("other", 0, ""), queue.Unschedulable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := pod("p", 0, "2")
			if tt.podMod != nil {
				tt.podMod(p)
			}
			e.q.Add(p)
			e.fail(p, tt.plugin)
			if e.where(p) != queue.Unschedulable {
				t.Fatalf("setup: %s", e.where(p))
			}
			e.q.MoveAllToActiveOrBackoffQueue(tt.event, tt.old, tt.new, nil)
			if got := e.where(p); got != tt.want {
				t.Errorf("after %s: %s, want %s", tt.event.Label(), got, tt.want)
			}
			if tt.want != queue.Unschedulable {
				if m := e.lastMove(p); m.Event != tt.event.Label() {
					t.Errorf("move labelled %q, want %q", m.Event, tt.event.Label())
				}
			}
			// Past its backoff, the same event goes straight to activeQ.
			if tt.want == queue.Backoff {
				e2 := newEnv(t)
				p2 := p.DeepCopy()
				e2.q.Add(p2)
				e2.fail(p2, tt.plugin)
				e2.at(time.Minute)
				e2.q.MoveAllToActiveOrBackoffQueue(tt.event, tt.old, tt.new, nil)
				if got := e2.where(p2); got != queue.Active {
					t.Errorf("after backoff: %s, want Active", got)
				}
			}
		})
	}
}

// TestPreCheck: MoveAll only considers pods passing the pre-check (the
// freed-nomination case offers the room to lower priorities only).
func TestPreCheck(t *testing.T) {
	e := newEnv(t)
	low, high := pod("low", 1, "1"), pod("high", 100, "1")
	e.q.Add(low)
	e.q.Add(high)
	e.fail(high, names.NodeResourcesFit)
	e.fail(low, names.NodeResourcesFit)
	nominated := pod("n", 50, "1")
	nominated.Status.NominatedNodeName = "small"
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodDelete, nominated, nil, func(p *v1.Pod) bool {
		return *p.Spec.Priority <= 50
	})
	if e.where(low) != queue.Backoff || e.where(high) != queue.Unschedulable {
		t.Errorf("low %s high %s, want Backoff and Unschedulable", e.where(low), e.where(high))
	}
}

// TestInFlightEventReplay: events that arrive while a pod is being
// scheduled decide its requeue (determineSchedulingHintForInFlightPod).
func TestInFlightEventReplay(t *testing.T) {
	tests := []struct {
		name    string
		pending bool
		event   framework.ClusterEvent
		newObj  any
		want    queue.Location
	}{
		{"no event while in flight", false, framework.ClusterEvent{}, nil, queue.Unschedulable},
		{"node added that fits: after backoff", false, queue.EventNodeAdd, node("big", "8"), queue.Backoff},
		{"node added too small: skipped", false, queue.EventNodeAdd, node("small", "1"), queue.Unschedulable},
		{"Queue from a Pending plugin: immediately", true, queue.EventNodeAdd, node("big", "8"), queue.Active},
		{"ForceActivate for this pod", false, queue.EventForceActivate, nil, queue.Backoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := pod("p", 0, "2")
			e.q.Add(p)
			pi, _ := popPod(e.q)
			switch {
			case tt.event == queue.EventForceActivate:
				e.q.Activate([]*v1.Pod{p})
			case tt.event.Resource != "":
				e.q.MoveAllToActiveOrBackoffQueue(tt.event, nil, tt.newObj, nil)
			}
			c := *pi
			c.UnschedulablePlugins, c.PendingPlugins = sets.New[string](), sets.New[string]()
			if tt.pending {
				c.PendingPlugins.Insert(names.NodeResourcesFit)
			} else {
				c.UnschedulablePlugins.Insert(names.NodeResourcesFit)
			}
			if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
				t.Fatal(err)
			}
			if got := e.where(p); got != tt.want {
				t.Errorf("requeued to %s, want %s", got, tt.want)
			}
			if m := e.lastMove(p); m.Event != queue.ScheduleAttemptFailure || m.From != queue.InFlight {
				t.Errorf("move %+v", m)
			}
			if len(e.q.InFlightPods()) != 0 {
				t.Error("still in flight after requeue")
			}
		})
	}
}

// TestInFlightEventsPruned: events recorded for in-flight pods are dropped
// once no in-flight pod started before them.
func TestInFlightEventsPruned(t *testing.T) {
	e := newEnv(t)
	a, b := pod("a", 10, "2"), pod("b", 0, "2")
	e.q.Add(a)
	e.q.Add(b)
	pa, _ := popPod(e.q)
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("big", "8"), nil)
	pb, _ := popPod(e.q)
	// b started after the event: it must not see it.
	e.q.Done(pa.Pod.UID)
	c := *pb
	c.UnschedulablePlugins, c.PendingPlugins = sets.New(names.NodeResourcesFit), sets.New[string]()
	if err := e.q.AddUnschedulablePodIfNotPresent(&c); err != nil {
		t.Fatal(err)
	}
	if got := e.where(b); got != queue.Unschedulable {
		t.Errorf("b saw an event from before its pop: %s", got)
	}
}

func TestAddUnschedulableTwice(t *testing.T) {
	e := newEnv(t)
	p := pod("p", 0, "")
	e.q.Add(p)
	pi := e.fail(p, names.NodeAffinity)
	if err := e.q.AddUnschedulablePodIfNotPresent(pi); err == nil {
		t.Error("a second requeue of a queued pod succeeded")
	}
}

// TestActivate: ForceActivate moves pods from the pool and from backoffQ.
func TestActivate(t *testing.T) {
	e := newEnv(t)
	a, b := pod("a", 0, ""), pod("b", 0, "")
	e.q.Add(a)
	e.q.Add(b)
	e.fail(a, names.NodeAffinity)
	e.fail(b)
	e.q.Activate([]*v1.Pod{a, b})
	for _, p := range []*v1.Pod{a, b} {
		if e.where(p) != queue.Active || e.lastMove(p).Event != queue.ForceActivate {
			t.Errorf("%s: %s %+v", p.Name, e.where(p), e.lastMove(p))
		}
	}
}

// TestUpdateAndDelete: an update in activeQ keeps the pod's place with the
// new object; deleting removes it and its nomination.
func TestUpdateAndDelete(t *testing.T) {
	e := newEnv(t)
	p := pod("p", 0, "")
	p.Status.NominatedNodeName = "n1"
	e.sched.SetPendingPod(p)
	e.q.Add(p)
	if got := e.sched.Nominator().NominatedNode(p.UID); got != "n1" {
		t.Fatalf("nominated to %q", got)
	}
	q := p.DeepCopy()
	q.Labels = map[string]string{"x": "y"}
	e.q.Update(p, q)
	pi, loc := e.q.Get("default", "p")
	if loc != queue.Active || pi.Pod.Labels["x"] != "y" {
		t.Errorf("update: %s %v", loc, pi.Pod.Labels)
	}
	// The nomination survives an update that keeps it.
	if got := e.sched.Nominator().NominatedNode(p.UID); got != "n1" {
		t.Errorf("nomination after update %q", got)
	}
	e.q.Delete(q)
	if e.where(p) != queue.NotQueued || e.sched.Nominator().NominatedNode(p.UID) != "" {
		t.Errorf("delete left %s / nomination %q", e.where(p), e.sched.Nominator().NominatedNode(p.UID))
	}
	if m := e.lastMove(p); m.Event != "UnscheduledPodDelete" || m.To != queue.NotQueued {
		t.Errorf("move %+v", m)
	}
}

// TestActiveQOrder: priority first, then the queue timestamp; equal
// timestamps pop in the order they were set.
func TestActiveQOrder(t *testing.T) {
	e := newEnv(t)
	for _, p := range []*v1.Pod{pod("c", 0, ""), pod("a", 0, ""), pod("hi", 5, ""), pod("b", 0, "")} {
		e.q.Add(p)
	}
	var got []string
	for {
		pi, ok := popPod(e.q)
		if !ok {
			break
		}
		got = append(got, pi.Pod.Name)
	}
	if want := []string{"hi", "c", "a", "b"}; !equal(got, want) {
		t.Errorf("pop order %v, want %v", got, want)
	}
}

// TestExportImport: a queue rebuilt from an export pops and flushes the
// same way.
func TestExportImport(t *testing.T) {
	e := newEnv(t)
	for i, name := range []string{"a", "b", "c", "d"} {
		e.q.Add(pod(name, int32(i%2), "2"))
	}
	e.fail(pod("b", 1, "2"), names.NodeResourcesFit)
	e.fail(pod("d", 1, "2"))
	st, err := e.q.Export()
	if err != nil {
		t.Fatal(err)
	}
	e2 := newEnv(t)
	e2.now = e.now
	if err := e2.q.Import(st); err != nil {
		t.Fatal(err)
	}
	for _, env := range []*env{e, e2} {
		env.at(time.Minute)
		env.q.FlushBackoffQCompleted()
		env.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("big", "8"), nil)
	}
	for {
		p1, ok1 := popPod(e.q)
		p2, ok2 := popPod(e2.q)
		if ok1 != ok2 {
			t.Fatalf("pop ok %v vs %v", ok1, ok2)
		}
		if !ok1 {
			break
		}
		if p1.Pod.Name != p2.Pod.Name || p1.Attempts != p2.Attempts {
			t.Errorf("pop %s/%d vs %s/%d", p1.Pod.Name, p1.Attempts, p2.Pod.Name, p2.Attempts)
		}
	}
	if _, err := e.q.Export(); err == nil {
		t.Error("export with pods in flight succeeded")
	}
}
