package engine

import (
	"math"
	"reflect"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/plugins"
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
			if got.Len() != want.Len() || attemptsArchived(e) < got.Len()/2 {
				t.Fatalf("%d attempts (%d archived), the full run made %d", got.Len(), attemptsArchived(e), want.Len())
			}
			summarized := 0
			for i := range attemptsArchived(e) {
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
			if eventsArchived(e) == 0 {
				t.Fatal("nothing of the timeline was archived")
			}
			tl := e.Timeline()
			if !reflect.DeepEqual(withoutSeq(tl.Slice(0, tl.Len())), compacted(ref.Timeline().Slice(0, ref.Timeline().Len()), e.hist.EventNumber(0))) {
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

// attemptsArchived and eventsArchived are the attempts and events e's
// history archived.
func attemptsArchived(e *Engine) int { n, _ := e.hist.Archived(); return n }
func eventsArchived(e *Engine) int   { _, n := e.hist.Archived(); return n }
