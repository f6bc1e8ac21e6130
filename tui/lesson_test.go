package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/change"
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
	c, cfg, replay := lessonScenario(t, l.Scenario, data, &r.Features)
	b, err := NewBackend(l.Scenario, c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Config: cfg, Features: &r.Features}, replay...)
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

// lessonScenario reads a lesson's scenario as schedtui learn does: a
// snapshot, or a recording whose changes are replayed and whose
// extenders are answered from its answers (with the configuration it
// carries).
func lessonScenario(t *testing.T, name string, data []byte, gates *features.Features) (*snapshot.Cluster, *configv1.KubeSchedulerConfiguration, []Replay) {
	t.Helper()
	if !snapshot.IsRecording(data) {
		c, _, err := snapshot.LoadUnder(name, data, gates)
		if err != nil {
			t.Fatal(err)
		}
		return c, nil, nil
	}
	o, err := snapshot.ReadRecording(name, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Report.Problems) > 0 {
		t.Fatalf("%s: %v", name, o.Report.Problems)
	}
	r := Replay{Start: o.Header.RecordingStarted}
	for _, rc := range o.Changes {
		ch, err := change.For(rc.Type, rc.Object)
		if err != nil {
			t.Fatal(err)
		}
		ch.At = rc.Time
		r.Changes = append(r.Changes, ch)
	}
	if o.Header.ExtenderAnswers == snapshot.ExtenderAnswersRecorded {
		var xs []scheduler.ExtenderExchange
		for _, a := range o.ExtenderAnswers {
			xs = append(xs, a.Exchange)
		}
		r.ExtenderAnswers = func() *scheduler.ExtenderAnswers {
			a := scheduler.NewExtenderAnswers()
			a.Preload(xs)
			return a
		}
	}
	return o.Cluster, o.Config, []Replay{r}
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
	"queuemoves": {
		wrong: []string{"n", "A", "N", "o", "d", "e", "A", "d", "d", "<enter>"},
		right: []string{"n", "n", "7", "A", "N", "o", "d", "e", "A", "d", "d", "<enter>"},
	},
	"extenders": {
		wrong: []string{"n", "4", "A", "1", "6", "0", "<enter>"},
		right: []string{"l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "A", "1", "6", "0", "<enter>"},
	},
	"ties": {
		wrong: []string{"n", "4", "A"},
		right: []string{"j"},
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

// TestLessonHelpListsTheAnswerKey: during a lesson ? lists A with the
// view's and the global keys; outside one it does not.
func TestLessonHelpListsTheAnswerKey(t *testing.T) {
	solved := 0
	hs := lessonHarness(t, 1, &solved)
	hs.keys("?")
	hs.contains("answer the lesson", "next attempt")
	hs = newHarness(t, 100, 30)
	hs.keys("?")
	if s := hs.screen(); strings.Contains(s, "answer the lesson") {
		t.Errorf("? lists the lesson's key outside a lesson:\n%s", s)
	}
}

// TestLessonPanesTeach: the teaching pane texts the new lessons explain
// with: why a queue move happened (a cluster event's queueing hint, the
// backoff, the early pop) and what a tie at the top total means.
func TestLessonPanesTeach(t *testing.T) {
	solved := 0
	hs := lessonHarness(t, 13, &solved)
	// selectEvent moves through the timeline with k until the event
	// selected is the one described.
	selectEvent := func(k, event string) {
		t.Helper()
		for range 20 {
			if _, body := hs.m.current().Explain(); len(body) > 0 && strings.Contains(body[0], event) {
				return
			}
			hs.keys(k)
		}
		t.Fatalf("no event %q", event)
	}
	hs.keys("n", "n", "n", "7", "g", "e")
	selectEvent("j", "default/big: Unschedulable → Backoff (NodeAdd)")
	paneHas := func(want ...string) {
		t.Helper()
		_, body := hs.m.current().Explain()
		for _, w := range want {
			if !strings.Contains(strings.Join(body, "\n"), w) {
				t.Errorf("the pane lacks %q:\n%s", w, strings.Join(body, "\n"))
			}
		}
	}
	paneHas("NodeAdd is a cluster event that a plugin which", "its backoff was not over yet, so it waits in backoffQ", "1s after the first failed attempt")
	hs.keys("j")
	paneHas("activeQ was empty, so the scheduler popped the pod from backoffQ")
	// huge's flush, after 5 minutes in which no event helped it.
	hs.keys("n", "G")
	selectEvent("k", "default/huge: Unschedulable → Active (UnschedulableTimeout)")
	paneHas("the periodic flush (podMaxInUnschedulablePodsDuration)")
	// The extenders' calls, each answered from the recording; the
	// ignorable one's error skipped.
	hs = lessonHarness(t, 14, &solved)
	hs.keys("n", "7", "G", "e")
	paneHas("POST "+lessonExtender+"/filter · 3 node(s) sent", `"FailedNodes":{"node-2":"rejected by the test extender"}`,
		"POST "+lessonExtender+"/prioritize · 2 node(s) sent", `[{"Host":"node-1","Score":2},{"Host":"node-3","Score":8}]`,
		"replayed: the answer it got before (or the recording's), not called again",
		`failed, skipped (ignorable): Post "http://127.0.0.1:1/filter"`)
	hs = lessonHarness(t, 15, &solved)
	hs.keys("n", "4", "j", "e")
	hs.contains("A tie: node-1, node-2 share the top total")
	paneHas("two runs on the same cluster may pick different tied nodes", "picks the same one every run: node-1 here",
		"tie verdict, not a disagreement", "Total for node-2: 462 (winner node-1: 462)")
	hs.keys("j")
	if _, body := hs.m.current().Explain(); strings.Contains(strings.Join(body, "\n"), "A tie:") {
		t.Errorf("node-3 is not tied, but:\n%s", strings.Join(body, "\n"))
	}
}
