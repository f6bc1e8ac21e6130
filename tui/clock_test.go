package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// testClock is the clock a live test moves.
type testClock struct{ t time.Time }

func (c *testClock) Now() time.Time      { return c.t }
func (c *testClock) set(d time.Duration) { c.t = scheduler.Epoch.Add(d) }

// tick sets the clock at d after the epoch and sends the tick.
func (hs *harness) tick(c *testClock, d time.Duration) {
	c.set(d)
	hs.send(tickMsg{})
}

// realTimeCluster: a 1-cpu node, big (2 cpu) and, created after it, small.
const realTimeCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: '1', memory: 8Gi, pods: '110'}, capacity: {cpu: '1', memory: 8Gi, pods: '110'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: default, uid: uid-big, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '2'}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: small, namespace: default, uid: uid-small, creationTimestamp: '2025-12-31T00:00:01Z'}
  spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}
`

// liveHarness is a live session in real time on clk, whose ticks the test
// sends itself (ticks counts the ticks the session asked for); a Replay
// with Shadow makes it shadow the cluster's scheduler, as the debugger
// does by default.
func liveHarness(t *testing.T, clk *testClock, replay ...Replay) (*harness, *Backend, *int) {
	t.Helper()
	c, _, err := snapshot.Load("live.yaml", []byte(realTimeCluster))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default(features.Default())
	initial, maxBackoff := int64(8), int64(10)
	cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds = &initial, &maxBackoff
	b, err := NewLiveBackend("test-ctx", c, scheduler.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1}, clk, replay...)
	if err != nil {
		t.Fatal(err)
	}
	// The source has nothing to say: the test applies changes itself.
	src := chanSource{ch: make(chan SourceStatus)}
	close(src.ch)
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true, Source: src})}
	ticks := 0
	hs.m.s.tick = func() tea.Cmd { ticks++; return nil }
	hs.m.c.Loc = time.UTC
	hs.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	hs.run(hs.m.Init())
	return hs, b, &ticks
}

// bindInMemory makes a live session bind (--bind) with a binder that
// always succeeds: n then schedules on the live engine itself instead of
// a forecast.
func bindInMemory(t *testing.T, b *Backend) {
	t.Helper()
	if err := b.SetBind(func(context.Context, *v1.Pod, string) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestLiveAgesCount: in a live session the engine follows the clock:
// each tick moves it, the ages in the Queues view count up and the
// backoff left counts down without a key press, the backoff's end moves
// the pod to activeQ, and the Events view shows the times things
// happened. (With --bind, so that n attempts on the live engine.)
func TestLiveAgesCount(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, ticks := liveHarness(t, clk)
	bindInMemory(t, b)
	if *ticks != 1 {
		t.Fatalf("a live session asked for %d ticks at start, want 1", *ticks)
	}
	hs.keys("1")
	hs.contains("default/big", "default/small")

	// big fails; a node that fits arrives while its backoff (8s) runs.
	hs.keys("n")
	clk.set(500 * time.Millisecond)
	n2 := &v1.Node{}
	n2.Name, n2.Labels = "n2", map[string]string{"kubernetes.io/hostname": "n2"}
	n2.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}
	if err := b.Apply(change.Change{Kind: change.NodeAdd, Node: n2, At: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	hs.send(sourceMsg{batch: []SourceStatus{{Connected: true, LastEvent: "NodeAdd n2"}}})
	hs.tick(clk, time.Second)
	hs.keys("1")
	hs.contains("default/small", "age 1s", "default/big", "backoff left 7s")
	hs.tick(clk, 5*time.Second)
	hs.contains("age 5s", "backoff left 3s")
	if *ticks != 3 {
		t.Errorf("%d ticks asked, want one per tick", *ticks)
	}
	// The backoff ends (8s, released at the 9s flush): big is in activeQ.
	hs.tick(clk, 9*time.Second+500*time.Millisecond)
	hs.contains("Backoff (0)", "age 9s")
	if q := hs.m.c.World.queue; len(q.ActiveQ) != 2 {
		t.Fatalf("activeQ after the backoff: %+v", q.ActiveQ)
	}
	hs.keys("7")
	hs.contains("00:00:00 attempt", "00:00:00 cluster    NodeAdd", "00:00:09 queue      default/big: Backoff → Active (BackoffComplete)")
	// Stepping still works: big schedules on n2 at the clock's time.
	hs.keys("n", "n", "7")
	hs.contains("00:00:09 attempt", "default/big: Scheduled on n2")
}

// TestLiveShadowBackoffCounts: a live session in shadow mode (the
// default): the cluster's scheduler rejects big, and schedtui's mirror of
// its queue puts big in the unschedulable pool; a node that fits arrives
// while big's backoff (8s) runs, and the ticks alone count the ages up
// and the backoff down, then move big to activeQ, as the cluster's
// scheduler retries it then.
func TestLiveShadowBackoffCounts(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, _ := liveHarness(t, clk, Replay{Shadow: true})
	apply := func(c change.Change) {
		t.Helper()
		if err := b.Apply(c); err != nil {
			t.Fatal(err)
		}
		hs.send(sourceMsg{batch: []SourceStatus{{Connected: true, LastEvent: string(c.Kind)}}})
	}
	clk.set(200 * time.Millisecond)
	var big *v1.Pod
	b.Locked(func() { big = b.Pod("default/big").DeepCopy() })
	big.ResourceVersion = "2"
	big.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
		Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}
	apply(change.Change{Kind: change.PodUpdate, Pod: big, At: clk.Now()})
	hs.keys("1")
	hs.contains("Unschedulable (1)", "default/big")
	clk.set(500 * time.Millisecond)
	n2 := &v1.Node{}
	n2.Name, n2.Labels = "n2", map[string]string{"kubernetes.io/hostname": "n2"}
	n2.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}
	apply(change.Change{Kind: change.NodeAdd, Node: n2, At: clk.Now()})
	hs.tick(clk, time.Second)
	hs.keys("1")
	hs.contains("Backoff (1)", "default/small", "age 1s", "backoff left 7s")
	hs.tick(clk, 5*time.Second)
	hs.contains("age 5s", "backoff left 3s")
	hs.tick(clk, 9*time.Second+500*time.Millisecond)
	hs.contains("Backoff (0)")
	if q := hs.m.c.World.queue; len(q.ActiveQ) != 2 {
		t.Fatalf("activeQ after the backoff: %+v", q.ActiveQ)
	}
	hs.keys("7")
	hs.contains("00:00:00 queue      default/big: InFlight → Unschedulable (ScheduleAttemptFailure)",
		"00:00:00 queue      default/big: Unschedulable → Backoff (NodeAdd)",
		"00:00:09 queue      default/big: Backoff → Active (BackoffComplete)")
}

// TestLiveIdleTickIsCheap: a tick that moves only the clock does not
// capture the engine again, and with nothing queued changes nothing shown.
func TestLiveIdleTickIsCheap(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, _ := liveHarness(t, clk)
	bindInMemory(t, b)
	hs.keys("n", "n", "n")
	// In real time nothing poppable is not the end.
	hs.contains("nothing to schedule now")
	w := hs.m.c.World
	hs.tick(clk, 3*time.Second)
	if hs.m.c.World.seq != w.seq || !hs.m.c.World.queue.Now.Equal(clk.Now()) {
		t.Fatalf("after an idle tick: seq %d (was %d), now %v", hs.m.c.World.seq, w.seq, hs.m.c.World.queue.Now)
	}
	// Only the unschedulable big is left; once it is gone nothing ages.
	hs.m.c.World.queue.Unschedulable = nil
	w = hs.m.c.World
	hs.tick(clk, 4*time.Second)
	if hs.m.c.World != w {
		t.Error("an empty queue was redrawn on a tick")
	}
}

// TestSnapshotNeverTicks: a snapshot session runs in virtual time: it asks
// for no tick, and a stray tick moves nothing.
func TestSnapshotNeverTicks(t *testing.T) {
	hs := &harness{t: t, m: New(Options{Backend: demoBackend(t), NoColor: true})}
	ticks := 0
	hs.m.s.tick = func() tea.Cmd { ticks++; return nil }
	hs.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	hs.run(hs.m.Init())
	hs.keys("n")
	w := hs.m.c.World
	hs.send(tickMsg{})
	if ticks != 0 || hs.m.c.World != w {
		t.Errorf("a snapshot session ticked (%d) or changed on a tick", ticks)
	}
}
