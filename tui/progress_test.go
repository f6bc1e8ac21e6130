package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/internal/progress"
)

// runHolding runs cmd as the harness does but keeps back the chunks of a
// long operation, so that the test decides when each arrives.
func (hs *harness) runHolding(cmd tea.Cmd) []chunkMsg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []chunkMsg
		for _, c := range msg {
			out = append(out, hs.runHolding(c)...)
		}
		return out
	case chunkMsg:
		return []chunkMsg{msg}
	default:
		hs.run(func() tea.Msg { return msg })
	}
	return nil
}

// nextChunk delivers the one chunk held and returns the next one held.
func (hs *harness) nextChunk(held []chunkMsg) []chunkMsg {
	hs.t.Helper()
	if len(held) != 1 {
		hs.t.Fatalf("%d chunks in flight, want 1", len(held))
	}
	_, cmd := hs.m.Update(held[0])
	return hs.runHolding(cmd)
}

// continueOneByOne starts c with chunks of one attempt each.
func continueOneByOne(t *testing.T) (*harness, []chunkMsg) {
	hs := newHarness(t, 120, 40)
	hs.m.s.chunkAttempts, hs.m.s.chunkTime = 1, time.Hour
	_, cmd := hs.m.Update(keyMsg("c"))
	return hs, hs.runHolding(cmd)
}

// TestContinueCancelled presses esc while c runs: the engine stops after
// the attempt in progress, the views show it there, and c then carries on
// to the attempts an uninterrupted run makes.
func TestContinueCancelled(t *testing.T) {
	uninterrupted := demoBackend(t)
	uninterrupted.Continue(nil)
	all := uninterrupted.Attempts().Len()
	hs, held := continueOneByOne(t)
	held = hs.nextChunk(held) // attempt 1 made, the second chunk running
	hs.send(keyMsg("<esc>"))
	if !strings.Contains(hs.screen(), "continuing (cancelling)…") {
		t.Errorf("no cancelling on the status line:\n%s", hs.screen())
	}
	if rest := hs.nextChunk(held); len(rest) != 0 {
		t.Fatalf("cancelled, yet %d more chunk(s) issued", len(rest))
	}
	if n := hs.m.c.World.attempts.Len(); n != 2 {
		t.Fatalf("the views show %d attempts after cancelling during the second, want 2", n)
	}
	if n := hs.m.s.b.Attempts().Len(); n != 2 {
		t.Fatalf("the engine made %d attempts, want 2", n)
	}
	if hs.m.s.busy != "" || hs.m.s.long != nil {
		t.Fatalf("still busy after the cancel: %q", hs.m.s.busy)
	}
	hs.contains("continuing cancelled after 2 attempt(s)")

	hs.keys("c")
	got := hs.m.s.b.Attempts()
	want := uninterrupted.Attempts()
	if got.Len() != all || want.Len() != all {
		t.Fatalf("after carrying on: %d attempts, uninterrupted %d", got.Len(), all)
	}
	for i, g := range got.All() {
		if w := want.At(i); g.Pod != w.Pod || g.Outcome != w.Outcome || g.Node != w.Node {
			t.Errorf("attempt %d: %s %s %s, uninterrupted %s %s %s", i, g.Pod, g.Outcome, g.Node, w.Pod, w.Outcome, w.Node)
		}
	}
}

// TestCtrlCCancelsThenQuits: the first Ctrl-C during c cancels it, a
// second quits.
func TestCtrlCCancelsThenQuits(t *testing.T) {
	hs, _ := continueOneByOne(t)
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	hs.send(ctrlC)
	if hs.quit || hs.m.s.long == nil || !hs.m.s.long.cancelled {
		t.Fatalf("the first Ctrl-C did not cancel the continue (quit %v)", hs.quit)
	}
	hs.send(ctrlC)
	if !hs.quit {
		t.Fatal("the second Ctrl-C did not quit")
	}
}

// TestProgressBar shows a long operation's bar, count and time left on
// the status line once it ran for progress.Quiet, and nothing before.
func TestProgressBar(t *testing.T) {
	hs := newHarness(t, 120, 40)
	hs.send(busyMsg{"continuing"})
	hs.send(progressMsg{label: "continuing", unit: "attempts", cancellable: true, est: progress.Estimate{Done: 3, Total: 6, Elapsed: progress.Quiet / 2}})
	if s := hs.screen(); !strings.Contains(s, "continuing…") || strings.Contains(s, "esc cancels") {
		t.Errorf("progress shown before %v:\n%s", progress.Quiet, s)
	}
	hs.send(progressMsg{label: "continuing", unit: "attempts", cancellable: true, est: progress.Estimate{Done: 3, Total: 6, Elapsed: 2 * time.Second}})
	hs.contains("continuing ████████░░░░░░░░ 3/6 attempts (50%) · 2s left · esc cancels")
	hs.golden(120, 40)
	hs.send(progressMsg{})
	hs.send(busyMsg{})
	if strings.Contains(hs.screen(), "esc cancels") {
		t.Error("the bar stays after the operation")
	}
}

// TestRewindProgress: a rewind's replay reports through its feed to the
// status line, which offers to cancel it.
func TestRewindProgress(t *testing.T) {
	hs := newHarness(t, 120, 40)
	hs.keys("n", "n", "n")
	clock := time.Unix(0, 0)
	hs.m.s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	_, cmd := hs.m.Update(keyMsg("u"))
	var reports []feedMsg
	var collect func(tea.Cmd)
	collect = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				collect(c)
			}
		case feedMsg:
			reports = append(reports, msg)
		default:
			hs.run(func() tea.Msg { return msg })
		}
	}
	collect(cmd)
	if n := hs.m.s.b.Attempts().Len(); n != 2 {
		t.Fatalf("%d attempts after u, want 2", n)
	}
	if len(reports) != 1 {
		t.Fatalf("%d progress reports read, want the latest one", len(reports))
	}
	r := reports[0].msg
	if r.est.Done != r.est.Total || r.est.Total == 0 || r.label != "rewinding" {
		t.Fatalf("last report %+v, want all the steps replayed", r)
	}
	hs.send(busyMsg{"rewinding"})
	hs.send(r)
	hs.contains("rewinding ████████████████ ", "· esc cancels")
	if msg := reports[0].feed.wait()(); msg != nil {
		t.Errorf("the feed is not closed after the rewind: %#v", msg)
	}
}

// TestRewindCancelled presses esc while u replays from the checkpoint: the
// engine stops at the last step replayed, the views and the status line
// show it there, and n then makes the attempts an uninterrupted run makes.
func TestRewindCancelled(t *testing.T) {
	uninterrupted := demoBackend(t)
	uninterrupted.Continue(nil)
	hs := newHarness(t, 120, 40)
	hs.keys("n", "n", "n", "n", "n", "n")
	// The replay's third report waits for the test to press esc, as a key
	// arrives while the rewind runs.
	reached, pressed := make(chan struct{}), make(chan struct{})
	calls := 0
	hs.m.s.now = func() time.Time {
		if calls++; calls == 4 { // begin, then reports 1, 2, 3
			close(reached)
			<-pressed
		}
		return time.Unix(int64(calls), 0)
	}
	_, cmd := hs.m.Update(keyMsg("u"))
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("u did not start a rewind with a progress feed")
	}
	results := make(chan tea.Msg, len(batch))
	for _, c := range batch {
		go func() { results <- c() }()
	}
	<-reached
	_, esc := hs.m.Update(keyMsg("<esc>"))
	if esc != nil || hs.quit {
		t.Fatal("esc during the rewind did something besides cancelling it")
	}
	close(pressed)
	for range batch {
		if msg, ok := (<-results).(engineMsg); ok {
			hs.send(msg)
		}
	}
	if n := hs.m.s.b.Attempts().Len(); n != 3 {
		t.Fatalf("the engine has %d attempts after the cancel during the third step replayed, want 3", n)
	}
	if n := hs.m.c.World.attempts.Len(); n != 3 {
		t.Fatalf("the views show %d attempts, want 3", n)
	}
	if hs.m.s.busy != "" || hs.m.s.cancelOp != nil {
		t.Fatalf("still busy after the cancel: %q", hs.m.s.busy)
	}
	hs.contains("rewind cancelled at attempt 3: the replay stopped there, 2 attempt(s) further back than asked")
	hs.golden(120, 40)
	hs.keys("n", "n", "n")
	got, want := hs.m.s.b.Attempts(), uninterrupted.Attempts()
	if got.Len() != 6 {
		t.Fatalf("%d attempts after stepping on, want 6", got.Len())
	}
	for i, g := range got.All() {
		if w := want.At(i); g.Pod != w.Pod || g.Outcome != w.Outcome || g.Node != w.Node {
			t.Errorf("attempt %d: %s %s %s, uninterrupted %s %s %s", i, g.Pod, g.Outcome, g.Node, w.Pod, w.Outcome, w.Node)
		}
	}
	hs.send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if !hs.quit {
		t.Error("Ctrl-C with nothing running did not quit")
	}
}

// TestRewindCancelledBeforeItBegins: esc between u and the start of its
// Cmd leaves the engine as it was, and says so.
func TestRewindCancelledBeforeItBegins(t *testing.T) {
	hs := newHarness(t, 120, 40)
	hs.keys("n", "n", "n")
	_, cmd := hs.m.Update(keyMsg("u"))
	hs.send(keyMsg("<esc>"))
	hs.run(cmd)
	if n := hs.m.s.b.Attempts().Len(); n != 3 {
		t.Fatalf("%d attempts after a rewind cancelled before it began, want 3", n)
	}
	hs.contains("rewind cancelled before it began: nothing changed")
}
