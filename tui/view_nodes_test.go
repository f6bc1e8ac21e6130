package tui

import (
	"strings"
	"testing"
)

// TestNodesAsOfTheFocus: with an older attempt in focus (attempt 1/2,
// cursor at 2), the Nodes view shows the cluster as that attempt saw it,
// not the present.
func TestNodesAsOfTheFocus(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.keys("n", "n") // frontend-1 lands on node-a1
	hs.send(openNodeMsg{node: "node-a1"})
	hs.contains("default/frontend-1")
	hs.send(focusAttemptMsg{attempt: 0, view: viewNodes})
	hs.send(openNodeMsg{node: "node-a1"})
	hs.contains("attempt 1/2 (cursor at 2)", "as attempt 1 saw it", "pods (3)")
	if s := hs.screen(); strings.Contains(s, "default/frontend-1") {
		t.Errorf("attempt 1 in focus: the Nodes view shows frontend-1, bound by attempt 2:\n%s", s)
	}
	// Back at the cursor: the present.
	hs.send(focusAttemptMsg{attempt: 1, view: viewNodes})
	hs.send(openNodeMsg{node: "node-a1"})
	hs.contains("default/frontend-1")
}

// The Nodes view's teaching pane speaks of devices only on a node that
// publishes some (the demo's node-a2).
func TestNodesExplainDevices(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.keys("6")
	v := hs.m.views[viewNodes].(*nodesView)
	for _, step := range []struct {
		node    string
		devices bool
	}{{"node-a1", false}, {"node-b1", false}, {"node-a2", true}} {
		title, lines := v.Explain()
		got := strings.Contains(strings.Join(lines, "\n"), explainDevices)
		if title != step.node || got != step.devices {
			t.Errorf("%s: devices explained %v, want %v (title %s)", step.node, got, step.devices, title)
		}
		hs.keys("j")
	}
}
