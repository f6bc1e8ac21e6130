package engine

import (
	"errors"
	"fmt"
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
// the detailed window costs its archived line only (archive.go: a few
// dozen bytes with its timeline event).
type Retention struct {
	// Headless keeps nothing a headless run does not need: no op log and
	// no checkpoint (Rewind and Fork are refused), and each attempt is
	// archived once Options.OnEvent has been handed it. `schedtui run`.
	Headless bool
	// Detailed, when positive, keeps full detail for the last Detailed
	// attempts only, and for pinned attempts: the latest attempt of a pod
	// still pending and every attempt of a pod SetPinned names. Older
	// attempts are archived (archive.go): they keep their line, and come
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
	summary := e.archive.len() - len(e.pinnedIdx)
	r := Retained{Full: e.attemptCount() - summary, Summary: summary, Checkpoints: len(e.checkpoints), RewindableFrom: -1}
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
	n := e.opts.Retention.Detailed
	if e.opts.Retention.Headless || n <= 0 || len(e.attempts) <= n {
		return
	}
	for len(e.attempts) > n {
		i := e.archive.len()
		if i%n == 0 {
			e.recheckPinned()
		}
		if a := e.attempts[0]; e.pinnedAttempt(i, a) {
			e.pinnedIdx = append(e.pinnedIdx, i)
			e.pinnedAtt = append(e.pinnedAtt, a)
		}
		e.archive.add(e.attempts[0])
		e.attempts = e.attempts[1:]
	}
	// A new array: the old one's front still points at the attempts
	// just archived, and handed-out logs may read it, so it is not
	// cleared but left to them.
	e.attempts = slices.Clone(e.attempts)
}

// recheckPinned drops from the whole ones the archived attempts whose
// pods are no longer pinned: their lines are in the archive. New slices,
// as handed-out logs read the old ones.
func (e *Engine) recheckPinned() {
	var idx []int
	var att []*record.Attempt
	for k, i := range e.pinnedIdx {
		if a := e.pinnedAtt[k]; e.pinnedAttempt(i, a) {
			idx, att = append(idx, i), append(att, a)
		}
	}
	e.pinnedIdx, e.pinnedAtt = idx, att
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
	if e.lastAttempt != nil {
		// Its attempts not indexed yet would bring its entry back.
		e.indexAttempts()
		delete(e.lastAttempt, uid)
	}
	delete(e.stubs, uid)
	delete(e.boundInCluster, uid)
	delete(e.expiredAt, uid)
	e.mode.forget(uid)
}

// attemptCount is the number of attempts made.
func (e *Engine) attemptCount() int { return e.archive.len() + len(e.attempts) }

// attemptAt is attempt i, summarized when archived.
func (e *Engine) attemptAt(i int) *record.Attempt {
	if n := e.archive.len(); i >= n {
		return e.attempts[i-n]
	}
	return e.Attempts().At(i)
}

// podUIDAt is attempt i's pod UID.
func (e *Engine) podUIDAt(i int) types.UID {
	if n := e.archive.len(); i < n {
		return types.UID(e.archive.uid.at(i))
	}
	return types.UID(e.attempts[i-e.archive.len()].PodUID)
}

// timelineLen is the number of events in the timeline.
func (e *Engine) timelineLen() int { return e.evArchive.len() + len(e.timeline) }

// eventNumber is the number of timeline[k] among every event the timeline
// was given, those compaction dropped included: positions move down as
// the timeline is compacted, these numbers do not.
func (e *Engine) eventNumber(k int) int { return e.eventsDropped + e.evArchive.len() + k }

// truncate forgets the attempts from index attempts on and the events
// from position events on, for a restore. Full slice expressions: replay
// appends to fresh arrays, so logs handed out before keep their contents.
func (e *Engine) truncate(attempts, events int) {
	// Rebuilt from the attempts on the next lookup: the restored state may
	// hold pods deleted since, whose entries were forgotten.
	e.lastAttempt = nil
	if n := e.archive.len(); attempts >= n {
		k := attempts - n
		e.attempts = e.attempts[:k:k]
	} else {
		e.archive = e.archive.cut(attempts)
		e.attempts = nil
		k, _ := slices.BinarySearch(e.pinnedIdx, attempts)
		e.pinnedIdx, e.pinnedAtt = e.pinnedIdx[:k:k], e.pinnedAtt[:k:k]
	}
	// The archive ends at the oldest checkpoint's position (compactTimeline):
	// no restore goes further back.
	k := max(events-e.evArchive.len(), 0)
	e.timeline = e.timeline[:k:k]
}

// retainAfterRestore forgets the events handed out that a restore is
// about to make again by replay.
func (e *Engine) retainAfterRestore(c *checkpoint) {
	if e.emitted > c.timeline {
		e.emitted = c.timeline
	}
}

// emit hands the timeline's new events to Options.OnEvent, in order. In
// shadow mode an observation may still be judged again within
// ShadowWindow (reviseRecent): it and what follows wait, unless all is
// set (the run is over). A headless engine archives each attempt once
// handed out (without OnEvent, to nobody: the recorder's engine, which
// only asks the extenders), and in shadow mode keeps no event handed out:
// nothing reads them, and it follows a live cluster for as long as a
// recording lasts.
func (e *Engine) emit(all bool) {
	on := e.opts.OnEvent
	headless := e.opts.Retention.Headless
	if on == nil && !headless {
		return
	}
	end := e.timelineLen()
	if !all {
		if ev, ok := e.mode.revisable(); ok {
			// Every dropped event comes before a revisable one.
			end = min(end, ev-e.eventsDropped)
		}
	}
	for ; e.emitted < end; e.emitted++ {
		ev := e.timeline[e.emitted-e.evArchive.len()]
		// Numbered among every event (eventNumber): a headless engine
		// in shadow mode drops those handed out.
		ev.Seq = e.eventsDropped + e.emitted + 1
		if on != nil {
			var a *record.Attempt
			if ev.Kind == EventAttempt {
				a = e.attemptAt(ev.Attempt)
			}
			on(ev, a)
		}
		if ev.Kind == EventAttempt && headless {
			// Attempts are handed out in order. Cleared in place:
			// nothing else reads a headless engine's attempts.
			for e.archive.len() <= ev.Attempt {
				e.archive.add(e.attempts[0])
				e.attempts[0] = nil
				e.attempts = e.attempts[1:]
			}
		}
	}
	if headless && e.mode.dropsEmitted() {
		// Cleared in place, as the attempts are; the array goes when
		// appends outgrow it.
		k := e.emitted - e.evArchive.len()
		clear(e.timeline[:k])
		e.timeline = e.timeline[k:]
		e.eventsDropped += k
		e.emitted -= k
	}
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
// In shadow mode the horizon stops before the observations reviseRecent
// may still judge again, in place: the engine's, and those of the oldest
// checkpoint, which a rewind replays from (the later checkpoints' are
// later). They name their events by number (eventNumber), which
// compaction does not change.
func (e *Engine) compactTimeline() {
	if len(e.checkpoints) == 0 {
		return
	}
	horizon := e.checkpoints[0].timeline
	if e.opts.OnEvent != nil {
		horizon = min(horizon, e.emitted)
	}
	for _, s := range []interface{ revisable() (int, bool) }{e.mode, e.checkpoints[0].mode} {
		if ev, ok := s.revisable(); ok {
			horizon = min(horizon, ev-e.eventsDropped)
		}
	}
	base := e.evArchive.len()
	if horizon <= base {
		return
	}
	log := e.Attempts()
	for _, ev := range e.timeline[:horizon-base] {
		switch ev.Kind {
		case EventQueueMove, EventCluster:
			continue
		}
		e.evArchive.add(ev, log)
	}
	// Not cleared in place: handed-out logs may read the front; the
	// array goes when appends outgrow it.
	e.timeline = e.timeline[horizon-base:]
	dropped := horizon - e.evArchive.len()
	for _, c := range e.checkpoints {
		c.timeline -= dropped
	}
	if e.opts.OnEvent != nil {
		e.emitted -= dropped
	}
	e.eventsDropped += dropped
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
