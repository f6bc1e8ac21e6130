package main

import (
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
		s.waitFor("Lesson 2/", "Which Filter plugin rejects node-2?")
	})
}
