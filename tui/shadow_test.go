package tui

import (
	v1 "k8s.io/api/core/v1"

	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// TestShadowStatusCounts: in shadow mode the status line counts the
// observations by verdict, and enter on a disagreement in the Events view
// opens the cluster's choice against schedtui's attempt, side by side.
func TestShadowStatusCounts(t *testing.T) {
	c, gates := loadDemo(t)
	b, err := NewBackend("demo", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: gates}, Replay{Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	e := b.engine
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	hs.send(runMsg{label: "loading", op: func() note { return note{} }})

	tiny := e.Pod("default/tiny").DeepCopy()
	tiny.Spec.NodeName = e.Scheduler().Evaluate(tiny, scheduler.Prediction).Node
	tiny.ResourceVersion += "1"
	// analytics fits nowhere; the cluster's scheduler binds it anyway.
	analytics := e.Pod("default/analytics").DeepCopy()
	analytics.Spec.NodeName, analytics.ResourceVersion = "node-a1", "live-1"
	b.Locked(func() {
		for _, p := range []*v1.Pod{tiny, analytics} {
			if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: p}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n := e.Attempts().Len(); n != 2 {
		t.Fatalf("%d attempts, want one per decision", n)
	}
	hs.send(runMsg{label: "capture", op: func() note { return note{} }})
	hs.contains("vs the cluster: 1 agree · 0 tie · 1 disagree (events: 7)")
	hs.keys("7", "G")
	hs.contains("default/analytics: the cluster bound it to node-a1; schedtui: no node (disagree")
	hs.keys("<enter>")
	hs.contains("The cluster's decision against schedtui's attempt", "Judged on the cluster as its scheduler had it",
		"≠ node", "node-a1", "≠ Filter on node-a1", "NodeResourcesFit: Insufficient cpu")
	if testing.Verbose() {
		t.Log("\n" + hs.screen())
	}
	hs.keys("<enter>")
	hs.contains("default/analytics")
}
