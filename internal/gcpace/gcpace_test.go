package gcpace

import (
	"runtime/debug"
	"testing"
)

func TestGrowingRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	outer := Growing()
	inner := Growing()
	if got := debug.SetGCPercent(GrowingPercent); got != GrowingPercent {
		t.Fatalf("GC percent %d while growing, want %d", got, GrowingPercent)
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
}

func TestGrowingLeavesGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "50")
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	restore := Growing()
	if got := debug.SetGCPercent(50); got != 50 {
		t.Fatalf("GC percent %d with GOGC=50 set, want it left alone", got)
	}
	restore()
}
