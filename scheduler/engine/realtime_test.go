package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// fakeClock is a Clock the test moves.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock      { return &fakeClock{t: scheduler.Epoch} }
func (c *fakeClock) Now() time.Time { return c.t }

// set puts the clock at d after the epoch.
func (c *fakeClock) set(d time.Duration) { c.t = scheduler.Epoch.Add(d) }

func since(t time.Time) time.Duration { return t.Sub(scheduler.Epoch) }
func realTime(c *fakeClock) Options   { return Options{Clock: c} }

func lastMove(e *Engine, pod string) history.Event {
	m := findEvents(e, history.EventQueueMove, pod)
	return m[len(m)-1]
}

// tooBig: one 1-cpu node and a pod asking for 2.
var tooBig = listHeader + nodeYAML("n1", "1", "") + podYAML("big", "2", 0, "")

// TestRealTimeBackoff: in real time a rejected pod that a cluster event
// moves while its backoff runs waits in backoffQ, and once the clock
// passes the backoff the backoffQ
// flush (at the next whole second, as upstream's 1s ticker) moves it to
// activeQ and the retry schedules it.
func TestRealTimeBackoff(t *testing.T) {
	clk := newFakeClock()
	e := load(t, tooBig, realTime(clk))
	if !e.Start().Equal(scheduler.Epoch) || !e.RealTime() {
		t.Fatalf("start %v, real time %v", e.Start(), e.RealTime())
	}
	clk.set(100 * time.Millisecond)
	a, ok := e.Step()
	if !ok || a.Outcome != record.Unschedulable || since(a.Time) != 100*time.Millisecond {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	// A node that fits arrives 200ms later (stamped by the live source).
	clk.set(300 * time.Millisecond)
	if err := e.Apply(change.Change{Kind: change.NodeAdd, Node: nodeObj("n2", "4"), At: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	if m := lastMove(e, "default/big"); m.To != history.BackoffQ || m.Reason != "NodeAdd" || since(m.Time) != 300*time.Millisecond {
		t.Fatalf("after change.NodeAdd: %+v", m)
	}
	q := e.Queue()
	if len(q.BackoffQ) != 1 || since(q.BackoffQ[0].BackoffExpiration) != time.Second {
		t.Fatalf("backoffQ %+v", q.BackoffQ)
	}
	// Half a second later the backoff still runs. (Step would pop it now
	// anyway, as PopFromBackoffQ: activeQ is empty.)
	clk.set(800 * time.Millisecond)
	if e.Tick() {
		t.Fatal("the tick moved something before the backoff ended")
	}
	if since(e.Now()) != 800*time.Millisecond {
		t.Fatalf("now %v, want the clock's", since(e.Now()))
	}
	if got := e.Queue().BackoffQ; len(got) != 1 || got[0].BackoffExpiration.Sub(e.Now()) != 200*time.Millisecond {
		t.Fatalf("backoff left: %+v", got)
	}
	// The tick passes the expiry (1s: the queue aligns it to its 1s
	// ordering window) and the flush of the window after it (2s, as
	// upstream's isPodBackingoff): activeQ.
	clk.set(2500 * time.Millisecond)
	if !e.Tick() {
		t.Fatal("the tick changed nothing")
	}
	if m := lastMove(e, "default/big"); m.To != history.ActiveQ || m.Reason != "BackoffComplete" || since(m.Time) != 2*time.Second {
		t.Fatalf("after the backoff: %+v", m)
	}
	if since(e.Now()) != 2500*time.Millisecond {
		t.Fatalf("now %v", since(e.Now()))
	}
	a, ok = e.Step()
	if !ok || a.Outcome != record.Scheduled || a.Node != "n2" || since(a.Time) != 2500*time.Millisecond {
		t.Fatalf("retry: %v %+v", ok, a)
	}
	// Ticking an idle engine changes nothing but the clock.
	clk.set(10 * time.Second)
	if e.Tick() || since(e.Now()) != 10*time.Second {
		t.Fatalf("idle tick: now %v", since(e.Now()))
	}
}

// TestRealTimeSameAsVirtual: the same moves happen at the same instants
// whoever moves the clock (the virtual engine jumps, the real-time one is
// ticked every second); only attempts wait for Step.
func TestRealTimeSameAsVirtual(t *testing.T) {
	virtual := load(t, preemptionCluster, Options{})
	virtual.RunUntil(2 * time.Minute)

	clk := newFakeClock()
	e := load(t, preemptionCluster, realTime(clk))
	for s := time.Duration(0); s <= 2*time.Minute; s += time.Second {
		clk.set(s)
		if e.Tick(); e.Queue().ActiveQ != nil {
			if _, ok := e.Step(); !ok {
				t.Fatalf("%v: a pod in activeQ but no attempt", s)
			}
		}
	}
	strip := func(evs []history.Event) []history.Event {
		var out []history.Event
		for _, ev := range evs {
			if ev.Kind != history.EventAttempt {
				out = append(out, ev)
			}
		}
		return out
	}
	got, want := strip(e.Timeline().Slice(0, e.Timeline().Len())), strip(virtual.Timeline().Slice(0, virtual.Timeline().Len()))
	if len(got) != len(want) {
		t.Fatalf("real time: %d events, virtual: %d\n%+v\n%+v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		g.Seq, w.Seq = 0, 0
		if g.Time != w.Time || g.Kind != w.Kind || g.Pod != w.Pod || g.Reason != w.Reason || g.To != w.To || g.Node != w.Node {
			t.Errorf("event %d: real time %+v, virtual %+v", i, g, w)
		}
	}
}

// TestRealTimeLeftoverFlush: an unschedulable pod is retried by the
// leftover flush at the first 30s tick more than 5 minutes after its
// attempt, when the clock gets there.
func TestRealTimeLeftoverFlush(t *testing.T) {
	clk := newFakeClock()
	e := load(t, tooBig, realTime(clk))
	if a, ok := e.Step(); !ok || a.Outcome != record.Unschedulable {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	clk.set(5*time.Minute + 29*time.Second)
	e.Tick()
	if q := e.Queue(); len(q.Unschedulable) != 1 {
		t.Fatalf("moved before the flush: %+v", q)
	}
	// Step does not jump ahead of the clock to the flush.
	if a, ok := e.Step(); ok || since(e.Now()) != 5*time.Minute+29*time.Second {
		t.Fatalf("attempt before the flush: %+v, now %v", a, since(e.Now()))
	}
	clk.set(5*time.Minute + 31*time.Second)
	if !e.Tick() {
		t.Fatal("the tick moved nothing")
	}
	if m := lastMove(e, "default/big"); m.Reason != "UnschedulableTimeout" || m.To != history.ActiveQ || since(m.Time) != 5*time.Minute+30*time.Second {
		t.Fatalf("flush: %+v", m)
	}
	if a, ok := e.Step(); !ok || a.Outcome != record.Unschedulable || since(a.Time) != 5*time.Minute+31*time.Second {
		t.Fatalf("retry: %v %+v", ok, a)
	}
}

// TestRealTimeGracePeriod: a victim leaves the engine's cluster when its
// grace period ends in real time, and its preemptor then schedules; a
// victim the cluster deletes first is simply gone, and what the cluster
// says later about a victim the engine already evicted is noted, not
// refused.
func TestRealTimeGracePeriod(t *testing.T) {
	clk := newFakeClock()
	e := load(t, preemptionCluster, realTime(clk))
	if a, ok := e.Step(); !ok || a.Nominated != "n1" {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	// The preemption's API calls ran with the attempt, clock unmoved.
	v := e.Pod("default/victim")
	if v == nil || v.DeletionTimestamp == nil || since(v.DeletionTimestamp.Time) != 60*time.Second {
		t.Fatalf("victim not terminating: %+v", v)
	}
	clk.set(59 * time.Second)
	e.Tick()
	if e.Pod("default/victim") == nil || findEvents(e, history.EventEviction, "") != nil {
		t.Fatal("evicted before the end of its grace period")
	}
	clk.set(61 * time.Second)
	e.Tick()
	ev := findEvents(e, history.EventEviction, "default/victim")
	if len(ev) != 1 || since(ev[0].Time) != 60*time.Second || e.Pod("default/victim") != nil {
		t.Fatalf("eviction %+v", ev)
	}
	if m := lastMove(e, "default/preemptor"); m.To != history.ActiveQ || m.Reason != "AssignedPodDelete" || since(m.Time) != 60*time.Second {
		t.Fatalf("preemptor %+v", m)
	}
	if a, ok := e.Step(); !ok || a.Outcome != record.Scheduled || a.Node != "n1" || since(a.Time) != 61*time.Second {
		t.Fatalf("preemptor's attempt: %v %+v", ok, a)
	}
	// The cluster, which schedtui does not write to, still runs the
	// victim and reports it: noted, not an error.
	gone := victimObj(t)
	clk.set(70 * time.Second)
	for _, k := range []change.Kind{change.PodUpdate, change.PodDelete} {
		if err := e.Apply(change.Change{Kind: k, Pod: gone, At: clk.Now()}); err != nil {
			t.Errorf("%s of the evicted victim: %v", k, err)
		}
		if evs := findEvents(e, history.EventCluster, "default/victim"); evs[len(evs)-1].Message != AlreadyEvicted || evs[len(evs)-1].Reason != string(k) {
			t.Errorf("%s noted as %+v", k, evs[len(evs)-1])
		}
	}

	// The cluster deletes the victim first: the delete applies, and the
	// grace period's end finds nothing to evict.
	clk = newFakeClock()
	e = load(t, preemptionCluster, realTime(clk))
	e.Step()
	clk.set(10 * time.Second)
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: victimObj(t), At: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	if e.Pod("default/victim") != nil {
		t.Fatal("the cluster's delete did not apply")
	}
	clk.set(2 * time.Minute)
	e.Tick()
	if ev := findEvents(e, history.EventEviction, ""); ev != nil {
		t.Errorf("evicted a pod the cluster had deleted: %+v", ev)
	}
	if a, ok := e.Step(); !ok || a.Outcome != record.Scheduled || since(a.Time) != 2*time.Minute {
		t.Fatalf("preemptor: %v %+v", ok, a)
	}
}

func victimObj(t *testing.T) *v1.Pod {
	t.Helper()
	e := load(t, preemptionCluster, Options{})
	return e.Pod("default/victim").DeepCopy()
}

// TestRealTimeRewind: rewinding a real-time run replays its ticks and
// changes: stepping again gives the same timeline.
func TestRealTimeRewind(t *testing.T) {
	clk := newFakeClock()
	e := load(t, tooBig, realTime(clk))
	e.Step()
	clk.set(300 * time.Millisecond)
	if err := e.Apply(change.Change{Kind: change.NodeAdd, Node: nodeObj("n2", "4"), At: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	for s := time.Duration(1); s <= 3; s++ {
		clk.set(s * time.Second)
		e.Tick()
	}
	if _, ok := e.Step(); !ok {
		t.Fatal("no retry")
	}
	want := timelineJSON(t, e)
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Step(); !ok {
		t.Fatal("no retry after the rewind")
	}
	if got := timelineJSON(t, e); got != want {
		t.Errorf("after rewind and step:\n%s\nwant:\n%s", got, want)
	}
	if n := len(e.log); n > 5 {
		t.Errorf("%d ops logged: consecutive ticks should be one", n)
	}
}

// TestShadowRealTimeRetry: live, in shadow mode, a pod the cluster's
// scheduler rejects waits in the mirror's unschedulable pool (rejected by
// NodeResourcesFit, as schedtui's attempt on the same state says); a node
// that fits moves it to backoffQ, and the clock alone, past the backoff,
// moves it to activeQ: the cluster's scheduler retries it then.
func TestShadowRealTimeRetry(t *testing.T) {
	clk := newFakeClock()
	e := load(t, tooBig, Options{Clock: clk, Shadow: true})
	clk.set(100 * time.Millisecond)
	applyAll(t, e, change.Change{Kind: change.PodUpdate, Pod: unschedulableUpdate(e, "default/big",
		"0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."), At: clk.Now()})
	var moves []string
	for _, m := range findEvents(e, history.EventQueueMove, "default/big") {
		moves = append(moves, fmt.Sprintf("%s→%s (%s)", m.From, m.To, m.Reason))
	}
	if got := strings.Join(moves, ", "); got != "→Active (UnscheduledPodAdd), Active→InFlight (ClusterAttempt), InFlight→Unschedulable (ScheduleAttemptFailure)" {
		t.Fatalf("moves: %s", got)
	}
	if q := e.Queue(); len(q.Unschedulable) != 1 || strings.Join(q.Unschedulable[0].UnschedulablePlugins, ",") != "NodeResourcesFit" {
		t.Fatalf("the unschedulable pool: %+v", q.Unschedulable)
	}
	clk.set(300 * time.Millisecond)
	applyAll(t, e, change.Change{Kind: change.NodeAdd, Node: nodeObj("n2", "4"), At: clk.Now()})
	if m := lastMove(e, "default/big"); m.To != history.BackoffQ || m.Reason != "NodeAdd" {
		t.Fatalf("after change.NodeAdd: %+v", m)
	}
	clk.set(1500 * time.Millisecond)
	e.Tick()
	if m := lastMove(e, "default/big"); m.To != history.BackoffQ {
		t.Fatalf("left backoffQ before its backoff ended: %+v", m)
	}
	clk.set(2500 * time.Millisecond)
	if !e.Tick() {
		t.Fatal("the tick past the backoff moved nothing")
	}
	if m := lastMove(e, "default/big"); m.From != history.BackoffQ || m.To != history.ActiveQ {
		t.Fatalf("after the backoff: %+v", m)
	}
	if n := e.Attempts().Len(); n != 1 {
		t.Fatalf("shadow mode made %d attempts, want the one judging the cluster's", n)
	}
}
