package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/schedtui/schedtui/scheduler/record"
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

// TestTypeAhead: keys pressed while an engine operation runs apply in
// order after it: n then 4 ends on the Scores view (n from the queues
// opens the Pod view first).
func TestTypeAhead(t *testing.T) {
	hs := newHarness(t, 100, 30)
	if hs.m.c.Active != viewQueues {
		t.Fatalf("start on %s", viewTitles[hs.m.c.Active])
	}
	_, running := hs.m.Update(keyMsg("n")) // the engine runs n…
	hs.keys("4", "j")                      // …while these arrive
	hs.run(running)
	if got := hs.m.c.Active; got != viewScores {
		t.Errorf("n then 4 typed ahead: on %s, want Scores", viewTitles[got])
	}
	// Typed-ahead engine keys run in turn, each after the one before.
	_, running = hs.m.Update(keyMsg("n"))
	hs.keys("2", "n")
	hs.run(running)
	if got, n := hs.m.c.Active, hs.m.c.World.attempts.Len(); got != viewAttempt || n != 3 {
		t.Errorf("n 2 n typed ahead: on %s with %d attempts, want Pod with 3", viewTitles[got], n)
	}
}

// TestSteppingHidesLaterPhases: stepped to Filter, no view shows what
// PostFilter (preemption) or the attempt's end produced.
func TestSteppingHidesLaterPhases(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("s", "s", "s", "s")
	if c := hs.m.c.World.cursor; c.Phase != record.PhaseFilter {
		t.Fatalf("cursor %+v, want at Filter", c)
	}
	for _, v := range []string{"3", "7"} {
		hs.keys(v)
		s := body(hs.screen())
		for _, leak := range []string{"preemption", "nominated to", "Unschedulable (Schedule", "critical-api: Unschedulable"} {
			if strings.Contains(s, leak) {
				t.Errorf("view %s at the Filter phase shows %q:\n%s", v, leak, s)
			}
		}
	}
	hs.keys("3")
	hs.contains("0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu.")
	hs.keys("s") // PostFilter
	hs.contains("preemption: found a potential placement")
	hs.keys("7")
	hs.contains("nominated to node-b2")
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

// TestStatusLineScope: the search filter shows on the status line of the
// view it filters only, and an operation's note on the view it was shown
// on only.
func TestStatusLineScope(t *testing.T) {
	hs := newHarness(t, 100, 30)
	status := func() string { l := strings.Split(hs.screen(), "\n"); return l[len(l)-2] }
	hs.keys("1", "/")
	hs.typeText("web")
	hs.keys("<enter>")
	if !strings.Contains(status(), "filter: web") {
		t.Fatalf("Queues: status %q lacks the filter", status())
	}
	hs.keys("6")
	if s := status(); strings.Contains(s, "filter:") {
		t.Errorf("Nodes (not filtered): status %q shows the Queues' filter", s)
	}
	hs.keys("1")
	if s := status(); !strings.Contains(s, "filter: web") {
		t.Errorf("back on Queues: status %q lacks its filter", s)
	}
	hs.keys("<esc>", "b")
	hs.typeText("pod=web-3")
	hs.keys("<enter>", "<esc>", "c")
	if s := status(); !strings.Contains(s, "breakpoint hit: pod=*/web-3") {
		t.Fatalf("after c: status %q", s)
	}
	hs.keys("6")
	if s := status(); strings.Contains(s, "breakpoint hit") {
		t.Errorf("Nodes: status %q keeps the breakpoint note", s)
	}
}

// TestHelpPerView: ? lists exactly the active view's keys and the global
// ones, all of them on screen at 80×24; a key a view does not list does
// nothing there (/ on the Pod view).
func TestHelpPerView(t *testing.T) {
	global := []string{"n", "s", "c", "b", "u", "e", "?", "q", "tab", "shift+tab", "1-8", "esc"}
	vertical := []string{"↑/k", "↓/j", "g", "G", "pgup", "pgdn"}
	grid := append([]string{"←/h", "→/l"}, vertical...)
	own := map[viewID][]string{
		viewQueues:  append([]string{"enter", "B", "/"}, vertical...),
		viewAttempt: append([]string{"w"}, vertical...),
		viewFilter:  append([]string{"f", "o", "a", "enter", "/"}, grid...),
		viewScores:  append([]string{"m", "o", "enter", "/"}, grid...),
		viewPreempt: append([]string{"enter"}, vertical...),
		viewNodes:   append([]string{"/"}, vertical...),
		viewEvents:  append([]string{"enter", "/"}, vertical...),
		viewWhatIf:  append([]string{"w", "a"}, vertical...),
	}
	hs := newHarness(t, 80, 24)
	hs.keys("n")
	for v := viewID(0); v < numViews; v++ {
		hs.send(goToMsg{view: v})
		hs.keys("?")
		d, ok := hs.m.top().(*helpDialog)
		if !ok {
			t.Fatalf("%s: ? opened %T", viewTitles[v], hs.m.top())
		}
		want := map[string]bool{}
		for _, k := range append(append([]string{}, global...), own[v]...) {
			want[k] = true
		}
		got := map[string]bool{}
		screen := hs.screen()
		for _, g := range d.FullHelp() {
			for _, b := range g {
				h := b.Help()
				got[h.Key] = true
				if !strings.Contains(screen, h.Desc) {
					t.Errorf("%s: the help lists %s %q off screen:\n%s", viewTitles[v], h.Key, h.Desc, screen)
				}
			}
		}
		for k := range want {
			if !got[k] {
				t.Errorf("%s: the help lacks %s", viewTitles[v], k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("%s: the help lists %s, which does nothing there", viewTitles[v], k)
			}
		}
		hs.keys("x") // closes the help
	}
	hs.send(goToMsg{view: viewAttempt})
	hs.keys("/")
	if d := hs.m.top(); d != nil {
		t.Errorf("/ on the Pod view (no search) opened %s", d.Title())
	}
}

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

// TestSteppingHidesTheQueueAfter: stepped to the Filter phase of
// critical-api's attempt (it ends Unschedulable), neither the Queues view
// nor the header's counts show it among the unschedulable pods: they show
// the queue as the attempt popped it, until its last phase is revealed.
func TestSteppingHidesTheQueueAfter(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.keys("s", "s", "s", "s", "1")
	if c := hs.m.c.World.cursor; c.Phase != record.PhaseFilter {
		t.Fatalf("cursor %+v, want at Filter", c)
	}
	hs.contains("active 11 · unsched 0 · gated 1", "Unschedulable (0)")
	if s := body(hs.screen()); strings.Contains(s, "critical-api") {
		t.Errorf("at the Filter phase the Queues view lists critical-api (in flight):\n%s", s)
	}
	hs.keys("s", "1") // PostFilter, its last phase
	hs.contains("active 11 · unsched 1 · gated 1", "Unschedulable (1)", "default/critical-api")
}

// TestMouseTypeAhead: clicks and wheel turns arriving while an engine
// operation runs apply in order after it, as keys do: the same as when
// they arrive after it.
func TestMouseTypeAhead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string
		mouse func(hs *harness) tea.Msg
	}{
		// n from the Queues view opens the Pod view; the click then opens
		// the Scores tab.
		{"click on a tab", nil, func(hs *harness) tea.Msg {
			_, spans := hs.m.header.tabs()
			return tea.MouseClickMsg{X: spans[viewScores][0] + 1, Y: 1, Button: tea.MouseLeft}
		}},
		// The Events view follows the newest event; the wheel then moves
		// up from there.
		{"wheel on the events", []string{"n", "7"}, func(*harness) tea.Msg {
			return tea.MouseWheelMsg{X: 1, Y: 5, Button: tea.MouseWheelUp}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after, ahead := newHarness(t, 100, 30), newHarness(t, 100, 30)
			after.keys(tc.setup...)
			after.keys("n")
			after.send(tc.mouse(after))
			ahead.keys(tc.setup...)
			_, running := ahead.m.Update(keyMsg("n")) // the engine runs n…
			ahead.send(tc.mouse(ahead))               // …while the mouse acts
			ahead.run(running)
			if got, want := ahead.m.c.Active, after.m.c.Active; got != want {
				t.Errorf("mouse during n: on %s, want %s", viewTitles[got], viewTitles[want])
			}
			if got, want := ahead.screen(), after.screen(); got != want {
				t.Errorf("mouse during n: screen\n%s\nwant\n%s", got, want)
			}
			// The selection (not visible without colour) as the teaching
			// pane tells it.
			gotT, got := ahead.m.current().Explain()
			wantT, want := after.m.current().Explain()
			if gotT != wantT || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("mouse during n: selection %q %q, want %q %q", gotT, got, wantT, want)
			}
		})
	}
}

// TestStaleResultsAfterRewind: a replayed cluster, full diagnosis or
// hints of an attempt that finishes after u (rewind) is not kept for
// the attempt that replaces it: stepping again shows the new attempt's
// own results, not the stale ones (an error: the rewound engine had no
// such attempt).
func TestStaleResultsAfterRewind(t *testing.T) {
	t.Run("fork and hints", func(t *testing.T) {
		hs := newHarness(t, 120, 30)
		_, run := hs.m.Update(keyMsg("n")) // attempt #1 (critical-api, hintable)
		_, late := hs.m.Update(run())      // its fork starts…
		hs.keys("u")                       // …the engine rewinds…
		hs.run(late)                       // …and then it finishes
		hs.keys("n")
		if f := hs.m.c.Forks[0]; f == nil || f.err != nil {
			t.Fatalf("attempt #1 after u n: fork %+v, want its own", f)
		}
		if h := hs.m.c.Hints[0]; h == nil || h.attempt != hs.m.c.World.attempts.At(0) || h.err != nil {
			t.Errorf("attempt #1 after u n: hints %+v, want its own", h)
		}
		hs.contains("attempt 1/1")
		if s := hs.screen(); strings.Contains(s, "failed") || strings.Contains(s, "proving candidate changes") {
			t.Errorf("attempt #1 after u n:\n%s", s)
		}
	})
	t.Run("hints, after the new attempt", func(t *testing.T) {
		hs := newHarness(t, 120, 30)
		_, run := hs.m.Update(keyMsg("n"))
		_, fork := hs.m.Update(run())
		_, late := hs.m.Update(fork()) // the fork is in: the hints start…
		hs.keys("u", "n")              // …the attempt is undone and made anew…
		hs.run(late)                   // …and then they finish
		if h := hs.m.c.Hints[0]; h == nil || h.attempt != hs.m.c.World.attempts.At(0) || h.err != nil {
			t.Errorf("attempt #1 after u n: hints %+v, want its own", h)
		}
		hs.contains("(proven)")
	})
	t.Run("full diagnosis", func(t *testing.T) {
		hs := newHarness(t, 120, 30)
		hs.keys("n", "3", "f")
		_, run := hs.m.Update(keyMsg("n")) // attempt #2, full diagnosis on
		_, late := hs.m.Update(run())      // its fork and diagnosis start…
		hs.keys("u")
		hs.run(late)
		hs.keys("n")
		if d := hs.m.c.Diags[1]; d == nil || d.err != nil {
			t.Fatalf("attempt #2 after u n: diagnosis %+v, want its own", d)
		}
		hs.contains("attempt 2/2", "full diagnosis: every plugin")
		if s := hs.screen(); strings.Contains(s, "failed") || strings.Contains(s, "no attempt") {
			t.Errorf("attempt #2 after u n:\n%s", s)
		}
	})
}
