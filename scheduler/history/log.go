package history

import (
	"math"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/record"
)

// Log is a run's history as the engine writes it: every attempt and every
// timeline event, the attempts past the detailed window archived but for
// the pinned ones (Detail), the events older than every checkpoint
// archived with their queue moves and cluster changes dropped (Compact),
// what has been handed out as it happened (Emit), and the newest attempt
// per pod. Views handed out (Attempts, Timeline) keep reading what they
// were handed: nothing is written below a length a view holds, but for the
// events a shadow-mode engine may still rewrite in place (Revise), which a
// view copies.
//
// A Log is a value: Fork shares the arrays with a fork of the engine,
// which appends to fresh ones once it is cut back (Truncate).
type Log struct {
	attempts []*record.Attempt
	timeline []Event
	// archive holds the lines of the attempts before attempts[0], except
	// pinnedAtt, archived attempts left whole (pinnedIdx their indexes,
	// sorted); both are only appended to or replaced, never written in
	// place, as handed-out logs read them.
	archive   attemptArchive
	pinnedIdx []int
	pinnedAtt []*record.Attempt
	// evArchive holds the timeline's events before timeline[0]: the
	// attempts, preemptions, evictions and observations older than every
	// checkpoint; eventsDropped queue moves and cluster changes older
	// than that were dropped.
	evArchive     eventArchive
	eventsDropped int
	// emitted counts the events handed out (Emit).
	emitted int
	// lastAttempt indexes the newest attempt per pod over the first
	// attemptIndexed attempts.
	lastAttempt    map[types.UID]int
	attemptIndexed int
	// groups are the pod-group cycles, in order; each member's attempt is
	// in attempts (GroupMember.Attempt).
	groups []*record.GroupAttempt
}

// Fork is a copy of the log for a fork of the engine: it shares the
// arrays, appends to fresh ones, and has handed nothing out.
func (l *Log) Fork() Log {
	k, j := len(l.attempts), len(l.timeline)
	g := len(l.groups)
	return Log{attempts: l.attempts[:k:k], timeline: l.timeline[:j:j], archive: l.archive, pinnedIdx: l.pinnedIdx, pinnedAtt: l.pinnedAtt,
		evArchive: l.evArchive, eventsDropped: l.eventsDropped, groups: l.groups[:g:g]}
}

// Len is the number of attempts made.
func (l *Log) Len() int { return l.archive.len() + len(l.attempts) }

// At is attempt i, summarized when archived.
func (l *Log) At(i int) *record.Attempt {
	if n := l.archive.len(); i >= n {
		return l.attempts[i-n]
	}
	return l.Attempts().At(i)
}

// podUID is attempt i's pod UID.
func (l *Log) podUID(i int) types.UID {
	if n := l.archive.len(); i < n {
		return types.UID(l.archive.uid.at(i))
	}
	return types.UID(l.attempts[i-l.archive.len()].PodUID)
}

// Add appends an attempt and returns its index.
func (l *Log) Add(a *record.Attempt) int {
	l.attempts = append(l.attempts, a)
	return l.Len() - 1
}

// Last is the newest attempt kept whole, or nil.
func (l *Log) Last() *record.Attempt {
	if len(l.attempts) == 0 {
		return nil
	}
	return l.attempts[len(l.attempts)-1]
}

// Whole is the number of the latest attempts kept whole (past the
// archive), and Summarized the number of archived attempts that come out
// summarized (not pinned).
func (l *Log) Whole() int      { return len(l.attempts) }
func (l *Log) Summarized() int { return l.archive.len() - len(l.pinnedIdx) }

// Events is the number of events in the timeline.
func (l *Log) Events() int { return l.evArchive.len() + len(l.timeline) }

// AddEvent appends an event, numbered (Seq) after the others.
func (l *Log) AddEvent(ev Event) {
	ev.Seq = l.Events() + 1
	l.timeline = append(l.timeline, ev)
}

// EventNumber is the number of the k-th event not archived among every
// event the timeline was given, those compaction dropped included:
// positions move down as the timeline is compacted, these numbers do not.
func (l *Log) EventNumber(k int) int { return l.eventsDropped + l.evArchive.len() + k }

// Dropped is the number of events compaction dropped.
func (l *Log) Dropped() int { return l.eventsDropped }

// Tail is the events not archived, oldest first (the k-th is numbered
// EventNumber(k)); it is only read.
func (l *Log) Tail() []Event { return l.timeline }

// Numbered is the event numbered n, when it is not archived.
func (l *Log) Numbered(n int) (Event, bool) {
	if k := n - l.EventNumber(0); k >= 0 && k < len(l.timeline) {
		return l.timeline[k], true
	}
	return Event{}, false
}

// Revise rewrites the event numbered n in place, when it is not archived
// (shadow mode judging an observation again; views copy those events).
func (l *Log) Revise(n int, ev Event) {
	if k := n - l.EventNumber(0); k >= 0 && k < len(l.timeline) {
		l.timeline[k] = ev
	}
}

// Unshare moves the events not archived to a new array, for rewrites
// that logs handed out before must not see.
func (l *Log) Unshare() { l.timeline = slices.Clone(l.timeline) }

// Attempts is every attempt so far (those older than the detailed window
// summarized).
func (l *Log) Attempts() AttemptLog {
	return AttemptLog{archive: l.archive.view(), pinnedIdx: l.pinnedIdx, pinned: l.pinnedAtt, whole: l.attempts}
}

// Timeline is every event so far. Those numbered from rewritable on (an
// event number; math.MaxInt for none) may be rewritten in place: the log
// holds a copy of them.
func (l *Log) Timeline(rewritable int) EventLog {
	v := EventLog{archive: l.evArchive, attempts: l.Attempts(), tail: l.timeline, recentFrom: len(l.timeline), dropped: l.eventsDropped}
	if rewritable != math.MaxInt {
		from := min(len(l.timeline), rewritable-l.EventNumber(0))
		v.tail, v.recentFrom, v.recent = l.timeline[:from], from, slices.Clone(l.timeline[from:])
	}
	return v
}

// Truncate forgets the attempts from index attempts on and the events
// from position events on, for a restore. Full slice expressions: replay
// appends to fresh arrays, so logs handed out before keep their contents.
func (l *Log) Truncate(attempts, events int) {
	// Rebuilt from the attempts on the next lookup: the restored state may
	// hold pods deleted since, whose entries were forgotten.
	l.lastAttempt = nil
	if n := l.archive.len(); attempts >= n {
		k := attempts - n
		l.attempts = l.attempts[:k:k]
	} else {
		l.archive = l.archive.cut(attempts)
		l.attempts = nil
		k, _ := slices.BinarySearch(l.pinnedIdx, attempts)
		l.pinnedIdx, l.pinnedAtt = l.pinnedIdx[:k:k], l.pinnedAtt[:k:k]
	}
	for len(l.groups) > 0 && l.groups[len(l.groups)-1].FirstAttempt >= attempts {
		l.groups = l.groups[: len(l.groups)-1 : len(l.groups)-1]
	}
	// The archive ends at the oldest checkpoint's position (Compact): no
	// restore goes further back.
	k := max(events-l.evArchive.len(), 0)
	l.timeline = l.timeline[:k:k]
	if l.emitted > events {
		// Handed out again as the replay makes them again.
		l.emitted = events
	}
}

// Detail archives the attempts but the last n (positive), keeping whole
// those pinned says (asked again of the archived ones kept whole every n
// attempts archived).
func (l *Log) Detail(n int, pinned func(i int, a *record.Attempt) bool) {
	if n <= 0 || len(l.attempts) <= n {
		return
	}
	for len(l.attempts) > n {
		i := l.archive.len()
		if i%n == 0 {
			l.recheckPinned(pinned)
		}
		if a := l.attempts[0]; pinned(i, a) {
			l.pinnedIdx = append(l.pinnedIdx, i)
			l.pinnedAtt = append(l.pinnedAtt, a)
		}
		l.archive.add(l.attempts[0])
		l.attempts = l.attempts[1:]
	}
	// A new array: the old one's front still points at the attempts
	// just archived, and handed-out logs may read it, so it is not
	// cleared but left to them.
	l.attempts = slices.Clone(l.attempts)
}

// recheckPinned drops from the whole ones the archived attempts no longer
// pinned: their lines are in the archive. New slices, as handed-out logs
// read the old ones.
func (l *Log) recheckPinned(pinned func(i int, a *record.Attempt) bool) {
	var idx []int
	var att []*record.Attempt
	for k, i := range l.pinnedIdx {
		if a := l.pinnedAtt[k]; pinned(i, a) {
			idx, att = append(idx, i), append(att, a)
		}
	}
	l.pinnedIdx, l.pinnedAtt = idx, att
}

// Emit hands on (when set) the events not handed out yet, up to the one
// numbered until (excluded; math.MaxInt for all), in order, with the
// attempt of an EventAttempt. A headless log archives each attempt once
// handed out, and with drop also drops the events handed out: nothing
// reads them back.
func (l *Log) Emit(on func(Event, *record.Attempt), headless bool, until int, drop bool) {
	end := l.Events()
	if until != math.MaxInt {
		// Every dropped event comes before until.
		end = min(end, until-l.eventsDropped)
	}
	for ; l.emitted < end; l.emitted++ {
		ev := l.timeline[l.emitted-l.evArchive.len()]
		// Numbered among every event (EventNumber): a headless log that
		// drops the events handed out.
		ev.Seq = l.eventsDropped + l.emitted + 1
		if on != nil {
			var a *record.Attempt
			if ev.Kind == EventAttempt {
				a = l.At(ev.Attempt)
			}
			on(ev, a)
		}
		if ev.Kind == EventAttempt && headless {
			// Attempts are handed out in order. Cleared in place:
			// nothing else reads a headless engine's attempts.
			for l.archive.len() <= ev.Attempt {
				l.archive.add(l.attempts[0])
				l.attempts[0] = nil
				l.attempts = l.attempts[1:]
			}
		}
	}
	if headless && drop {
		// Cleared in place, as the attempts are; the array goes when
		// appends outgrow it.
		k := l.emitted - l.evArchive.len()
		clear(l.timeline[:k])
		l.timeline = l.timeline[k:]
		l.eventsDropped += k
		l.emitted -= k
	}
}

// Emitted is the number of events handed out (Emit) but those dropped.
func (l *Log) Emitted() int { return l.emitted }

// Compact archives the timeline before position horizon, dropping its
// queue moves and cluster changes (no rewind reaches them any more, and on
// a long run they are most of the timeline: a pod's arrival, its moves,
// its deletion). Attempts, preemptions, evictions and observations stay:
// each attempt keeps its line. The positions after the horizon move down
// by the number of events dropped, which it returns (0: nothing moved);
// emitted says the emitted count moves with them.
func (l *Log) Compact(horizon int, emitted bool) (dropped int) {
	base := l.evArchive.len()
	if horizon <= base {
		return 0
	}
	log := l.Attempts()
	for _, ev := range l.timeline[:horizon-base] {
		if ev.KeptByCompaction() {
			l.evArchive.add(ev, log)
		}
	}
	// Not cleared in place: handed-out logs may read the front; the array
	// goes when appends outgrow it.
	l.timeline = l.timeline[horizon-base:]
	dropped = horizon - l.evArchive.len()
	if emitted {
		l.emitted -= dropped
	}
	l.eventsDropped += dropped
	return dropped
}

// LastAttemptOf is the newest attempt for a pod, or -1 and nil. held
// lists the UIDs of the pods the engine holds, asked when the index is
// rebuilt.
func (l *Log) LastAttemptOf(uid types.UID, held func() map[string]bool) (int, *record.Attempt) {
	l.indexAttempts(held)
	i, ok := l.lastAttempt[uid]
	if !ok {
		return -1, nil
	}
	return i, l.At(i)
}

// ForgetPod forgets a pod the engine no longer holds (deleted, or evicted
// at the end of its grace period): a long run sees pods come and go
// without end. A rewind that brings the pod back rebuilds the index
// (Truncate).
func (l *Log) ForgetPod(uid types.UID, held func() map[string]bool) {
	if l.lastAttempt != nil {
		// Its attempts not indexed yet would bring its entry back.
		l.indexAttempts(held)
		delete(l.lastAttempt, uid)
	}
}

// Indexed is the number of pods the newest-attempt index holds.
func (l *Log) Indexed() int { return len(l.lastAttempt) }

// indexAttempts brings lastAttempt up to date. It holds the pods the
// engine holds: a deleted pod's entry is forgotten (ForgetPod), so that a
// long run does not keep one per pod it ever saw. A rewind may bring such
// a pod back: Truncate drops the index, and it is rebuilt here from every
// attempt, for the pods there are now.
func (l *Log) indexAttempts(heldPods func() map[string]bool) {
	n := l.Len()
	if l.lastAttempt == nil || l.attemptIndexed > n {
		l.lastAttempt, l.attemptIndexed = map[types.UID]int{}, 0
		held := heldPods()
		for ; l.attemptIndexed < l.archive.len(); l.attemptIndexed++ {
			// Read in place: the archive's column would make a string
			// of each.
			if uid := l.archive.uid.bytesAt(l.attemptIndexed); held[string(uid)] {
				l.lastAttempt[types.UID(uid)] = l.attemptIndexed
			}
		}
		for ; l.attemptIndexed < n; l.attemptIndexed++ {
			if uid := l.podUID(l.attemptIndexed); held[string(uid)] {
				l.lastAttempt[uid] = l.attemptIndexed
			}
		}
	}
	// The attempts made since are of pods held: ForgetPod indexes before
	// it forgets.
	for ; l.attemptIndexed < n; l.attemptIndexed++ {
		l.lastAttempt[l.podUID(l.attemptIndexed)] = l.attemptIndexed
	}
}

// Archived is the number of attempts archived (summarized or pinned) and
// of events archived (kept past compaction); ArchivedEvents says how the
// latter are kept: observations in columns, other events (preemptions,
// evictions) whole. What memory tests and benchmarks measure.
func (l *Log) Archived() (attempts, events int) { return l.archive.len(), l.evArchive.len() }
func (l *Log) ArchivedEvents() (observations, whole int) {
	return l.evArchive.obs.len(), len(l.evArchive.others)
}

// AddGroup appends a pod-group cycle, its members' attempts already
// added, and returns its index.
func (l *Log) AddGroup(g *record.GroupAttempt) int {
	l.groups = append(l.groups, g)
	return len(l.groups) - 1
}

// Groups are the pod-group cycles made, in order. The slice is the
// caller's to read: later cycles are appended past its length.
func (l *Log) Groups() []*record.GroupAttempt {
	n := len(l.groups)
	return l.groups[:n:n]
}

// GroupOf is the pod-group cycle attempt i was made in, if any.
func (l *Log) GroupOf(i int) (*record.GroupAttempt, bool) {
	// Groups are in attempt order: the last one starting at or before i
	// is the only candidate.
	k := sort.Search(len(l.groups), func(k int) bool { return l.groups[k].FirstAttempt > i }) - 1
	if k < 0 {
		return nil, false
	}
	g := l.groups[k]
	if i >= g.FirstAttempt+len(g.Members) {
		return nil, false
	}
	return g, true
}
