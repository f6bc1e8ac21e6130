package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/testdata"
)

// demoPacking is the demo under demo-packing, as --compare-with
// demo-packing builds it.
func demoPacking(t testing.TB) *Comparison {
	t.Helper()
	c, gates := loadDemo(t)
	cfg, _, err := config.LoadData(testdata.DemoPackingName, testdata.DemoPacking, *gates)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend("demo · demo-packing", c, scheduler.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: gates})
	if err != nil {
		t.Fatal(err)
	}
	return &Comparison{Backend: b, Label: testdata.DemoPackingName}
}

// newCompareHarness is the demo in compare mode: with the second side
// from the start (cmp), or offered through C (built by demoPacking
// whatever is typed but "bad").
func newCompareHarness(t testing.TB, w, h int, start bool) *harness {
	t.Helper()
	o := Options{Backend: demoBackend(t), NoColor: true, Notice: "compare mode"}
	o.NewComparison = func(side string) (*Comparison, error) {
		if side != testdata.DemoPackingName {
			return nil, &sideError{side}
		}
		return demoPacking(t), nil
	}
	if start {
		o.Compare = demoPacking(t)
	}
	hs := &harness{t: t, m: New(o)}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

type sideError struct{ side string }

func (e *sideError) Error() string { return "no configuration " + e.side }

// TestCompareGolden: compare mode's screens on the demo against
// demo-packing (testdata/TestCompareGolden/*.golden; go test ./tui
// -update regenerates them). frontend-1, the second attempt, goes to
// node-a1 on the left and node-b1 on the right: NodeResourcesFit's
// strategy decides.
func TestCompareGolden(t *testing.T) {
	tests := []struct {
		name  string
		w, h  int
		start bool
		keys  []string
		typed string
		after []string
		want  []string
	}{
		{name: "pod_split", w: 120, h: 30, start: true, keys: []string{"n", "n", "2"},
			want: []string{"right: demo-packing", "Attempt #2 · Scheduled", "Attempt #2 · default/frontend-1's attempt 1 on both sides", "≠ Scheduled on node-b1", "Diverged: decided by NodeResourcesFit (score)", "Scheduled on node-a1"}},
		{name: "pod_split_same", w: 120, h: 30, start: true, keys: []string{"n", "2"},
			want: []string{"right: demo-packing", "= Unschedulable, nominated to node-b2 (as the left)"}},
		{name: "scores_split", w: 120, h: 30, start: true, keys: []string{"n", "n", "4"},
			want: []string{"right: demo-packing", "★node-b1", "Fit 75", "Diverged: decided by NodeResourcesFit"}},
		{name: "events_marks", w: 100, h: 30, start: true, keys: []string{"n", "n", "n", "7", "g", "]"},
			want: []string{"≠ attempt    #2 default/frontend-1", "  attempt    #1 default/critical-api"}},
		{name: "dialog", w: 120, h: 30, keys: []string{"C"}, typed: "demo-packing", after: []string{"<enter>", "n", "n", "2"},
			want: []string{"right: demo-packing", "≠ Scheduled on node-b1"}},
		{name: "dialog_error", w: 100, h: 24, keys: []string{"C"}, typed: "nope", after: []string{"<enter>"},
			want: []string{"compare: no configuration nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newCompareHarness(t, tc.w, tc.h, tc.start)
			hs.keys(tc.keys...)
			hs.typeText(tc.typed)
			hs.keys(tc.after...)
			hs.contains(tc.want...)
			hs.golden(tc.w, tc.h)
		})
	}
}

// TestCompareStepsBothSides: each n makes one attempt on each side; u
// rewinds both; ] jumps to the first diverging attempt in Events.
func TestCompareStepsBothSides(t *testing.T) {
	hs := newCompareHarness(t, 100, 30, true)
	hs.keys("n", "n", "n")
	if l, r := hs.m.c.World.attempts.Len(), hs.m.c.Right.attempts.Len(); l != 3 || r < 3 {
		t.Fatalf("after 3 n: left %d attempts, right %d", l, r)
	}
	hs.keys("u")
	if l, r := hs.m.c.World.attempts.Len(), hs.m.c.Right.attempts.Len(); l != 2 || r != 2 {
		t.Fatalf("after u: left %d attempts, right %d", l, r)
	}
	hs.keys("7", "g", "]")
	ev := hs.m.views[viewEvents].(*eventsView).selected()
	if ev == nil || ev.Pod != "default/frontend-1" || !hs.m.c.diverges(ev.Attempt) {
		t.Fatalf("] selected %+v, want frontend-1's diverging attempt", ev)
	}
	hs.keys("]")
	hs.contains("no diverging attempt further down")
}

// TestCompareFirstFrame: the frame drawn before the first capture arrives
// (the program renders while Init's Cmd runs) has no second side yet.
func TestCompareFirstFrame(t *testing.T) {
	m := New(Options{Backend: demoBackend(t), NoColor: true, Compare: demoPacking(t)})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	for _, v := range []viewID{viewQueues, viewAttempt, viewScores, viewEvents} {
		m.c.Active = v
		if s := ansi.Strip(m.View().Content); v == viewAttempt && !strings.Contains(s, "right: loading…") {
			t.Errorf("the Pod view before the first capture:\n%s", s)
		}
	}
}
