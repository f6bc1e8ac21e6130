package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFullDiagnosisFollowsTheAttempt: with the full diagnosis on, a new
// attempt gets its own diagnosis instead of waiting forever (n 3 f n).
func TestFullDiagnosisFollowsTheAttempt(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("n", "3", "f")
	hs.contains("full diagnosis: every plugin")
	hs.keys("n")
	if s := hs.screen(); strings.Contains(s, "computing the full diagnosis") {
		t.Fatalf("n with the full diagnosis on: still computing:\n%s", s)
	}
	hs.contains("attempt 2/2", "full diagnosis: every plugin", "passes")
}

// TestFilterColumnsResetOnToggle: at 80×24, toggling the columns (a)
// after scrolling them starts the grid at its first column again, so
// every rejected row shows its reason.
func TestFilterColumnsResetOnToggle(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.keys("n", "3", "a", "l", "l", "l", "l", "l", "l", "a")
	fv := hs.m.views[viewFilter].(*filterView)
	if fv.g.left != 0 {
		t.Errorf("after a: column scroll %d, want 0", fv.g.left)
	}
	hs.contains("TaintToleration", "NodeResourcesFit", "node-a1  rejected ·                                Insufficient cpu")
	hs.keys("a", "l", "a")
	if fv.g.left != 0 {
		t.Errorf("after a l a: column scroll %d, want 0", fv.g.left)
	}
}

// TestFilterCellsWidenWithTheTerminal: a wide terminal shows every cell
// whole; at 80 columns the same columns share the width, cut at the same
// cap, the grid still filling the line.
func TestFilterCellsWidenWithTheTerminal(t *testing.T) {
	const reason = "node(s) didn't match pod anti-affinity rules"
	hs := newHarness(t, 200, 30)
	hs.keys("n", "n", "n", "n", "n", "n", "n", "3")
	hs.contains("default/web-3", "node-a1  rejected ·                                ·                "+reason)
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	hs.contains("node-a1  rejected ·")
	if s := hs.screen(); strings.Contains(s, "·                "+reason) {
		t.Errorf("at 80 columns the reason should be cut:\n%s", s)
	}
	// The columns share the width: at most one cell per column is lost
	// to the common cap.
	fv := hs.m.views[viewFilter].(*filterView)
	used := fv.g.frozenWidth() - 1 // the last column needs no space after it
	for _, c := range fv.g.cols {
		used += c.width + 1
	}
	if used > 80 || used < 80-len(fv.g.cols) {
		t.Errorf("at 80 columns the grid is %d wide, want 80 (widths %+v)", used, fv.g.cols)
	}
}
