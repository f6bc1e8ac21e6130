package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	progressbar "charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/engine"
)

// Long operations. Continuing to a breakpoint (c, or enter on a queued pod
// not yet attempted) may make thousands of attempts. It runs in chunks: each
// Cmd continues for about chunkTime under the backend lock and reports how
// far it got; the session re-issues the next chunk until a breakpoint hits,
// the engine goes quiet, or the user cancels (esc or Ctrl-C), and only then
// captures the state for the views. Cancelling takes effect between two
// chunks, so the engine always stops after a whole attempt: the views show
// it there, and c carries on from it as if never interrupted. The status
// line shows a bar, the attempts made and the time left (progress.Estimate)
// once the operation ran for progress.Quiet.

// chunkTime is how long one chunk of a long operation runs: short enough
// that a cancel is felt at once, long enough that the chunks' overhead (a
// message and a redraw each) stays small.
const chunkTime = 100 * time.Millisecond

// longOp is a long operation in progress.
type longOp struct {
	label string
	bps   []engine.Breakpoint
	// hit is the note when breakpoint i matched; none when the engine went
	// quiet first.
	hit  func(i int) note
	none note
	// done attempts were made so far; total adds the pods waiting in
	// activeQ and backoffQ after the last chunk.
	done, total int64
	start       time.Time
	cancelled   bool
}

// chunkMsg is what one chunk of op did.
type chunkMsg struct {
	op            *longOp
	made, waiting int64
	// hit is the breakpoint that matched (-1: none); more: the chunk's
	// time ran out first.
	hit  int
	more bool
	// end is set when the operation ended without continuing (a forecast
	// that could not begin, nothing to forecast).
	end *note
	// forecast: the attempts were made on a live cluster's forecast.
	forecast bool
	at       time.Time
}

// progressMsg tells the status bar how far the running operation is
// (counting unit; cancellable by esc); the zero value clears it.
type progressMsg struct {
	label, unit string
	est         progress.Estimate
	cancellable bool
}

// continueLong starts (or holds, while another operation runs) a continue
// to bps.
func (s *session) continueLong(op *longOp) tea.Cmd {
	if s.hold(longMsg{op}) {
		return nil
	}
	s.busy = op.label
	s.c.post(busyMsg{op.label})
	op.start = s.now()
	s.long = op
	return s.chunkCmd(op)
}

// chunkCmd continues op for one chunk.
func (s *session) chunkCmd(op *longOp) tea.Cmd {
	b, budget, limit, now := s.b, s.chunkTime, s.chunkAttempts, s.now
	msg := chunkMsg{op: op, hit: -1}
	ran := false
	run := s.forecast(func() note {
		ran = true
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		defer cancel()
		hit, err := b.ContinueCtx(ctx, op.bps, progress.Func(func(done, total int64) {
			msg.made, msg.waiting = done, total-done
			if limit > 0 && done >= limit {
				cancel()
			}
		}))
		msg.hit, msg.more = hit, err != nil
		return note{}
	})
	return func() tea.Msg {
		b.Locked(func() {
			n := run()
			msg.forecast = strings.HasPrefix(n.text, forecastNote)
			if !ran || n.text != "" && !msg.forecast {
				msg.end = &n
			}
		})
		msg.at = now()
		return msg
	}
}

// forecastNote starts the notes of operations on a forecast
// (session.forecast).
const forecastNote = "forecast: "

// onChunk re-issues op's next chunk, or ends it: a breakpoint hit, the
// engine quiet, or cancelled.
func (s *session) onChunk(msg chunkMsg) tea.Cmd {
	op := msg.op
	if op != s.long {
		return nil
	}
	op.done += msg.made
	op.total = op.done + msg.waiting
	var n note
	switch {
	case msg.end != nil:
		n = *msg.end
	case msg.hit >= 0:
		n = op.hit(msg.hit)
	case !msg.more:
		n = op.none
	case op.cancelled:
		n = note{text: fmt.Sprintf("%s cancelled after %s attempt(s): stopped after the last one (c carries on)", op.label, progress.Count(op.done)), attempt: op.done > 0}
	default:
		s.c.post(progressMsg{label: op.label, unit: "attempts", cancellable: true,
			est: progress.Estimate{Done: op.done, Total: op.total, Elapsed: msg.at.Sub(op.start)}})
		return s.chunkCmd(op)
	}
	if msg.forecast && msg.end == nil {
		n.text = forecastNote + n.text
	}
	s.long = nil
	s.busy = ""
	s.c.post(progressMsg{})
	return s.engineCmd(op.label, func() note { return n })
}

// cancelLong cancels the long operation running (chunks, or one Cmd that
// can stop early), reporting whether there was one not cancelled yet (a
// second Ctrl-C quits).
func (s *session) cancelLong() bool {
	switch {
	case s.long != nil && !s.long.cancelled:
		s.long.cancelled = true
		s.c.post(busyMsg{s.long.label + " (cancelling)"})
		return true
	case s.cancelOp != nil:
		s.cancelOp()
		s.cancelOp = nil
		s.c.post(busyMsg{s.busy + " (cancelling)"})
		return true
	}
	return false
}

// progressView is the status line's part for a long operation: a bar
// (when the total is known), the attempts made and the time left, once the
// operation ran for progress.Quiet.
type progressView struct {
	msg progressMsg
	bar progressbar.Model
}

func newProgressView() progressView {
	return progressView{bar: progressbar.New(progressbar.WithWidth(16), progressbar.WithoutPercentage(), progressbar.WithFillCharacters('█', '░'))}
}

func (p *progressView) set(msg progressMsg) { p.msg = msg }

// text is the progress of the operation labelled busy ("" while quiet, or
// when what was reported is another operation's).
func (p *progressView) text(busy string) string {
	m := p.msg
	if !m.est.Shown() || m.label != strings.TrimSuffix(busy, " (cancelling)") {
		return ""
	}
	out := ""
	if f := m.est.Fraction(); f >= 0 {
		out = p.bar.ViewAs(f) + " "
	}
	out += m.est.Text(m.unit)
	if m.cancellable {
		out += " · esc cancels"
	}
	return out
}

// progressFeed carries the progress of an operation that runs as one Cmd
// (a rewind) out of it: the latest report waits in a one-slot channel,
// older ones dropped, read by a Cmd the session re-issues until the
// operation ends and closes it. Reports come from the Cmd's goroutine only.
// cancellable: the operation stops early on esc (session.cancellableCmd).
type progressFeed struct {
	label, unit string
	cancellable bool
	ch          chan progressMsg
	now         func() time.Time
	start, last time.Time
}

// feedMsg is a report of feed, to the session.
type feedMsg struct {
	feed *progressFeed
	msg  progressMsg
}

func newProgressFeed(label, unit string, now func() time.Time) *progressFeed {
	return &progressFeed{label: label, unit: unit, ch: make(chan progressMsg, 1), now: now}
}

// begin starts the clock, as the operation starts.
func (f *progressFeed) begin() { f.start = f.now() }

// Report passes done of total on, at most every progress.Redraw.
func (f *progressFeed) Report(done, total int64) {
	t := f.now()
	if t.Sub(f.last) < progress.Redraw && done < total {
		return
	}
	f.last = t
	select {
	case <-f.ch:
	default:
	}
	f.ch <- progressMsg{label: f.label, unit: f.unit, cancellable: f.cancellable, est: progress.Estimate{Done: done, Total: total, Elapsed: t.Sub(f.start)}}
}

// end closes the feed, as the operation ends.
func (f *progressFeed) end() { close(f.ch) }

// wait delivers the next report (nothing once the feed is closed).
func (f *progressFeed) wait() tea.Cmd {
	return func() tea.Msg {
		m, ok := <-f.ch
		if !ok {
			return nil
		}
		return feedMsg{f, m}
	}
}
