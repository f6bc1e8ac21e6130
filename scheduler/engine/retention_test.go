package engine

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// attemptLine is what a summarized attempt keeps.
func attemptLine(a *record.Attempt) [6]string {
	return [6]string{a.Pod, a.Outcome.String(), a.Node, a.Message, a.Nominated, a.Time.String()}
}

func attemptJSON(t *testing.T, a *record.Attempt) string {
	t.Helper()
	b, err := json.Marshal(a.JSON())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRetentionBoundsLongChurn is the long-replay benchmark's code path on
// a few thousand changes: the detailed window, the pinned attempts and the
// sliding checkpoints hold their bounds all along; the run makes the same
// attempts as one that keeps everything; a rewind inside the window
// replays attempts whole and equal to the full run's, and one before the
// oldest checkpoint is refused.
func TestRetentionBoundsLongChurn(t *testing.T) {
	const (
		seconds   = 300
		detailed  = 100
		interval  = 64
		maxCkpt   = 8
		opsPerAtt = 8
	)
	nodes, bound := genCluster(200, 0, 500, 1<<30, 1<<30)
	c := churn{rate: 10, lifetime: 60e9, stuckEvery: 97}
	build := func(r Retention) *Engine {
		e, err := New(nodes, bound, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry(),
			CheckpointInterval: interval, MaxCheckpoints: maxCkpt, Retention: r})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ref := build(Retention{})
	e := build(Retention{Detailed: detailed, Sliding: true})
	changes := 0
	for s := 0; s < seconds; s++ {
		n, err := c.second(e, s)
		if err != nil {
			t.Fatal(err)
		}
		changes += n
		if _, err := c.second(ref, s); err != nil {
			t.Fatal(err)
		}
		r := e.Retained()
		q := e.Queue()
		pending := len(q.ActiveQ) + len(q.BackoffQ) + len(q.Unschedulable) + len(q.Gated)
		if r.Full+r.Summary != e.Attempts().Len() {
			t.Fatalf("second %d: %+v does not add up to %d attempts", s, r, e.Attempts().Len())
		}
		if r.Full > detailed+pending {
			t.Fatalf("second %d: %d attempts whole, want at most %d (window) + %d (pending)", s, r.Full, detailed, pending)
		}
		if r.Checkpoints > maxCkpt {
			t.Fatalf("second %d: %d checkpoints, want at most %d", s, r.Checkpoints, maxCkpt)
		}
		if back := e.Attempts().Len() - r.RewindableFrom; back > (maxCkpt+1)*interval {
			t.Fatalf("second %d: rewind reaches %d attempts back, want at most %d", s, back, (maxCkpt+1)*interval)
		}
		if len(e.log) > (maxCkpt+1)*interval*opsPerAtt {
			t.Fatalf("second %d: %d ops logged", s, len(e.log))
		}
		// The per-pod maps hold the pods there are, not every pod seen.
		if held := len(e.sched.Objects().Pods()); e.hist.Indexed() > held || len(e.lastGen) > held || len(e.stubs) > held {
			t.Fatalf("second %d: %d pods held, lastAttempt %d, lastGen %d, stubs %d", s, held, e.hist.Indexed(), len(e.lastGen), len(e.stubs))
		}
	}
	if changes < 5000 {
		t.Fatalf("only %d changes", changes)
	}
	got, want := e.Attempts().Slice(0, e.Attempts().Len()), ref.Attempts().Slice(0, ref.Attempts().Len())
	if len(got) != len(want) {
		t.Fatalf("%d attempts, the full run made %d", len(got), len(want))
	}
	summarized := 0
	for i := range got {
		if attemptLine(got[i]) != attemptLine(want[i]) {
			t.Fatalf("attempt %d: %v, the full run's %v", i, attemptLine(got[i]), attemptLine(want[i]))
		}
		if got[i].Summarized {
			summarized++
		} else if attemptJSON(t, got[i]) != attemptJSON(t, want[i]) {
			t.Fatalf("attempt %d kept whole differs from the full run's", i)
		}
	}
	if r := e.Retained(); summarized != r.Summary || summarized < len(got)-detailed-100 {
		t.Fatalf("%d summarized, Retained says %+v", summarized, r)
	}
	for i, ev := range e.Timeline().All() {
		if ev.Seq != i+1 {
			t.Fatalf("event %d has Seq %d", i, ev.Seq)
		}
	}
	if e.hist.Dropped() == 0 {
		t.Fatal("no event was dropped from the timeline")
	}
	if !reflect.DeepEqual(withoutSeq(e.Timeline().Slice(0, e.Timeline().Len())), compacted(ref.Timeline().Slice(0, ref.Timeline().Len()), e.hist.EventNumber(0))) {
		t.Fatal("the timeline is not the full run's with the queue moves and cluster changes before the oldest checkpoint dropped")
	}

	r := e.Retained()
	if r.RewindableFrom <= 0 {
		t.Fatalf("the oldest checkpoint is at attempt %d: the window never slid", r.RewindableFrom)
	}
	target := r.RewindableFrom + 3
	if !got[target-1].Summarized {
		t.Fatalf("attempt %d is still whole before the rewind", target-1)
	}
	if err := e.Rewind(len(got) - target); err != nil {
		t.Fatal(err)
	}
	after := e.Attempts().Slice(0, e.Attempts().Len())
	if len(after) != target || after[target-1].Summarized || attemptJSON(t, after[target-1]) != attemptJSON(t, want[target-1]) {
		t.Fatalf("after rewinding to attempt %d: %d attempts, the last not the full run's", target, len(after))
	}
	if err := e.Rewind(len(after) - (r.RewindableFrom - 1)); !errors.Is(err, ErrNotRetained) {
		t.Fatalf("rewinding before the oldest checkpoint: %v, want ErrNotRetained", err)
	}
}

// TestHeadlessStreams: a headless engine hands out the timeline a full one
// keeps, each attempt whole when handed out, keeps no op log nor
// checkpoint, and refuses to rewind.
func TestHeadlessStreams(t *testing.T) {
	nodes, pods := genCluster(100, 600, 2500, 50, 100)
	ref, err := New(nodes, pods, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	ref.RunToQuiescence()
	var events []history.Event
	var whole []string
	e, err := New(nodes, pods, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry(), Retention: Retention{Headless: true},
		OnEvent: func(ev history.Event, a *record.Attempt) {
			events = append(events, ev)
			if a != nil {
				whole = append(whole, attemptJSON(t, a))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	e.Flush()
	if !reflect.DeepEqual(events, ref.Timeline().Slice(0, ref.Timeline().Len())) {
		t.Fatalf("handed out %d events, the full run has %d (or they differ)", len(events), ref.Timeline().Len())
	}
	if len(whole) != ref.Attempts().Len() {
		t.Fatalf("%d attempts handed out, %d made", len(whole), ref.Attempts().Len())
	}
	for i, a := range ref.Attempts().All() {
		if whole[i] != attemptJSON(t, a) {
			t.Fatalf("attempt %d handed out differs from the full run's", i)
		}
		if !e.Attempts().At(i).Summarized {
			t.Fatalf("attempt %d kept whole after it was handed out", i)
		}
	}
	if r := e.Retained(); r.Full != 0 || r.Checkpoints != 0 || len(e.log) != 0 {
		t.Fatalf("a headless engine keeps %+v and %d ops", r, len(e.log))
	}
	if err := e.Rewind(1); !errors.Is(err, ErrNotRetained) {
		t.Fatalf("Rewind: %v, want ErrNotRetained", err)
	}
}

// compacted is a full timeline as retention compacts it up to horizon.
func compacted(tl []history.Event, horizon int) []history.Event {
	var out []history.Event
	for i, ev := range tl {
		if i < horizon && (ev.Kind == history.EventQueueMove || ev.Kind == history.EventCluster) {
			continue
		}
		out = append(out, ev)
	}
	return withoutSeq(out)
}

func withoutSeq(tl []history.Event) []history.Event {
	out := append([]history.Event(nil), tl...)
	for i := range out {
		out[i].Seq = 0
	}
	return out
}
