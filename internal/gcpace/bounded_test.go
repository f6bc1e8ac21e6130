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
	restore := Bounded(headroom)
	limit := int64(math.MaxInt64)
	for deadline := time.Now().Add(10 * time.Second); limit == math.MaxInt64 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		limit = debug.SetMemoryLimit(-1)
	}
	live := liveHeap()
	if limit == math.MaxInt64 {
		t.Fatal("no memory limit set after collections")
	}
	if limit > live+headroom+boundedSlack || limit < 64<<20 {
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

func TestBoundedLeavesTheUsersSetting(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	restore := Bounded(1)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d under the user's GOMEMLIMIT, want it left alone", got)
	}
	restore()
}
