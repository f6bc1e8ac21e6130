package engine

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Options configure an Engine.
type Options struct {
	// Config is a defaulted KubeSchedulerConfiguration; nil means defaults.
	// podInitialBackoffSeconds and podMaxBackoffSeconds set the backoff.
	Config *configv1.KubeSchedulerConfiguration
	// Registry holds the plugin factories (plugins.NewInTreeRegistry()).
	Registry runtime.Registry
	// Seed seeds the random source (preemption's candidate offset).
	Seed uint64
	// Features are the feature gates in effect (--emulated-version,
	// --feature-gates; Config must have been defaulted under them); nil
	// means v1.37's defaults.
	Features *features.Features
	// Start is virtual time zero; zero means scheduler.Epoch, or the
	// Clock's now in real time.
	Start time.Time
	// Clock, when set, runs the engine in real time (a live cluster; see
	// realtime.go): AdvanceTo and Tick move the clock, Step never jumps
	// past the Clock's now, and a change applies at its At. Nil is virtual
	// time (snapshots, recordings): Step jumps to the next due event.
	Clock change.Clock
	// AttemptDuration is the virtual time one scheduling attempt takes.
	// Zero (the default) makes attempts instantaneous: time only moves when
	// the engine is idle and jumps to the next due event.
	AttemptDuration time.Duration
	// PreemptionAPIDelay is the virtual time between a preemption decision
	// and its API calls (victims marked, nominations cleared): upstream's
	// async preemption goroutine. Zero means they happen right after the
	// failure handler has requeued the preemptor.
	PreemptionAPIDelay time.Duration
	// CheckpointInterval is the number of attempts between rewind
	// checkpoints (default 256); MaxCheckpoints bounds their number
	// (default 32; when full, every other one is dropped and the interval
	// doubles).
	CheckpointInterval int
	MaxCheckpoints     int
	// Bind, when set, binds every pod the engine schedules in a real
	// cluster too (schedtui --bind), through DefaultBinder as upstream
	// does; a failed call fails the attempt's Bind phase. Replays never
	// call it, Rewind is refused once it bound a pod, and preemption is
	// decided but not carried out (see NotCarriedOut): schedtui never
	// deletes pods.
	Bind BindFunc
	// Shadow follows the cluster instead of scheduling (shadow.go): the
	// recorded or live changes are the truth, the engine never pops a pod,
	// and every decision of the cluster's scheduler (a binding, or
	// PodScheduled=False/Unschedulable) is judged by an attempt of
	// schedtui's made on the state the cluster's scheduler had, without
	// effects. Not with Bind.
	Shadow bool
	// ExtenderAnswers keeps the extenders' answers, so that an attempt
	// made again (rewind, fork) gets the answers it got; nil: a store of
	// the engine's own, shared with its forks.
	ExtenderAnswers *scheduler.ExtenderAnswers
	// RecomputeVerdicts evaluates every node with every plugin in every
	// cycle, as upstream does, instead of taking the node-local plugins'
	// verdicts on unchanged nodes from the framework's verdict memo (the
	// memo's fidelity test compares the two).
	RecomputeVerdicts bool
	// Retention bounds what the engine keeps of the past (retention.go);
	// the zero value keeps everything.
	Retention Retention
	// OnEvent, when set, is handed every timeline event in order, once,
	// soon after it happens (after the op that made it; see emit), with
	// the attempt of an EventAttempt: a headless run writes as it goes.
	OnEvent func(history.Event, *record.Attempt)
	// Resume restarts the scheduler where a state written at an attempt
	// (AttemptState) left it: that attempt's pod popped first, the node
	// scan's start and the random source as they were. Nil for none.
	Resume *Resume
}

// Engine drives a Scheduler and its queue through virtual time. It is not
// safe for concurrent use.
type Engine struct {
	opts    Options
	nodes0  []*v1.Node
	pods0   []*v1.Pod
	objs0   []any
	profile []string // profile names in config order

	sched *scheduler.Scheduler
	q     *queue.PriorityQueue

	start, now time.Time
	// lastBackoffFlush and lastLeftoverFlush are the last flush ticks run;
	// ticks that would move nothing are skipped (they change nothing).
	lastBackoffFlush, lastLeftoverFlush time.Time
	timers                              timerHeap
	timerSeq                            uint64
	// preempting holds preemptors whose async preemption has not finished
	// its API calls (DefaultPreemption's PreEnqueue gates them).
	preempting map[types.UID]bool
	nodeOrder  []*v1.Node

	// gen counts cluster changes; lastGen[uid] is gen when the pod was
	// last attempted or evaluated by PreEnqueue (see quiescent).
	gen     uint64
	lastGen map[types.UID]uint64
	// evicted: the victims removed at the end of their grace period, in
	// real time only (see evictedHere).
	evicted map[types.UID]struct{}

	// hist is the run's history: attempts, timeline events, what of them
	// is archived and handed out (scheduler/history).
	hist   history.Log
	cursor Cursor
	// popped is the queue as the attempt stepped by phase popped it
	// (stepqueue.go).
	popped poppedQueue

	// decision and volumeWrites are collected while a pod is in flight
	// and acted on once its attempt is handled.
	decision     *pendingPreemption
	volumeWrites []any
	// stubs are the PodInfos of nominated pods in flight.
	stubs map[types.UID]*framework.PodInfo
	// parked are the pods whose binding cycle waits in PreBind
	// (binding_wait.go); expiredAt[uid] is external when the pod's last
	// wait ran out, and external counts the changes applied from outside
	// (a recording, a live cluster, Apply).
	parked    map[types.UID]*parkedBinding
	expiredAt map[types.UID]uint64
	external  uint64

	// Rewinding (rewind.go).
	replaying bool
	// replayOp is the index of the op being replayed (currentOp).
	replayOp int
	// boundInCluster: the pods bindForReal bound, and where, while they
	// exist; boundAny: it ever bound one.
	boundInCluster map[types.UID]string
	boundAny       bool
	// mode is what a step does and what the cluster's decisions mean
	// (mode.go): simulate, or shadow.
	mode         mode
	log          []op
	checkpoints  []*checkpoint
	ckptInterval int
	// Retention (retention.go): logBase is the number of ops dropped
	// from the front of log; pinned is SetPinned's.
	logBase int
	pinned  func(pod string) bool
}

var _ API = (*Engine)(nil)

// New builds an engine over nodes (in the order they were added to the
// cluster), pods (bound ones are placed, pending ones queued in creation
// order) and the other objects plugins read. The inputs are kept for
// rewinding and must not be mutated afterwards.
func New(nodes []*v1.Node, pods []*v1.Pod, objects []any, opts Options) (*Engine, error) {
	if opts.Start.IsZero() {
		opts.Start = scheduler.Epoch
		if opts.Clock != nil {
			opts.Start = opts.Clock.Now()
		}
	}
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = 256
	}
	if opts.MaxCheckpoints < 2 {
		opts.MaxCheckpoints = 32
	}
	if opts.ExtenderAnswers == nil {
		// Forks copy the options: they share the store.
		opts.ExtenderAnswers = scheduler.NewExtenderAnswers()
	}
	e := &Engine{opts: opts, nodes0: nodes, pods0: pods, objs0: objects, ckptInterval: opts.CheckpointInterval}
	var err error
	if e.mode, err = newMode(e); err != nil {
		return nil, err
	}
	e.profile = profileOrder(opts.Config)
	if err := e.build(true); err != nil {
		return nil, err
	}
	if err := e.resume(); err != nil {
		return nil, err
	}
	e.start, e.now = opts.Start, opts.Start
	e.nodeOrder = append([]*v1.Node(nil), nodes...)
	e.cursor = Cursor{Attempt: -1}
	// The scheduler's New nominated every pod with a status nomination;
	// upstream's nominator only learns of pods the queue adds.
	e.sched.Nominator().Reset()
	// The observed groups first (CompositePodGroups, then PodGroups):
	// their members join them as they come.
	for _, cpg := range e.sched.Objects().CompositePodGroups("") {
		e.q.AddCompositePodGroup(cpg)
	}
	for _, pg := range e.sched.Objects().PodGroups("") {
		e.q.AddPodGroup(pg)
	}
	for _, p := range bySchedulingOrder(pods) {
		if p.Spec.NodeName == "" && !terminal(p) && e.responsible(p) {
			e.q.Add(p)
			e.mode.pendingAdded(p, true)
		}
	}
	if !opts.Retention.Headless {
		if err := e.checkpoint(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// profileOrder is the profiles' scheduler names in config order.
func profileOrder(cfg *configv1.KubeSchedulerConfiguration) []string {
	var out []string
	if cfg != nil {
		for _, p := range cfg.Profiles {
			name := v1.DefaultSchedulerName
			if p.SchedulerName != nil && *p.SchedulerName != "" {
				name = *p.SchedulerName
			}
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		out = []string{v1.DefaultSchedulerName}
	}
	return out
}

// terminal reports a pod in phase Succeeded or Failed: the scheduler's pod
// informer excludes them (field selector), so they neither hold resources
// nor get scheduled.
func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// bySchedulingOrder orders pending pods as the informer would have added
// them to a running scheduler: by creation time, file order breaking ties.
func bySchedulingOrder(pods []*v1.Pod) []*v1.Pod {
	out := append([]*v1.Pod(nil), pods...)
	stableSortPods(out)
	return out
}

// build makes a fresh scheduler and queue wired to the engine, over the
// initial cluster, or over nothing when restore is about to replace the
// state.
func (e *Engine) build(withInputs bool) error {
	nodes, pods, objs := e.nodes0, e.pods0, e.objs0
	if !withInputs {
		nodes, pods, objs = nil, nil, nil
	}
	s, err := scheduler.New(nodes, pods, objs, scheduler.Options{
		Config: e.opts.Config, Registry: e.opts.Registry, Seed: e.opts.Seed, Clock: e.clock, Features: e.opts.Features,
		ExtenderAnswers: e.opts.ExtenderAnswers, RecomputeVerdicts: e.opts.RecomputeVerdicts,
	})
	if err != nil {
		return err
	}
	s.UsePCG(scheduler.NewPCG(e.opts.Seed))
	s.SetPreemptionActuator(e.onPreemption)
	s.SetBindObserver(e.onBound)
	s.RecordLinesOnly(e.opts.Retention.Headless && e.opts.Retention.LinesOnly && !e.opts.Shadow)
	// An attempt made again gets the extenders' answers it got.
	s.SetExtenderReplay(func() bool { return e.replaying })
	s.SetClaimWriteObserver(func(c *resourcev1.ResourceClaim) { e.storeObject(c) })
	s.SetCacheErrorReporter(e.onCacheError)
	s.Nominator().SetResolver(e.resolveNominated)
	e.installBinder(s)
	profiles := map[string]queue.Profile{}
	for name, f := range s.Profiles() {
		profiles[name] = f
	}
	first := s.Profile(e.profile[0])
	if first == nil {
		return fmt.Errorf("no profile %q", e.profile[0])
	}
	qopts := queue.Options{
		Clock: e.clock, Less: first.QueueSortLess, Profiles: profiles, ProfileOrder: e.profile,
		Nominator: s.Nominator(), OnMove: e.onMove, Features: s.Features(),
	}
	if cfg := e.opts.Config; cfg != nil {
		if cfg.PodInitialBackoffSeconds != nil {
			qopts.PodInitialBackoffDuration = time.Duration(*cfg.PodInitialBackoffSeconds) * time.Second
		}
		if cfg.PodMaxBackoffSeconds != nil {
			qopts.PodMaxBackoffDuration = time.Duration(*cfg.PodMaxBackoffSeconds) * time.Second
		}
	}
	q, err := queue.New(qopts)
	if err != nil {
		return err
	}
	e.sched, e.q = s, q
	e.preempting = map[types.UID]bool{}
	e.lastGen = map[types.UID]uint64{}
	e.stubs = map[types.UID]*framework.PodInfo{}
	e.parked = map[types.UID]*parkedBinding{}
	e.expiredAt = map[types.UID]uint64{}
	return nil
}

func (e *Engine) clock() time.Time { return e.now }

func (e *Engine) responsible(p *v1.Pod) bool { return e.sched.Profile(p.Spec.SchedulerName) != nil }

// Scheduler is the scheduling core at the engine's current state. Rewind
// replaces it: do not keep it across a Rewind.
func (e *Engine) Scheduler() *scheduler.Scheduler { return e.sched }

// Pod returns the current object of a pod ("namespace/name"), or nil.
func (e *Engine) Pod(key string) *v1.Pod {
	ns, name := splitKey(key)
	p, err := e.sched.Objects().Pod(ns, name)
	if err != nil {
		return nil
	}
	return p
}

// resolveNominated maps a nominator entry to the queue's current PodInfo;
// a pod not in the queue (in flight) is a stub (nominationStub), as
// upstream's nominatedPodToInfo returns.
func (e *Engine) resolveNominated(pi *framework.PodInfo) *framework.PodInfo {
	if cur, ok := e.q.PodInfo(pi.Pod.Namespace, pi.Pod.Name); ok {
		return cur
	}
	if s, ok := e.stubs[pi.Pod.UID]; ok {
		return s
	}
	s := nominationStub(pi)
	e.stubs[pi.Pod.UID] = s
	return s
}

// nominationStub is a nominated pod the queue does not hold, as upstream's
// nominator knows it (its podRef): name, namespace, UID and scheduling
// group only. With no priority (0) and no requests, Filter with nominated
// pods counts it only for pods of priority 0 or less, and then as a pod
// asking for nothing.
func nominationStub(pi *framework.PodInfo) *framework.PodInfo {
	stub := &v1.Pod{}
	stub.Name, stub.Namespace, stub.UID = pi.Pod.Name, pi.Pod.Namespace, pi.Pod.UID
	stub.Spec.SchedulingGroup = pi.Pod.Spec.SchedulingGroup
	return framework.NewPodInfo(stub)
}

// bump records a cluster change.
func (e *Engine) bump() { e.gen++ }

// onMove turns queue moves into timeline events and notes PreEnqueue
// evaluations for quiescence.
func (e *Engine) onMove(m queue.Move) {
	if m.To == queue.InFlight {
		e.popped.onPop(e)
	}
	if m.To == queue.Gated {
		e.lastGen[m.Pod.UID] = e.gen
	}
	if m.From == m.To {
		return
	}
	e.event(history.Event{Kind: history.EventQueueMove, Pod: key(m.Pod), From: history.QueueName(m.From), To: history.QueueName(m.To),
		Reason: m.Event, Message: gatingMessage(m)})
}

func gatingMessage(m queue.Move) string {
	if m.GatingPlugin == "" {
		return ""
	}
	return m.GatingPlugin + ": " + m.GatingMessage
}

func (e *Engine) event(ev history.Event) {
	if ev.Time.IsZero() {
		ev.Time = e.now
	}
	if ev.Kind != history.EventAttempt && ev.Kind != history.EventObserved && ev.Kind != history.EventBinding {
		ev.Attempt = -1
	}
	e.hist.AddEvent(ev)
}

func key(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func splitKey(k string) (string, string) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return "default", k
}

// errQuiescent ends a step that found nothing to do.
var errQuiescent = errors.New("quiescent")

// maxIdleJumps bounds the time jumps one step may take without an attempt
// or quiescence; reaching it means the engine is cycling (a bug), and the
// step gives up rather than hang.
const maxIdleJumps = 1 << 20

// step makes at most one attempt, as the mode does it (simulation.step:
// pop and schedule; shadow.step: apply changes until one is judged). With
// a non-zero limit, time never passes limit (RunUntil). With
// stopBeforeAttempt the popped pod is returned without scheduling it
// (Fork). It returns errQuiescent when there is nothing left to do (or
// nothing before limit).
func (e *Engine) step(limit time.Time, strict bool, stopBeforeAttempt bool) (*record.Attempt, framework.QueuedEntity, error) {
	return e.mode.step(limit, strict, stopBeforeAttempt)
}

// attempt schedules one popped pod and handles the outcome as the
// scheduling and binding cycles and handleSchedulingFailure do.
func (e *Engine) attempt(pi *framework.QueuedPodInfo) *record.Attempt {
	pod := pi.Pod
	uid := pod.UID
	genAtStart := e.gen
	e.decision, e.volumeWrites = nil, nil
	// The extenders' answers to this attempt are kept while it can be
	// made again (dropOldestCheckpoint).
	e.opts.ExtenderAnswers.SetEpoch(uint64(e.hist.Len()))
	a := e.sched.ScheduleOne(pod)
	idx := e.logAttempt(a, uid, genAtStart)
	e.actuateSyncDecision()
	e.settleAttempt(pi, a, idx)
	e.preemptionDecided(a.Pod, a.Victims, a.Message)
	return a
}

// logAttempt adds an attempt to the history and the timeline.
func (e *Engine) logAttempt(a *record.Attempt, uid types.UID, genAtStart uint64) int {
	// The pod passed PreEnqueue before it could be popped.
	a.Phases[record.PhasePreEnqueue] = record.PhaseStatus{Code: record.CodeSuccess}
	idx := e.hist.Add(a)
	e.lastGen[uid] = genAtStart
	e.event(history.Event{Kind: history.EventAttempt, Pod: a.Pod, Attempt: idx, Node: a.Node, Reason: a.Outcome.String(), Message: a.Message, Time: a.Time})
	return idx
}

// actuateSyncDecision carries out a synchronous preemption: PostFilter's
// API calls, seen by the queue as events while the preemptor is still in
// flight.
func (e *Engine) actuateSyncDecision() {
	if d := e.decision; d != nil && d.sync && !d.notCarriedOut {
		e.actuateSync(d)
	}
}

// settleAttempt handles an attempt's outcome for its pod: bound, dropped,
// parked, or handed to the failure handler.
func (e *Engine) settleAttempt(pi *framework.QueuedPodInfo, a *record.Attempt, idx int) {
	switch a.Outcome {
	case record.Scheduled:
		e.q.Done(pi.Pod.UID)
		e.bound(pi.Pod)
	case record.Skipped:
		e.q.Done(pi.Pod.UID)
	case record.Waiting:
		// Still in flight: its binding cycle is parked (binding_wait.go).
		e.parkBinding(pi, idx, a.Node)
	default:
		e.failed(pi, a)
	}
}

// preemptionDecided reports the preemption the attempt decided, if any,
// and schedules its API calls.
func (e *Engine) preemptionDecided(pod string, victims []string, msg string) {
	d := e.decision
	if d == nil {
		return
	}
	e.decision = nil
	if d.notCarriedOut {
		msg = NotCarriedOut
	}
	e.event(history.Event{Kind: history.EventPreemption, Pod: pod, Node: d.node, Victims: append([]string(nil), victims...),
		Reason: d.record.DecidedBy, Message: msg})
	if len(d.victims) > 0 && !d.sync {
		e.addTimer(&timer{at: e.now.Add(e.opts.PreemptionAPIDelay), kind: timerActuate, preemption: d})
	}
}

// bound applies a successful binding as the informer reports it: the
// assigned pod's add event, the pending pod's removal from the queue, then
// the volume writes PreBind made.
func (e *Engine) bound(oldPod *v1.Pod) {
	cur := e.Pod(key(oldPod))
	e.bump()
	if cur != nil {
		e.q.MoveAllToActiveOrBackoffQueue(queue.EventAssignedPodAdd, nil, cur, nil)
	}
	e.q.Delete(oldPod)
	writes := e.volumeWrites
	e.volumeWrites = nil
	for _, obj := range writes {
		e.storeObject(obj)
	}
}

// failed is handleSchedulingFailure after the cycle's own part
// (nomination, status nomination) which ScheduleOne already applied.
func (e *Engine) failed(pi *framework.QueuedPodInfo, a *record.Attempt) {
	pod := pi.Pod
	info := requeueInfo(pi, a)
	cached, err := e.sched.Objects().Pod(pod.Namespace, pod.Name)
	switch {
	case err != nil || cached.Spec.NodeName != "":
		// Gone or bound meanwhile: not requeued.
		e.q.Done(pod.UID)
	case cached.UID != pod.UID:
		// Recreated while in flight: upstream returns without touching it.
		e.q.Done(pod.UID)
		return
	default:
		// Upstream requeues a fresh PodInfo of the informer's copy, which
		// is still the popped pod: the status patch arrives afterwards.
		if err := e.q.AddUnschedulablePodIfNotPresent(&info); err != nil {
			e.event(history.Event{Kind: history.EventQueueMove, Pod: key(pod), Reason: ScheduleAttemptFailureError, Message: err.Error()})
		}
	}
	if cached == nil || cached.Spec.NodeName != "" || cached.UID != pod.UID {
		return
	}
	if cached.Status.NominatedNodeName != pod.Status.NominatedNodeName {
		e.bump()
	}
	// The status patch (PodScheduled condition and nomination) comes back
	// as an update of the pending pod.
	reason := v1.PodReasonSchedulerError
	if a.Outcome == record.Unschedulable {
		reason = v1.PodReasonUnschedulable
	}
	nominationPatched := cached.Status.NominatedNodeName != pod.Status.NominatedNodeName
	updated := withScheduledCondition(cached, reason, a.Message, e.now, e.sched.Features().EnablePodObservedGenerationTracking, nominationPatched)
	if updated != cached {
		e.sched.SetPendingPod(updated)
	}
	if updated != pod {
		e.unscheduledPodUpdated(pod, updated)
	}
}

// requeueInfo is the queue entry of a pod to requeue after attempt a:
// with the plugins that rejected it. A rejection is a FitError (or no
// nodes at all, which records no plugin): its diagnosis names the plugins
// whose events may help; an error names none.
func requeueInfo(pi *framework.QueuedPodInfo, a *record.Attempt) framework.QueuedPodInfo {
	info := *pi
	info.UnschedulablePlugins = sets.New[string]()
	info.PendingPlugins = sets.New[string]()
	if a.Outcome == record.Unschedulable {
		info.UnschedulablePlugins.Insert(a.UnschedulablePlugins...)
		info.PendingPlugins.Insert(a.PendingPlugins...)
	}
	return info
}

// ScheduleAttemptFailureError labels a requeue the queue refused.
const ScheduleAttemptFailureError = "ScheduleAttemptFailureError"

// withScheduledCondition returns pod after updatePod's status patch:
// PodScheduled=False with the given reason and message. The patch is sent
// when the condition changes or the nomination was patched with it
// (nominationPatched, already applied to pod by the cycle); otherwise, or
// when the patch leaves pod's conditions as they are, pod itself is
// returned.
func withScheduledCondition(pod *v1.Pod, reason, msg string, now time.Time, trackGeneration, nominationPatched bool) *v1.Pod {
	out := pod.DeepCopy()
	changed := updatePodCondition(&out.Status, v1.PodCondition{
		Type:               v1.PodScheduled,
		ObservedGeneration: conditionObservedGeneration(pod, v1.PodScheduled, trackGeneration),
		Status:             v1.ConditionFalse,
		Reason:             reason,
		Message:            msg,
	}, now)
	if !changed && (!nominationPatched || apiequality.Semantic.DeepEqual(out.Status.Conditions, pod.Status.Conditions)) {
		return pod
	}
	return out
}

// settle runs everything due at or before now: engine timers in order,
// then the backoffQ flush and the leftover flush if a tick falls now.
func (e *Engine) settle() {
	for {
		if t := e.timers.peek(); t != nil && !t.at.After(e.now) {
			e.timers.pop()
			e.fire(t)
			continue
		}
		break
	}
	if e.isBackoffTick(e.now) && e.now.After(e.lastBackoffFlush) {
		if rel, ok := e.q.NextBackoffRelease(); ok && !rel.After(e.now) {
			e.lastBackoffFlush = e.now
			e.q.FlushBackoffQCompleted()
		}
	}
	if e.isLeftoverTick(e.now) && e.now.After(e.lastLeftoverFlush) {
		if to, ok := e.q.NextUnschedulableTimeout(); ok && e.now.After(to) {
			e.lastLeftoverFlush = e.now
			e.q.FlushUnschedulablePodsLeftover()
		}
	}
}

// isBackoffTick: the backoffQ flush runs at every whole second after the
// start (waitUntilAlignedWithOrderingWindow, then a 1-second ticker).
//
// With SchedulerPopFromBackoffQ the ticks are aligned to the ordering
// windows; without it they come every window from the start.
func (e *Engine) isBackoffTick(t time.Time) bool {
	if !e.sched.Features().EnableSchedulerPopFromBackoffQ {
		d := t.Sub(e.start)
		return d > 0 && d%queue.BackoffOrderingWindow == 0
	}
	return t.After(e.start) && t.Equal(t.Truncate(queue.BackoffOrderingWindow))
}

// isLeftoverTick: the leftover flush runs at the start and every 30s.
func (e *Engine) isLeftoverTick(t time.Time) bool {
	d := t.Sub(e.start)
	return d >= 0 && d%queue.UnschedulableFlushPeriod == 0
}

// nextDue is the next instant something happens without an external
// event: a timer, a backoff tick that releases a pod, or a leftover tick
// that moves one.
func (e *Engine) nextDue() (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	if t := e.timers.peek(); t != nil {
		consider(t.at)
	}
	if rel, ok := e.q.NextBackoffRelease(); ok {
		after := e.now
		if !e.lastBackoffFlush.Before(e.now) {
			after = e.now.Add(time.Nanosecond)
		}
		if rel.After(after) {
			after = rel
		}
		consider(e.ceilBackoffTick(after))
	}
	if to, ok := e.q.NextUnschedulableTimeout(); ok {
		after := to.Add(time.Nanosecond)
		if after.Before(e.now) {
			after = e.now
		}
		if !e.lastLeftoverFlush.Before(after) {
			after = e.lastLeftoverFlush.Add(time.Nanosecond)
		}
		consider(e.ceilLeftoverTick(after))
	}
	return best, found
}

// ceilBackoffTick is the first backoff tick at or after t.
func (e *Engine) ceilBackoffTick(t time.Time) time.Time {
	if !t.After(e.start) {
		t = e.start.Add(time.Nanosecond)
	}
	if !e.sched.Features().EnableSchedulerPopFromBackoffQ {
		d := t.Sub(e.start)
		k := (d + queue.BackoffOrderingWindow - 1) / queue.BackoffOrderingWindow
		return e.start.Add(k * queue.BackoffOrderingWindow)
	}
	c := t.Truncate(queue.BackoffOrderingWindow)
	if c.Before(t) {
		c = c.Add(queue.BackoffOrderingWindow)
	}
	return c
}

// ceilLeftoverTick is the first leftover tick at or after t.
func (e *Engine) ceilLeftoverTick(t time.Time) time.Time {
	if !t.After(e.start) {
		return e.start
	}
	d := t.Sub(e.start)
	n := d / queue.UnschedulableFlushPeriod
	if d%queue.UnschedulableFlushPeriod != 0 {
		n++
	}
	return e.start.Add(n * queue.UnschedulableFlushPeriod)
}

// quiescent reports that no pod will move again without an external
// event, except through periodic flushes whose retries are known to end
// the same way: the mode says what that takes (simulation.quiescent,
// shadow.quiescent).
func (e *Engine) quiescent() bool { return e.mode.quiescent() }

// pendingPreemption is a decision handed over by the cycle.
type pendingPreemption struct {
	// preemptor is the pod, or the pod group, that preempts.
	preemptor scheduler.Preemptor
	// node is the chosen candidate: a node, or "cluster" for a pod group.
	node    string
	record  *record.Preemption
	victims []string // namespace/name of the victims to delete, in order
	// notCarriedOut: decided under --bind, where schedtui deletes nothing.
	notCarriedOut bool
	// sync: SchedulerAsyncPreemption is off, so the API calls are made
	// inside PostFilter, before the failure handler (actuateSync).
	sync bool
}

// onPreemption is the cycle's preemption hook: upstream's
// prepareCandidateAsync marks the preemptor and starts a goroutine; the
// engine runs the goroutine's API calls as a timer after the failure
// handler (see Options.PreemptionAPIDelay). With SchedulerAsyncPreemption
// off nothing is marked: attempt makes the calls before the failure
// handler.
func (e *Engine) onPreemption(preemptor scheduler.Preemptor, p *record.Preemption) {
	c := p.Candidates[p.Chosen]
	d := &pendingPreemption{preemptor: preemptor, node: c.Node, record: p, sync: !e.sched.Features().EnableAsyncPreemption}
	for _, v := range c.Victims {
		ns, name := splitKey(v.Pod)
		cur, err := e.sched.Objects().Pod(ns, name)
		if err != nil || cur.DeletionTimestamp != nil {
			// Already being deleted: no API call for it.
			continue
		}
		d.victims = append(d.victims, v.Pod)
	}
	e.decision = d
	if e.opts.Bind != nil {
		d.victims, d.notCarriedOut = nil, true
	}
	if len(d.victims) == 0 || d.sync {
		return
	}
	e.setPreempting(preemptor, true)
}

// setPreempting marks (or unmarks) a preemptor whose victims are not all
// being deleted yet, by its UID: a pod's, or a pod group's PodGroup's
// (DefaultPreemption's PreEnqueue holds the group's members by it).
func (e *Engine) setPreempting(preemptor scheduler.Preemptor, on bool) {
	if on {
		e.preempting[preemptor.UID] = true
	} else {
		delete(e.preempting, preemptor.UID)
	}
	if f := e.sched.Profile(preemptor.SchedulerName); f != nil {
		if pl, ok := f.Plugin(names.DefaultPreemption).(interface{ SetPreempting(string, bool) }); ok {
			pl.SetPreempting(string(preemptor.UID), on)
		}
	}
}

// priorityOf is the pod's priority.
func priorityOf(p *v1.Pod) int32 { return corev1helpers.PodPriority(p) }
