package tui

import (
	"strings"
	"testing"
)

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
