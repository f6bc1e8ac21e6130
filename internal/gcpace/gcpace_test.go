package gcpace

import (
	"runtime/debug"
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
