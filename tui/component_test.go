package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestDialogStack: a dialog opened by message gets the keys until it is
// closed by message; f1 opens the help on top of it, listing its keys, and
// any key closes the help back to the dialog.
func TestDialogStack(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.send(openDialogMsg{hs.m.bps})
	if hs.m.top() != dialog(hs.m.bps) {
		t.Fatalf("top dialog %T, want the breakpoints editor", hs.m.top())
	}
	// n is text in the dialog, not a step.
	hs.typeText("pod=web-3")
	hs.keys("<enter>", "n")
	if n := hs.m.c.World.attempts.Len(); n != 0 {
		t.Fatalf("a key typed in the dialog stepped the engine: %d attempts", n)
	}
	if len(hs.m.c.Bps) != 1 || hs.m.c.Bps[0].PodPattern != "*/web-3" {
		t.Fatalf("breakpoints %+v", hs.m.c.Bps)
	}
	hs.send(tea.KeyPressMsg{Code: tea.KeyF1})
	if _, ok := hs.m.top().(*helpDialog); !ok || len(hs.m.dialogs) != 2 {
		t.Fatalf("f1: dialogs %v", hs.m.dialogs)
	}
	hs.contains("keys of the breakpoints editor", "add (or remove an identical one)", "delete/ctrl+d", "remove the selected one")
	hs.keys("x")
	if hs.m.top() != dialog(hs.m.bps) {
		t.Fatalf("a key on the help: top dialog %T, want the breakpoints editor", hs.m.top())
	}
	hs.send(closeDialogMsg{})
	if len(hs.m.dialogs) != 0 {
		t.Fatalf("closeDialogMsg left %d dialogs", len(hs.m.dialogs))
	}
	hs.keys("n")
	if n := hs.m.c.World.attempts.Len(); n != 1 {
		t.Fatalf("n after the dialog closed: %d attempts, want 1", n)
	}
}

// TestHelpListsDialogKeys: the help opened in each dialog lists that
// dialog's bindings, and the key line shows them while it is open.
func TestHelpListsDialogKeys(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("n")
	k := hs.m.c.Keys
	for _, d := range []dialog{hs.m.bps, hs.m.whatIf, hs.m.search} {
		hs.send(openDialogMsg{d})
		if hs.m.top() != d {
			t.Fatalf("%s did not open", d.Title())
		}
		for _, b := range d.ShortHelp()[:2] {
			hs.contains(b.Help().Key + " " + b.Help().Desc)
		}
		hs.send(tea.KeyPressMsg{Code: tea.KeyF1})
		hs.contains("keys of the " + d.Title())
		for _, b := range d.ShortHelp() {
			hs.contains(b.Help().Desc)
		}
		hs.keys("x") // closes the help
		hs.send(closeDialogMsg{})
	}
	// From a view, ? lists the view's keys and the global ones.
	hs.keys("?")
	hs.contains("schedtui — keys (any key closes)", k.Next.Help().Desc, k.WhatIf.Help().Desc)
}

// countingView counts a view's refreshes.
type countingView struct {
	view
	n int
}

func (v *countingView) Refresh() { v.n++; v.view.Refresh() }

// TestDirtyViews: a new state refreshes the active view only; another
// view refreshes when it becomes active, once.
func TestDirtyViews(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("n") // from the queues to the Pod view
	var counts [numViews]*countingView
	for i := range hs.m.views {
		counts[i] = &countingView{view: hs.m.views[i]}
		hs.m.views[i] = counts[i]
	}
	active := hs.m.c.Active
	hs.keys("n", "n")
	if counts[active].n == 0 {
		t.Errorf("the active view (%s) was not refreshed on a new state", viewTitles[active])
	}
	if c := counts[viewNodes]; c.n != 0 {
		t.Errorf("the Nodes view was refreshed %d times while not active", c.n)
	}
	hs.keys("6")
	if c := counts[viewNodes]; c.n != 1 {
		t.Errorf("the Nodes view was refreshed %d times on becoming active, want 1", c.n)
	}
	hs.keys("j", "k")
	if c := counts[viewNodes]; c.n != 1 {
		t.Errorf("keys without a new state refreshed the Nodes view (%d)", c.n)
	}
}

// TestSearchIgnoresCase: every view that filters matches the search text
// whatever its case.
func TestSearchIgnoresCase(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		query string
		want  string // a row the query keeps
		gone  string // a row it drops
	}{
		{"queues", []string{"1"}, "WEB", "default/web-3", "default/critical-api"},
		{"filter", []string{"n", "3"}, "NODE-A", "node-a1  rejected", "node-b2  rejected"},
		{"scores", []string{"n", "n", "4"}, "NODE-A1", "node-a1", "node-b1"},
		{"nodes", []string{"6"}, "NODE-B", "node-b2", "node-a1"},
		{"events", []string{"n", "7"}, "PREEMPTION", "nominated to node-b2", "UnscheduledPodAdd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, 120, 40)
			hs.keys(tc.keys...)
			before := body(hs.screen())
			if !strings.Contains(before, tc.gone) {
				t.Fatalf("%q not on screen before the search:\n%s", tc.gone, before)
			}
			hs.keys("/")
			hs.typeText(tc.query)
			hs.keys("<enter>")
			after := body(hs.screen())
			if !strings.Contains(after, tc.want) || strings.Contains(after, tc.gone) {
				t.Errorf("search %q: want %q kept and %q dropped:\n%s", tc.query, tc.want, tc.gone, after)
			}
		})
	}
}

// body is a screen without its header and its two bottom lines.
func body(screen string) string {
	lines := strings.Split(screen, "\n")
	return strings.Join(lines[2:len(lines)-2], "\n")
}

// TestSearchStartsFresh: / reopens on the previous query selected, so
// typing starts a new one instead of appending to it; an arrow keeps it
// for editing.
func TestSearchStartsFresh(t *testing.T) {
	hs := newHarness(t, 120, 40)
	hs.keys("1", "/")
	hs.typeText("critical")
	hs.keys("<enter>", "/")
	hs.contains("/critical  (type to replace")
	hs.typeText("web")
	hs.keys("<enter>")
	if q := hs.m.search.query(); q != "web" {
		t.Errorf("typing after / gave the query %q, want web", q)
	}
	hs.keys("/")
	hs.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	hs.typeText("-3")
	hs.keys("<enter>")
	if q := hs.m.search.query(); q != "web-3" {
		t.Errorf("end then typing gave the query %q, want web-3", q)
	}
}

// TestSearchWholeWord: a query in double quotes matches whole words only.
func TestSearchWholeWord(t *testing.T) {
	for _, tc := range []struct {
		q, s string
		want bool
	}{
		{"scheduled", "default/web-3: ∅ → Active (UnscheduledPodAdd)", true},
		{`"scheduled"`, "default/web-3: ∅ → Active (UnscheduledPodAdd)", false},
		{`"Scheduled"`, "#2 default/frontend-1: Scheduled on node-a1", true},
		{`"web"`, "default/web-3", true},
		{`"web"`, "default/webapp", false},
		{`"a1"`, "node-a1", true},
		{`"node"`, "node-a1 nodes", true},
	} {
		if got := newMatcher(tc.q).match(tc.s); got != tc.want {
			t.Errorf("%s on %q: %v, want %v", tc.q, tc.s, got, tc.want)
		}
	}
	hs := newHarness(t, 120, 40)
	hs.keys("n", "n", "7", "/")
	hs.typeText(`"scheduled"`)
	hs.keys("<enter>")
	after := body(hs.screen())
	if !strings.Contains(after, "#2 default/frontend-1: Scheduled") || strings.Contains(after, "UnscheduledPodAdd") {
		t.Errorf(`search "scheduled" should keep the scheduled attempt and drop UnscheduledPodAdd:\n%s`, after)
	}
}
