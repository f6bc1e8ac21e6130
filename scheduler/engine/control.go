package engine

import (
	"context"
	"math"
	"path"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Step makes one scheduling attempt. When nothing is poppable it first
// jumps virtual time to the next due event (a backoff window, a leftover
// flush, a victim's termination, a scheduled change). ok is false when the
// engine is quiescent (see quiescent). In real time it first advances to
// the Clock's now and never jumps past it: ok is then false also when
// nothing is poppable yet, and what the attempt set off at once (a
// preemption's API calls) runs before Step returns.
func (e *Engine) Step() (*record.Attempt, bool) {
	a, ok := e.stepOp(e.stepLimit(), true)
	if ok {
		e.Tick()
	}
	return a, ok
}

func (e *Engine) stepOp(limit time.Time, strict bool) (*record.Attempt, bool) {
	before := e.snapshotMarks()
	a, _, err := e.step(limit, strict, false)
	if a != nil {
		e.cursor = Cursor{Attempt: e.hist.Len() - 1, Phase: a.LastPhase()}
	}
	if err == nil || e.changedSince(before) {
		e.logOp(op{kind: opStep, limit: limit, strict: strict})
	}
	if err != nil {
		return nil, false
	}
	return a, true
}

// marks tell whether a step that made no attempt changed anything (it may
// have run flushes or timers before finding nothing to do).
type marks struct {
	now      time.Time
	timeline int
	gen      uint64
}

func (e *Engine) snapshotMarks() marks { return marks{e.now, e.hist.Events(), e.gen} }

func (e *Engine) changedSince(m marks) bool {
	return !e.now.Equal(m.now) || e.hist.Events() != m.timeline || e.gen != m.gen
}

// StepPhase reveals the next phase of the current attempt (the attempt is
// computed whole; the cursor only reveals it), starting a new attempt at
// PreEnqueue when the current one is fully revealed.
func (e *Engine) StepPhase() Cursor {
	c := e.cursor
	if c.Attempt >= 0 && c.Attempt == e.hist.Len()-1 {
		a := e.hist.At(c.Attempt)
		for p := c.Phase + 1; p < record.NumPhases; p++ {
			if a.Phases[p].Code != record.CodeNotRun {
				e.cursor.Phase = p
				return e.cursor
			}
		}
	}
	e.popped.arm()
	a, ok := e.Step()
	e.popped.made(a)
	if !ok {
		return e.cursor
	}
	e.cursor.Phase = record.PhasePreEnqueue
	return e.cursor
}

// Matches reports whether attempt a stops at breakpoint bp. Each set field
// is a condition and any one of them matching stops (a zero field matches
// nothing): put conditions that must hold together in one pattern, or use
// several breakpoints for alternatives.
func (bp Breakpoint) Matches(a *record.Attempt) bool {
	if bp.PodPattern != "" {
		if ok, _ := path.Match(bp.PodPattern, a.Pod); ok {
			return true
		}
	}
	if bp.Unschedulable && a.Outcome == record.Unschedulable {
		return true
	}
	if bp.Preemption && a.Preemption != nil && a.Preemption.Chosen >= 0 {
		return true
	}
	return bp.Node != "" && a.Node == bp.Node
}

// Continue steps until an attempt matches a breakpoint (the first match in
// list order is returned) or the engine is quiescent (-1).
func (e *Engine) Continue(bps []Breakpoint) int {
	i, _ := e.ContinueCtx(context.Background(), bps, nil)
	return i
}

// ContinueCtx is Continue, reporting to p after each attempt (attempts
// made of those plus the pods waiting in activeQ and backoffQ: an estimate
// that grows when pods come back) and stopping before the next attempt
// once ctx is done: the engine is then as after the last attempt made, and
// the error is ctx's.
func (e *Engine) ContinueCtx(ctx context.Context, bps []Breakpoint, p progress.Reporter) (int, error) {
	hit, _, err := e.continueCtx(ctx, bps, p)
	return hit, err
}

// continueCtx is ContinueCtx, also returning the number of attempts made.
func (e *Engine) continueCtx(ctx context.Context, bps []Breakpoint, p progress.Reporter) (hit, n int, err error) {
	for {
		if err := ctx.Err(); err != nil {
			return -1, n, err
		}
		before := e.hist.Len()
		a, ok := e.Step()
		if !ok {
			return -1, n, nil
		}
		n++
		progress.Report(p, int64(n), int64(n)+e.waiting())
		// A pod-group cycle makes an attempt per member: each may match.
		made := []*record.Attempt{a}
		if e.hist.Len()-before > 1 {
			made = made[:0]
			for k := before; k < e.hist.Len(); k++ {
				made = append(made, e.hist.At(k))
			}
		}
		for _, a := range made {
			for i, bp := range bps {
				if bp.Matches(a) || bp.Group != "" && e.inGroup(bp.Group, a) {
					return i, n, nil
				}
			}
		}
	}
}

// inGroup reports whether attempt a's pod belongs to a PodGroup whose
// namespace/name matches pattern.
func (e *Engine) inGroup(pattern string, a *record.Attempt) bool {
	p := e.Pod(a.Pod)
	if p == nil {
		return false
	}
	key := framework.PodGroupKeyOf(p)
	if key == "" {
		return false
	}
	if ok, _ := path.Match(pattern, key); ok {
		return true
	}
	// In a hierarchy (CompositePodGroup), its root's name matches too.
	if e.sched.Features().EnableCompositePodGroup {
		root, found, err := framework.GroupRoot(e.sched.Objects(), true, framework.GroupRef{Namespace: p.Namespace, Name: framework.PodGroupNameOf(p)})
		if ok, _ := path.Match(pattern, framework.PodGroupKey(root.Namespace, root.Name)); err == nil && found && root.Composite && ok {
			return true
		}
	}
	return false
}

// waiting counts the pods in activeQ and the backoff queues: those the
// engine attempts next without a cluster event.
func (e *Engine) waiting() int64 {
	active, backoff, errorBackoff, _, _ := e.q.Counts()
	return int64(active + backoff + errorBackoff)
}

// RunUntil runs for virtual time d from the start: attempts and flushes
// keep happening after quiescence (the 5-minute leftover flush retries the
// remaining pods), and the clock ends at start+d. It returns early only
// when nothing at all is left to happen (no pending pod, no timer). In
// real time it stops at the Clock's now if that comes first.
func (e *Engine) RunUntil(d time.Duration) { _ = e.RunUntilCtx(context.Background(), d, nil) }

// RunUntilCtx is RunUntil, reporting virtual milliseconds run of d's to p
// after each attempt and stopping before the next once ctx is done (the
// clock then stays where the last attempt left it; the error is ctx's).
func (e *Engine) RunUntilCtx(ctx context.Context, d time.Duration, p progress.Reporter) error {
	deadline := e.realTimeDeadline(e.start.Add(d))
	total := deadline.Sub(e.start).Milliseconds()
	for e.now.Before(deadline) || e.q.Poppable() && !e.now.After(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, ok := e.stepOp(deadline, false); !ok {
			break
		}
		progress.Report(p, e.now.Sub(e.start).Milliseconds(), total)
	}
	if e.now.Before(deadline) {
		e.now = deadline
		e.logOp(op{kind: opAdvance, until: deadline})
	}
	return nil
}

// RunToQuiescence steps until the engine is quiescent and returns the
// number of attempts made.
func (e *Engine) RunToQuiescence() int {
	n, _ := e.RunToQuiescenceCtx(context.Background(), nil)
	return n
}

// RunToQuiescenceCtx is RunToQuiescence, reporting to p as ContinueCtx
// does and stopping before the next attempt once ctx is done (the error is
// then ctx's).
func (e *Engine) RunToQuiescenceCtx(ctx context.Context, p progress.Reporter) (int, error) {
	_, n, err := e.continueCtx(ctx, nil, p)
	return n, err
}

// Quiescent reports whether Step would make no attempt (see quiescent);
// it runs nothing.
func (e *Engine) Quiescent() bool { return e.quiescent() }

// Now is the virtual time.
func (e *Engine) Now() time.Time { return e.now }

// Start is virtual time zero.
func (e *Engine) Start() time.Time { return e.start }

// Timeline returns every event so far (scheduler/history: the events older than
// every checkpoint are archived, their queue moves and cluster changes
// dropped).
func (e *Engine) Timeline() history.EventLog {
	rewritable := math.MaxInt
	if ev, ok := e.mode.rewrites(e.hist.EventNumber(0)); ok {
		// The mode may rewrite these in place (shadow mode judges them
		// again): the log holds a copy.
		rewritable = ev
	}
	return e.hist.Timeline(rewritable)
}

// Attempts returns every attempt so far (scheduler/history: those older than the
// detailed window come out summarized).
func (e *Engine) Attempts() history.AttemptLog {
	return e.hist.Attempts()
}

// Groups are the pod-group cycles made, in order.
func (e *Engine) Groups() []*record.GroupAttempt { return e.hist.Groups() }

// GroupOf is the pod-group cycle attempt i was made in, if any.
func (e *Engine) GroupOf(i int) (*record.GroupAttempt, bool) { return e.hist.GroupOf(i) }

// Cursor says which attempt and phase are revealed.
func (e *Engine) Cursor() Cursor { return e.cursor }

// Queue lists the queue: activeQ in pop order, backoffQ in release order,
// unschedulable and gated pods by name. A pod group's members are listed
// as pods where their group is (in member order), and the group in Groups;
// members waiting for their PodGroup are unschedulable pods, their Queue
// queue.WaitingForPodGroup, and in WaitingForGroup.
func (e *Engine) Queue() QueueSnapshot {
	snap := QueueSnapshot{Now: e.now}
	active, backoff, unsched := e.q.Contents()
	var gatedGroups []QueuedGroup
	list := func(en queue.Entry) []QueuedPod {
		if en.Group == nil {
			return []QueuedPod{e.queuedPod(en)}
		}
		out := make([]QueuedPod, 0, len(en.Group.Members))
		for _, m := range en.Group.Members {
			qp := e.queuedPod(queue.Entry{Info: m, Location: en.Location})
			if en.Location == queue.Gated {
				qp.GatingPlugin, qp.GatingMessage = en.Group.GatingPlugin, en.GatingMessage
			}
			out = append(out, qp)
		}
		return out
	}
	for _, en := range active {
		snap.ActiveQ = append(snap.ActiveQ, list(en)...)
		if en.Group != nil {
			snap.Groups = append(snap.Groups, e.queuedGroup(en))
		}
	}
	for _, en := range backoff {
		snap.BackoffQ = append(snap.BackoffQ, list(en)...)
		if en.Group != nil {
			snap.Groups = append(snap.Groups, e.queuedGroup(en))
		}
	}
	for _, en := range unsched {
		if en.Location == queue.Gated {
			snap.Gated = append(snap.Gated, list(en)...)
		} else {
			snap.Unschedulable = append(snap.Unschedulable, list(en)...)
		}
		switch {
		case en.Group == nil:
		case en.Location == queue.Gated:
			gatedGroups = append(gatedGroups, e.queuedGroup(en))
		default:
			snap.Groups = append(snap.Groups, e.queuedGroup(en))
		}
	}
	for _, pi := range e.q.WaitingForPodGroup() {
		qp := e.queuedPod(queue.Entry{Info: pi, Location: queue.WaitingForPodGroup})
		qp.MissingGroup = e.missingComposite(pi.Pod)
		snap.WaitingForGroup = append(snap.WaitingForGroup, qp)
		snap.Unschedulable = append(snap.Unschedulable, qp)
	}
	byName := func(s []QueuedPod) {
		sort.Slice(s, func(i, j int) bool { return s[i].Pod < s[j].Pod })
	}
	byName(snap.Unschedulable)
	byName(snap.Gated)
	snap.Groups = append(snap.Groups, gatedGroups...)
	return snap
}

// missingComposite is the first CompositePodGroup not observed on the way
// up from the pod's PodGroup to its root, "" when the PodGroup itself is
// missing (or without CompositePodGroup).
func (e *Engine) missingComposite(pod *v1.Pod) string {
	objs := e.sched.Objects()
	pg, err := objs.PodGroup(pod.Namespace, framework.PodGroupNameOf(pod))
	if err != nil || !e.sched.Features().EnableCompositePodGroup {
		return ""
	}
	// At most WorkloadMaxTreeDepth levels: a loop ends there.
	for parent, depth := framework.ParentOfPodGroup(pg), 0; parent != "" && depth < 4; depth++ {
		cpg, err := objs.CompositePodGroup(pod.Namespace, parent)
		if err != nil {
			return parent
		}
		parent = framework.ParentOfCompositePodGroup(cpg)
	}
	return ""
}

// queuedGroup is a group entry as the views see it.
func (e *Engine) queuedGroup(en queue.Entry) QueuedGroup {
	g := en.Group
	qg := QueuedGroup{
		Group: g.Key(), Policy: g.Policy(), MinCount: g.MinCount(), Priority: g.Priority(), Queue: history.QueueName(en.Location),
		Timestamp: g.Timestamp, Attempts: g.Attempts, BackoffExpiration: e.q.GroupBackoffExpiration(g),
		GatingPlugin: g.GatingPlugin, GatingMessage: en.GatingMessage, Composite: g.Composite,
	}
	for _, leaf := range g.Leaves() {
		qg.Scheduled += e.sched.PodGroupState(leaf.Namespace, leaf.Name).ScheduledPodsCount()
		if g.Composite {
			qg.Groups = append(qg.Groups, leaf.Key())
		}
	}
	plugins := map[string]bool{}
	for _, m := range g.Members {
		qg.Members = append(qg.Members, key(m.Pod))
		for _, p := range sortedPlugins(m) {
			plugins[p] = true
		}
	}
	for p := range plugins {
		qg.UnschedulablePlugins = append(qg.UnschedulablePlugins, p)
	}
	sort.Strings(qg.UnschedulablePlugins)
	return qg
}

func (e *Engine) queuedPod(en queue.Entry) QueuedPod {
	pi := en.Info
	qp := QueuedPod{
		Pod: key(pi.Pod), UID: string(pi.Pod.UID), Priority: pi.Priority(), Queue: history.QueueName(en.Location),
		Timestamp: pi.Timestamp, Attempts: pi.Attempts, BackoffExpiration: e.q.BackoffExpiration(pi),
		UnschedulablePlugins: sortedPlugins(pi), GatingPlugin: pi.GatingPlugin, NominatedNode: e.sched.Nominator().NominatedNode(pi.Pod.UID),
	}
	if pi.GatingPlugin != "" {
		qp.GatingMessage = en.GatingMessage
	}
	return qp
}

func sortedPlugins(pi *framework.QueuedPodInfo) []string {
	out := make([]string, 0, pi.UnschedulablePlugins.Len()+pi.PendingPlugins.Len())
	for p := range pi.UnschedulablePlugins {
		out = append(out, p)
	}
	for p := range pi.PendingPlugins {
		if !pi.UnschedulablePlugins.Has(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
