package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/schedtui/schedtui/internal/gcpace"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot/live"
	"github.com/schedtui/schedtui/tui"
)

// openTUI loads the cluster and runs the interactive debugger. On a live
// cluster the informers keep running: their changes (every kind) are
// applied to the engine (under the backend's lock) and their status goes
// to the status line through tui.Options.Source, and the engine runs in
// real time (tui.NewLiveBackend). A recording's changes are replayed in
// virtual time from the recording's start.
func openTUI(ctx context.Context, f *sourceFlags, in io.Reader, out, errw io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// The snapshot's objects and the scheduler built over them are kept:
	// the garbage collector runs less often until the first screen shows
	// them (see internal/gcpace).
	growing := gcpace.Growing()
	defer growing()
	// Loader problems and sync progress go to stderr before the screen is
	// taken over, and their count to the status line.
	src, err := loadSource(ctx, f, errw, true)
	if err != nil {
		return err
	}
	defer src.stop()
	mode := src.mode
	replays := src.replay.forTUI(errw)
	if mode.shadows() {
		// The cluster's scheduler decides (the recording's, the live
		// one's), schedtui judges.
		replays = append(replays, tui.Replay{Shadow: true})
	}
	resume, err := resumeOf(src.header)
	if err != nil {
		return fmt.Errorf("%s: %w", src.name, err)
	}
	switch {
	case resume != nil:
		// A state written by snapshot --at: both sides restart at its
		// attempt, as run does.
		replays = append(replays, tui.Replay{Start: src.header.CapturedAt, Resume: resume})
	case src.replay == nil && !mode.live():
		// A snapshot: its clock goes on from its newest time.
		replays = append(replays, tui.Replay{Start: src.clock0})
	}
	gates := src.gates
	sopts := scheduler.Options{Config: src.cfg, Registry: plugins.NewInTreeRegistry(), Seed: f.seed, Features: &gates.Features}
	var b *tui.Backend
	if mode.live() {
		// The live source stamps changes with the wall clock too.
		b, err = tui.NewLiveBackend(src.name, src.cluster, sopts, liveClock, replays...)
	} else {
		b, err = tui.NewBackend(src.name, src.cluster, sopts, replays...)
	}
	if err != nil {
		return fmt.Errorf("building the scheduler: %w", err)
	}
	if err := b.Retain(f.keepDetail); err != nil {
		return err
	}
	if mode.binds() {
		if err := b.SetBind(src.bind); err != nil {
			return err
		}
	}
	b.Scheduler = gates.Short()
	// The what-if object editor's YAML is loaded as explain --with's file.
	b.ParseObjects = func(name string, data []byte) ([]any, error) {
		return editObjects(name, data, src.cluster, gates.Features, io.Discard)
	}
	b.Name += mode.label()
	if src.skippedExtenders > 0 {
		b.Name += " · extenders skipped"
	}
	opts := tui.Options{Backend: b, Notice: src.notice(resume), Shown: growing, Lesson: f.lesson}
	if err := compareMode(&opts, src, f, replays, errw); err != nil {
		return err
	}
	if mode.live() {
		ts := newTUISource(src.name)
		src.status.set(ts.send)
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = src.live.Watch(wctx, func(c change.Change) error {
				err := b.Apply(c)
				liveApplied(c, err)
				return err
			})
		}()
		defer func() {
			cancel()
			src.live.Stop()
			<-done
			ts.close()
		}()
		n := len(live.Kinds())
		ts.send(live.Status{Connected: true, Synced: n, Total: n, Message: "synced; watching " + src.name})
		opts.Source = ts
	}
	return runTUI(opts, in, out)
}

// runTUI runs the debugger; tests replace it to see its options.
var runTUI = tui.Run

// liveApplied observes every live change applied to the TUI's engine
// (tests).
var liveApplied = func(change.Change, error) {}

// liveClock is the clock a live session's engine follows.
var liveClock change.Clock = change.WallClock{}

// tuiSource adapts a live source's status to tui.Source. Sending never
// blocks the watch: when the TUI lags, the oldest pending status is
// dropped (the status line shows the last one anyway).
type tuiSource struct {
	name   string
	ch     chan tui.SourceStatus
	mu     sync.Mutex
	closed bool
}

func newTUISource(name string) *tuiSource {
	return &tuiSource{name: name, ch: make(chan tui.SourceStatus, 256)}
}

func (s *tuiSource) Name() string                     { return s.name }
func (s *tuiSource) Updates() <-chan tui.SourceStatus { return s.ch }

func (s *tuiSource) send(st live.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	msg := st.Message
	if st.Warning && st.Err == nil {
		msg = "warning: " + msg
	}
	ts := tui.SourceStatus{Connected: st.Connected, Synced: st.Synced, Total: st.Total, LastEvent: msg, Err: st.Err}
	for {
		select {
		case s.ch <- ts:
			return
		default:
		}
		select {
		case <-s.ch:
		default:
		}
	}
}

func (s *tuiSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}
