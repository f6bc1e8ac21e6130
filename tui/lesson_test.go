package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
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
	r, err := features.Resolve("", "", l.FeatureGates)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := snapshot.LoadUnder(l.Scenario, data, &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(l.Scenario, c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	run := &LessonRun{Lesson: l, Number: n, Total: len(Lessons()), Done: func() { *solved++ }}
	o := Options{Backend: b, NoColor: true, Lesson: run}
	// C compares with demo-packing, as schedtui learn's C does.
	o.NewComparison = func(side string) (*Comparison, error) {
		if side != testdata.DemoPackingName {
			return nil, &sideError{side}
		}
		cfg, _, err := config.LoadData(testdata.DemoPackingName, testdata.DemoPacking, features.Default())
		if err != nil {
			return nil, err
		}
		b, err := NewBackend(l.Scenario+" · demo-packing", c, scheduler.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: 1})
		if err != nil {
			return nil, err
		}
		return &Comparison{Backend: b, Label: testdata.DemoPackingName}, nil
	}
	hs := &harness{t: t, m: New(o)}
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
	"gates": {
		wrong: []string{"n", "1", "A", "P", "r", "e", "E", "n", "q", "u", "e", "u", "e", "<enter>"},
		right: []string{"A", "S", "c", "h", "e", "d", "u", "l", "i", "n", "g", "G", "a", "t", "e", "s", "<enter>"},
	},
	"diagnosis": {
		wrong: []string{"n", "3", "a", "l", "l", "A"},
		right: []string{"f"},
	},
	"filter": {
		wrong: []string{"n", "3", "A"},
		right: []string{"j", "l"},
	},
	"score": {
		wrong: []string{"n", "4", "A"},
		right: []string{"l"},
	},
	"totals": {
		wrong: []string{"n", "4", "A", "0", "<enter>"},
		right: []string{"m", "m", "A", "3", "0", "0", "<enter>"},
	},
	"antiaffinity": {
		wrong: []string{"n", "3", "A"},
		right: []string{"j"},
	},
	"spread": {
		wrong: []string{"n", "3", "A"},
		right: []string{"j"},
	},
	"volumes": {
		wrong: []string{"n", "3", "A"},
		right: []string{"j"},
	},
	"preemption": {
		wrong: []string{"n", "A", "u", "r", "g", "e", "n", "t", "<enter>"},
		right: []string{"5", "A", "b", "a", "t", "c", "h", "<enter>"},
	},
	"dra": {
		wrong: []string{"n", "A", "g", "p", "u", "-", "b", "<enter>"},
		right: []string{"n", "n", "A", "g", "p", "u", "-", "b", "<enter>"},
	},
	"config": {
		wrong: []string{"n", "A", "n", "o", "d", "e", "-", "1", "<enter>"},
		right: []string{"C", "d", "e", "m", "o", "-", "p", "a", "c", "k", "i", "n", "g", "<enter>", "2", "A", "n", "o", "d", "e", "-", "1", "<enter>"},
	},
	"gangs": {
		wrong: []string{"n", "A", "5", "<enter>"},
		right: []string{"2", "A", "4", "<enter>"},
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
			hs.contains(fmt.Sprintf("Lesson %d/%d", i+1, len(Lessons())), l.Title)
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

// TestLessonAnswerBeforeTheState: the right value typed before the state
// is reached is a wrong answer, forgotten: reaching the state afterwards
// does not solve the lesson by itself.
func TestLessonAnswerBeforeTheState(t *testing.T) {
	for i, l := range Lessons() {
		if l.ID != "dra" {
			continue
		}
		solved := 0
		hs := lessonHarness(t, i+1, &solved)
		hs.keys("n", "A")
		hs.typeText("gpu-b")
		hs.keys("<enter>", "n", "n")
		hs.contains("default/inference", "Not yet: ")
		if solved != 0 {
			t.Fatal("solved by an answer typed before the attempt was in view")
		}
		return
	}
	t.Fatal("no dra lesson")
}
