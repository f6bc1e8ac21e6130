package tui

import (
	"strings"
	"testing"
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
	hs.contains("TaintToleration", "NodeResourcesFit", "node-a1  rejected ·                      Insufficient cpu")
	hs.keys("a", "l", "a")
	if fv.g.left != 0 {
		t.Errorf("after a l a: column scroll %d, want 0", fv.g.left)
	}
}
