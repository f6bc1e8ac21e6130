package tui

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// adapter implements engine.API over the real scheduler the way `schedtui
// run` drives it: every pending pod once, in queue order, gated pods held
// back. It has no backoff, requeueing or graceful termination (the queue
// engine brings those); it exists so the TUI runs real scheduling until
// the engine lands, and it stays small so the switch is one line.
type adapter struct {
	cluster *snapshot.Cluster
	opts    scheduler.Options
	start   time.Time

	sched    *scheduler.Scheduler
	active   []*v1.Pod // remaining, in pop order
	gated    []engine.QueuedPod
	unsched  []engine.QueuedPod
	attempts []*record.Attempt
	events   []engine.Event
	cursor   engine.Cursor
}

// attemptDuration is the virtual time one attempt takes: enough for ages in
// the queue view to move, small enough to read as "instant".
const attemptDuration = time.Second

func newAdapter(name string, c *snapshot.Cluster, opts scheduler.Options) (*Backend, error) {
	first, err := buildAdapter(c, opts)
	if err != nil {
		return nil, err
	}
	a := &adapterHandle{first}
	b := &Backend{API: a, Name: name}
	b.State = func() *scheduler.Scheduler { return a.sched }
	b.Fork = func(i int) (*scheduler.Scheduler, *v1.Pod, error) {
		// A replay on a fresh scheduler reproduces the first i attempts
		// exactly (same pods, same order, same seed).
		f, err := buildAdapter(c, a.opts)
		if err != nil {
			return nil, nil, err
		}
		for j := 0; j < i; j++ {
			if _, ok := f.Step(); !ok {
				return nil, nil, fmt.Errorf("replay ended after %d of %d attempts", j, i)
			}
		}
		if len(f.active) == 0 {
			return nil, nil, errors.New("no attempt to fork")
		}
		return f.sched, f.current(f.active[0]), nil
	}
	b.Pod = func(key string) *v1.Pod {
		ns, n, _ := strings.Cut(key, "/")
		p, err := a.sched.Objects().Pod(ns, n)
		if err != nil {
			return nil
		}
		return p
	}
	return b, nil
}

func buildAdapter(c *snapshot.Cluster, opts scheduler.Options) (*adapter, error) {
	a := &adapter{cluster: c, opts: opts, start: scheduler.Epoch, cursor: engine.Cursor{Attempt: -1}}
	// Queue timestamps are creation times; start the clock after the last
	// one so that ages are never negative.
	for _, p := range c.Pods {
		if t := p.CreationTimestamp.Time; t.After(a.start) {
			a.start = t
		}
	}
	a.opts.Clock = a.now
	s, err := scheduler.New(c.Nodes, c.Pods, c.SchedulerObjects(), a.opts)
	if err != nil {
		return nil, err
	}
	a.sched = s
	for _, p := range s.PendingPods(c.Pods) {
		key := p.Namespace + "/" + p.Name
		if st := s.PreEnqueue(p); !st.IsSuccess() {
			a.gated = append(a.gated, engine.QueuedPod{
				Pod: key, UID: string(p.UID), Priority: corev1helpers.PodPriority(p), Queue: engine.Gated,
				Timestamp: p.CreationTimestamp.Time, GatingPlugin: st.Plugin(), GatingMessage: st.Message(),
			})
			a.event(engine.Event{Kind: engine.EventQueueMove, Pod: key, To: engine.Gated, Reason: "PodAdd", Message: st.Message()})
			continue
		}
		a.active = append(a.active, p)
		a.event(engine.Event{Kind: engine.EventQueueMove, Pod: key, To: engine.ActiveQ, Reason: "PodAdd"})
	}
	return a, nil
}

func (a *adapter) now() time.Time {
	return a.start.Add(time.Duration(len(a.attempts)) * attemptDuration)
}

func (a *adapter) event(e engine.Event) {
	e.Seq = len(a.events) + 1
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	if e.Kind != engine.EventAttempt {
		e.Attempt = -1
	}
	a.events = append(a.events, e)
}

// current is the object store's copy of p: an earlier preemption may have
// cleared its nomination.
func (a *adapter) current(p *v1.Pod) *v1.Pod {
	if cur, err := a.sched.Objects().Pod(p.Namespace, p.Name); err == nil {
		return cur
	}
	return p
}

func (a *adapter) Step() (*record.Attempt, bool) {
	if len(a.active) == 0 {
		return nil, false
	}
	pod := a.current(a.active[0])
	a.active = a.active[1:]
	key := pod.Namespace + "/" + pod.Name
	a.event(engine.Event{Kind: engine.EventQueueMove, Pod: key, From: engine.ActiveQ, To: engine.InFlight, Reason: "Pop"})
	at := a.sched.ScheduleOne(pod)
	a.attempts = append(a.attempts, at)
	idx := len(a.attempts) - 1
	a.event(engine.Event{Kind: engine.EventAttempt, Pod: key, Attempt: idx, Node: at.Node, Reason: at.Outcome.String(), Message: at.Message, Time: at.Time})
	a.events[len(a.events)-1].Attempt = idx
	if p := at.Preemption; p != nil && p.Chosen >= 0 && p.Chosen < len(p.Candidates) {
		a.event(engine.Event{Kind: engine.EventPreemption, Pod: key, Node: p.Candidates[p.Chosen].Node, Victims: at.Victims, Reason: p.DecidedBy})
		for _, v := range at.Victims {
			a.event(engine.Event{Kind: engine.EventEviction, Pod: v, Node: p.Candidates[p.Chosen].Node, Reason: "Preempted by " + key})
		}
	}
	if at.Outcome != record.Scheduled {
		a.unsched = append(a.unsched, engine.QueuedPod{
			Pod: key, UID: string(pod.UID), Priority: at.Priority, Queue: engine.Unschedulable,
			Timestamp: at.Time, Attempts: 1, UnschedulablePlugins: at.UnschedulablePlugins, NominatedNode: at.Nominated,
		})
		a.event(engine.Event{Kind: engine.EventQueueMove, Pod: key, From: engine.InFlight, To: engine.Unschedulable, Reason: "ScheduleAttemptFailure"})
	}
	a.cursor = engine.Cursor{Attempt: idx, Phase: lastPhase(at)}
	return at, true
}

// lastPhase is the last phase an attempt ran.
func lastPhase(a *record.Attempt) record.Phase {
	last := record.PhasePop
	for p := record.PhasePop; p < record.NumPhases; p++ {
		if a.Phases[p].Code != record.CodeNotRun {
			last = p
		}
	}
	return last
}

func (a *adapter) StepPhase() engine.Cursor {
	if a.cursor.Attempt < 0 || a.cursor.Phase >= lastPhase(a.attempts[a.cursor.Attempt]) {
		if _, ok := a.Step(); !ok {
			return a.cursor
		}
		a.cursor.Phase = record.PhasePreEnqueue
		return a.cursor
	}
	at := a.attempts[a.cursor.Attempt]
	for p := a.cursor.Phase + 1; p < record.NumPhases; p++ {
		if at.Phases[p].Code != record.CodeNotRun {
			a.cursor.Phase = p
			break
		}
	}
	return a.cursor
}

// matchesBreakpoint reports whether attempt at stops at breakpoint bp.
func matchesBreakpoint(bp engine.Breakpoint, at *record.Attempt) bool {
	if bp.PodPattern != "" {
		if ok, _ := path.Match(bp.PodPattern, at.Pod); ok {
			return true
		}
	}
	if bp.Unschedulable && at.Outcome == record.Unschedulable {
		return true
	}
	if bp.Preemption && at.Preemption != nil && at.Preemption.Chosen >= 0 {
		return true
	}
	return bp.Node != "" && at.Node == bp.Node
}

func (a *adapter) Continue(bps []engine.Breakpoint) int {
	for {
		at, ok := a.Step()
		if !ok {
			return -1
		}
		for i, bp := range bps {
			if matchesBreakpoint(bp, at) {
				return i
			}
		}
	}
}

// adapterHandle lets Rewind swap in a replayed adapter: the scheduler's
// clock closes over the adapter it was built with, so the adapter itself
// cannot be overwritten in place.
type adapterHandle struct{ *adapter }

// Rewind replays the first len(attempts)-n attempts on a fresh scheduler.
func (h *adapterHandle) Rewind(n int) error {
	target := len(h.attempts) - n
	if n <= 0 || target < 0 {
		return fmt.Errorf("cannot rewind %d of %d attempts", n, len(h.attempts))
	}
	f, err := buildAdapter(h.cluster, h.opts)
	if err != nil {
		return err
	}
	for len(f.attempts) < target {
		if _, ok := f.Step(); !ok {
			break
		}
	}
	h.adapter = f
	return nil
}

func (a *adapter) RunUntil(d time.Duration) {
	end := a.start.Add(d)
	for a.now().Before(end) {
		if _, ok := a.Step(); !ok {
			return
		}
	}
}

func (a *adapter) Now() time.Time { return a.now() }

func (a *adapter) Queue() engine.QueueSnapshot {
	q := engine.QueueSnapshot{Now: a.now()}
	for _, p := range a.active {
		q.ActiveQ = append(q.ActiveQ, engine.QueuedPod{
			Pod: p.Namespace + "/" + p.Name, UID: string(p.UID), Priority: corev1helpers.PodPriority(p),
			Queue: engine.ActiveQ, Timestamp: p.CreationTimestamp.Time, NominatedNode: a.current(p).Status.NominatedNodeName,
		})
	}
	q.Unschedulable = append(q.Unschedulable, a.unsched...)
	q.Gated = append(q.Gated, a.gated...)
	return q
}

func (a *adapter) Timeline() []engine.Event    { return a.events }
func (a *adapter) Attempts() []*record.Attempt { return a.attempts }
func (a *adapter) Cursor() engine.Cursor       { return a.cursor }
