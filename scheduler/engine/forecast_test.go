package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/record"
)

// forecastCluster: two identical 8-cpu nodes (a tie for the first pod), a
// tainted one, three 1-cpu pods and one that fits nowhere.
var forecastCluster = listHeader + nodeYAML("a", "8", "") + nodeYAML("b", "8", "") +
	nodeYAML("tainted", "8", "taints: [{key: k, effect: NoSchedule}]") +
	podYAML("p1", "1", 0, "") + podYAML("p2", "1", 0, "") + podYAML("p3", "1", 0, "") + podYAML("stuck", "16", 0, "")

// TestForecast: a forecast forked from a live engine makes its attempts
// in virtual time without touching the mirror (state, queue, timeline),
// and the cluster's later decisions judge them: hit, tie or miss.
func TestForecast(t *testing.T) {
	clk := newFakeClock()
	clk.set(10 * time.Second)
	e := load(t, forecastCluster, realTime(clk))
	e.Tick()
	queue, events, now := e.Queue(), e.Timeline().Len(), e.Now()

	f, err := e.Forecast()
	if err != nil {
		t.Fatal(err)
	}
	if !f.At().Equal(clk.Now()) || f.RealTime() || f.Base() != 0 || f.BaseEvents() != events {
		t.Fatalf("forecast at %v (real time %v), base %d/%d", f.At(), f.RealTime(), f.Base(), f.BaseEvents())
	}
	var made []*record.Attempt
	for {
		a, ok := f.Step()
		if !ok {
			break
		}
		made = append(made, a)
	}
	if len(made) != 4 || f.Made() != 4 {
		t.Fatalf("%d forecast attempts, want 4", len(made))
	}
	byPod := map[string]*record.Attempt{}
	for _, a := range made {
		byPod[a.Pod] = a
	}
	p1 := byPod["default/p1"]
	if p1.Outcome != record.Scheduled || len(p1.Top()) != 2 || byPod["default/stuck"].Outcome != record.Unschedulable {
		t.Fatalf("forecast: p1 %+v, stuck %v", p1, byPod["default/stuck"].Outcome)
	}

	// The mirror is as it was: same queue, same timeline, no attempt, no
	// pod bound, same clock.
	if !reflect.DeepEqual(e.Queue(), queue) || e.Timeline().Len() != events || e.Attempts().Len() != 0 || !e.Now().Equal(now) {
		t.Fatalf("the mirror changed: queue %+v, %d events (was %d), %d attempts", e.Queue(), e.Timeline().Len(), events, e.Attempts().Len())
	}
	for _, p := range []string{"default/p1", "default/p2", "default/p3"} {
		if n := e.Pod(p).Spec.NodeName; n != "" {
			t.Fatalf("%s bound to %q in the mirror", p, n)
		}
	}

	// Rewinding stays within the forecast.
	if err := f.Rewind(5); !errors.Is(err, ErrForecastStart) {
		t.Fatalf("rewinding past the forecast's start: %v", err)
	}
	if err := f.Rewind(1); err != nil || f.Made() != 3 {
		t.Fatalf("rewind one: %v, %d made", err, f.Made())
	}
	if _, ok := f.Step(); !ok || f.Made() != 4 || e.Timeline().Len() != events {
		t.Fatal("stepping again after the rewind")
	}

	// The cluster decides, a second later: p1 on the other tied node, p2
	// where the forecast put it, p3 on the tainted node, stuck nowhere.
	other := "a"
	if p1.Node == "a" {
		other = "b"
	}
	clk.set(11 * time.Second)
	for _, u := range []change.Change{
		{Kind: change.PodUpdate, Pod: bindTo(e, "default/p1", other)},
		{Kind: change.PodUpdate, Pod: bindTo(e, "default/p2", byPod["default/p2"].Node)},
		{Kind: change.PodUpdate, Pod: bindTo(e, "default/p3", "tainted")},
		{Kind: change.PodUpdate, Pod: unschedulableUpdate(e, "default/stuck", "0/3 nodes are available: 3 Insufficient cpu.")},
	} {
		u.At = clk.Now()
		if err := e.Apply(u); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.ChangesSince(); n != 4 {
		t.Errorf("%d changes since the forecast, want 4", n)
	}
	js := f.Judgments()
	got := map[string]Judgment{}
	for _, j := range js {
		got[j.Pod] = j
	}
	want := map[string]ForecastVerdict{"default/p1": ForecastTie, "default/p2": ForecastHit, "default/p3": ForecastMiss, "default/stuck": ForecastHit}
	if len(js) != len(want) {
		t.Fatalf("judgments %+v", js)
	}
	for pod, v := range want {
		if j := got[pod]; j.Verdict != v || !j.Time.Equal(clk.Now()) {
			t.Errorf("%s: %+v, want %s", pod, j, v)
		}
	}
	if m := got["default/p3"].Message; !strings.Contains(m, "TaintToleration rejects tainted") || strings.Contains(m, "schedtui") {
		t.Errorf("miss: %q", m)
	}
	if m := got["default/stuck"].Message; !strings.Contains(m, "3 Insufficient cpu") {
		t.Errorf("unschedulable hit: %q", m)
	}
	// The forecast is still as it was: the cluster's bindings stay in the
	// mirror.
	if f.Pod("default/p3").Spec.NodeName == "tainted" {
		t.Error("the cluster's binding leaked into the forecast")
	}
}

// TestForecastNeedsRealTime: a snapshot's engine has no forecasts.
func TestForecastNeedsRealTime(t *testing.T) {
	if _, err := load(t, forecastCluster, Options{}).Forecast(); err == nil {
		t.Fatal("a virtual-time engine forked a forecast")
	}
}
