package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedtui/schedtui/tui"
)

// TestLearnList: --list prints every lesson, and marks the solved ones.
func TestLearnList(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	out, _, err := runCmd(t, newLearnCommand, "--list")
	if err != nil {
		t.Fatal(err)
	}
	lessons := tui.Lessons()
	if len(lessons) < 2 {
		t.Fatalf("%d lessons", len(lessons))
	}
	for _, l := range lessons {
		if !strings.Contains(out, l.Title) || !strings.Contains(out, l.Question) {
			t.Errorf("--list lacks lesson %q:\n%s", l.Title, out)
		}
	}
	if strings.Contains(out, "✓") {
		t.Errorf("nothing solved yet, but:\n%s", out)
	}
	p := &learnProgress{Done: []string{lessons[0].ID}}
	if err := p.write(filepath.Join(cfg, "schedtui", "learn.json")); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, newLearnCommand, "--list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "✓  1. "+lessons[0].Title) || strings.Contains(out, "✓  2.") {
		t.Errorf("lesson 1 solved, 2 not:\n%s", out)
	}
	if _, _, err := runCmd(t, newLearnCommand, "--reset"); err != nil {
		t.Fatal(err)
	}
	if out, _, _ = runCmd(t, newLearnCommand, "--list"); strings.Contains(out, "✓") {
		t.Errorf("--reset kept the progress:\n%s", out)
	}
	// A progress file that is not ours says so, and how to start over.
	path := filepath.Join(cfg, "schedtui", "learn.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, newLearnCommand, "--list"); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--reset") {
		t.Errorf("a corrupt progress file: %v", err)
	}
	if _, _, err := runCmd(t, newLearnCommand, "--reset"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, newLearnCommand, "99"); err == nil || !strings.Contains(err.Error(), "want a number from 1 to") {
		t.Errorf("learn 99: %v", err)
	}
}

// TestLearnFirstLessonTmux: schedtui learn opens the first lesson in the
// real binary; a wrong answer gets the hint, the intended keys solve it,
// and the progress file then says so, so that the next run opens lesson 2.
func TestLearnFirstLessonTmux(t *testing.T) {
	cfg := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + cfg}
	s := startTUI(t, 100, 30, env, "learn")
	s.waitFor("Lesson 1/", "in which queue does default/big wait?")
	s.keys("n")
	s.waitFor("attempt 1/1")
	s.keys("n")
	s.waitFor("attempt 2/2")
	s.keys("A", "a", "c", "t", "i", "v", "e", "Q", "Enter")
	s.waitFor("Not yet: run both attempts")
	s.keys("1", "A")
	s.waitFor("Your answer")
	s.keys("u", "n", "s", "c", "h", "e", "d", "u", "l", "a", "b", "l", "e", "Enter")
	s.waitFor("✓ Lesson 1 solved")
	path := filepath.Join(cfg, "schedtui", "learn.json")
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), `"queues"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress not written: %q", data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.keys("q")
	t.Run("next", func(t *testing.T) {
		s := startTUI(t, 100, 30, env, "learn")
		s.waitFor("Lesson 2/", "Which plugin holds it back?")
	})
}

// learnStep is keys sent to the terminal, then what the screen must show.
type learnStep struct {
	keys []string
	want []string
}

// TestLearnLessonsTmux: each lesson in the real binary, as a learner
// does it: a wrong answer (or A before the answer is in view) gets the
// lesson's hint, then the intended keys solve it.
func TestLearnLessonsTmux(t *testing.T) {
	type lessonSteps struct{ wrong, right []learnStep }
	answer := func(s string) []learnStep {
		return []learnStep{{keys: []string{"A"}, want: []string{"Your answer"}}, {keys: []string{"-l", s}, want: []string{s + "▏"}}, {keys: []string{"Enter"}}}
	}
	hintAfter := func(steps ...learnStep) []learnStep {
		steps[len(steps)-1].want = append(steps[len(steps)-1].want, "Not yet:")
		return steps
	}
	filterMap := learnStep{keys: []string{"n"}, want: []string{"attempt 1/1"}}
	steps := map[string]lessonSteps{
		"queues": {
			wrong: hintAfter(append([]learnStep{{keys: []string{"n", "n"}, want: []string{"attempt 2/2"}}}, answer("activeQ")...)...),
			right: append([]learnStep{{keys: []string{"1"}, want: []string{"default/big"}}}, answer("unschedulable")...),
		},
		"gates": {
			wrong: hintAfter(append([]learnStep{filterMap, {keys: []string{"1"}, want: []string{"default/held"}}}, answer("PreEnqueue")...)...),
			right: answer("SchedulingGates"),
		},
		"diagnosis": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"3"}, want: []string{"faithful:"}}, learnStep{keys: []string{"a"}, want: []string{"NodeResourcesFit"}}, learnStep{keys: []string{"l", "l"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"f"}}},
		},
		"filter": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"3"}, want: []string{"faithful:"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"j"}}, {keys: []string{"l"}}},
		},
		"score": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"4"}, want: []string{"NodeResourcesFit"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"l"}}},
		},
		"totals": {
			wrong: hintAfter(append([]learnStep{filterMap, {keys: []string{"4"}, want: []string{"Taint×3"}}}, answer("0")...)...),
			right: append([]learnStep{{keys: []string{"m", "m"}, want: []string{"scores: weighted"}}}, answer("300")...),
		},
		"antiaffinity": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"3"}, want: []string{"faithful:"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"j"}}},
		},
		"spread": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"3"}, want: []string{"faithful:"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"j"}}},
		},
		"volumes": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"3"}, want: []string{"faithful:"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"j"}}},
		},
		"preemption": {
			wrong: hintAfter(append([]learnStep{filterMap}, answer("urgent")...)...),
			right: append([]learnStep{{keys: []string{"5"}, want: []string{"default/batch"}}}, answer("batch")...),
		},
		"dra": {
			wrong: hintAfter(append([]learnStep{filterMap}, answer("gpu-b")...)...),
			right: append([]learnStep{{keys: []string{"n", "n"}, want: []string{"default/inference"}}}, answer("gpu-b")...),
		},
		"queuemoves": {
			wrong: hintAfter(append([]learnStep{filterMap}, answer("NodeAdd")...)...),
			right: append([]learnStep{{keys: []string{"n"}, want: []string{"attempt 2/2"}}, {keys: []string{"n"}, want: []string{"attempt 3/3"}},
				{keys: []string{"7"}, want: []string{"default/big: Unschedulable → Backoff (NodeAdd)"}}}, answer("NodeAdd")...),
		},
		"extenders": {
			wrong: hintAfter(append([]learnStep{filterMap, {keys: []string{"4"}, want: []string{"winner ★ node-3"}}}, answer("160")...)...),
			right: append([]learnStep{{keys: []string{"l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l", "l"}, want: []string{"column: http://labels.extender.invalid"}}}, answer("160")...),
		},
		"ties": {
			wrong: hintAfter(filterMap, learnStep{keys: []string{"4"}, want: []string{"tied at the top"}}, learnStep{keys: []string{"A"}}),
			right: []learnStep{{keys: []string{"j"}}},
		},
		"gangs": {
			wrong: hintAfter(append([]learnStep{{keys: []string{"n"}, want: []string{"member 1/5 of group cycle 1"}}}, answer("5")...)...),
			right: append([]learnStep{{keys: []string{"2"}, want: []string{"Hint: minCount 4"}}}, answer("4")...),
		},
		"config": {
			wrong: hintAfter(append([]learnStep{filterMap}, answer("node-1")...)...),
			right: append([]learnStep{{keys: []string{"C"}, want: []string{"compare with"}}, {keys: []string{"-l", "demo-packing"}}, {keys: []string{"Enter"}, want: []string{"demo-packing"}}, {keys: []string{"2"}}}, answer("node-1")...),
		},
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	for i, l := range tui.Lessons() {
		t.Run(l.ID, func(t *testing.T) {
			st, ok := steps[l.ID]
			if !ok {
				t.Fatalf("lesson %q has no terminal test", l.ID)
			}
			s := startTUI(t, 100, 30, env, "learn", fmt.Sprint(i+1))
			s.waitFor(fmt.Sprintf("Lesson %d/", i+1), "Active (")
			for _, phase := range [][]learnStep{st.wrong, st.right} {
				for _, step := range phase {
					s.keys(step.keys...)
					if len(step.want) > 0 {
						s.waitFor(step.want...)
					}
				}
			}
			s.waitFor(fmt.Sprintf("✓ Lesson %d solved", i+1))
		})
	}
}

// TestLearnScenarioNotice: a lesson's status line names the lesson's
// scenario, not the demo, and a recording's changes reach the debugger
// (simulated: schedtui schedules them), loaded without a problem.
func TestLearnScenarioNotice(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var opts tui.Options
	old := runTUI
	runTUI = func(o tui.Options, _ io.Reader, _ io.Writer) error { opts = o; return nil }
	t.Cleanup(func() { runTUI = old })
	for i, l := range tui.Lessons() {
		t.Run(l.ID, func(t *testing.T) {
			_, stderr, err := runCmd(t, newLearnCommand, fmt.Sprint(i+1))
			if err != nil {
				t.Fatal(err)
			}
			want := "simulating kube-scheduler 1.37 (the lesson's scenario, learn/" + l.Scenario + ")"
			if !strings.Contains(opts.Notice, want) || strings.Contains(opts.Notice, "the demo's") {
				t.Errorf("status line %q, want %q", opts.Notice, want)
			}
			if strings.Contains(stderr, "warning:") || strings.Contains(stderr, "error:") || strings.Contains(stderr, "shadow") {
				t.Errorf("stderr:\n%s", stderr)
			}
			// The extenders lesson answers from its recording alone.
			if l.ID == "extenders" && !strings.Contains(stderr, "the recording holds 3 extender answers: the extenders are answered from them and never called") {
				t.Errorf("stderr:\n%s", stderr)
			}
			if opts.Lesson == nil || opts.Lesson.Lesson.ID != l.ID {
				t.Errorf("lesson %+v", opts.Lesson)
			}
		})
	}
}
