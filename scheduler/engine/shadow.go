package engine

// Shadow mode (Options.Shadow): the cluster is the truth. Its changes
// (bindings, deletions, evictions, nominations, ...) are applied to the
// engine's state as they arrive; the engine never pops a pod, so schedtui
// neither places nor preempts anything. For every decision of the
// cluster's scheduler about a pod schedtui is responsible for, a binding or
// a PodScheduled=False condition with reason Unschedulable, schedtui makes
// its own attempt for that pod on the state the cluster's scheduler had,
// with Scheduler.Evaluate's Judgement (the algorithm and PostFilter,
// nothing carried out), and records it next to the decision: agree, tie
// or disagree.
//
// The mode is the shadow type (this file: its part of the mode
// interface, checkpoints, forks) and three concerns:
//
//   - shadow_track.go tracks the cluster: arrival times, the pods in
//     flight (PreBind nominations, claims' selected nodes), recent
//     deletions and cleared nominations, reaction times;
//   - shadow_judge.go judges a decision: podUpdated sees it in a pod
//     update, judgeDecision evaluates the pod (evaluate: the state
//     reconstructed, then Scheduler.Evaluate), shadowVerdict compares,
//     observeJudgement puts the attempt and the observation on the
//     timeline;
//   - shadow_revise.go revises uncertain verdicts: backward, a
//     disagreement judged again with recent changes undone (reconsider),
//     and forward, recent disagreements judged again when a pod turns out
//     to have been assumed before them (reviseRecent).
//
// The state at a decision is reconstructed from what the API delivered
// before it:
//
//   - every binding, deletion, node and object change delivered before the
//     decision, and every nomination (the nominator holds pods with a
//     status nomination, as upstream's does);
//   - pods in flight: the cluster's scheduler (1.37) sets nominatedNodeName
//     before PreBind (or a Permit wait) for a pod it has already assumed.
//     A pending pod counts as assumed on its nominated node, as upstream's
//     cache counts assumed pods (on the node, for Filter and Score alike,
//     and out of the nominator), when the update that set the nomination
//     did not change its PodScheduled condition (preemption writes the
//     nomination together with the Unschedulable condition; the PreBind
//     nomination is a patch of nominatedNodeName alone; a pod first seen
//     nominated counts when it has no PodScheduled=False condition), and
//     when it fits the node's free resources (cpu, memory, ephemeral
//     storage, extended resources, pod count) in the state so far: a
//     nomination to a node without room is a preemptor's, waiting for its
//     victims, and stays an ordinary nomination (noted on the observation);
//   - pods in flight by their claim: VolumeBinding's PreBind sets the
//     volume.kubernetes.io/selected-node annotation on a claim to
//     provision, for a pod the cluster's scheduler has assumed on that
//     node. A pod already nominated to the node gets no PreBind
//     nomination (the scheduler patches nominatedNodeName only when it
//     changes), so the claim is its only trace: a pending pod whose claim
//     is newly annotated counts as assumed on the annotated node, whatever
//     its nomination, room or not (the annotation is written after its
//     Filter passed there);
//   - the pod judged is taken as it was before the decision, with the
//     nomination it had before its own PreBind nomination;
//   - a pod in flight is judged on the state when its trace (the PreBind
//     nomination, the claim's annotation) arrived, evaluated then: the
//     cluster's scheduler assumed it before writing the trace, so the
//     pods decided after it were attempted after it (tracedAttempt).
//
// The reconstruction cannot see the pods the cluster's scheduler assumed
// without a nomination: its binding cycles run concurrently and bindings
// commit out of attempt order. Two rules make up for it, both on arrival
// times only, so that a replay gives the verdicts the live run gave:
//
//   - backward: a disagreement is judged again with the changes of other
//     pods that arrived shortly before the decision undone, the most
//     recent first, up to maxShadowAlternatives, then the deletions
//     alone (the cluster's scheduler assumed the pods it bound before
//     their bindings arrived), then the claims' annotations alone, then
//     the deletions of the pods terminating on the pod's nominated node
//     together: bindings and the claims' selected-node annotations that
//     put pods in flight within ShadowWindow (the cluster's scheduler may
//     have attempted the pod before it assumed them; and a claim's update
//     comes through another watch than the pod's, so a live session and
//     a recording of the same run may receive the two in either order)
//     and deletions of bound pods (its attempt may have run before
//     its informer delivered them: the decision is written to the API
//     after the attempt, asynchronously, while a kubelet may confirm a
//     victim's termination meanwhile), and nominations cleared without
//     any other change (a preemption clears those of the lower-priority
//     pods nominated to its node through the API, after its cycle: the
//     cluster's scheduler counts them there until its informer delivers
//     the clearing), both within lagWindow, the lag the run observes;
//   - forward: when a binding, a PreBind nomination or a claim's selected
//     node arrives within ShadowWindow after a decision judged a
//     disagreement, that decision
//     is judged again with the new pod counted on its node (the pod itself
//     taken off its node again): the cluster's scheduler may have assumed
//     that pod before it.
//
// A verdict that holds only on such an alternative, or a disagreement
// with such bindings around, is flagged Uncertain with the reason.

import (
	"errors"
	"fmt"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// ShadowWindow is how close in arrival time two bindings must be for
// their order to be doubted (bindings of pods attempted in one order may
// commit in the other).
const ShadowWindow = time.Second

// maxReactions is how many of the latest reaction times (a pod's
// creation to the first decision about it) lagWindow reads.
const maxReactions = 16

// maxShadowAlternatives bounds the backward alternatives tried for one
// decision.
const maxShadowAlternatives = 4

// maxRecent bounds the decisions kept for ShadowWindow: a burst of
// bindings within one second (or a clock that does not move) must not make
// every binding re-judge every earlier one.
const maxRecent = 32

// shadowState is shadow mode's bookkeeping; it is part of checkpoints.
type shadowState struct {
	// inflight holds the pods nominated for PreBind, by UID.
	inflight map[types.UID]inflight
	seq      uint64
	// recent holds the decisions judged within ShadowWindow of the last
	// one, oldest first.
	recent []recentDecision
	// removed holds the bound pods deleted and the nominations cleared
	// within ShadowWindow of the last such change, oldest first.
	removed []recentRemoval
	// capture is set in a fork replaying to an attempt (shadow.fork).
	capture *forkCapture
	// arrived is when the change being applied arrived (its At), never
	// before the previous one's: the windows are measured in arrival
	// time, not on the engine's clock, which a live session's ticks may
	// have moved past a change still waiting to be applied. A recording
	// replays each change at its At, so live and replay measure alike.
	arrived time.Time
	// tracedOps maps an attempt judged on the state when its pod went in
	// flight to the op during which that state was evaluated: a fork of
	// the attempt replays from there.
	tracedOps map[int]int
	// created holds when the pending pods created since the start
	// arrived, until the first decision about them; reactions the
	// latest delays from that arrival to the decision's (lagWindow).
	created   map[types.UID]time.Time
	reactions []time.Duration
	// batches are the pod groups whose members' bindings are gathered
	// to be judged together (shadow_group.go), by namespace/name.
	batches map[string]*groupBatch
	// held are the PodGroup conditions waiting for their cycle's first
	// member decision, by namespace/name.
	held map[string]heldCondition
}

type forkCapture struct {
	want int
	// of is attempt want's pod: only its evaluations are kept.
	of    string
	sched *scheduler.Scheduler
	pod   *v1.Pod
}

// shadow is the shadow mode (mode.go): the engine follows the cluster and
// judges its scheduler's decisions. Its bookkeeping, shadowState, is
// part of checkpoints.
type shadow struct {
	e *Engine
	*shadowState
}

func newShadow(e *Engine) *shadow {
	return &shadow{e: e, shadowState: &shadowState{inflight: map[types.UID]inflight{}, tracedOps: map[int]int{}, created: map[types.UID]time.Time{},
		batches: map[string]*groupBatch{}, held: map[string]heldCondition{}}}
}

// Shadowing reports whether the engine runs in shadow mode.
func (e *Engine) Shadowing() bool { return e.opts.Shadow }

func (s *shadow) save() modeState { return s.clone(&s.e.hist) }

// resume is the shadow mode again at a checkpoint: the recent
// observations put back in e's timeline as they were (a later revision is
// undone), in a copy, as logs handed out before (Timeline) read the old
// array. Those archived since were past revision when the checkpoint was
// taken (compactTimeline): they are as it saw them.
func (c *shadowState) resume(e *Engine) mode {
	if len(c.recent) > 0 {
		e.hist.Unshare()
	}
	for _, r := range c.recent {
		e.hist.Revise(r.ev, r.event)
	}
	return &shadow{e: e, shadowState: c.clone(&e.hist)}
}

// clone copies the state for a checkpoint, with the recent observations
// as they stand in l's timeline.
func (s *shadowState) clone(l *history.Log) *shadowState {
	c := &shadowState{inflight: make(map[types.UID]inflight, len(s.inflight)), seq: s.seq, removed: append([]recentRemoval(nil), s.removed...), arrived: s.arrived,
		tracedOps: make(map[int]int, len(s.tracedOps)), created: make(map[types.UID]time.Time, len(s.created)),
		reactions: append([]time.Duration(nil), s.reactions...), batches: make(map[string]*groupBatch, len(s.batches))}
	for k, b := range s.batches {
		c.batches[k] = b.clone()
	}
	c.held = make(map[string]heldCondition, len(s.held))
	for k, h := range s.held {
		c.held[k] = h
	}
	for k, v := range s.created {
		c.created[k] = v
	}
	for k, v := range s.tracedOps {
		c.tracedOps[k] = v
	}
	for k, v := range s.inflight {
		c.inflight[k] = v
	}
	for _, r := range s.recent {
		if ev, ok := l.Numbered(r.ev); ok {
			r.event = ev
		}
		c.recent = append(c.recent, r)
	}
	return c
}

// revisable is the number of the first observation reviseRecent may still
// judge again (within ShadowWindow of the last change's arrival); ok is
// false when there is none.
func (s *shadowState) revisable() (ev int, ok bool) {
	for _, r := range s.recent {
		if s.arrived.Sub(r.at) <= ShadowWindow && (!ok || r.ev < ev) {
			ev, ok = r.ev, true
		}
	}
	return ev, ok
}

// forgetTraced forgets the traced attempts before attempt first: no fork
// reaches them (retainedFrom).
func (s *shadowState) forgetTraced(first int) {
	for i := range s.tracedOps {
		if i < first {
			delete(s.tracedOps, i)
		}
	}
}

// rewrites: a restore puts every recent observation back (resume), those
// past revision too.
func (s *shadow) rewrites(first int) (int, bool) {
	if len(s.recent) == 0 {
		return 0, false
	}
	ev := math.MaxInt
	for _, r := range s.recent {
		// One archived was past revision (compactTimeline).
		if r.ev >= first {
			ev = min(ev, r.ev)
		}
	}
	return ev, true
}

// forget: a pod no longer held is in flight no more.
func (s *shadow) forget(uid types.UID)   { delete(s.inflight, uid) }
func (s *shadow) forgetBefore(first int) { s.forgetTraced(first) }

// dropsEmitted: a headless shadow engine follows a live cluster for as
// long as a recording lasts, and nothing reads its events once handed
// out.
func (*shadow) dropsEmitted() bool { return true }

func (*shadow) bindRefused() error {
	return errors.New("--bind makes schedtui the scheduler: not in shadow mode")
}

// step is Step in shadow mode: it applies the changes due, one at a
// time, jumping virtual time from one to the next, until one of them
// makes an attempt (a decision of the cluster's scheduler judged); it
// returns errQuiescent when no change is left (before limit). The engine
// never pops a pod.
func (s *shadow) step(limit time.Time, _, _ bool) (*record.Attempt, framework.QueuedEntity, error) {
	e := s.e
	n := e.hist.Len()
	for {
		for {
			t := e.timers.peek()
			if t == nil || t.at.After(e.now) {
				break
			}
			e.timers.pop()
			e.fire(t)
			if e.hist.Len() > n {
				return e.hist.Last(), nil, nil
			}
		}
		t := e.timers.peek()
		if t == nil || !limit.IsZero() && t.at.After(limit) {
			return nil, nil, errQuiescent
		}
		e.now = t.at
	}
}

// quiescent: no change is left to apply; the queue only mirrors the
// cluster's.
func (s *shadow) quiescent() bool { return s.e.timers.Len() == 0 }

// cloneScheduler is a separate scheduler holding the engine's state.
func (s *shadow) cloneScheduler() *scheduler.Scheduler {
	e := s.e
	st, err := e.sched.CaptureState(nil)
	if err != nil {
		return nil
	}
	now := e.now
	c, err := scheduler.New(nil, nil, nil, scheduler.Options{Config: e.opts.Config, Registry: e.opts.Registry, Seed: e.opts.Seed,
		Clock: func() time.Time { return now }, ExtenderAnswers: e.opts.ExtenderAnswers, Features: e.opts.Features,
		RecomputeVerdicts: e.opts.RecomputeVerdicts})
	if err != nil || c.RestoreState(st) != nil {
		return nil
	}
	c.SetExtenderReplay(func() bool { return e.replaying })
	return c
}

// fork is Fork in shadow mode: a fork of the engine, replayed with the
// capture set from before the op that evaluated attempt i's state
// (tracedAt), runs the op that made attempt i and keeps the state that
// attempt was evaluated on.
func (s *shadow) fork(i int) (*scheduler.Scheduler, *v1.Pod, error) {
	e := s.e
	f, k, err := e.replayedTo(i, func(k int) int { return s.tracedAt(i, k) }, func(f *Engine) {
		f.mode.(*shadow).capture = &forkCapture{want: i, of: e.hist.At(i).Pod}
	})
	if err != nil {
		return nil, nil, err
	}
	c := f.mode.(*shadow).capture
	f.replaying = true
	f.replayOp = k
	f.runOp(e.log[k-e.logBase])
	if c == nil || c.sched == nil || i >= f.hist.Len() {
		return nil, nil, fmt.Errorf("replaying to attempt %d (op %d): the attempt was not made again", i, k)
	}
	return c.sched, c.pod, nil
}

// tracedAt is the op from which a fork of attempt i replays: the op that
// made it (k), or, for an attempt evaluated when its pod went in flight,
// the op during which it was.
func (s *shadow) tracedAt(i, k int) int {
	if op, ok := s.tracedOps[i]; ok && op < k {
		return op
	}
	return k
}

// popped: in shadow mode an attempt is not a pop of the engine's queue but
// a judgment of the cluster's decision, so there is no such engine.
func (*shadow) popped(i int) (*Engine, *framework.QueuedPodInfo, error) {
	return nil, nil, fmt.Errorf("attempt %d judged a decision of the cluster's scheduler (shadow mode): no queue state to resume from; use --simulate", i)
}
