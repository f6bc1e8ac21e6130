package engine

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TestArchiveKeepsSummaries: every archived attempt comes back as
// record.Attempt.Summary makes it from the attempt kept whole (so a field
// the summary line gains is a field the archive must keep), on runs with
// preemptions, victims, nominations and unschedulable pods; the archived
// timeline is the whole one without its old queue moves and cluster
// changes.
func TestArchiveKeepsSummaries(t *testing.T) {
	for name, build := range map[string]func(Options) *Engine{
		"demo": func(o Options) *Engine { return demo(t, o) },
		"generated": func(o Options) *Engine {
			nodes, pods := genCluster(60, 400, 2500, 50, 40)
			o.Seed, o.Registry = 1, plugins.NewInTreeRegistry()
			e, err := New(nodes, pods, nil, o)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
	} {
		t.Run(name, func(t *testing.T) {
			ref := build(Options{})
			ref.RunToQuiescence()
			e := build(Options{Retention: Retention{Detailed: 1, Sliding: true}, CheckpointInterval: 8, MaxCheckpoints: 2})
			e.RunToQuiescence()
			got, want := e.Attempts(), ref.Attempts()
			if got.Len() != want.Len() || e.archive.len() < got.Len()/2 {
				t.Fatalf("%d attempts (%d archived), the full run made %d", got.Len(), e.archive.len(), want.Len())
			}
			summarized := 0
			for i := range e.archive.len() {
				a, w := got.At(i), want.At(i)
				if a.Summarized {
					summarized++
					w = w.Summary()
				}
				if !reflect.DeepEqual(a, w) {
					t.Fatalf("archived attempt %d:\n%+v\nwant\n%+v", i, a, w)
				}
			}
			if summarized < got.Len()/2 {
				t.Fatalf("%d of %d attempts summarized", summarized, got.Len())
			}
			if e.evArchive.len() == 0 {
				t.Fatal("nothing of the timeline was archived")
			}
			tl := e.Timeline()
			if !reflect.DeepEqual(withoutSeq(tl.Slice(0, tl.Len())), compacted(ref.Timeline().Slice(0, ref.Timeline().Len()), e.evArchive.len()+e.eventsDropped)) {
				t.Fatal("the archived timeline is not the full run's compacted")
			}
		})
	}
}

// heapGrowthPerAttempt feeds e second by second and measures what the
// live heap grows by per attempt once the rewind window is full: from the
// least heap over the cycle starting at second 200 to the least over the
// cycle starting at second until (the window's checkpoints come and go
// within a cycle), divided by the attempts made between the cycles'
// middles.
func heapGrowthPerAttempt(t *testing.T, e *Engine, second func(*Engine, int) (int, error), cycle, until int) (heap0, heap1 uint64, attempts0, attempts1 int, per float64) {
	t.Helper()
	feed := func(s int) {
		if _, err := second(e, s); err != nil {
			t.Fatal(err)
		}
	}
	// least is the least live heap over seconds [from, from+cycle), and
	// the attempts made by its middle.
	least := func(from int) (heap uint64, attempts int) {
		heap = math.MaxUint64
		for s := from; s < from+cycle; s++ {
			if s%5 == 0 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = min(heap, ms.HeapAlloc)
			}
			if s == from+cycle/2 {
				attempts = e.Attempts().Len()
			}
			feed(s)
		}
		return heap, attempts
	}
	for s := range 200 {
		feed(s)
	}
	heap0, attempts0 = least(200)
	for s := 200 + cycle; s < until; s++ {
		feed(s)
	}
	heap1, attempts1 = least(until)
	return heap0, heap1, attempts0, attempts1, (float64(heap1) - float64(heap0)) / float64(attempts1-attempts0)
}

// TestArchiveCostPerAttempt is BenchmarkLongReplay's bound in small: live
// churn (10 pods a second on 40 nodes, each pod deleted a minute after it
// arrived) under the debugger's kind of retention. Once the rewind window
// is full, what the engine holds grows by the archived lines only: from
// the least live heap of a cycle of the window (its checkpoints come and
// go, about 100 seconds) to the least of a cycle 300 seconds later, the
// heap may grow by at most bytesPerAttempt per attempt. An attempt kept as
// a summarized record.Attempt with its timeline Event costs about 1.2 KB.
// The last minute stays rewindable and comes back whole.
func TestArchiveCostPerAttempt(t *testing.T) {
	const (
		rate            = 10
		bytesPerAttempt = 400
	)
	nodes, bound := genCluster(40, 0, 500, 1<<30, 1<<30)
	c := churn{rate: rate, lifetime: time.Minute, stuckEvery: 97}
	e, err := New(nodes, bound, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry(),
		CheckpointInterval: 128, MaxCheckpoints: 8, Retention: Retention{Detailed: 100, Sliding: true}})
	if err != nil {
		t.Fatal(err)
	}
	heap0, heap1, attempts0, attempts1, per := heapGrowthPerAttempt(t, e, c.second, 110, 500)
	t.Logf("%d attempts between the cycles' middles, least heaps %d → %d bytes: %.0f bytes per attempt", attempts1-attempts0, heap0, heap1, per)
	if per > bytesPerAttempt {
		t.Errorf("the heap grew by %.0f bytes per attempt past the rewind window, want at most %d", per, bytesPerAttempt)
	}
	if r := e.Retained(); r.Checkpoints != 8 || attempts1-attempts0 < 2500 || r.Summary < 5000 {
		t.Fatalf("the window never filled, or too few attempts: %+v", r)
	}

	log := e.Attempts()
	minuteAgo := e.Now().Add(-time.Minute)
	target := sort.Search(log.Len(), func(i int) bool { return !log.At(i).Time.Before(minuteAgo) })
	if r := e.Retained(); target < r.RewindableFrom {
		t.Fatalf("the last minute starts at attempt %d, rewind reaches back to %d only", target, r.RewindableFrom)
	}
	want := log.At(target)
	if !want.Summarized {
		t.Fatalf("attempt %d, a minute ago, is still whole", target)
	}
	if err := e.Rewind(log.Len() - target); err != nil {
		t.Fatal(err)
	}
	if a, ok := e.Step(); !ok || attemptLineOf(a) != attemptLineOf(want) || a.Summarized {
		t.Fatal("after rewinding a minute, the attempt made again is not the one made then, whole")
	}
}

// TestArchivedObservationTextsBounded: archived observations keep their
// texts for the newest ones only, so that they stop growing with the
// decisions; an older one keeps everything else and says its explanation
// went.
func TestArchivedObservationTextsBounded(t *testing.T) {
	defer func(n int) { observationTextsKept = n }(observationTextsKept)
	observationTextsKept = 4
	var attempts []*record.Attempt
	var o observationArchive
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const rows = 100
	for k := range rows {
		attempts = append(attempts, &record.Attempt{Pod: fmt.Sprintf("default/p%d", k)})
		o.add(Event{Kind: EventObserved, Time: at.Add(time.Duration(k) * time.Second), Pod: fmt.Sprintf("default/p%d", k), Attempt: k,
			Reason: string(Agree), Node: "n1", Predicted: "n1", Message: fmt.Sprintf("why %d", k), Uncertain: fmt.Sprintf("uncertain %d", k),
			Judged: &JudgedOn{Bound: k, InFlight: []string{fmt.Sprintf("default/q%d", k)}, AsOf: fmt.Sprintf("as of %d", k)}})
	}
	log := AttemptsOf(attempts...)
	if kept := len(o.message.ends); kept >= 2*observationTextsKept || kept < observationTextsKept {
		t.Fatalf("%d rows keep their texts, want %d to %d", kept, observationTextsKept, 2*observationTextsKept-1)
	}
	for k := range rows {
		ev := o.event(k, log)
		if ev.Pod != fmt.Sprintf("default/p%d", k) || ev.Node != "n1" || ev.Reason != string(Agree) || ev.Judged == nil || ev.Judged.Bound != k ||
			!ev.Time.Equal(at.Add(time.Duration(k)*time.Second)) {
			t.Fatalf("row %d lost more than its texts: %+v", k, ev)
		}
		texts := ev.Message == fmt.Sprintf("why %d", k) && ev.Uncertain == fmt.Sprintf("uncertain %d", k) &&
			ev.Judged.AsOf == fmt.Sprintf("as of %d", k) && len(ev.Judged.InFlight) == 1
		switch {
		case k >= rows-observationTextsKept && !texts:
			t.Errorf("row %d, among the newest, lost its texts: %+v", k, ev)
		case k < rows-2*observationTextsKept && (texts || ev.Message != textsDropped || ev.Uncertain != "" || ev.Judged.AsOf != ""):
			t.Errorf("row %d kept its texts, or does not say they went: %+v", k, ev)
		}
	}
}
