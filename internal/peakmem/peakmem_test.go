package peakmem

import "testing"

// TestPeakRSSGrows: after Start, touching 64 MiB shows in the peak
// resident set and in the live heap sampled.
func TestPeakRSSGrows(t *testing.T) {
	m := Start()
	before := PeakRSS()
	if before == 0 {
		t.Skip("no /proc/self/status")
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	m.Note()
	if got := PeakRSS(); got < before+48<<20 {
		t.Fatalf("VmHWM %d after touching 64 MiB, %d before", got, before)
	}
	if m.PeakHeap() < 64<<20 {
		t.Fatalf("peak heap %d, want at least 64 MiB", m.PeakHeap())
	}
	_ = buf[len(buf)-1]
}
