package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
)

// TestLiveForecast: on a live cluster n runs a forecast: the header, the
// status line, the Pod view and the Events view say so, and the live
// engine's queue stays as it was. A live change arriving meanwhile goes
// into the live engine and is counted; the cluster's binding of a pod the
// forecast placed judges it; u steps back within the forecast and then
// returns to the live cluster.
func TestLiveForecast(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, _ := liveHarness(t, clk)
	mirror := b.engine
	var before engine.QueueSnapshot
	b.Locked(func() { before = mirror.Queue() })

	clk.set(2 * time.Second)
	hs.keys("n")
	hs.contains("[forecast]", "forecast attempt 1/1", "default/big", "forecast from 00:00:02 · 0 change(s) since")
	hs.keys("n")
	hs.contains("forecast attempt 2/2", "default/small Scheduled → n1")
	b.Locked(func() {
		q := mirror.Queue()
		q.Now = before.Now
		if !reflect.DeepEqual(q, before) || mirror.Attempts().Len() != 0 {
			t.Errorf("the live engine changed: queue %+v (was %+v), %d attempts", q, before, mirror.Attempts().Len())
		}
	})

	// The clock ticks on the live engine; the forecast's time stays.
	w := hs.m.c.World
	hs.tick(clk, 2500*time.Millisecond)
	if cur := hs.m.c.World; cur.forecast == nil || !cur.queue.Now.Equal(w.queue.Now) {
		t.Errorf("after a tick: forecast %v, now %v (was %v)", cur.forecast, cur.queue.Now, w.queue.Now)
	}
	b.Locked(func() {
		if !mirror.Now().Equal(clk.Now()) {
			t.Errorf("the live engine is at %v after the tick, want %v", mirror.Now(), clk.Now())
		}
	})

	// A node joins the cluster while the forecast is shown.
	clk.set(3 * time.Second)
	b.Locked(func() {
		n2 := &v1.Node{}
		n2.Name, n2.Labels = "n2", map[string]string{"kubernetes.io/hostname": "n2"}
		n2.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}
		if err := mirror.Apply(change.Change{Kind: change.NodeAdd, Node: n2, At: clk.Now()}); err != nil {
			t.Fatal(err)
		}
	})
	hs.send(sourceMsg{batch: []SourceStatus{{Connected: true, LastEvent: "NodeAdd n2"}}})
	hs.contains("[forecast]", "forecast from 00:00:02 · 1 change(s) since")
	if _, ok := hs.m.c.World.nodeIdx["n2"]; ok {
		t.Error("the forecast shows the node that joined after it")
	}
	b.Locked(func() {
		if _, err := mirror.Scheduler().Snapshot().Get("n2"); err != nil {
			t.Error("the live engine lacks the new node")
		}
	})

	// The cluster's scheduler binds small where the forecast put it.
	clk.set(4 * time.Second)
	b.Locked(func() {
		p := mirror.Pod("default/small").DeepCopy()
		p.Spec.NodeName, p.ResourceVersion = "n1", "live-2"
		if err := mirror.Apply(change.Change{Kind: change.PodUpdate, Pod: p, At: clk.Now()}); err != nil {
			t.Fatal(err)
		}
	})
	hs.send(sourceMsg{batch: []SourceStatus{{Connected: true, LastEvent: "PodUpdate default/small on n1"}}})
	hs.contains("2 change(s) since · 1 hit · 0 tie · 0 miss")
	hs.keys("7")
	hs.contains("[forecast] attempt    #2 default/small: Scheduled on n1",
		"00:00:03 [live] cluster    NodeAdd Node n2",
		// The live engine's own prediction, at the binding, saw n2.
		"00:00:04 [live] observed   default/small: the cluster bound it to n1; schedtui: n2 (disagree)",
		"00:00:04 forecast   default/small: the cluster bound it to n1; forecast: n1 (hit)")
	hs.keys("2")
	hs.contains("Forecast on the cluster as it was at 00:00:02 (2 change(s) since)", "Judged: hit")

	// u steps back within the forecast, then drops it.
	// (The status line's right side is long here: read the note itself.)
	hs.keys("u")
	hs.contains("forecast attempt 1/1")
	if got := hs.m.status.text; got != "forecast: rewound one attempt" {
		t.Errorf("status after u: %q", got)
	}
	hs.keys("u")
	hs.contains("no attempt yet")
	if got := hs.m.status.text; !strings.Contains(got, "back to the live cluster") {
		t.Errorf("status after the second u: %q", got)
	}
	if s := hs.screen(); strings.Contains(s, "[forecast]") || strings.Contains(s, "forecast from") {
		t.Errorf("still marked as a forecast:\n%s", s)
	}
	hs.keys("1")
	hs.contains("default/big")
	if w := hs.m.c.World; w.forecast != nil || len(w.queue.ActiveQ) != 1 {
		t.Errorf("back to live: forecast %v, activeQ %+v", w.forecast, w.queue.ActiveQ)
	}
	b.Locked(func() {
		if b.API != engine.API(mirror) {
			t.Error("the backend still points at the forecast")
		}
	})
}

// TestLiveForecastNothingToDo: n with nothing pending forks no forecast.
func TestLiveForecastNothingToDo(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, _ := liveHarness(t, clk)
	mirror := b.engine
	b.Locked(func() {
		for _, k := range []string{"default/big", "default/small"} {
			if err := mirror.Apply(change.Change{Kind: change.PodDelete, Pod: mirror.Pod(k)}); err != nil {
				t.Fatal(err)
			}
		}
	})
	hs.keys("n")
	hs.contains("nothing to forecast now")
	if s := hs.screen(); strings.Contains(s, "[forecast]") {
		t.Errorf("a forecast without attempts:\n%s", s)
	}
}

// TestLiveForecastStepPhase: s and c forecast too; the live engine makes
// no attempt.
func TestLiveForecastStepPhase(t *testing.T) {
	clk := &testClock{t: scheduler.Epoch}
	hs, b, _ := liveHarness(t, clk)
	mirror := b.engine
	hs.keys("s")
	hs.contains("[forecast]", "forecast: phase PreEnqueue")
	// In virtual time from the fork: small, then big again at the
	// 5-minute flush.
	hs.keys("c")
	hs.contains("[forecast]", "forecast attempt 3/3", "ran until nothing was left to schedule")
	b.Locked(func() {
		if n := mirror.Attempts().Len(); n != 0 {
			t.Errorf("the live engine made %d attempts", n)
		}
	})
}
