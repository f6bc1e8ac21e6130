package tui

import (
	"testing"
)

// TestEnterWithSearchHidingSelection: when the search hides the selected
// row, the selection moves into the visible rows and enter acts on it.
func TestEnterWithSearchHidingSelection(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("1", "G") // the gated pod, last
	hs.keys("/")
	hs.typeText("web")
	hs.keys("<enter>", "<enter>")
	if got := hs.m.c.focused(); got == nil || got.Pod != "default/web-3" {
		t.Fatalf("enter with the search hiding the selection: focused %v, want default/web-3", got)
	}
	hs.contains("default/web-3")
}
