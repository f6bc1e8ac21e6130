package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// Rewinding is deterministic replay. Everything that changes the engine
// goes through an op (a step, an applied change, a clock advance) which is
// logged; a run is a pure function of the inputs, the options and the op
// log. Every CheckpointInterval attempts the whole state is captured
// (NodeInfo copies shared with the previous checkpoint where unchanged, the
// object store, nominations, the queue's bookkeeping, timers, counters, the
// random source's state). Rewind restores the last checkpoint at or before
// the target into a freshly built scheduler (fresh plugins: none keeps
// memory of the undone future) and replays the ops in between.
//
// Cost: a rewind is one restore (O(nodes + pods + objects) copies) plus at
// most CheckpointInterval attempts of replay, independent of the run's
// length, so stepping backwards repeatedly through a long run is linear,
// not quadratic. A checkpoint costs O(nodes) pointers, O(pods) queue
// entries, an object-store copy and a copy of each NodeInfo that changed
// since the previous checkpoint; MaxCheckpoints bounds their number by
// thinning them (every other one dropped, interval doubled), which at
// worst doubles the replay bound.

type opKind uint8

const (
	opStep opKind = iota
	opApply
	opAdvance
	// opTick is AdvanceTo (real time): the clock moved to until, firing
	// what was due.
	opTick
)

type op struct {
	kind   opKind
	limit  time.Time
	strict bool
	change change.Change
	until  time.Time
	// attempts is the number of attempts after the op.
	attempts int
}

func (e *Engine) logOp(o op) {
	if e.replaying {
		return
	}
	defer e.retain()
	if e.opts.Retention.Headless {
		return
	}
	o.attempts = e.hist.Len()
	e.log = append(e.log, o)
	// A parked binding cycle holds its cycle state and plugins' memory,
	// which a checkpoint cannot capture: the checkpoint waits until no
	// binding is parked (a rewind replays the parking attempt instead).
	if len(e.parked) == 0 && e.hist.Len()-e.lastCheckpointAttempts() >= e.ckptInterval {
		if err := e.checkpoint(); err != nil {
			// A failed capture only costs replay time on rewind.
			e.event(history.Event{Kind: history.EventCluster, Reason: "Checkpoint", Message: err.Error()})
		}
	}
}

// checkpoint is the engine at one op boundary.
type checkpoint struct {
	ops      int
	attempts int
	timeline int
	sched    *scheduler.State
	queue    *queue.State

	now, lastBackoffFlush, lastLeftoverFlush time.Time
	timers                                   []timer
	timerSeq                                 uint64
	preempting                               []types.UID
	expiredAt                                map[types.UID]uint64
	external                                 uint64
	nodeOrder                                []*v1.Node
	gen                                      uint64
	lastGen                                  map[types.UID]uint64
	evicted                                  []types.UID
	cursor                                   Cursor
	mode                                     modeState
}

func (e *Engine) lastCheckpointAttempts() int {
	if len(e.checkpoints) == 0 {
		return 0
	}
	return e.checkpoints[len(e.checkpoints)-1].attempts
}

func (e *Engine) checkpoint() error {
	c, err := e.capture()
	if err != nil {
		return err
	}
	e.checkpoints = append(e.checkpoints, c)
	if len(e.checkpoints) > e.opts.MaxCheckpoints && e.opts.Retention.Sliding {
		e.dropOldestCheckpoint()
	} else if len(e.checkpoints) > e.opts.MaxCheckpoints {
		// Keep the first and every other one after it.
		kept := e.checkpoints[:1]
		for i := 2; i < len(e.checkpoints); i += 2 {
			kept = append(kept, e.checkpoints[i])
		}
		if last := e.checkpoints[len(e.checkpoints)-1]; kept[len(kept)-1] != last {
			kept = append(kept, last)
		}
		// The array's end would still hold the dropped ones.
		clear(e.checkpoints[len(kept):])
		e.checkpoints = kept
		e.ckptInterval *= 2
	}
	return nil
}

// capture is the engine's state now, as a checkpoint; the engine is only
// read (Forecast forks from one it does not keep).
func (e *Engine) capture() (*checkpoint, error) {
	if len(e.parked) > 0 {
		return nil, fmt.Errorf("%d binding cycle(s) wait (in PreBind for binding conditions, or at Permit for a gang), which a checkpoint cannot hold", len(e.parked))
	}
	var prev *scheduler.State
	if n := len(e.checkpoints); n > 0 {
		prev = e.checkpoints[n-1].sched
	}
	ss, err := e.sched.CaptureState(prev)
	if err != nil {
		return nil, err
	}
	qs, err := e.q.Export()
	if err != nil {
		return nil, err
	}
	c := &checkpoint{
		ops: e.logBase + len(e.log), attempts: e.hist.Len(), timeline: e.hist.Events(), sched: ss, queue: qs,
		now: e.now, lastBackoffFlush: e.lastBackoffFlush, lastLeftoverFlush: e.lastLeftoverFlush,
		timerSeq: e.timerSeq, nodeOrder: append([]*v1.Node(nil), e.nodeOrder...), gen: e.gen,
		lastGen: make(map[types.UID]uint64, len(e.lastGen)), cursor: e.cursor,
	}
	for _, t := range e.timers {
		c.timers = append(c.timers, *t)
	}
	for uid := range e.preempting {
		c.preempting = append(c.preempting, uid)
	}
	c.expiredAt, c.external = maps.Clone(e.expiredAt), e.external
	for k, v := range e.lastGen {
		c.lastGen[k] = v
	}
	for uid := range e.evicted {
		c.evicted = append(c.evicted, uid)
	}
	c.mode = e.mode.save()
	return c, nil
}

// restore rebuilds the engine at checkpoint c.
func (e *Engine) restore(c *checkpoint) error {
	if err := e.build(false); err != nil {
		return err
	}
	if err := e.sched.RestoreState(c.sched); err != nil {
		return err
	}
	if err := e.q.Import(c.queue); err != nil {
		return err
	}
	e.now, e.lastBackoffFlush, e.lastLeftoverFlush = c.now, c.lastBackoffFlush, c.lastLeftoverFlush
	e.timers = e.timers[:0]
	for i := range c.timers {
		t := c.timers[i]
		e.timers = append(e.timers, &t)
	}
	// The copied slice is already in heap order.
	e.timerSeq = c.timerSeq
	e.nodeOrder = append([]*v1.Node(nil), c.nodeOrder...)
	e.gen = c.gen
	maps.Copy(e.expiredAt, c.expiredAt)
	e.external = c.external
	for k, v := range c.lastGen {
		e.lastGen[k] = v
	}
	e.evicted = nil
	for _, uid := range c.evicted {
		e.noteEvicted(uid)
	}
	for _, t := range e.timers {
		if t.kind == timerActuate {
			if inSet(c.preempting, t.preemption.preemptor.UID) {
				e.setPreempting(t.preemption.preemptor, true)
			}
		}
	}
	e.hist.Truncate(c.attempts, c.timeline)
	e.cursor = c.cursor
	e.decision, e.volumeWrites = nil, nil
	e.mode = c.mode.resume(e)
	return nil
}

func inSet(s []types.UID, u types.UID) bool {
	for _, x := range s {
		if x == u {
			return true
		}
	}
	return false
}

// replay re-executes logged ops [from, to), reporting the ops done of
// to-from to p. Once ctx is done it stops after the op in progress; it
// returns the end of the ops replayed (to when all were).
func (e *Engine) replay(ctx context.Context, from, to int, p progress.Reporter) int {
	e.replaying = true
	defer func() { e.replaying = false }()
	for i := from; i < to; i++ {
		if ctx.Err() != nil {
			return i
		}
		e.replayOp = i
		e.runOp(e.log[i-e.logBase])
		progress.Report(p, int64(i-from+1), int64(to-from))
	}
	return to
}

// runOp re-executes one logged op.
func (e *Engine) runOp(o op) {
	switch o.kind {
	case opStep:
		if a, _, err := e.step(o.limit, o.strict, false); err == nil && a != nil {
			e.cursor = Cursor{Attempt: e.hist.Len() - 1, Phase: a.LastPhase()}
		}
	case opApply:
		if !o.change.At.After(e.now) {
			_ = e.applyNow(o.change)
		} else {
			e.addTimer(&timer{at: o.change.At, kind: timerApply, change: o.change})
		}
	case opAdvance:
		if e.now.Before(o.until) {
			e.now = o.until
		}
	case opTick:
		if !e.now.After(o.until) {
			e.advance(o.until)
		}
	}
}

// currentOp is the index of the op running: the one being replayed, else
// the next to be logged.
func (e *Engine) currentOp() int {
	if e.replaying {
		return e.replayOp
	}
	return e.logBase + len(e.log)
}

// opsBefore is the number of ops executed before the op that made attempt
// index i (0-based).
func (e *Engine) opsBefore(i int) int {
	for k, o := range e.log {
		if o.attempts > i {
			return e.logBase + k
		}
	}
	return e.logBase + len(e.log)
}

// checkpointAtOrBefore is the last checkpoint taken at or before op k.
func (e *Engine) checkpointAtOrBefore(k int) *checkpoint {
	var best *checkpoint
	for _, c := range e.checkpoints {
		if c.ops <= k {
			best = c
		}
	}
	return best
}

// Rewind undoes the last n attempts: the engine returns to the moment just
// before attempt len-n started (clock, queue, cluster, timeline), and
// forgets what followed, including changes applied afterwards. Stepping
// again replays the same attempts (runs are deterministic).
func (e *Engine) Rewind(n int) error { return e.RewindCtx(context.Background(), n, nil) }

// RewindCtx is Rewind, reporting the logged operations replayed of those
// to replay to p, and stopping once ctx is done. Before the checkpoint is
// restored that leaves the engine untouched. During the replay from the
// checkpoint it stops after the operation in progress (an attempt, an
// applied change, a clock advance): the engine is then at that earlier
// point of the run, exactly as it was there the first time (and rewound:
// what followed is forgotten), so stepping on makes the same attempts. The
// state before the rewind is not restored: that would replay as much
// again. The error is then ctx's.
func (e *Engine) RewindCtx(ctx context.Context, n int, p progress.Reporter) error {
	target := e.hist.Len() - n
	if n <= 0 || target < 0 {
		return fmt.Errorf("cannot rewind %d of %d attempts", n, e.hist.Len())
	}
	if e.boundAny {
		return ErrRewindAfterBind
	}
	if !e.retainedFrom(target) {
		return e.notRetained(target)
	}
	k := e.opsBefore(target)
	c := e.checkpointAtOrBefore(k)
	if c == nil {
		return e.notRetained(target)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := e.restore(c); err != nil {
		return err
	}
	end := e.replay(ctx, c.ops, k, p)
	e.forgetAfter(end)
	if end < k {
		return ctx.Err()
	}
	return nil
}

// forgetAfter ends the run at op k (its first k ops replayed), as a
// rewind there leaves it: the ops and checkpoints after k belong to the
// undone future.
func (e *Engine) forgetAfter(k int) {
	e.log = e.log[:k-e.logBase]
	e.checkpoints = slices.DeleteFunc(e.checkpoints, func(cp *checkpoint) bool { return cp.ops > k })
	if n := e.hist.Len(); n > 0 {
		e.cursor = Cursor{Attempt: n - 1, Phase: e.hist.At(n - 1).LastPhase()}
	} else {
		e.cursor = Cursor{Attempt: -1}
	}
	e.retain()
}

// Fork returns a separate scheduler holding the cluster exactly as attempt
// i saw it, and the pod as attempt i popped it. The engine is untouched;
// the fork may be scheduled on freely (what-if edits).
func (e *Engine) Fork(i int) (*scheduler.Scheduler, *v1.Pod, error) { return e.mode.fork(i) }

// forkAt is a separate engine replayed to the start of attempt i, its pod
// popped (in flight) and not yet scheduled: the simulate mode's fork.
func (e *Engine) forkAt(i int) (*Engine, *framework.QueuedPodInfo, error) {
	f, k, err := e.replayedTo(i, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	o := e.log[k-e.logBase]
	f.replaying = true
	_, popped, err := f.step(o.limit, o.strict, true)
	pi := memberOf(popped, e.hist.At(i).Pod)
	if err != nil || pi == nil {
		return nil, nil, fmt.Errorf("replaying to attempt %d: nothing to pop", i)
	}
	return f, pi, nil
}

// replayedTo is a separate engine replayed up to the op that made attempt
// i (index k in the log), that op not yet run. The replay starts at the
// last checkpoint at or before op from(k) (nil: k itself), and prepare,
// when set, readies the fork for it.
func (e *Engine) replayedTo(i int, from func(k int) int, prepare func(f *Engine)) (*Engine, int, error) {
	if i < 0 || i >= e.hist.Len() {
		return nil, 0, fmt.Errorf("no attempt %d (have %d)", i, e.hist.Len())
	}
	if !e.retainedFrom(i) {
		return nil, 0, e.notRetained(i)
	}
	k := e.opsBefore(i)
	start := k
	if from != nil {
		start = from(k)
	}
	c := e.checkpointAtOrBefore(start)
	if c == nil {
		return nil, 0, e.notRetained(i)
	}
	kl := k - e.logBase
	opts := e.opts
	opts.OnEvent = nil
	f := &Engine{opts: opts, nodes0: e.nodes0, pods0: e.pods0, objs0: e.objs0, profile: e.profile,
		start: e.start, log: e.log[:kl:kl], logBase: e.logBase, ckptInterval: e.ckptInterval,
		hist: e.hist.Fork()}
	if err := f.restore(c); err != nil {
		return nil, 0, err
	}
	if prepare != nil {
		prepare(f)
	}
	f.replay(context.Background(), c.ops, k, nil)
	return f, k, nil
}
