package tui

import (
	"testing"

	"github.com/schedtui/schedtui/scheduler/engine"
)

// TestRetentionInTheDebugger: with a detailed window of 2 attempts the
// debugger summarizes older attempts, says so on the status line, keeps
// the focused attempt whole and pins its pod for the engine.
func TestRetentionInTheDebugger(t *testing.T) {
	hs := newHarness(t, 140, 40)
	if err := hs.m.s.b.Retain(2); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		hs.keys("n")
	}
	r := hs.m.c.World.retained
	if r.Summary == 0 || r.Full+r.Summary != hs.m.c.World.attempts.Len() {
		t.Fatalf("after 8 attempts with a window of 2: %+v", r)
	}
	hs.contains("kept: ", " summary · ")
	a := hs.m.c.focused()
	if a == nil || a.Summarized {
		t.Fatalf("the focused attempt %v is not whole", a)
	}
	if !hs.m.s.b.pins.pinned(a.Pod) {
		t.Fatalf("the focused pod %s is not pinned", a.Pod)
	}
	// An old attempt opened shows its line, and says how to get it whole.
	old := -1
	for i, a := range hs.m.c.World.attempts.All() {
		if a.Summarized {
			old = i
			break
		}
	}
	hs.send(focusAttemptMsg{attempt: old, view: viewFilter})
	hs.contains("only this attempt's summary line was kept")
	hs.send(focusAttemptMsg{attempt: old, view: viewScores})
	hs.contains("only this attempt's summary line was kept")
	if err := hs.m.s.b.Retain(-1); err == nil {
		t.Fatal("a negative window was accepted")
	}
}

func TestKeptText(t *testing.T) {
	if got := keptText(engine.Retained{Full: 3}); got != "" {
		t.Errorf("nothing summarized: %q", got)
	}
	if got, want := keptText(engine.Retained{Full: 500, Summary: 12345, Checkpoints: 8}), "kept: 500 full · 12,345 summary · 8 checkpoints"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	p := &pins{}
	p.set("a/x", []engine.Breakpoint{{PodPattern: "team-b/*"}, {Unschedulable: true}})
	for pod, want := range map[string]bool{"a/x": true, "team-b/y": true, "a/y": false} {
		if p.pinned(pod) != want {
			t.Errorf("pinned(%s) = %v", pod, !want)
		}
	}
}
