package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// newShadowChurn is the churn of the shadow-mode retention tests on the
// nodes given: 5 pods a second, each deleted 30 seconds later.
func newShadowChurn(nodeNames []string) shadowChurn {
	return shadowChurn{churn: churn{rate: 5, lifetime: 30 * time.Second, stuckEvery: 53}, nodes: nodeNames,
		badEvery: 7, prebindEvery: 5, lostEvery: 4, decisionDelay: 300 * time.Millisecond}
}

func shadowEngine(t testing.TB, nodes int, interval, maxCkpt int, r Retention) (*Engine, *shadowFeed) {
	return shadowEngineWith(t, nodes, Options{CheckpointInterval: interval, MaxCheckpoints: maxCkpt, Retention: r})
}

// shadowEngineWith is a shadow-mode engine over genCluster's nodes with
// opts, and the churn to feed it.
func shadowEngineWith(t testing.TB, nodes int, opts Options) (*Engine, *shadowFeed) {
	t.Helper()
	ns, bound := genCluster(nodes, 0, 500, 1<<30, 1<<30)
	var names []string
	for _, n := range ns {
		names = append(names, n.Name)
	}
	opts.Seed, opts.Registry, opts.Shadow = 1, plugins.NewInTreeRegistry(), true
	e, err := New(ns, bound, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, newShadowFeed(newShadowChurn(names))
}

// TestShadowRetentionBoundsLongChurn: shadow mode (a live cluster's or a
// recording's default) under the debugger's kind of retention, on churn
// whose every pod the cluster's scheduler decides about, some in flight,
// some lost in flight, some out of order. What the engine keeps whole
// stays bounded all along: the timeline since the oldest checkpoint, the
// op log, and the per-pod and per-attempt maps (no more entries than pods
// held, or attempts in the rewind window). The compacted timeline is the
// one an engine keeping everything makes, its queue moves and cluster
// changes before the horizon dropped: the same attempts, the same
// verdicts, revisions included. A rewind into the window gives what the
// full engine's rewind gives, a fork of a traced attempt in the window the
// same state, and a rewind past the window is refused.
func TestShadowRetentionBoundsLongChurn(t *testing.T) {
	const (
		seconds   = 400
		detailed  = 50
		interval  = 16
		maxCkpt   = 4
		perAtt    = perAttemptEvents
		opsPerAtt = 12
	)
	ref, refFeed := shadowEngine(t, 20, interval, maxCkpt, Retention{})
	e, feed := shadowEngine(t, 20, interval, maxCkpt, Retention{Detailed: detailed, Sliding: true})
	window := (maxCkpt + 1) * interval
	for s := 0; s < seconds; s++ {
		if _, err := feed.second(e, s); err != nil {
			t.Fatal(err)
		}
		if _, err := refFeed.second(ref, s); err != nil {
			t.Fatal(err)
		}
		held := len(e.sched.Objects().Pods())
		r := e.Retained()
		if r.Checkpoints > maxCkpt || e.Attempts().Len()-r.RewindableFrom > window {
			t.Fatalf("second %d: %+v", s, r)
		}
		if len(e.hist.Tail()) > window*perAtt || len(e.log) > window*opsPerAtt {
			t.Fatalf("second %d: %d events whole, %d ops logged, for %d attempts in the window", s, len(e.hist.Tail()), len(e.log), window)
		}
		sh := e.mode.(*shadow)
		if e.hist.Indexed() > held || len(e.lastGen) > held || len(e.stubs) > held || len(sh.inflight) > held || len(sh.created) > held {
			t.Fatalf("second %d: %d pods held, per-pod maps: lastAttempt %d, lastGen %d, stubs %d, in flight %d, created %d",
				s, held, e.hist.Indexed(), len(e.lastGen), len(e.stubs), len(sh.inflight), len(sh.created))
		}
		for _, c := range append(e.checkpoints, &checkpoint{mode: sh.shadowState}) {
			if n := len(c.mode.(*shadowState).tracedOps); n > window {
				t.Fatalf("second %d: %d traced attempts kept, the window holds %d attempts", s, n, window)
			}
		}
	}
	if e.hist.Dropped() == 0 || eventsArchived(e) == 0 {
		t.Fatal("nothing of the timeline was compacted")
	}
	if obs, whole := e.hist.ArchivedEvents(); obs == 0 || whole > 0 {
		t.Fatalf("%d observations archived in columns, %d events whole", obs, whole)
	}

	// The same run: the verdicts, revisions and event lines.
	sameTimelines := func(when string) {
		t.Helper()
		got, want := e.Timeline(), ref.Timeline()
		for i, ev := range got.All() {
			if ev.Seq != i+1 {
				t.Fatalf("%s: event %d has Seq %d", when, i, ev.Seq)
			}
		}
		g, w := withoutSeq(got.Slice(0, got.Len())), compacted(want.Slice(0, want.Len()), e.hist.EventNumber(0))
		if len(g) != len(w) {
			t.Fatalf("%s: %d events, the full run's compacted %d", when, len(g), len(w))
		}
		for i := range g {
			if !reflect.DeepEqual(g[i], w[i]) {
				t.Fatalf("%s: event %d\n%+v\nthe full run's\n%+v", when, i, g[i], w[i])
			}
		}
		if got.Settled() != got.Len()-(want.Len()-want.Settled()) {
			t.Fatalf("%s: %d of %d events settled, the full run %d of %d", when, got.Settled(), got.Len(), want.Settled(), want.Len())
		}
	}
	sameTimelines("after the run")
	verdicts := map[string]int{}
	revisedArchived := 0
	for i, ev := range e.Timeline().All() {
		if ev.Kind != history.EventObserved {
			continue
		}
		verdicts[ev.Reason]++
		if strings.Contains(ev.Uncertain, "judged again with it") && i < eventsArchived(e) {
			revisedArchived++
		}
	}
	if verdicts[string(Agree)] == 0 || verdicts[string(Tie)] == 0 || verdicts[string(Disagree)] == 0 || revisedArchived == 0 {
		t.Fatalf("the churn does not exercise shadow mode: verdicts %v, %d observations judged again archived", verdicts, revisedArchived)
	}

	// A fork of the latest traced attempt the window holds.
	traced := -1
	for i := range e.mode.(*shadow).tracedOps {
		traced = max(traced, i)
	}
	if traced < e.Retained().RewindableFrom {
		t.Fatalf("no traced attempt in the window (latest %d)", traced)
	}
	fs, fp, err := e.Fork(traced)
	if err != nil {
		t.Fatal(err)
	}
	rs, rp, err := ref.Fork(traced)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fs.Evaluate(fp, scheduler.Judgement), rs.Evaluate(rp, scheduler.Judgement); attemptJSON(t, a) != attemptJSON(t, b) {
		t.Fatalf("the fork of traced attempt %d differs from the full run's", traced)
	}

	// A rewind into the window, and one past it.
	r := e.Retained()
	n := e.Attempts().Len() - (r.RewindableFrom + 3)
	if err := e.Rewind(n); err != nil {
		t.Fatal(err)
	}
	if err := ref.Rewind(n); err != nil {
		t.Fatal(err)
	}
	sameTimelines("after a rewind")
	last := e.Attempts().Len() - 1
	if a := e.Attempts().At(last); a.Summarized || attemptJSON(t, a) != attemptJSON(t, ref.Attempts().At(last)) {
		t.Fatalf("after the rewind, attempt %d is not the full run's, whole", last)
	}
	if err := e.Rewind(e.Attempts().Len() - r.RewindableFrom + 1); !errors.Is(err, ErrNotRetained) {
		t.Fatalf("rewinding past the oldest checkpoint: %v, want ErrNotRetained", err)
	}
}

// TestShadowCostPerAttempt is BenchmarkLongShadowReplay's bound in small
// (TestArchiveCostPerAttempt's, in shadow mode): once the rewind window is
// full, the live heap grows by what the archive keeps per attempt (its
// line and its observation), at most bytesPerAttempt, measured from the
// least heap of a cycle of the window to the least of one later (about
// 260 bytes). With the timeline kept whole, as shadow mode kept it, the
// growth is 2.5 KB per attempt; with the observations archived as Events,
// 580 bytes.
func TestShadowCostPerAttempt(t *testing.T) {
	const bytesPerAttempt = 400
	e, feed := shadowEngine(t, 20, 64, 8, Retention{Detailed: 100, Sliding: true})
	heap0, heap1, attempts0, attempts1, per := heapGrowthPerAttempt(t, e, feed.second, 120, 700)
	t.Logf("%d attempts between the cycles' middles, least heaps %d → %d bytes: %.0f bytes per attempt; %+v, %d events whole",
		attempts1-attempts0, heap0, heap1, per, e.Retained(), len(e.hist.Tail()))
	if per > bytesPerAttempt {
		t.Errorf("the heap grew by %.0f bytes per attempt past the rewind window, want at most %d", per, bytesPerAttempt)
	}
	if r := e.Retained(); r.Checkpoints != 8 || attempts1-attempts0 < 2000 {
		t.Fatalf("the window never filled, or too few attempts: %+v", r)
	}
}

// TestShadowHeadlessStreams: a headless engine in shadow mode (`run` on a
// recording, handing each event out; the recorder's, asking the
// extenders, handing out nothing) keeps no event or attempt whole once
// handed out, but for the observations it may still judge again, and
// hands out the timeline an engine keeping everything holds, numbered
// alike.
func TestShadowHeadlessStreams(t *testing.T) {
	const seconds = 200
	ref, refFeed := shadowEngine(t, 20, 16, 4, Retention{})
	var events []history.Event
	var whole []string
	run, runFeed := shadowEngineWith(t, 20, Options{Retention: Retention{Headless: true}, OnEvent: func(ev history.Event, a *record.Attempt) {
		events = append(events, ev)
		if a != nil {
			whole = append(whole, attemptJSON(t, a))
		}
	}})
	rec, recFeed := shadowEngineWith(t, 20, Options{Retention: Retention{Headless: true}})
	for s := 0; s < seconds; s++ {
		for _, f := range []struct {
			e    *Engine
			feed *shadowFeed
		}{{ref, refFeed}, {run, runFeed}, {rec, recFeed}} {
			if _, err := f.feed.second(f.e, s); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range []*Engine{run, rec} {
			if len(e.hist.Tail()) > 2*maxRecent*perAttemptEvents || e.hist.Whole() > 2*maxRecent {
				t.Fatalf("second %d: a headless engine keeps %d events and %d attempts whole", s, len(e.hist.Tail()), e.hist.Whole())
			}
		}
	}
	run.Flush()
	rec.Flush()
	want := ref.Timeline().Slice(0, ref.Timeline().Len())
	if len(events) != len(want) {
		t.Fatalf("%d events handed out, the full run has %d", len(events), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(events[i], want[i]) {
			t.Fatalf("event %d handed out:\n%+v\nthe full run's:\n%+v", i, events[i], want[i])
		}
	}
	if len(whole) != ref.Attempts().Len() {
		t.Fatalf("%d attempts handed out, the full run made %d", len(whole), ref.Attempts().Len())
	}
	for i, a := range ref.Attempts().All() {
		if whole[i] != attemptJSON(t, a) {
			t.Fatalf("attempt %d handed out differs from the full run's", i)
		}
	}
	if rec.Attempts().Len() != ref.Attempts().Len() || rec.hist.Dropped() != len(want) {
		t.Fatalf("the recorder's engine made %d attempts and dropped %d events, the full run %d and %d",
			rec.Attempts().Len(), rec.hist.Dropped(), ref.Attempts().Len(), len(want))
	}
}

// perAttemptEvents bounds the timeline events one decision of shadowChurn
// brings (its changes' cluster events, queue moves, the attempt and the
// observation).
const perAttemptEvents = 12
