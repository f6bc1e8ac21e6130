package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/record"
)

// Retention bounds what the engine keeps of the past. The zero value keeps
// everything: every attempt whole, the op log from the start, checkpoints
// thinned so that rewind reaches the first attempt.
//
// What the engine holds per attempt is the attempt's record (at 5000 nodes
// tens of kilobytes: every node's verdict, every score column, preemption's
// candidates), its timeline events (a few hundred bytes), the op that made
// it (tens of bytes; a cluster change holds its object) and, every
// CheckpointInterval attempts, a checkpoint (node and pod pointers, the
// NodeInfos that changed, the queue, the object store's maps). Records
// dominate, then checkpoints and the changes in the log. An attempt past
// the detailed window costs its archived line only (scheduler/history/archive.go: a few
// dozen bytes with its timeline event).
type Retention struct {
	// Headless keeps nothing a headless run does not need: no op log and
	// no checkpoint (Rewind and Fork are refused), and each attempt is
	// archived once Options.OnEvent has been handed it. `schedtui run`.
	Headless bool
	// LinesOnly, with Headless, records each attempt as its line alone
	// (record.Attempt.Summarize: outcome, node, message, nomination,
	// victims, phases, the plugins that rejected it), without its
	// per-node detail (every node's Filter status, the scores): for a
	// headless run whose printer writes the line only (`run -o json
	// --detail summary`); the decisions are the same. Not in shadow mode,
	// whose judgement reads the detail.
	LinesOnly bool
	// Detailed, when positive, keeps full detail for the last Detailed
	// attempts only, and for pinned attempts: the latest attempt of a pod
	// still pending and every attempt of a pod SetPinned names. Older
	// attempts are archived (scheduler/history): they keep their line, and come
	// out of Attempts as record.Attempt.Summary makes it (views holding
	// the whole one keep it). Rewinding to one replays it from a
	// checkpoint, whole again.
	Detailed int
	// Sliding makes the checkpoints a window: once MaxCheckpoints are
	// held, the oldest is dropped with the ops before the next one, so
	// memory stays bounded and a rewind replays at most CheckpointInterval
	// attempts; rewind then reaches back MaxCheckpoints ×
	// CheckpointInterval attempts and no further. Without it the
	// checkpoints are thinned: rewind reaches the start, at a replay cost
	// that doubles with each thinning.
	Sliding bool
}

// ErrNotRetained refuses a rewind or a fork to a point the retention
// policy no longer holds the history for.
var ErrNotRetained = errors.New("not retained")

// Retained says what the engine holds: attempts with full detail,
// summarized attempts, checkpoints, and the earliest attempt a rewind
// reaches (0 when it reaches the start; -1 when the engine keeps no
// checkpoint).
type Retained struct {
	Full, Summary, Checkpoints int
	RewindableFrom             int
}

// Retained reports what the engine holds now.
func (e *Engine) Retained() Retained {
	summary := e.hist.Summarized()
	r := Retained{Full: e.hist.Len() - summary, Summary: summary, Checkpoints: len(e.checkpoints), RewindableFrom: -1}
	if len(e.checkpoints) > 0 {
		r.RewindableFrom = e.checkpoints[0].attempts
	}
	return r
}

// SetRetention changes the retention policy of a running engine, the
// attempts between checkpoints when interval is positive and the number of
// checkpoints kept when maxCheckpoints is at least 2; it takes effect from
// the next op. Headless is chosen at New only.
func (e *Engine) SetRetention(r Retention, interval, maxCheckpoints int) error {
	if r.Headless != e.opts.Retention.Headless {
		return errors.New("headless retention is chosen when the engine is built")
	}
	if r.Detailed < 0 {
		return fmt.Errorf("detailed window %d: want 0 (keep every attempt whole) or more", r.Detailed)
	}
	e.opts.Retention = r
	if interval > 0 {
		e.opts.CheckpointInterval, e.ckptInterval = interval, interval
	}
	if maxCheckpoints >= 2 {
		e.opts.MaxCheckpoints = maxCheckpoints
	}
	return nil
}

// SetPinned names pods whose attempts keep full detail under
// Retention.Detailed (the TUI's selected pod, pods breakpoints name); nil
// for none. It is asked again as the detailed window moves on.
func (e *Engine) SetPinned(pinned func(pod string) bool) { e.pinned = pinned }

// retain hands out the events due and applies the retention policy; it
// runs after every op (logOp), never while replaying.
func (e *Engine) retain() {
	e.emit(false)
	if e.opts.Retention.Headless {
		return
	}
	e.hist.Detail(e.opts.Retention.Detailed, e.pinnedAttempt)
}

// pinnedAttempt: attempt i of a pod SetPinned names, or the latest attempt
// of a pod still waiting in the queue (the views explain it).
func (e *Engine) pinnedAttempt(i int, a *record.Attempt) bool {
	if e.pinned != nil && e.pinned(a.Pod) {
		return true
	}
	if last, _ := e.lastAttemptOf(types.UID(a.PodUID)); last != i {
		return false
	}
	ns, name := splitKey(a.Pod)
	_, pending := e.q.PodInfo(ns, name)
	return pending
}

// forgetPod forgets what the engine keeps about a pod it no longer holds
// (deleted, or evicted at the end of its grace period): a long run sees
// pods come and go without end. Checkpoints keep their own copies, and a
// rewind that brings the pod back rebuilds what it needs (indexAttempts;
// the stubs are made again on demand).
func (e *Engine) forgetPod(uid types.UID) {
	// lastGen is read for queued pods only; checkpoints copy it whole.
	delete(e.lastGen, uid)
	e.hist.ForgetPod(uid, e.heldPods)
	delete(e.stubs, uid)
	delete(e.boundInCluster, uid)
	delete(e.expiredAt, uid)
	e.mode.forget(uid)
}

// emit hands the timeline's new events to Options.OnEvent, in order. An
// event the mode may still rewrite in place (shadow mode judging an
// observation again within ShadowWindow) and what follows it wait, unless
// all is set (the run is over). A headless engine archives each attempt
// once handed out (without OnEvent, to nobody: the recorder's engine,
// which only asks the extenders), and drops the events handed out when
// the mode never reads them back.
func (e *Engine) emit(all bool) {
	on := e.opts.OnEvent
	headless := e.opts.Retention.Headless
	if on == nil && !headless {
		return
	}
	until := math.MaxInt
	if ev, ok := e.mode.revisable(); ok && !all {
		until = ev
	}
	e.hist.Emit(on, headless, until, e.mode.dropsEmitted())
}

// Flush hands Options.OnEvent every event not handed out yet: the end of a
// run, when no observation can be judged again.
func (e *Engine) Flush() { e.emit(true) }

// dropOldestCheckpoint is the sliding window's step: the oldest checkpoint
// goes, and with it the ops only it could replay.
func (e *Engine) dropOldestCheckpoint() {
	// Shifted, not resliced: the array's front would hold the dropped
	// checkpoint (a copy of the cluster) until appends outgrow it.
	e.checkpoints = slices.Delete(e.checkpoints, 0, 1)
	e.opts.ExtenderAnswers.ForgetBefore(uint64(e.checkpoints[0].attempts))
	first := e.checkpoints[0].ops
	e.log = append([]op(nil), e.log[first-e.logBase:]...)
	e.logBase = first
	e.compactTimeline()
	e.mode.forgetBefore(e.checkpoints[0].attempts)
}

// compactTimeline archives the timeline older than the oldest
// checkpoint, dropping its queue moves and cluster changes: no rewind
// reaches them any more, and on a long run they are most of the timeline
// (a pod's arrival, its moves, its deletion). Attempts, preemptions,
// evictions and observations stay: each attempt keeps its line. The
// timeline's positions after the horizon move down (EventLog numbers
// events by position), and so do the checkpoints' and the emitted count.
// The horizon stops before the events the mode may still rewrite in place
// (mode.revisable: shadow mode judging an observation again), the
// engine's and those of the oldest checkpoint, which a rewind replays
// from (the later checkpoints' are later). They name their events by
// number (history.Log.EventNumber), which compaction does not change.
func (e *Engine) compactTimeline() {
	if len(e.checkpoints) == 0 {
		return
	}
	horizon := e.checkpoints[0].timeline
	if e.opts.OnEvent != nil {
		horizon = min(horizon, e.hist.Emitted())
	}
	for _, s := range []interface{ revisable() (int, bool) }{e.mode, e.checkpoints[0].mode} {
		if ev, ok := s.revisable(); ok {
			horizon = min(horizon, ev-e.hist.Dropped())
		}
	}
	dropped := e.hist.Compact(horizon, e.opts.OnEvent != nil)
	for _, c := range e.checkpoints {
		c.timeline -= dropped
	}
}

// retainedFrom reports whether the engine can go back to just before
// attempt i: a checkpoint at or before it is held (with the sliding window
// the ops before the oldest one are gone).
func (e *Engine) retainedFrom(i int) bool {
	return len(e.checkpoints) > 0 && e.checkpoints[0].attempts <= i
}

// notRetained is the error for a rewind or fork to attempt i beyond what
// the engine holds.
func (e *Engine) notRetained(i int) error {
	if e.opts.Retention.Headless {
		return fmt.Errorf("attempt %d: a headless run keeps no history to replay: %w", i, ErrNotRetained)
	}
	r := e.Retained()
	return fmt.Errorf("attempt %d is before the oldest checkpoint (attempt %d): %w", i, r.RewindableFrom, ErrNotRetained)
}

// heldPods are the UIDs of the pods the engine holds.
func (e *Engine) heldPods() map[string]bool {
	held := map[string]bool{}
	for _, p := range e.sched.Objects().Pods() {
		held[string(p.UID)] = true
	}
	return held
}

// lastAttemptOf returns the newest attempt for a pod, or -1 and nil.
func (e *Engine) lastAttemptOf(uid types.UID) (int, *record.Attempt) {
	return e.hist.LastAttemptOf(uid, e.heldPods)
}
