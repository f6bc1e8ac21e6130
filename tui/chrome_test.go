package tui

import (
	"strings"
	"testing"
)

// TestQuiescentStatus: once the engine has nothing left to do, the status
// line says so.
func TestQuiescentStatus(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("n")
	if s := hs.screen(); strings.Contains(s, "engine quiescent") {
		t.Fatalf("quiescent after one attempt:\n%s", s)
	}
	hs.keys("c") // no breakpoints: runs until nothing is left
	hs.contains("engine quiescent")
}

// TestStatusLineScope: the search filter shows on the status line of the
// view it filters only, and an operation's note on the view it was shown
// on only.
func TestStatusLineScope(t *testing.T) {
	hs := newHarness(t, 100, 30)
	status := func() string { l := strings.Split(hs.screen(), "\n"); return l[len(l)-2] }
	hs.keys("1", "/")
	hs.typeText("web")
	hs.keys("<enter>")
	if !strings.Contains(status(), "filter: web") {
		t.Fatalf("Queues: status %q lacks the filter", status())
	}
	hs.keys("6")
	if s := status(); strings.Contains(s, "filter:") {
		t.Errorf("Nodes (not filtered): status %q shows the Queues' filter", s)
	}
	hs.keys("1")
	if s := status(); !strings.Contains(s, "filter: web") {
		t.Errorf("back on Queues: status %q lacks its filter", s)
	}
	hs.keys("<esc>", "b")
	hs.typeText("pod=web-3")
	hs.keys("<enter>", "<esc>", "c")
	if s := status(); !strings.Contains(s, "breakpoint hit: pod=*/web-3") {
		t.Fatalf("after c: status %q", s)
	}
	hs.keys("6")
	if s := status(); strings.Contains(s, "breakpoint hit") {
		t.Errorf("Nodes: status %q keeps the breakpoint note", s)
	}
}
