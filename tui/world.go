package tui

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// world is the engine's state captured under the backend lock right after
// an operation, so that views read it while the next Cmd runs.
type world struct {
	// attempts and events are the engine's logs as they were: views read
	// the rows they show, never a copy of the whole.
	attempts history.AttemptLog
	// groups are the pod-group cycles made (GenericWorkload), in attempt
	// order; their members' attempts are in attempts.
	groups []*record.GroupAttempt
	cursor engine.Cursor
	// queue is the queue the views may show: while the cursor's attempt
	// is stepped by phase, as that attempt popped its pod (its end, and
	// what followed, not revealed yet).
	queue  engine.QueueSnapshot
	events eventList
	// cluster is the nodes at the cursor.
	cluster
	// filterPlugins is each profile's Filter plugins, in run order.
	filterPlugins map[string][]string
	// profiles is the number of the configuration's profiles: with more
	// than one, the attempt view names the profile of each attempt.
	profiles int
	// pods holds the objects of attempted and queued pods.
	pods map[string]*v1.Pod
	// observed counts the observations of the cluster's scheduler by
	// verdict: agree, tie, disagree.
	observed observedCounts
	// forecast is the forecast shown (forecast.go), or nil.
	forecast *forecastInfo
	// done: the engine has nothing left to do.
	done bool
	// retained is what the engine keeps (the status line's "kept: ...").
	retained engine.Retained
	// seq orders captures (Backend.captures).
	seq uint64
}

// newer reports whether w was captured after cur (or there is no cur).
func (w *world) newer(cur *world) bool { return cur == nil || w.seq > cur.seq }

// cluster is the nodes as the Nodes view shows them: at the engine's
// cursor (world) or as an attempt saw them (forkResult).
type cluster struct {
	nodes   []nodeView
	nodeIdx map[string]int
	// nominated lists, per node, the pods nominated to it.
	nominated map[string][]nominee
	// dra is the devices and claims (devices.go), nil without any.
	dra *draState
}

type nodeView struct {
	node        *v1.Node
	allocatable framework.Resource
	requested   framework.Resource
	pods        []*v1.Pod
}

type nominee struct {
	pod      string
	priority int32
}

// capture reads the backend's state. It must run under the backend lock.
func capture(b *Backend) *world {
	w := &world{
		attempts:      b.Attempts(),
		groups:        b.Groups(),
		cursor:        b.Cursor(),
		queue:         shownQueue(b),
		events:        eventList{log: b.Timeline()},
		filterPlugins: map[string][]string{},
		pods:          map[string]*v1.Pod{},
		done:          b.Quiescent != nil && b.Quiescent(),
	}
	if b.retained != nil {
		w.retained = b.retained()
	}
	b.captures++
	w.seq = b.captures
	w.observed = b.observed.count(w.events.log)
	captureForecast(b, w)
	s := b.State()
	w.cluster = captureCluster(s)
	w.profiles = len(s.Profiles())
	addPod := func(key string) {
		if _, ok := w.pods[key]; !ok {
			if p := b.Pod(key); p != nil {
				w.pods[key] = p
			}
		}
	}
	for name, f := range s.Profiles() {
		w.filterPlugins[name] = f.FilterPluginNames()
	}
	// The attempts kept whole: retention keeps the line only of the
	// others, and the views show no more of those.
	for _, a := range w.attempts.Whole() {
		if !a.Summarized {
			addPod(a.Pod)
		}
	}
	for _, list := range [][]engine.QueuedPod{w.queue.ActiveQ, w.queue.BackoffQ, w.queue.Unschedulable, w.queue.Gated} {
		for _, q := range list {
			addPod(q.Pod)
		}
	}
	return w
}

// groupOf is the pod-group cycle attempt i was made in, or nil: the
// last cycle starting at or before i, if i is one of its members'.
func (w *world) groupOf(i int) *record.GroupAttempt {
	for k := len(w.groups) - 1; k >= 0; k-- {
		g := w.groups[k]
		if g.FirstAttempt > i {
			continue
		}
		for _, m := range g.Members {
			if m.Attempt == i {
				return g
			}
		}
		return nil
	}
	return nil
}

// shownQueue is the queue before the attempt being stepped by phase, or
// else the engine's. It must run under the backend lock.
func shownQueue(b *Backend) engine.QueueSnapshot {
	if q, ok := b.QueueAtPop(); ok {
		return q
	}
	return b.Queue()
}

// captureCluster reads a scheduler's nodes and nominations. It must run
// under the backend lock.
func captureCluster(s *scheduler.Scheduler) cluster {
	c := cluster{nodeIdx: map[string]int{}, nominated: map[string][]nominee{}}
	for i, ni := range s.Snapshot().List() {
		nv := nodeView{node: ni.Node(), allocatable: copyResource(ni.Allocatable), requested: copyResource(ni.Requested)}
		nv.pods = make([]*v1.Pod, len(ni.Pods))
		for j, pi := range ni.Pods {
			nv.pods[j] = pi.Pod
		}
		c.nodes = append(c.nodes, nv)
		c.nodeIdx[ni.Name()] = i
	}
	c.dra = captureDRA(s)
	nom := s.Nominator()
	for _, n := range nom.Nodes() {
		for _, pi := range nom.NominatedPodsForNode(n) {
			c.nominated[n] = append(c.nominated[n], nominee{pod: pi.Pod.Namespace + "/" + pi.Pod.Name, priority: corev1helpers.PodPriority(pi.Pod)})
		}
	}
	return c
}

// eventList is the timeline as the Events view shows it: the engine's,
// then, while a forecast is shown, the live cluster's events since the
// fork with the forecast's judgments (captureForecast).
type eventList struct {
	log   history.EventLog
	extra []history.Event
}

// Len is the number of events.
func (l *eventList) Len() int { return l.log.Len() + len(l.extra) }

// At is event i, a copy, with the preemptor of a victim's Preempted
// event named (namePreemptor).
func (l *eventList) At(i int) *history.Event {
	var ev history.Event
	if n := l.log.Len(); i < n {
		ev = l.log.At(i)
	} else {
		ev = l.extra[i-n]
	}
	ev.Message = namePreemptor(&ev)
	return &ev
}

// add appends an event after the engine's, numbered after them.
func (l *eventList) add(ev history.Event) {
	ev.Seq = l.Len() + 1
	l.extra = append(l.extra, ev)
}

// namePreemptor is the message of a victim's Preempted event with the
// preemptor named by namespace/name: the event, as upstream's, names it by
// UID ("Preempted by pod <UID> on node <node>"); Event.Preemptor names it.
func namePreemptor(ev *history.Event) string {
	const by = "by pod "
	i := strings.Index(ev.Message, by)
	if ev.Kind != history.EventCluster || ev.Reason != "Preempted" || i < 0 || ev.Preemptor == "" {
		return ev.Message
	}
	rest := ev.Message[i+len(by):]
	_, tail, _ := strings.Cut(rest, " ")
	if tail != "" {
		tail = " " + tail
	}
	return ev.Message[:i+len(by)] + ev.Preemptor + tail
}

func copyResource(r *framework.Resource) framework.Resource {
	if r == nil {
		return framework.Resource{}
	}
	c := *r
	if r.ScalarResources != nil {
		c.ScalarResources = make(map[v1.ResourceName]int64, len(r.ScalarResources))
		for k, v := range r.ScalarResources {
			c.ScalarResources[k] = v
		}
	}
	return c
}

// observedTally counts the observations of a backend's timeline from one
// capture to the next, reading only the events new since the last one
// (and those shadow mode may still judge again). The place it stopped is
// kept twice over, as compaction may have moved it by the next count: as
// a number of the run's events (history.EventLog.Dropped), which holds
// while the place is past the horizon, and as a position in the archive,
// which holds once compaction archived it (a long step can compact past
// it: sliding checkpoints); a rewind makes it count again from the start.
type observedTally struct {
	// upTo is the run's events counted (the settled ones), last the
	// final one of them; kept is how many of those compaction keeps
	// (history.Event.KeptByCompaction), the position in the archive
	// right after them once archived, lastKept the final one of those.
	upTo, kept     int
	last, lastKept history.Event
	counts         observedCounts
	// read is the events read, which bounds the work (tests).
	read int
}

func (t *observedTally) count(l history.EventLog) observedCounts {
	settled := l.Settled()
	from, ok := t.resume(l)
	if !ok {
		*t = observedTally{read: t.read}
		from = 0
	}
	for i := from; i < settled; i++ {
		t.read++
		ev := l.At(i)
		if ev.Kind == history.EventObserved {
			t.counts.add(ev.Reason)
		}
		if ev.KeptByCompaction() {
			t.kept, t.lastKept = t.kept+1, ev
		}
	}
	if t.upTo = l.Dropped() + settled; settled > 0 {
		t.last = l.At(settled - 1)
	}
	c := t.counts
	for i := settled; i < l.Len(); i++ {
		t.read++
		if ev := l.At(i); ev.Kind == history.EventObserved {
			c.add(ev.Reason)
		}
	}
	return c
}

// resume is the position in l where the count stopped, and whether l
// still holds the events counted as they were (not after a rewind).
func (t *observedTally) resume(l history.EventLog) (int, bool) {
	if from := t.upTo - l.Dropped(); from > l.Archived() {
		// Past the horizon: the run's numbering holds.
		return from, from <= l.Settled() && sameMark(l.At(from-1), t.last)
	}
	// Compaction reached the place: the archive starts with the counted
	// events it kept, then those that came after.
	return t.kept, t.kept <= l.Archived() && (t.kept == 0 || sameMark(l.At(t.kept-1), t.lastKept))
}

// sameMark: a and b are the same event, as far as a tally can tell (Seq
// is a position, which compaction moves).
func sameMark(a, b history.Event) bool {
	return a.Time.Equal(b.Time) && a.Kind == b.Kind && a.Pod == b.Pod && a.Reason == b.Reason && a.Attempt == b.Attempt
}

// observedCounts counts observations by verdict.
type observedCounts struct{ agree, tie, disagree int }

func (o *observedCounts) add(verdict string) {
	switch engine.Verdict(verdict) {
	case engine.Agree:
		o.agree++
	case engine.Tie:
		o.tie++
	case engine.Disagree:
		o.disagree++
	}
}

// String is the status line's summary, "" before any observation.
func (o observedCounts) String() string {
	if o == (observedCounts{}) {
		return ""
	}
	return fmt.Sprintf("vs the cluster: %d agree · %d tie · %d disagree (events: 7)", o.agree, o.tie, o.disagree)
}
