package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// lessonHarness opens lesson n (1-based) on its own scenario; solved
// counts the Done calls.
func lessonHarness(t *testing.T, n int, solved *int) *harness {
	t.Helper()
	l := Lessons()[n-1]
	data, err := testdata.Learn.ReadFile("learn/" + l.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := snapshot.Load(l.Scenario, data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(l.Scenario, c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := &LessonRun{Lesson: l, Number: n, Total: len(Lessons()), Done: func() { *solved++ }}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true, Lesson: run})}
	hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	hs.run(hs.m.Init())
	return hs
}

// lessonCase is how a learner solves a lesson, and a wrong way first.
type lessonCase struct {
	// wrong are keys that do not solve it (ending in A, or A and a wrong
	// answer and enter): the hint shows.
	wrong []string
	// right are the keys that solve it from there.
	right []string
}

var lessonCases = map[string]lessonCase{
	"queues": {
		wrong: []string{"n", "n", "A", "a", "c", "t", "i", "v", "e", "Q", "<enter>"},
		right: []string{"1", "A", "u", "n", "s", "c", "h", "e", "d", "u", "l", "a", "b", "l", "e", "<enter>"},
	},
	"filter": {
		wrong: []string{"n", "3", "A"},
		right: []string{"j", "l", "l"},
	},
}

// TestLessonChecks: every lesson has a case; a wrong answer gets the
// lesson's hint and is not solved; the intended keys solve it once, and the
// banner then explains it.
func TestLessonChecks(t *testing.T) {
	for i, l := range Lessons() {
		t.Run(l.ID, func(t *testing.T) {
			tc, ok := lessonCases[l.ID]
			if !ok {
				t.Fatalf("lesson %q has no test case", l.ID)
			}
			solved := 0
			hs := lessonHarness(t, i+1, &solved)
			hs.contains("Lesson "+strings.TrimSpace(string(rune('0'+i+1)))+"/", l.Title)
			hs.keys(tc.wrong...)
			if solved != 0 {
				t.Fatalf("solved by the wrong keys %q", tc.wrong)
			}
			hs.contains("Not yet: " + l.Hint[:20])
			hs.keys(tc.right...)
			if solved != 1 {
				t.Fatalf("not solved by %q (solved %d times):\n%s", tc.right, solved, hs.screen())
			}
			hs.contains("✓ Lesson")
			// Solved stays solved, and Done is not called again.
			hs.keys("1", "2")
			if solved != 1 {
				t.Errorf("Done called %d times", solved)
			}
		})
	}
}
