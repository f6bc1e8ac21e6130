package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestPodViewVerdictCache: the Pod view keeps its verdict between
// refreshes and computes it again when what it reads changed: hints
// proven again for the same attempt, and the next attempt.
func TestPodViewVerdictCache(t *testing.T) {
	hs := newHarness(t, 130, 50)
	hs.keys("n", "2")
	const proven = "Hint: cut the pod's cpu request by 71% to 1000m (from 3500m) → fits on node-a1, node-b1, node-b2 (proven)."
	hs.contains("Waiting for victims to leave: no node fits now (6 nodes);", proven)

	// The hints gone (as when a rewind replaces the attempt), then
	// delivered again: the same attempt, other hints.
	i := hs.m.c.Focus
	h := hs.m.c.Hints[i]
	delete(hs.m.c.Hints, i)
	hs.send(stateMsg{allViews})
	hs.contains("Hints: proving candidate changes on a copy of the cluster…")
	if strings.Contains(hs.screen(), proven) {
		t.Fatalf("the Pod view still shows the hints it no longer has:\n%s", hs.screen())
	}
	hs.send(hintsMsg{ref: hs.m.s.ref(i), h: h})
	hs.contains(proven)

	// The next attempt has its own verdict.
	hs.keys("n")
	if s := hs.screen(); strings.Contains(s, proven) || !strings.Contains(s, "Attempt #2") {
		t.Fatalf("the Pod view shows the first attempt's verdict on the second:\n%s", s)
	}
}

// TestManyTiedNodes: with 500 nodes tied at the top score, the Pod view's
// verdict stays a few lines: the pod and the timeline stay near the top
// whatever the terminal's height.
func TestManyTiedNodes(t *testing.T) {
	a := syntheticAttempt("default/tied", 500, func(int, int) int64 { return 50 }, 1)
	m := syntheticModel(a, nil, 160, 60)
	lines := strings.Split(ansi.Strip(m.View().Content), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, "Attempt #1 ·") {
			at = i
		}
	}
	if at < 0 || at > 8 {
		t.Errorf("the timeline starts on line %d, want within the first 8:\n%s", at, strings.Join(lines, "\n"))
	}
}
