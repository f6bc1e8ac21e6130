package history

import (
	"iter"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/schedtui/schedtui/scheduler/record"
)

// The archive keeps the summary lines of the attempts older than the
// detailed window (Retention.Detailed) and the timeline events older than
// the oldest checkpoint, a few dozen bytes each, so that a debugger left
// open for days on a busy cluster holds every attempt's line without
// holding a record.Attempt (about 0.7 KB even summarized: the phases
// alone are twelve statuses) or an Event (about 0.3 KB) per line.
//
// An attempt's line is record.Attempt.Summary. Its columns are what differs
// from one attempt to the next (sequence number, time, pod, UID, node);
// the rest (outcome, message, nomination, victims, phases, rejecting
// plugins, priority, profile) is its shape, interned: a busy cluster makes
// many attempts of few shapes. An archived event is a reference: to its
// attempt, whose line says all an attempt event says, or to a copy of the
// event (preemptions, evictions, observations: few).
//
// Every column is append-only, and cut with full slice expressions, so
// that a view handed out (AttemptLog, EventLog) keeps reading what it was
// handed while the engine goes on: nothing is written below a length a
// view holds.

// attemptShape is what an archived attempt shares with others like it.
type attemptShape struct {
	priority         int32
	profile          string
	outcome          record.Outcome
	message          string
	nominated        string
	victims          string // joinList
	unschedulable    string // joinList
	pending          string // joinList
	phases           [record.NumPhases]record.PhaseStatus
	nominatedFastPth bool
	loc              *time.Location
}

// attemptArchive is the archived attempts' columns; index i is attempt i.
type attemptArchive struct {
	seq   []int32
	at    []int64 // nanoseconds since the Unix epoch, in the shape's location
	node  []uint32
	shape []uint32
	pod   textColumn
	uid   textColumn
	// tables are shared by every view and fork: they only grow.
	tables *archiveTables
}

type archiveTables struct {
	nodes    []string
	nodeIdx  map[string]uint32
	shapes   []attemptShape
	shapeIdx map[attemptShape]uint32
}

// textColumn is strings laid end to end.
type textColumn struct {
	bytes []byte
	ends  []uint32
}

func (c textColumn) add(s string) textColumn {
	c.bytes = append(c.bytes, s...)
	c.ends = append(c.ends, uint32(len(c.bytes)))
	return c
}

func (c textColumn) at(i int) string { return string(c.bytesAt(i)) }

// bytesAt is string i in place: not to be kept or written.
func (c textColumn) bytesAt(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.bytes[start:c.ends[i]]
}

// from is the column without its first n strings, copied so that theirs
// can go.
func (c textColumn) from(n int) textColumn {
	start := uint32(0)
	if n > 0 {
		start = c.ends[n-1]
	}
	out := textColumn{bytes: append([]byte(nil), c.bytes[start:]...), ends: make([]uint32, len(c.ends)-n)}
	for i, end := range c.ends[n:] {
		out.ends[i] = end - start
	}
	return out
}

func (c textColumn) cut(n int) textColumn {
	end := 0
	if n > 0 {
		end = int(c.ends[n-1])
	}
	return textColumn{bytes: c.bytes[:end:end], ends: c.ends[:n:n]}
}

func (r *attemptArchive) len() int { return len(r.seq) }

// add archives a's line as attempt r.len().
func (r *attemptArchive) add(a *record.Attempt) {
	if r.tables == nil {
		r.tables = &archiveTables{nodeIdx: map[string]uint32{}, shapeIdx: map[attemptShape]uint32{}}
	}
	t := r.tables
	s := attemptShape{priority: a.Priority, profile: a.Profile, outcome: a.Outcome, message: a.Message, nominated: a.Nominated,
		victims: joinList(a.Victims), unschedulable: joinList(a.UnschedulablePlugins), pending: joinList(a.PendingPlugins),
		phases: a.Phases, nominatedFastPth: a.NominatedFastPath, loc: a.Time.Location()}
	si, ok := t.shapeIdx[s]
	if !ok {
		si = uint32(len(t.shapes))
		t.shapes = append(t.shapes, s)
		t.shapeIdx[s] = si
	}
	ni, ok := t.nodeIdx[a.Node]
	if !ok {
		ni = uint32(len(t.nodes))
		t.nodes = append(t.nodes, a.Node)
		t.nodeIdx[a.Node] = ni
	}
	r.seq = append(r.seq, int32(a.Seq))
	r.at = append(r.at, a.Time.UnixNano())
	r.node = append(r.node, ni)
	r.shape = append(r.shape, si)
	r.pod = r.pod.add(a.Pod)
	r.uid = r.uid.add(a.PodUID)
}

// cut is the archive's first n attempts, sharing the columns.
func (r attemptArchive) cut(n int) attemptArchive {
	return attemptArchive{seq: r.seq[:n:n], at: r.at[:n:n], node: r.node[:n:n], shape: r.shape[:n:n],
		pod: r.pod.cut(n), uid: r.uid.cut(n), tables: r.tables}
}

// view is the archive as it is now, for readers outside the engine lock:
// the tables' slices are read at their current length.
func (r attemptArchive) view() archiveView {
	if r.tables == nil {
		return archiveView{}
	}
	return archiveView{attemptArchive: r, nodes: r.tables.nodes, shapes: r.tables.shapes}
}

type archiveView struct {
	attemptArchive
	nodes  []string
	shapes []attemptShape
}

// summary is archived attempt i as record.Attempt.Summary made it.
func (v archiveView) summary(i int) *record.Attempt {
	s := v.shapes[v.shape[i]]
	a := &record.Attempt{Seq: int(v.seq[i]), Time: time.Unix(0, v.at[i]).In(s.loc), Pod: v.pod.at(i), PodUID: v.uid.at(i),
		Priority: s.priority, Profile: s.profile, Outcome: s.outcome, Node: v.nodes[v.node[i]], Message: s.message,
		Nominated: s.nominated, Victims: splitList(s.victims), Phases: s.phases, NominatedFastPath: s.nominatedFastPth,
		UnschedulablePlugins: splitList(s.unschedulable), PendingPlugins: splitList(s.pending)}
	a.Summarize()
	return a
}

// joinList encodes a list so that nil and empty stay apart.
func joinList(ss []string) string {
	if ss == nil {
		return ""
	}
	return "\x01" + strings.Join(ss, "\x00")
}

func splitList(s string) []string {
	switch s {
	case "":
		return nil
	case "\x01":
		return []string{}
	}
	return strings.Split(s[1:], "\x00")
}

// AttemptLog is the engine's attempts at one moment: a length and random
// access, safe to read after the engine moved on (it never writes below
// the length a log was handed out with). Attempts older than the detailed
// window come out summarized, a new copy at each At.
type AttemptLog struct {
	archive archiveView
	// pinned are archived attempts kept whole (pinnedIdx sorted).
	pinnedIdx []int
	pinned    []*record.Attempt
	// whole are the attempts after the archive's.
	whole []*record.Attempt
}

// AttemptsOf is a log of the given attempts, all whole: views over
// attempts no engine made (benchmarks of the views).
func AttemptsOf(attempts ...*record.Attempt) AttemptLog { return AttemptLog{whole: attempts} }

// Len is the number of attempts.
func (l AttemptLog) Len() int { return l.archive.len() + len(l.whole) }

// At is attempt i (0 ≤ i < Len).
func (l AttemptLog) At(i int) *record.Attempt {
	n := l.archive.len()
	if i >= n {
		return l.whole[i-n]
	}
	if k, ok := slices.BinarySearch(l.pinnedIdx, i); ok {
		return l.pinned[k]
	}
	return l.archive.summary(i)
}

// podOf is attempt i's pod, without making the attempt's summary.
func (l AttemptLog) podOf(i int) string {
	if n := l.archive.len(); i >= n {
		return l.whole[i-n].Pod
	}
	return l.archive.pod.at(i)
}

// Slice is attempts [from, to) in a new slice.
func (l AttemptLog) Slice(from, to int) []*record.Attempt {
	out := make([]*record.Attempt, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, l.At(i))
	}
	return out
}

// All yields every attempt with its index, in order.
func (l AttemptLog) All() iter.Seq2[int, *record.Attempt] {
	return func(yield func(int, *record.Attempt) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Whole yields the attempts kept whole (not summarized by retention) with
// their indexes, in order.
func (l AttemptLog) Whole() iter.Seq2[int, *record.Attempt] {
	return func(yield func(int, *record.Attempt) bool) {
		for k, i := range l.pinnedIdx {
			if !yield(i, l.pinned[k]) {
				return
			}
		}
		n := l.archive.len()
		for k, a := range l.whole {
			if !yield(n+k, a) {
				return
			}
		}
	}
}

// eventArchive is the archived timeline: ref k ≥ 0 is the event of
// attempt k; for ref < 0, ^ref is 2i for others[i] and 2i+1 for
// observation i. Shadow mode makes an observation per attempt, so they are
// kept in columns too (an Event with its judged state and strings is about
// 0.4 KB; a column row is a quarter of that).
type eventArchive struct {
	refs   []int32
	others []Event
	obs    observationArchive
}

// observationArchive holds the observations of an attempt: their pod is
// the attempt's, the rest is in columns, what repeats interned.
type observationArchive struct {
	at        []int64
	attempt   []int32
	node      []uint32 // into names
	predicted []uint32
	shape     []uint32
	bound     []int32
	// The texts (why, what is uncertain, the pods in flight, as of when)
	// are kept for rows textFrom on only: unlike the rest of a row they
	// are hundreds of bytes a decision, all different, and a day of a
	// busy cluster would have them grow past everything else kept.
	textFrom  int
	message   textColumn
	uncertain textColumn
	inFlight  textColumn // joinList
	asOf      textColumn
	// names and shapes are read by views at the length they were handed
	// out with; the maps, the writer's only, find them.
	names  []string
	shapes []observationShape
	index  *observationIndex
}

// observationShape is what many observations share.
type observationShape struct {
	reason, clusterMessage string
	judged                 bool
	loc                    *time.Location
}

type observationIndex struct {
	names  map[string]uint32
	shapes map[observationShape]uint32
}

func (r eventArchive) len() int { return len(r.refs) }

// add archives ev, whose line the attempt log already holds when it is an
// attempt's own event.
func (r *eventArchive) add(ev Event, attempts AttemptLog) {
	if ev.Kind == EventAttempt && ev.Attempt >= 0 && ev.Attempt < attempts.Len() && sameEvent(ev, attemptEvent(attempts.At(ev.Attempt), ev.Attempt)) {
		r.refs = append(r.refs, int32(ev.Attempt))
		return
	}
	if ev.Kind == EventObserved && ev.Attempt >= 0 && ev.Attempt < attempts.Len() && attempts.podOf(ev.Attempt) == ev.Pod {
		k := r.obs.len()
		r.obs.add(ev)
		if sameEvent(ev, r.obs.event(k, attempts)) {
			r.refs = append(r.refs, ^int32(2*k+1))
			return
		}
		// What the columns do not keep: as it is. The row is left, unread.
	}
	r.refs = append(r.refs, ^int32(2*len(r.others)))
	r.others = append(r.others, ev)
}

// at is archived event i.
func (r eventArchive) at(i int, attempts AttemptLog) Event {
	ref := r.refs[i]
	switch {
	case ref >= 0:
		return attemptEvent(attempts.At(int(ref)), int(ref))
	case (^ref)%2 == 1:
		return r.obs.event(int(^ref/2), attempts)
	}
	return r.others[^ref/2]
}

func (o observationArchive) len() int { return len(o.at) }

func (o *observationArchive) intern(name string) uint32 {
	i, ok := o.index.names[name]
	if !ok {
		i = uint32(len(o.names))
		o.names = append(o.names, name)
		o.index.names[name] = i
	}
	return i
}

// add appends ev's row.
func (o *observationArchive) add(ev Event) {
	if o.index == nil {
		o.index = &observationIndex{names: map[string]uint32{}, shapes: map[observationShape]uint32{}}
	}
	s := observationShape{reason: ev.Reason, clusterMessage: ev.ClusterMessage, judged: ev.Judged != nil, loc: ev.Time.Location()}
	si, ok := o.index.shapes[s]
	if !ok {
		si = uint32(len(o.shapes))
		o.shapes = append(o.shapes, s)
		o.index.shapes[s] = si
	}
	var judged JudgedOn
	if ev.Judged != nil {
		judged = *ev.Judged
	}
	o.at = append(o.at, ev.Time.UnixNano())
	o.attempt = append(o.attempt, int32(ev.Attempt))
	o.node = append(o.node, o.intern(ev.Node))
	o.predicted = append(o.predicted, o.intern(ev.Predicted))
	o.shape = append(o.shape, si)
	o.bound = append(o.bound, int32(judged.Bound))
	o.message = o.message.add(ev.Message)
	o.uncertain = o.uncertain.add(ev.Uncertain)
	o.inFlight = o.inFlight.add(joinList(judged.InFlight))
	o.asOf = o.asOf.add(judged.AsOf)
	if kept := o.len() - o.textFrom; kept >= 2*observationTextsKept {
		drop := kept - observationTextsKept
		o.message, o.uncertain = o.message.from(drop), o.uncertain.from(drop)
		o.inFlight, o.asOf = o.inFlight.from(drop), o.asOf.from(drop)
		o.textFrom += drop
	}
}

// observationTextsKept is how many archived observations at least keep
// their texts (observationArchive.textFrom), up to twice that before the
// oldest half goes: at 10 decisions a second, the last 15 to 30 minutes
// before the rewind window, whose own decisions keep theirs whole; at
// 5000 nodes each row's texts take about a kilobyte.
var observationTextsKept = 10000

// textsDropped is an archived observation's message once its texts went.
const textsDropped = "(explanation no longer kept: only the newest archived observations keep theirs)"

// event is observation k.
func (o observationArchive) event(k int, attempts AttemptLog) Event {
	s := o.shapes[o.shape[k]]
	i := int(o.attempt[k])
	ev := Event{Kind: EventObserved, Time: time.Unix(0, o.at[k]).In(s.loc), Pod: attempts.podOf(i), Attempt: i, Reason: s.reason,
		Node: o.names[o.node[k]], Predicted: o.names[o.predicted[k]], Message: textsDropped, ClusterMessage: s.clusterMessage}
	if s.judged {
		ev.Judged = &JudgedOn{Bound: int(o.bound[k])}
	}
	if t := k - o.textFrom; t >= 0 {
		ev.Message, ev.Uncertain = o.message.at(t), o.uncertain.at(t)
		if ev.Judged != nil {
			ev.Judged.InFlight, ev.Judged.AsOf = splitList(o.inFlight.at(t)), o.asOf.at(t)
		}
	}
	return ev
}

// attemptEvent is the timeline's event for attempt idx.
func attemptEvent(a *record.Attempt, idx int) Event {
	return Event{Kind: EventAttempt, Pod: a.Pod, Attempt: idx, Node: a.Node, Reason: a.Outcome.String(), Message: a.Message, Time: a.Time}
}

// sameEvent compares events but for Seq (positions move as the timeline
// is compacted).
func sameEvent(a, b Event) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	a.Seq, b.Seq, a.Time, b.Time = 0, 0, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// EventLog is the timeline at one moment: a length and random access,
// safe to read after the engine moved on. Seq is set from the position.
type EventLog struct {
	archive  eventArchive
	attempts AttemptLog
	// tail follows the archive; from recentFrom on (events shadow mode
	// may still judge again) it is a copy.
	tail       []Event
	recent     []Event
	recentFrom int
	// dropped is the events compaction had dropped when the log was
	// taken (see Dropped).
	dropped int
}

// Dropped is how many queue moves and cluster changes compaction had
// dropped from the run's timeline when the log was taken. Compaction
// drops only events older than every checkpoint, so an event past that
// horizon is the run's event Dropped()+i at position i in every log taken
// until a rewind: a reader can resume where it stopped in a log compacted
// since.
func (l EventLog) Dropped() int { return l.dropped }

// Archived is the number of events compaction archived: positions
// 0..Archived()-1, which hold the run's events older than the horizon that
// compaction keeps (KeptByCompaction), in order. The archive is only
// appended to and no rewind reaches it, so an archived event keeps its
// position in every log taken after.
func (l EventLog) Archived() int { return l.archive.len() }

// Len is the number of events.
func (l EventLog) Len() int { return l.archive.len() + l.recentFrom + len(l.recent) }

// At is event i (0 ≤ i < Len), its Seq i+1.
func (l EventLog) At(i int) Event {
	var ev Event
	n := l.archive.len()
	switch {
	case i >= n+l.recentFrom:
		ev = l.recent[i-n-l.recentFrom]
	case i >= n:
		ev = l.tail[i-n]
	default:
		ev = l.archive.at(i, l.attempts)
	}
	ev.Seq = i + 1
	return ev
}

// Settled is the number of events the engine will not change any more
// but by a rewind: the others are observations shadow mode may judge
// again, and what follows them.
func (l EventLog) Settled() int { return l.archive.len() + l.recentFrom }

// Slice is events [from, to) in a new slice.
func (l EventLog) Slice(from, to int) []Event {
	out := make([]Event, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, l.At(i))
	}
	return out
}

// All yields every event with its index, in order.
func (l EventLog) All() iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		for i := range l.Len() {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}
