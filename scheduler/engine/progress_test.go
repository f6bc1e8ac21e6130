package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/progress"
)

// TestContinueCancelled stops a continue from its progress reporter after
// three attempts: the engine is left as after the third, and carrying on
// makes the same attempts an uninterrupted run makes.
func TestContinueCancelled(t *testing.T) {
	whole := demo(t, Options{Seed: 1})
	all := whole.RunToQuiescence()
	if all < 5 {
		t.Fatalf("the demo makes %d attempts, want at least 5", all)
	}

	e := demo(t, Options{Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	var reports [][2]int64
	hit, err := e.ContinueCtx(ctx, []Breakpoint{{PodPattern: "nope/*"}}, progress.Func(func(done, total int64) {
		reports = append(reports, [2]int64{done, total})
		if done == 3 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) || hit != -1 {
		t.Fatalf("ContinueCtx = %d, %v; want -1, context.Canceled", hit, err)
	}
	if n := e.Attempts().Len(); n != 3 {
		t.Fatalf("%d attempts after cancelling at the third, want 3", n)
	}
	if c := e.Cursor(); c.Attempt != 2 {
		t.Errorf("cursor at attempt %d, want 2 (the last made)", c.Attempt)
	}
	for i, r := range reports {
		if r[0] != int64(i+1) || r[1] < r[0] {
			t.Errorf("report %d: %d of %d", i, r[0], r[1])
		}
	}
	if n, err := e.RunToQuiescenceCtx(context.Background(), nil); err != nil || n != all-3 {
		t.Fatalf("after the cancel: %d more attempts (%v), want %d", n, err, all-3)
	}
	for i, a := range e.Attempts().All() {
		if w := whole.Attempts().At(i); a.Pod != w.Pod || a.Outcome != w.Outcome || a.Node != w.Node {
			t.Errorf("attempt %d: %s %s %s, uninterrupted %s %s %s", i, a.Pod, a.Outcome, a.Node, w.Pod, w.Outcome, w.Node)
		}
	}
}

// TestRunUntilCancelled: a cancelled RunUntil leaves the clock where the
// last attempt left it, not at the deadline.
func TestRunUntilCancelled(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	var last, total int64
	err := e.RunUntilCtx(ctx, time.Hour, progress.Func(func(done, tot int64) {
		last, total = done, tot
		cancel()
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunUntilCtx: %v, want context.Canceled", err)
	}
	if n := e.Attempts().Len(); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
	if total != time.Hour.Milliseconds() || last != e.Now().Sub(e.Start()).Milliseconds() {
		t.Errorf("reported %d of %d ms, want %d of %d", last, total, e.Now().Sub(e.Start()).Milliseconds(), time.Hour.Milliseconds())
	}
	if !e.Now().Before(e.Start().Add(time.Hour)) {
		t.Error("a cancelled RunUntil moved the clock to its deadline")
	}
}

// TestRewindReporting: a rewind reports the steps it replays, ending with
// all of them, and rewinds as Rewind does.
func TestRewindReporting(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	for range 4 {
		e.Step()
	}
	var last, total, reports int64
	if err := e.RewindCtx(context.Background(), 1, progress.Func(func(done, tot int64) { last, total = done, tot; reports++ })); err != nil {
		t.Fatal(err)
	}
	if n := e.Attempts().Len(); n != 3 {
		t.Fatalf("%d attempts after rewinding one of 4, want 3", n)
	}
	if total == 0 || last != total || reports != total {
		t.Errorf("reported %d of %d in %d reports, want every step replayed reported", last, total, reports)
	}
}

// TestRewindCancelled cancels a rewind during its replay from the
// checkpoint: the engine stops at the last operation replayed, an earlier
// point of the same run, with every later attempt, op and checkpoint
// forgotten; stepping on from there makes the attempts an uncancelled run
// makes, and rewinding again works.
func TestRewindCancelled(t *testing.T) {
	whole := demo(t, Options{Seed: 1})
	all := whole.RunToQuiescence()
	if all < 8 {
		t.Fatalf("the demo makes %d attempts, want at least 8", all)
	}
	// A checkpoint halfway: the rewind restores it, not the start.
	e := demo(t, Options{Seed: 1, CheckpointInterval: all / 2})
	e.RunToQuiescence()
	ctx, cancel := context.WithCancel(context.Background())
	var total int64
	err := e.RewindCtx(ctx, 1, progress.Func(func(done, tot int64) {
		total = tot
		if done == 1 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RewindCtx: %v, want context.Canceled", err)
	}
	if total < 2 {
		t.Fatalf("the rewind replays %d step(s): the test needs it to stop before the end", total)
	}
	stopped := e.Attempts().Len()
	if stopped >= all-1 {
		t.Fatalf("cancelled after one step of %d, yet %d attempts of %d are left (the target)", total, stopped, all)
	}
	if c := e.Cursor(); c.Attempt != stopped-1 {
		t.Errorf("cursor at attempt %d, want %d (the last one left)", c.Attempt, stopped-1)
	}
	if last := e.log[len(e.log)-1]; last.attempts != stopped {
		t.Errorf("the op log ends at attempt %d, the engine at %d", last.attempts, stopped)
	}
	for _, cp := range e.checkpoints {
		if cp.ops > e.logBase+len(e.log) || cp.attempts > stopped {
			t.Errorf("a checkpoint of the forgotten future is kept: ops %d, attempts %d (log %d, attempts %d)", cp.ops, cp.attempts, len(e.log), stopped)
		}
	}
	sameAttempts := func(when string) {
		t.Helper()
		for i, a := range e.Attempts().All() {
			if w := whole.Attempts().At(i); a.Pod != w.Pod || a.Outcome != w.Outcome || a.Node != w.Node || !a.Time.Equal(w.Time) {
				t.Errorf("%s: attempt %d: %s %s %s at %v, uncancelled %s %s %s at %v", when, i, a.Pod, a.Outcome, a.Node, a.Time, w.Pod, w.Outcome, w.Node, w.Time)
			}
		}
	}
	sameAttempts("after the cancel")
	if n := e.RunToQuiescence(); n != all-stopped {
		t.Fatalf("stepping on made %d attempts, want %d", n, all-stopped)
	}
	sameAttempts("stepping on")
	if err := e.Rewind(2); err != nil || e.Attempts().Len() != all-2 {
		t.Fatalf("rewinding 2 after the cancel: %v, %d attempts, want %d", err, e.Attempts().Len(), all-2)
	}
	sameAttempts("rewinding again")
}

// TestRewindCancelledBefore: a rewind whose context is done before it
// starts leaves the engine untouched.
func TestRewindCancelledBefore(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	for range 3 {
		e.Step()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.RewindCtx(ctx, 1, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("RewindCtx: %v, want context.Canceled", err)
	}
	if n := e.Attempts().Len(); n != 3 {
		t.Fatalf("%d attempts, want the 3 made", n)
	}
}
