package tui

import (
	"fmt"
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TestObservedTallyReadsNewEventsOnly: the status line's tally reads each
// event about once over a long session, though compaction moves the
// timeline's positions under it every few attempts; it used to count
// again from the start after each compaction.
func TestObservedTallyReadsNewEventsOnly(t *testing.T) {
	e := demoBackend(t).engine
	if err := e.SetRetention(engine.Retention{Detailed: 5, Sliding: true}, 8, 3); err != nil {
		t.Fatal(err)
	}
	e.Continue(nil)
	pod := func(i int) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("churn-%d", i), UID: types.UID(fmt.Sprintf("churn-%d", i))},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{Name: "c",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("10m")}}}}}}
	}
	var tally observedTally
	compactions, dropped := 0, 0
	for i := range 400 {
		if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: pod(i)}); err != nil {
			t.Fatal(err)
		}
		if i >= 10 {
			if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod(fmt.Sprintf("default/churn-%d", i-10))}); err != nil {
				t.Fatal(err)
			}
		}
		e.Continue(nil)
		l := e.Timeline()
		if l.Dropped() > dropped {
			compactions, dropped = compactions+1, l.Dropped()
		}
		tally.count(l)
	}
	if compactions < 10 {
		t.Fatalf("%d compactions: the test does not exercise them", compactions)
	}
	total := e.Timeline().Dropped() + e.Timeline().Len()
	if tally.read > 2*total {
		t.Errorf("the tally read %d events over a run of %d (%d compactions): it counted again from the start", tally.read, total, compactions)
	}
}

// TestObservedTallyAcrossCompaction: the tally's counts are those of a
// count from the start after each step, also when compaction archived
// past the place the tally stopped (its queue moves dropped), as a long
// step with sliding checkpoints does.
func TestObservedTallyAcrossCompaction(t *testing.T) {
	var l history.Log
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	verdicts := []engine.Verdict{engine.Agree, engine.Tie, engine.Disagree}
	var tally observedTally
	for step := range 60 {
		for k := range 1 + step%4 {
			at = at.Add(time.Second)
			pod := fmt.Sprintf("default/p-%d-%d", step, k)
			i := l.Add(&record.Attempt{Pod: pod, PodUID: pod, Time: at, Outcome: record.Scheduled, Node: "n"})
			l.AddEvent(history.Event{Kind: history.EventQueueMove, Time: at, Pod: pod, Reason: "Pop", Attempt: -1})
			l.AddEvent(history.Event{Kind: history.EventAttempt, Time: at, Pod: pod, Attempt: i, Reason: "Scheduled", Node: "n"})
			l.AddEvent(history.Event{Kind: history.EventCluster, Time: at, Pod: pod, Reason: "PodUpdate", Attempt: -1})
			l.AddEvent(history.Event{Kind: history.EventObserved, Time: at, Pod: pod, Attempt: i, Reason: string(verdicts[(step+k)%3]), Node: "n", Predicted: "n"})
		}
		// Compaction to a horizon a few events short of the end: every
		// third step past the place the last count stopped.
		if step%3 == 2 {
			l.Compact(l.Events()-step%5, false)
		}
		tl := l.Timeline(math.MaxInt)
		var want observedCounts
		for _, ev := range tl.All() {
			if ev.Kind == history.EventObserved {
				want.add(ev.Reason)
			}
		}
		if got := tally.count(tl); got != want {
			t.Fatalf("step %d: tally %+v, counted from the start %+v", step, got, want)
		}
	}
	if tally.read > 2*(l.Events()+l.Dropped()) {
		t.Errorf("the tally read %d events over a run of %d", tally.read, l.Events()+l.Dropped())
	}
}
