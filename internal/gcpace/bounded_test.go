package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var keptForBounded [][]byte

func TestBoundedLimitsTheHeadroom(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	const headroom = 8 << 20
	for range 64 {
		keptForBounded = append(keptForBounded, make([]byte, 1<<20))
	}
	defer func() { keptForBounded = nil }()
	restore := Bounded(0, headroom)
	limit := limitAfterCollections(t)
	live := liveHeap()
	// The limit was set after an earlier collection than the one live
	// was read after, which may have found a little less live: 16 MiB
	// of tolerance, against the 64 MiB more (twice the live heap) of the
	// collector's default target.
	if limit > live+headroom+boundedSlack+16<<20 || limit < 64<<20 {
		t.Errorf("memory limit %d MiB with %d MiB live, want at most the live heap plus %d MiB and the slack",
			limit>>20, live>>20, headroom>>20)
	}
	restore()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d after restoring, want none", got)
	}
}

// TestBoundedKeepsTheFloor: with less live than the floor less the
// headroom, the limit is the floor, not the live heap plus the headroom.
func TestBoundedKeepsTheFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	const floor, headroom = 512 << 20, 8 << 20
	restore := Bounded(floor, headroom)
	defer restore()
	if limit, live := limitAfterCollections(t), liveHeap(); limit != floor {
		t.Errorf("memory limit %d MiB with %d MiB live, want the floor, %d MiB", limit>>20, live>>20, floor>>20)
	}
}

// limitAfterCollections collects until Bounded has set a memory limit
// (none was set before), and returns it.
func limitAfterCollections(t *testing.T) int64 {
	t.Helper()
	limit := int64(math.MaxInt64)
	for deadline := time.Now().Add(10 * time.Second); limit == math.MaxInt64 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		limit = debug.SetMemoryLimit(-1)
	}
	if limit == math.MaxInt64 {
		t.Fatal("no memory limit set after collections")
	}
	return limit
}

func TestBoundedLeavesTheUsersSetting(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	restore := Bounded(0, 1)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d under the user's GOMEMLIMIT, want it left alone", got)
	}
	restore()
}

func TestKeptRaisesTheTargetAndPutsItBack(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore := Kept(0, 1<<30)
	if got := debug.SetGCPercent(KeptPercent); got != KeptPercent {
		t.Errorf("GC target %d under Kept, want %d", got, KeptPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC target %d after restoring, want 100", got)
	}
	t.Setenv("GOGC", "150")
	restore = Kept(0, 1<<30)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC target %d under the user's GOGC, want it left alone (100 here)", got)
	}
	restore()
}

// TestKeptBoundsAtOnce: the limit holds as soon as Kept (Bounded) is
// called, from the last collection's live heap, before any collection
// sets it; else a run whose state is large goes without a limit until
// the cleanup after its next collection runs.
func TestKeptBoundsAtOnce(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	live := liveHeap()
	const headroom = 1 << 20
	restore := Kept(0, headroom)
	got := debug.SetMemoryLimit(-1)
	restore()
	want := live + min(live, headroom) + boundedSlack
	// A collection may come in between (the test binary's own
	// goroutines); its live heap is of the same size.
	if got == math.MaxInt64 || got < want/2 || got > want*2 {
		t.Fatalf("memory limit right after Kept = %d, want about %d (live %d plus the headroom)", got, want, live)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after restoring = %d, want the previous %d", got, int64(math.MaxInt64))
	}
}
