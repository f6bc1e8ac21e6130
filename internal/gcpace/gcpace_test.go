package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestGrowingRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if _, ok := availableMemory(); !ok {
		t.Skip("no /proc/meminfo: Growing changes nothing")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	outer := Growing()
	inner := Growing()
	if got := debug.SetGCPercent(GrowingPercent); got != GrowingPercent {
		t.Fatalf("GC percent %d while growing, want %d", got, GrowingPercent)
	}
	if got := debug.SetMemoryLimit(-1); got >= 1<<40 || got <= 0 {
		t.Fatalf("memory limit %d while growing, want the available memory's share", got)
	}
	inner()
	inner() // a second call changes nothing
	if got := debug.SetGCPercent(GrowingPercent); got != GrowingPercent {
		t.Fatalf("GC percent %d after the inner restore, want %d until the outer one", got, GrowingPercent)
	}
	outer()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("GC percent %d after restoring, want the previous 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Fatalf("memory limit %d after restoring, want the previous %d", got, int64(1<<40))
	}
}

func TestParseMemAvailable(t *testing.T) {
	got, ok := parseMemAvailable([]byte("MemTotal:       24684148 kB\nMemFree:         1234 kB\nMemAvailable:   16000000 kB\n"))
	if !ok || got != 16000000<<10 {
		t.Errorf("%d %v", got, ok)
	}
	if _, ok := parseMemAvailable([]byte("MemTotal: 1 kB\n")); ok {
		t.Error("found MemAvailable where there is none")
	}
}

func TestGrowingLeavesGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	restore := Growing()
	if got := debug.SetGCPercent(50); got != 50 {
		t.Fatalf("GC percent %d with GOGC=50 set, want it left alone", got)
	}
	restore()
}

// TestCgroupLeft: a container's memory.max bounds what the heap may grow
// into; "max" (no limit) and what does not parse leave MemAvailable alone.
func TestCgroupLeft(t *testing.T) {
	for _, c := range []struct {
		max, cur string
		left     int64
		limited  bool
	}{
		{"4294967296\n", "1073741824\n", 3 << 30, true},
		{"1073741824\n", "2147483648\n", 0, true},
		{"max\n", "1073741824\n", 0, false},
		{"", "", 0, false},
	} {
		left, limited := cgroupLeft([]byte(c.max), []byte(c.cur))
		if left != c.left || limited != c.limited {
			t.Errorf("memory.max %q, memory.current %q: %d, %v; want %d, %v", c.max, c.cur, left, limited, c.left, c.limited)
		}
	}
}

// TestGrowingBoundsGarbage: while growing, what the heap drops is
// collected once the heap has grown the headroom past what the last
// collection found live, however much is allocated; and as what is kept
// grows past the headroom, the limit follows it instead of collecting
// without end.
func TestGrowingBoundsGarbage(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if _, ok := availableMemory(); !ok {
		t.Skip("no /proc/meminfo: Growing changes nothing")
	}
	// No floor: the headroom alone.
	defer func(f, h int64) { floorTarget, growingHeadroom = f, h }(floorTarget, growingHeadroom)
	floorTarget, growingHeadroom = 0, 64<<20
	runtime.GC()
	restore := Growing()
	defer restore()
	gcs := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := gcs()
	var kept [][]byte
	const chunk = 1 << 20
	// 256 MiB kept, 2 GiB dropped on the way: a chunk kept in nine.
	for i := 0; i < 2304; i++ {
		b := make([]byte, chunk)
		b[0] = 1
		if i%9 == 0 {
			kept = append(kept, b)
		}
	}
	collections := gcs() - before
	// Each collection frees about the headroom: 2 GiB dropped take 17 to
	// 32 on two cores, fewer when the collector marks slowly beside the
	// allocations on a busy machine (3 seen). With the collector off there
	// are none, and a limit that does not follow what is kept collects
	// over and over once that passes it (126 to 150 times here).
	if collections == 0 || collections > 80 {
		t.Errorf("%d collections for 2 GiB dropped with a headroom of 64 MiB, want about 32", collections)
	}
	runtime.KeepAlive(kept)
}

// TestGrowingStartsAtTheFloor: the first limit, before any collection,
// is the floor when the heap so far plus the headroom is less.
func TestGrowingStartsAtTheFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if avail, ok := availableMemory(); !ok || avail < 1<<30 {
		t.Skip("less than 1 GiB available: the floor is a share of what is available")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func(f, h int64) { floorTarget, growingHeadroom = f, h }(floorTarget, growingHeadroom)
	floorTarget, growingHeadroom = 512<<20, 8<<20
	runtime.GC() // what earlier tests dropped is not counted
	restore := Growing()
	defer restore()
	if got := debug.SetMemoryLimit(-1); got != floorTarget {
		t.Errorf("first memory limit %d MiB, want the floor, %d MiB", got>>20, floorTarget>>20)
	}
}
