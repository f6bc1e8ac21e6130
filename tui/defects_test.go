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
