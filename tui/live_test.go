package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/change"
)

// chanSource is a live source whose statuses the test sends.
type chanSource struct{ ch chan SourceStatus }

func (s chanSource) Name() string                 { return "test-ctx" }
func (s chanSource) Updates() <-chan SourceStatus { return s.ch }

// TestLiveRedraw: live changes applied to the engine show in every view
// as soon as their status arrives, without a key press; a binding by the
// cluster's scheduler that schedtui disagrees with is counted on the
// status line and listed in the events.
func TestLiveRedraw(t *testing.T) {
	b := demoBackend(t)
	e := b.engine
	src := chanSource{ch: make(chan SourceStatus, 4)}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true, Source: src})}
	hs.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	// What Init does, without waiting on the source yet: the state before
	// the changes is on screen.
	hs.send(runMsg{label: "loading", op: func() note { return note{} }})
	if s := hs.screen(); strings.Contains(s, "live-arrival") || !strings.Contains(s, "default/analytics") {
		t.Fatalf("initial screen:\n%s", s)
	}

	arrival := e.Pod("default/tiny").DeepCopy()
	arrival.Name, arrival.UID = "live-arrival", "uid-live-arrival"
	// analytics fits nowhere; the cluster's scheduler binds it anyway.
	bound := e.Pod("default/analytics").DeepCopy()
	bound.Spec.NodeName, bound.ResourceVersion = "node-a1", "live-1"
	b.Locked(func() {
		if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: arrival}); err != nil {
			t.Fatal(err)
		}
		if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: bound}); err != nil {
			t.Fatal(err)
		}
	})
	src.ch <- SourceStatus{Connected: true, LastEvent: "PodUpdate default/analytics on node-a1"}
	close(src.ch)
	hs.run(waitSource(src.ch))
	hs.contains("default/live-arrival", "vs the cluster: 0 agree · 0 tie · 1 disagree")
	hs.keys("7")
	hs.contains("default/analytics: the cluster bound it to node-a1; schedtui: no node (disagree)")
}
