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

// TestPreemptedEventNamesThePod: the victim's Preempted event names the
// preemptor by namespace/name, not by UID.
func TestPreemptedEventNamesThePod(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("n", "n", "7")
	hs.contains("Preempted default/web-2 on node-b2: Preempted by pod default/critical-api on node node-b2")
	uid := string(hs.m.c.World.pods["default/critical-api"].UID)
	if uid == "" || strings.Contains(hs.screen(), uid) {
		t.Errorf("the preemptor's UID %q shows:\n%s", uid, hs.screen())
	}
}

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
