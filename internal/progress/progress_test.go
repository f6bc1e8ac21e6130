package progress

import (
	"bytes"
	"testing"
	"time"
)

func TestEstimate(t *testing.T) {
	for _, c := range []struct {
		e    Estimate
		unit string
		want string
	}{
		{Estimate{Done: 250, Total: 1000, Elapsed: 2 * time.Second}, "attempts", "250/1,000 attempts (25%) · 6s left"},
		{Estimate{Done: 1000, Total: 1000, Elapsed: 2 * time.Second}, "attempts", "1,000/1,000 attempts (100%) · <1s left"},
		{Estimate{Done: 0, Total: 1000, Elapsed: 2 * time.Second}, "objects", "0/1,000 objects (0%)"},
		{Estimate{Done: 12345, Elapsed: 3 * time.Second}, "attempts", "12,345 attempts · 4,115/s"},
		{Estimate{Done: 1, Total: 3600, Elapsed: time.Second}, "", "1/3,600 (0%) · 59m59s left"},
		{Estimate{Done: 1, Total: 7200, Elapsed: time.Second}, "", "1/7,200 (0%) · 1h59m left"},
	} {
		if got := c.e.Text(c.unit); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
	if f := (Estimate{Done: 5}).Fraction(); f != -1 {
		t.Errorf("fraction without a total: %v, want -1", f)
	}
}

// fakeClock advances by step at each reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func TestLineOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0), step: time.Second}
	if l := NewLine(&buf, false, "running", "attempts", clk.now); l != nil {
		t.Fatal("a progress line on something not a terminal")
	}
	var none *Line
	none.Report(1, 2)
	none.Done()
	l := NewLine(&buf, true, "running", "attempts", clk.now)
	l.Report(10, 40)
	if got, want := buf.String(), "\r\x1b[Krunning: 10/40 attempts (25%) · 3s left · Ctrl-C stops"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
	buf.Reset()
	l.Done()
	if buf.String() != "\r\x1b[K" {
		t.Fatalf("Done wrote %q, want the line erased", buf.String())
	}
}

func TestLineQuietForShortOperations(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	l := NewLine(&buf, true, "loading", "objects", clk.now)
	for i := range 5 {
		l.Report(int64(i), 5)
	}
	l.Done()
	if buf.Len() != 0 {
		t.Fatalf("an operation shorter than %v wrote %q", Quiet, buf.String())
	}
}

func TestLineThrottled(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	l := NewLine(&buf, true, "running", "attempts", clk.now)
	draws := 0
	for i := range 100 {
		n := buf.Len()
		l.Report(int64(i), 0)
		if buf.Len() != n {
			draws++
		}
	}
	// 1 s of reports every 10 ms: drawn from 200 ms on, every 100 ms.
	if draws < 7 || draws > 9 {
		t.Fatalf("%d redraws in a second of reports, want about 8", draws)
	}
}
