package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// session drives the engine for the root: it runs one operation at a time
// in a Cmd (queueing keys typed ahead), captures the state after it,
// computes forks and diagnoses in the background, follows a live source
// and keeps the breakpoints. It writes Common's data and tells the root
// and the status bar what changed by posting messages.
type session struct {
	b   *Backend
	src Source
	c   *Common

	busy string
	// toAttempt: the running operation was started from the queue list;
	// show the attempt it makes.
	toAttempt bool
	// queued holds what arrived while an operation ran (keys, clicks,
	// wheel turns and operations), applied in order once it is done.
	queued []tea.Msg
	// liveCapturing: a capture after live changes is running; liveStale:
	// more changes arrived meanwhile.
	liveCapturing, liveStale bool
	// tick schedules the next tickMsg of a live session (clock.go);
	// ticking: a tick's advance is running.
	tick    func() tea.Cmd
	ticking bool

	// The attempts whose fork, diagnosis and hints are being computed.
	forkPending, diagPending, hintsPending map[attemptRef]bool

	// cmp is compare mode's second side (compare.go), nil outside it;
	// newCmp builds one for the C dialog (nil: not offered).
	cmp    *Comparison
	newCmp NewComparison

	// long is the long operation running in chunks (progress.go), nil
	// when none; now stamps its progress; chunkTime bounds each chunk,
	// and chunkAttempts, when set, too (tests).
	long *longOp
	now  func() time.Time
	// cancelOp cancels the operation running as one Cmd, when it can
	// stop early (a rewind); nil when none runs or it was cancelled.
	cancelOp      context.CancelFunc
	chunkTime     time.Duration
	chunkAttempts int64
}

func newSession(b *Backend, src Source, c *Common) *session {
	return &session{b: b, src: src, c: c, forkPending: map[attemptRef]bool{}, diagPending: map[attemptRef]bool{}, hintsPending: map[attemptRef]bool{},
		tick: everySecond, now: time.Now, chunkTime: chunkTime}
}

// Init captures the engine's initial state and starts following the
// live source.
func (s *session) Init() tea.Cmd {
	cmd := tea.Batch(s.engineCmd("loading", func() note { return note{} }), s.startTicking())
	if s.src != nil {
		return tea.Batch(cmd, waitSource(s.src.Updates()))
	}
	return cmd
}

// Update handles the session's messages.
func (s *session) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case engineMsg:
		return s.onEngine(msg)
	case runMsg:
		if msg.cancel != nil {
			return s.cancellableCmd(msg.label, msg.cancel, msg.op)
		}
		return s.engineCmd(msg.label, msg.op)
	case longMsg:
		return s.continueLong(msg.op)
	case chunkMsg:
		return s.onChunk(msg)
	case feedMsg:
		s.c.post(msg.msg)
		return msg.feed.wait()
	case forkMsg:
		delete(s.forkPending, msg.ref)
		if msg.f == nil || !s.shows(msg.ref) {
			return nil
		}
		i := msg.ref.i
		s.c.Forks[i] = msg.f
		if msg.f.err != nil && i == s.c.Focus {
			s.status("replaying the cluster for this attempt failed: "+msg.f.err.Error(), true)
		}
		s.c.post(stateMsg{allViews})
		if msg.f.err == nil && i == s.c.Focus {
			return s.hintsCmd(i)
		}
	case hintsMsg:
		s.onHints(msg)
	case diagMsg:
		delete(s.diagPending, msg.ref)
		if msg.d == nil || !s.shows(msg.ref) {
			return nil
		}
		i := msg.ref.i
		s.c.Diags[i] = msg.d
		changed := viewFilter
		if s.c.Forks[i] == nil {
			s.c.Forks[i] = msg.fork
			changed = allViews
		}
		s.c.post(stateMsg{changed})
	case needDiagMsg:
		return s.diagCmd(msg.attempt)
	case compareWithMsg:
		return s.compareWith(msg.side)
	case comparisonMsg:
		return s.onComparison(msg)
	case openPodMsg:
		return s.openPod(msg.pod)
	case focusAttemptMsg:
		s.focus(msg.attempt)
		s.c.post(goToMsg{msg.view, true})
		return s.ensureFork()
	case toggleBreakpointMsg:
		s.toggleBreakpoint(msg.bp)
	case removeBreakpointMsg:
		if msg.i >= 0 && msg.i < len(s.c.Bps) {
			s.c.Bps = append(s.c.Bps[:msg.i], s.c.Bps[msg.i+1:]...)
		}
	case runWhatIfMsg:
		a := s.c.focused()
		if a == nil {
			return nil
		}
		s.c.post(routed{viewWhatIf, whatIfStartedMsg{}}, goToMsg{viewWhatIf, true})
		return runWhatIf(s.b, s.c.Focus, a, msg.edit)
	case runObjectWhatIfMsg:
		a := s.c.focused()
		if a == nil {
			return nil
		}
		s.c.post(routed{viewWhatIf, whatIfStartedMsg{}}, goToMsg{viewWhatIf, true})
		return runWhatIfObjects(s.b, s.c.Focus, a, msg.edits)
	case sourceMsg:
		var redraw tea.Cmd
		if len(msg.batch) > 0 {
			redraw = s.liveCapture()
		}
		if msg.closed || s.src == nil {
			return redraw
		}
		return tea.Batch(redraw, waitSource(s.src.Updates()))
	case tickMsg:
		return s.onTick()
	case clockMsg:
		s.onClock(msg)
	case liveMsg:
		s.liveCapturing = false
		if s.busy == "" && msg.w != nil && msg.w.newer(s.c.World) {
			s.showWorld(msg.w)
			s.c.post(stateMsg{allViews})
		}
		if s.liveStale {
			s.liveStale = false
			return s.liveCapture()
		}
	}
	return nil
}

func (s *session) status(text string, isErr bool) { s.c.post(statusMsg{text, isErr, -1}) }

// ref names the shown world's attempt i for an async result.
func (s *session) ref(i int) attemptRef { return refTo(s.c.World, i) }

// shows reports whether the shown world still has r's attempt: a result
// for an attempt a rewind replaced is dropped.
func (s *session) shows(r attemptRef) bool { return s.c.World != nil && r.in(s.c.World.attempts) }

// waitSource delivers what a live source sent within one frame as one
// message, then is re-issued: watch events arrive in bursts and a frame
// per event would swamp the renderer.
func waitSource(ch <-chan SourceStatus) tea.Cmd {
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return sourceMsg{closed: true}
		}
		batch := []SourceStatus{s}
		for len(batch) < 1000 {
			select {
			case s, ok := <-ch:
				if !ok {
					return sourceMsg{batch: batch, closed: true}
				}
				batch = append(batch, s)
			default:
				return sourceMsg{batch: batch}
			}
		}
		return sourceMsg{batch: batch}
	}
}

// engineCmd runs op on the engine in a Cmd and captures the state after.
func (s *session) engineCmd(label string, op func() note) tea.Cmd {
	if s.hold(runMsg{label: label, op: op}) {
		return nil
	}
	s.busy = label
	s.c.post(busyMsg{label})
	s.toAttempt = s.c.Active == viewQueues && label != "loading"
	b, cmp := s.b, s.cmp
	return func() tea.Msg {
		var msg engineMsg
		b.Locked(func() {
			msg.note = op()
			msg.w = capture(b)
		})
		if cmp != nil {
			msg.right = syncRight(cmp, msg.w.attempts, msg.w.cursor.Attempt)
		}
		return msg
	}
}

// maxQueued bounds what is held while an operation runs: a held-down key
// must not queue minutes of work.
const maxQueued = 64

// hold keeps msg (a key typed ahead, a click or wheel turn, an operation)
// while an operation runs, to apply it in order after it; it reports
// whether msg was held.
func (s *session) hold(msg tea.Msg) bool {
	if s.busy == "" {
		return false
	}
	if len(s.queued) < maxQueued {
		s.queued = append(s.queued, msg)
	}
	return true
}

// holding reports whether something waits for the running operation.
func (s *session) holding() bool { return len(s.queued) > 0 }

// The debugger's operations, bound to n, s, c and u.

func (s *session) next() tea.Cmd {
	if s.c.MemberStep && s.stepMember(1) {
		return s.ensureFork()
	}
	return s.engineCmd("stepping", s.forecast(func() note {
		if a, ok := s.b.Step(); ok {
			return note{text: fmt.Sprintf("attempt #%d: %s %s", a.Seq, a.Pod, a.Outcome), attempt: true, firstMember: true}
		}
		if s.b.Shadowing() {
			return note{text: "shadow mode: no decision of the cluster's scheduler left to judge (they are judged as they arrive)"}
		}
		return note{text: s.nothingToSchedule()}
	}))
}

func (s *session) stepPhase() tea.Cmd {
	return s.engineCmd("stepping", s.forecast(func() note {
		c := s.b.StepPhase()
		if c.Attempt < 0 {
			return note{text: s.nothingToSchedule()}
		}
		return note{text: "phase " + c.Phase.String(), attempt: true}
	}))
}

func (s *session) continueToBreakpoint() tea.Cmd {
	bps := append([]engine.Breakpoint(nil), s.c.Bps...)
	none := note{text: "no breakpoint hit: nothing left to schedule"}
	if len(bps) == 0 {
		none = note{text: "no breakpoints set (b): ran until nothing was left to schedule"}
	}
	return s.continueLong(&longOp{label: "continuing", bps: bps, none: none,
		hit: func(i int) note { return note{text: "breakpoint hit: " + bpString(bps[i]), attempt: true} }})
}

// rewind undoes the last attempt. The engine's rewind replays up to a
// checkpoint interval of steps and can be cancelled during the replay
// (esc, Ctrl-C): the engine then stays at the last step replayed, an
// earlier point of the same run, and the status line says where.
func (s *session) rewind() tea.Cmd {
	feed := newProgressFeed("rewinding", "steps replayed", s.now)
	feed.cancellable = true
	ctx, cancel := context.WithCancel(context.Background())
	b := s.b
	inView := 0
	if a := s.c.focused(); a != nil {
		inView = a.Seq
	}
	op := s.rewindForecast(func() note {
		last := lastAttempt(b.Attempts())
		// The engine itself, not a forecast (rewindForecast rewinds those).
		if b.API != engine.API(b.engine) {
			if err := b.Rewind(1); err != nil {
				return note{text: "rewind: " + err.Error()}
			}
			return rewound(last, inView)
		}
		before := b.engine.Attempts().Len()
		err := b.engine.RewindCtx(ctx, 1, feed)
		switch {
		case errors.Is(err, context.Canceled):
			return rewindCancelled(before, b.engine.Attempts().Len())
		case err != nil:
			return note{text: "rewind: " + err.Error()}
		}
		return rewound(last, inView)
	})
	return tea.Batch(s.cancellableCmd("rewinding", cancel, func() note {
		defer cancel()
		defer feed.end()
		feed.begin()
		return op()
	}), feed.wait())
}

// lastAttempt is the engine's last attempt, or nil.
func lastAttempt(as history.AttemptLog) *record.Attempt {
	if as.Len() == 0 {
		return nil
	}
	return as.At(as.Len() - 1)
}

// rewound is the note of a rewind that undid attempt last: u undoes the
// engine's last attempt, which may not be the one in view (attempt
// number inView, 0 for none).
func rewound(last *record.Attempt, inView int) note {
	if last == nil {
		return note{text: "rewound to the start: no attempt made"}
	}
	text := fmt.Sprintf("rewound attempt #%d (%s %s), the engine's last", last.Seq, last.Pod, last.Outcome)
	if inView != 0 && inView != last.Seq {
		text += fmt.Sprintf(", not #%d in view", inView)
	}
	return note{text: text}
}

// rewindCancelled is the note of a rewind of one of before attempts
// cancelled with left attempts made.
func rewindCancelled(before, left int) note {
	if left == before {
		return note{text: "rewind cancelled before it began: nothing changed"}
	}
	at := "before the first attempt"
	if left > 0 {
		at = fmt.Sprintf("at attempt %s", progress.Count(int64(left)))
	}
	return note{text: fmt.Sprintf("rewind cancelled %s: the replay stopped there, %s attempt(s) further back than asked (n steps on as before)",
		at, progress.Count(int64(before-1-left))), attempt: left > 0}
}

// cancellableCmd is engineCmd for an operation that stops early once
// cancel is called (cancelLong).
func (s *session) cancellableCmd(label string, cancel context.CancelFunc, op func() note) tea.Cmd {
	if s.hold(runMsg{label: label, op: op, cancel: cancel}) {
		return nil
	}
	s.cancelOp = cancel
	return s.engineCmd(label, op)
}

func (s *session) onEngine(msg engineMsg) tea.Cmd {
	s.busy = ""
	s.cancelOp = nil
	s.c.post(busyMsg{})
	if msg.err != nil {
		s.status(msg.err.Error(), true)
		return nil
	}
	w := msg.w
	first := s.c.World == nil
	s.c.Right = msg.right
	if r := msg.right; r != nil && r.err != nil {
		s.status("compare: the second side could not rewind: "+r.err.Error(), true)
	}
	s.showWorld(w)
	s.c.post(stateMsg{allViews})
	if s.toAttempt && w.cursor.Attempt >= 0 {
		s.c.post(goToMsg{viewAttempt, true})
	}
	s.toAttempt = false
	s.c.Focus = w.cursor.Attempt
	s.c.MemberStep = false
	if msg.note.firstMember {
		msg.note = s.focusFirstMember(msg.note)
	}
	if first && w.cursor.Attempt < 0 {
		s.c.post(goToMsg{viewQueues, false})
	}
	if n := msg.note; n.text != "" {
		about := -1
		if n.attempt {
			about = s.c.Focus
		}
		s.c.post(statusMsg{n.text, false, about})
	}
	// What was typed ahead, in order, after the view switches above: the
	// keys act on the view the operation leaves. The first operation
	// among them holds the rest again.
	held := s.queued
	s.queued = nil
	s.c.post(held...)
	return s.ensureFork()
}

// showWorld replaces the state the views read, dropping the caches of
// attempts it no longer has (a rewind replaced them).
func (s *session) showWorld(w *world) {
	for i, f := range s.c.Forks {
		if !(attemptRef{i, f.attempt}).in(w.attempts) {
			delete(s.c.Forks, i)
		}
	}
	for i, d := range s.c.Diags {
		if !(attemptRef{i, d.attempt}).in(w.attempts) {
			delete(s.c.Diags, i)
		}
	}
	for i, h := range s.c.Hints {
		if !(attemptRef{i, h.attempt}).in(w.attempts) {
			delete(s.c.Hints, i)
		}
	}
	s.c.World = w
}

func (s *session) focus(i int) {
	s.c.Focus = i
	s.c.MemberStep = false
	s.c.post(stateMsg{allViews})
}

// ensureFork computes the focused attempt's fork in the background.
func (s *session) ensureFork() tea.Cmd {
	i := s.c.Focus
	if f := s.c.Forks[i]; f != nil && f.err == nil {
		return s.hintsCmd(i)
	}
	r := s.ref(i)
	if r.a == nil || s.c.Forks[i] != nil || s.forkPending[r] {
		return nil
	}
	s.forkPending[r] = true
	b := s.b
	return func() tea.Msg {
		var f *forkResult
		b.Locked(func() { f = newFork(b, r) })
		return forkMsg{ref: r, f: f}
	}
}

// diagCmd runs the full diagnosis of attempt i on its fork.
func (s *session) diagCmd(i int) tea.Cmd {
	r := s.ref(i)
	if r.a == nil || s.diagPending[r] || s.c.Diags[i] != nil {
		return nil
	}
	s.diagPending[r] = true
	b := s.b
	have := s.c.Forks[i]
	return func() tea.Msg {
		msg := diagMsg{ref: r, fork: have}
		b.Locked(func() {
			if !r.in(b.Attempts()) {
				return
			}
			msg.d = &diagResult{attempt: r.a}
			if msg.fork == nil || msg.fork.err != nil {
				msg.fork = newFork(b, r)
			}
			if msg.fork.err != nil {
				msg.d.err = msg.fork.err
				return
			}
			msg.d.d, msg.d.err = msg.fork.sched.Diagnose(msg.fork.pod)
		})
		return msg
	}
}

// liveCapture captures the engine's state after live changes so that
// every view shows them without a key press. One capture runs at a time;
// changes that arrive meanwhile get one more.
func (s *session) liveCapture() tea.Cmd {
	if s.liveCapturing {
		s.liveStale = true
		return nil
	}
	s.liveCapturing = true
	b := s.b
	return func() tea.Msg {
		var w *world
		b.Locked(func() { w = capture(b) })
		return liveMsg{w: w}
	}
}

// openPod shows a pod's last attempt, or runs the engine until the pod is
// attempted.
func (s *session) openPod(pod string) tea.Cmd {
	w := s.c.World
	if w == nil {
		return nil
	}
	for i := w.attempts.Len() - 1; i >= 0; i-- {
		if w.attempts.At(i).Pod == pod {
			s.focus(i)
			s.c.post(goToMsg{viewAttempt, true})
			return s.ensureFork()
		}
	}
	if indexIn(w.queue.ActiveQ, pod) < 0 {
		s.status(pod+" was never attempted (gated pods wait for their gates)", true)
		return nil
	}
	s.c.post(goToMsg{viewAttempt, true}, longMsg{&longOp{label: "running to " + pod,
		bps:  []engine.Breakpoint{{PodPattern: pod}},
		none: note{text: "the engine went quiet before " + pod + " was attempted"},
		hit:  func(int) note { return note{text: "stopped at " + pod, attempt: true} }}})
	return nil
}

func (s *session) toggleBreakpoint(bp engine.Breakpoint) {
	for i, b := range s.c.Bps {
		if b == bp {
			s.c.Bps = append(s.c.Bps[:i], s.c.Bps[i+1:]...)
			s.status("breakpoint removed: "+bpString(bp), false)
			return
		}
	}
	s.c.Bps = append(s.c.Bps, bp)
	s.status("breakpoint added: "+bpString(bp), false)
}
