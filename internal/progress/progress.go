// Package progress is how long operations (loading, syncing, running many
// attempts, continuing to a far breakpoint) say how far they are, and how
// their time left is estimated. It imports nothing of the module: the
// engine and the loaders report through a Reporter, the TUI draws a bar
// and the commands a line on stderr (Line) from the same numbers.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Reporter hears how far an operation is: done of total units (total 0:
// not known). Reports come from the goroutine doing the work, as often as
// each unit; a Reporter that draws throttles itself.
type Reporter interface {
	Report(done, total int64)
}

// Func adapts a function to a Reporter.
type Func func(done, total int64)

// Report calls f.
func (f Func) Report(done, total int64) { f(done, total) }

// Report tells r, when there is one.
func Report(r Reporter, done, total int64) {
	if r != nil {
		r.Report(done, total)
	}
}

// Quiet is how long an operation runs before its progress is shown: one
// that ends sooner shows nothing (a bar flashing for a few frames is noise).
const Quiet = 200 * time.Millisecond

// Estimate is an operation's progress at one moment.
type Estimate struct {
	Done, Total int64
	// Elapsed since the operation started.
	Elapsed time.Duration
}

// Fraction is done/total in [0, 1], or -1 when the total is not known.
func (e Estimate) Fraction() float64 {
	if e.Total <= 0 {
		return -1
	}
	return min(1, max(0, float64(e.Done)/float64(e.Total)))
}

// Left is the time left at the average rate so far; ok is false until a
// rate is known (nothing done yet, or no total).
func (e Estimate) Left() (left time.Duration, ok bool) {
	if e.Total <= 0 || e.Done <= 0 || e.Elapsed <= 0 {
		return 0, false
	}
	if e.Done >= e.Total {
		return 0, true
	}
	return time.Duration(float64(e.Elapsed) * float64(e.Total-e.Done) / float64(e.Done)), true
}

// Shown reports whether the operation ran long enough to show (Quiet).
func (e Estimate) Shown() bool { return e.Elapsed >= Quiet }

// Text is the estimate in words, with unit naming what is counted:
// "1,234/5,000 attempts (24%) · 12s left", or without a total
// "1,234 attempts · 410/s".
func (e Estimate) Text(unit string) string {
	var b strings.Builder
	b.WriteString(Count(e.Done))
	if e.Total > 0 {
		b.WriteString("/" + Count(e.Total))
	}
	if unit != "" {
		b.WriteString(" " + unit)
	}
	if f := e.Fraction(); f >= 0 {
		fmt.Fprintf(&b, " (%d%%)", int(f*100))
	}
	if left, ok := e.Left(); ok {
		b.WriteString(" · " + Duration(left) + " left")
	} else if e.Done > 0 && e.Elapsed >= time.Second {
		fmt.Fprintf(&b, " · %s/s", Count(int64(float64(e.Done)/e.Elapsed.Seconds())))
	}
	return b.String()
}

// Count renders n with thousands separators.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Duration renders a time left coarsely: "<1s", "12s", "3m05s", "1h02m".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return "<1s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// IsTerminal reports whether w is a terminal (an *os.File on a tty).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Line is a command's progress on stderr: one line rewritten in place
// ("\r" and erase to the end of the line), shown once the operation ran
// for Quiet, redrawn at most every Redraw, cleared by Done. Write to w
// only between Done and the next Report. A nil *Line reports nothing: it
// is what NewLine gives when w is not a terminal (a log or a pipe must not
// fill with carriage returns).
type Line struct {
	w     io.Writer
	label string
	unit  string
	now   func() time.Time
	start time.Time
	drawn time.Time
	shown bool
}

// Redraw is the least time between two redraws of a Line.
const Redraw = 100 * time.Millisecond

// NewLine starts a progress line on w, labelled ("running") and counting
// unit ("attempts"); nil when isTerminal is false. now is the clock
// (time.Now outside tests).
func NewLine(w io.Writer, isTerminal bool, label, unit string, now func() time.Time) *Line {
	if !isTerminal {
		return nil
	}
	return &Line{w: w, label: label, unit: unit, now: now, start: now()}
}

// Report redraws the line when due.
func (l *Line) Report(done, total int64) {
	if l == nil {
		return
	}
	t := l.now()
	e := Estimate{Done: done, Total: total, Elapsed: t.Sub(l.start)}
	if !e.Shown() || l.shown && t.Sub(l.drawn) < Redraw {
		return
	}
	l.shown, l.drawn = true, t
	fmt.Fprintf(l.w, "\r\x1b[K%s: %s · Ctrl-C stops", l.label, e.Text(l.unit))
}

// Done clears the line, if it was shown.
func (l *Line) Done() {
	if l == nil || !l.shown {
		return
	}
	l.shown = false
	fmt.Fprint(l.w, "\r\x1b[K")
}
