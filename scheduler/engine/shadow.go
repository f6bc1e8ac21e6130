package engine

// Shadow mode (Options.Shadow): the cluster is the truth. Its changes
// (bindings, deletions, evictions, nominations, ...) are applied to the
// engine's state as they arrive; the engine never pops a pod, so schedtui
// neither places nor preempts anything. For every decision of the
// cluster's scheduler about a pod schedtui is responsible for, a binding or
// a PodScheduled=False condition with reason Unschedulable, schedtui makes
// its own attempt for that pod on the state the cluster's scheduler had,
// with Scheduler.Evaluate (the algorithm and PostFilter, nothing carried
// out), and records it next to the decision: agree, tie or disagree.
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
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
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

// JudgedOn is the state a shadow-mode observation was judged on: Bound
// pods on nodes, and the pods in flight (assumed by the cluster's
// scheduler, not bound yet) counted on their node, "ns/pod→node".
type JudgedOn struct {
	Bound    int      `json:"bound"`
	InFlight []string `json:"inFlight"`
	// AsOf, when set, says the state is the one when the pod went in
	// flight (its PreBind nomination or its claim's selected node), not
	// the one when its binding arrived.
	AsOf string `json:"asOf,omitempty"`
}

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
	// capture is set in a fork replaying to an attempt (shadowFork).
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
}

type inflight struct {
	pod    string // namespace/name
	node   string
	before string // the nomination before it
	seq    uint64 // order of arrival
	// claim is the claim ("namespace/name") whose selected-node
	// annotation put the pod in flight, "" for a PreBind nomination.
	claim string
	// atTrace is the pod's attempt on the state when its trace (the
	// nomination or the annotation) arrived, nil when not evaluated.
	atTrace *tracedAttempt
}

// tracedAttempt is a pod's attempt evaluated when it went in flight: the
// cluster's scheduler had assumed it before it wrote the trace, so every
// pod decided after the trace was decided after it, and the state then is
// the one its attempt saw, not the state when its binding arrives (with
// the pods decided meanwhile bound).
type tracedAttempt struct {
	res evalResult
	at  time.Time
	// op is the op during which it was evaluated (Engine.currentOp).
	op int
	// what is the trace: "its PreBind nomination to node" or "claim ns/name
	// annotated with selected node node".
	what string
}

// decision is what the cluster's scheduler decided: a binding to node, or
// "" and the unschedulable message.
type decision struct {
	node, msg string
}

type recentDecision struct {
	at  time.Time
	pod string
	uid types.UID
	d   decision
	// judged is the pod as judged (before the decision).
	judged *v1.Pod
	// ev numbers the observation among every event the timeline was
	// given (Engine.eventNumber), which compaction does not move; event is
	// its content when the checkpoint was taken (restore puts it back).
	ev    int
	event Event
}

// recentRemoval is a change that arrived at at: the deletion of a bound
// pod, as it was, or, with nomination set, a pending pod's nomination to
// that node cleared.
type recentRemoval struct {
	at         time.Time
	pod        *v1.Pod
	nomination string
}

// pastChange is a change of another pod that arrived shortly before a
// decision, undone for an alternative: a binding (the pod is taken off
// its node), a deletion (the pod is put back on its node), a cleared
// nomination (the pod is nominated there again) or, with claim set, a
// claim's selected-node annotation (the pod it put in flight on node is
// not counted there).
type pastChange struct {
	at         time.Time
	pod        *v1.Pod
	deleted    bool
	nomination string
	claim      string
	node       string
}

func (c pastChange) String() string {
	switch {
	case c.claim != "":
		return "the annotation of claim " + c.claim + " with selected node " + c.node + " (" + key(c.pod) + " in flight there)"
	case c.nomination != "":
		return "the clearing of " + key(c.pod) + "'s nomination to " + c.nomination
	case c.deleted:
		return "the deletion of " + key(c.pod)
	}
	return key(c.pod)
}

type forkCapture struct {
	want int
	// of is attempt want's pod: only its evaluations are kept.
	of    string
	sched *scheduler.Scheduler
	pod   *v1.Pod
}

// Shadowing reports whether the engine runs in shadow mode.
func (e *Engine) Shadowing() bool { return e.opts.Shadow }

func newShadowState() *shadowState {
	return &shadowState{inflight: map[types.UID]inflight{}, tracedOps: map[int]int{}, created: map[types.UID]time.Time{}}
}

// clone copies the state for a checkpoint, with the recent observations
// as they stand in the timeline, whose first event is number base.
func (s *shadowState) clone(timeline []Event, base int) *shadowState {
	if s == nil {
		return nil
	}
	c := &shadowState{inflight: make(map[types.UID]inflight, len(s.inflight)), seq: s.seq, removed: append([]recentRemoval(nil), s.removed...), arrived: s.arrived,
		tracedOps: make(map[int]int, len(s.tracedOps)), created: make(map[types.UID]time.Time, len(s.created)),
		reactions: append([]time.Duration(nil), s.reactions...)}
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
		if k := r.ev - base; k >= 0 && k < len(timeline) {
			r.event = timeline[k]
		}
		c.recent = append(c.recent, r)
	}
	return c
}

// restore returns a fresh copy of a checkpoint's state and puts the
// recent observations back as they were (a later revision is undone).
// Those archived since were past revision when the checkpoint was taken
// (compactTimeline): they are as it saw them.
func (s *shadowState) restore(timeline []Event, base int) *shadowState {
	if s == nil {
		return nil
	}
	for _, r := range s.recent {
		if k := r.ev - base; k >= 0 && k < len(timeline) {
			timeline[k] = r.event
		}
	}
	return s.clone(timeline, base)
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

// shadowArrival notes the arrival time of a change about to be applied:
// its At, or the engine's now for a change without one.
func (e *Engine) shadowArrival(c change.Change) {
	s := e.shadow
	if s == nil {
		return
	}
	at := c.At
	if at.IsZero() {
		at = e.now
	}
	if at.After(s.arrived) {
		s.arrived = at
	}
}

// shadowCreated notes the arrival of a pending pod created while the
// engine follows the cluster, for its reaction time.
func (e *Engine) shadowCreated(p *v1.Pod) {
	if e.shadow != nil {
		e.shadow.created[p.UID] = e.shadow.arrived
	}
}

// shadowReacted takes the reaction time of the first decision about a
// pod created while the engine follows the cluster; a pod deleted before
// any decision (reacted false) is forgotten.
func (s *shadowState) shadowReacted(uid types.UID, reacted bool) {
	at, ok := s.created[uid]
	if !ok {
		return
	}
	delete(s.created, uid)
	if !reacted {
		return
	}
	if len(s.reactions) >= maxReactions {
		s.reactions = append(s.reactions[:0], s.reactions[1:]...)
	}
	s.reactions = append(s.reactions, s.arrived.Sub(at))
}

// lagWindow is how long before a decision a deletion or a cleared
// nomination may have arrived unseen by the cluster's scheduler: its
// informer delivers the change, its next cycle snapshots it, and the
// decision is written and delivered to schedtui after the cycle. A new
// pod goes through all of it before the first decision about it arrives,
// plus its wait in the queue (seconds in a burst), minus schedtui's own
// delay on its creation (which makes the shortest ones near zero). The
// median of the latest reaction times is that lag as the run observes
// it; ShadowWindow when that is shorter or none is known yet.
func (s *shadowState) lagWindow() time.Duration {
	if len(s.reactions) == 0 {
		return ShadowWindow
	}
	sorted := slices.Clone(s.reactions)
	slices.Sort(sorted)
	return max(ShadowWindow, sorted[len(sorted)/2])
}

// shadowAdded notes a pending pod arriving with a nomination.
func (e *Engine) shadowAdded(p *v1.Pod) {
	s := e.shadow
	if s == nil || p.Spec.NodeName != "" || p.Status.NominatedNodeName == "" {
		return
	}
	if c := scheduledCondition(p); c != nil && c.Status == v1.ConditionFalse {
		return
	}
	s.seq++
	s.inflight[p.UID] = inflight{pod: key(p), node: p.Status.NominatedNodeName, seq: s.seq}
}

// track updates the in-flight pods after a pod update; prebind reports a
// PreBind nomination.
func (s *shadowState) track(old, cur *v1.Pod) (prebind bool) {
	switch {
	case cur.Spec.NodeName != "" || cur.Status.NominatedNodeName == "" && s.inflight[cur.UID].claim == "":
		delete(s.inflight, cur.UID)
	case setsScheduledFalse(old, cur):
		// The scheduler writes PodScheduled=False after it forgot the
		// pod: its binding cycle failed, or it attempted the pod again.
		delete(s.inflight, cur.UID)
	case preBindNomination(old, cur):
		before := old.Status.NominatedNodeName
		if f, ok := s.inflight[cur.UID]; ok {
			before = f.before
		}
		s.seq++
		s.inflight[cur.UID] = inflight{pod: key(cur), node: cur.Status.NominatedNodeName, before: before, seq: s.seq}
		return true
	case cur.Status.NominatedNodeName != old.Status.NominatedNodeName:
		delete(s.inflight, cur.UID)
	}
	return false
}

// preBindNomination reports whether the update of a pending pod is a
// nomination the cluster's scheduler writes for a pod it assumed: a new
// nominated node without a change of the PodScheduled condition.
func preBindNomination(old, cur *v1.Pod) bool {
	return cur.Spec.NodeName == "" && cur.Status.NominatedNodeName != "" && cur.Status.NominatedNodeName != old.Status.NominatedNodeName &&
		sameCondition(scheduledCondition(old), scheduledCondition(cur))
}

// setsScheduledFalse reports whether the update set or changed cur's
// PodScheduled=False condition.
func setsScheduledFalse(old, cur *v1.Pod) bool {
	c := scheduledCondition(cur)
	return c != nil && c.Status == v1.ConditionFalse && !sameCondition(scheduledCondition(old), c)
}

// shadowClaim notes a claim's selected-node annotation newly set: the
// pending pods using the claim are in flight on that node, and the recent
// disagreements they may explain are judged again. It is called before
// the claim's update is stored, to evaluate those pods on the state their
// attempt saw, and returns what to do once it is stored (nil: nothing).
func (e *Engine) shadowClaim(old, cur *v1.PersistentVolumeClaim) func() {
	s := e.shadow
	node := cur.Annotations[framework.AnnSelectedNode]
	if s == nil || node == "" || node == old.Annotations[framework.AnnSelectedNode] {
		return nil
	}
	claim := cur.Namespace + "/" + cur.Name
	var flights []inflight
	for _, p := range e.sched.Objects().Pods() {
		if p.Spec.NodeName != "" || !e.responsible(p) || !framework.PodUsesClaim(p, cur) {
			continue
		}
		if f, ok := s.inflight[p.UID]; ok && f.node == node {
			continue
		}
		before := p.Status.NominatedNodeName
		if f, ok := s.inflight[p.UID]; ok {
			before = f.before
		}
		judged := p
		if before != p.Status.NominatedNodeName {
			judged = p.DeepCopy()
			judged.Status.NominatedNodeName = before
		}
		flights = append(flights, inflight{pod: key(p), node: node, before: before, claim: claim,
			atTrace: &tracedAttempt{res: e.evaluate(judged, nil), at: s.arrived, op: e.currentOp(), what: "claim " + claim + " annotated with selected node " + node}})
	}
	if len(flights) == 0 {
		return nil
	}
	return func() {
		for _, f := range flights {
			p := e.Pod(f.pod)
			s.seq++
			f.seq = s.seq
			s.inflight[p.UID] = f
			e.reviseRecent(p.UID, f.pod, f.atTrace.what, false)
		}
	}
}

// shadowDeleted notes the deletion of a bound pod, as it was, for the
// backward alternatives.
func (e *Engine) shadowDeleted(old *v1.Pod) {
	if e.shadow == nil || old.Spec.NodeName == "" {
		return
	}
	e.shadowRemoved(recentRemoval{at: e.shadow.arrived, pod: old})
}

// shadowRemoved notes a deletion or a cleared nomination for the backward
// alternatives.
func (e *Engine) shadowRemoved(r recentRemoval) {
	s := e.shadow
	kept := s.removed[:0:0]
	for _, d := range s.removed {
		if s.arrived.Sub(d.at) <= s.lagWindow() {
			kept = append(kept, d)
		}
	}
	if len(kept) >= maxRecent {
		kept = kept[len(kept)-maxRecent+1:]
	}
	s.removed = append(kept, r)
}

// clearsNomination reports whether the update of a pending pod only
// cleared its nomination: what a preemption does to the lower-priority
// pods nominated to its node (through the API, after its cycle: the
// cluster's scheduler counts them there until its informer delivers the
// update).
func clearsNomination(old, cur *v1.Pod) bool {
	return old.Spec.NodeName == "" && cur.Spec.NodeName == "" && old.Status.NominatedNodeName != "" &&
		cur.Status.NominatedNodeName == "" && sameCondition(scheduledCondition(old), scheduledCondition(cur))
}

func scheduledCondition(p *v1.Pod) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func sameCondition(a, b *v1.PodCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

// unschedulableDecision returns the message of cur's PodScheduled=False
// Unschedulable condition when the update set or changed it.
func unschedulableDecision(old, cur *v1.Pod) (string, bool) {
	c := scheduledCondition(cur)
	if c == nil || c.Status != v1.ConditionFalse || c.Reason != v1.PodReasonUnschedulable {
		return "", false
	}
	if sameCondition(scheduledCondition(old), c) {
		return "", false
	}
	return c.Message, true
}

// judgement is a decision judged, before it is on the timeline.
type judgement struct {
	// tracedOp is the op of the evaluation when it was made as the pod
	// went in flight (tracedAttempt.op), -1 when made for the decision.
	tracedOp  int
	d         decision
	pod       *v1.Pod
	res       evalResult
	verdict   Verdict
	why       string
	uncertain string
}

// shadowUpdate applies a pod update in shadow mode: a decision of the
// cluster's scheduler is judged on the state before it, then the update
// is applied as the event handlers apply it, then the attempt and the
// observation go on the timeline, and earlier decisions the binding may
// have preceded in the cluster's scheduler are judged again.
func (e *Engine) shadowUpdate(c change.Change, old *v1.Pod) {
	cur := c.Pod
	var j *judgement
	if e.responsible(old) && old.Spec.NodeName == "" && old.UID == cur.UID {
		if cur.Spec.NodeName != "" {
			j = e.judgeDecision(old, decision{node: cur.Spec.NodeName})
		} else if msg, ok := unschedulableDecision(old, cur); ok {
			j = e.judgeDecision(old, decision{msg: msg})
		}
		if j != nil {
			e.shadow.shadowReacted(cur.UID, true)
		}
	}
	var traced *tracedAttempt
	if e.responsible(old) && old.Spec.NodeName == "" && old.UID == cur.UID && preBindNomination(old, cur) {
		traced = &tracedAttempt{res: e.evaluate(e.judgedPod(old), nil), at: e.shadow.arrived, op: e.currentOp(),
			what: "its PreBind nomination to " + cur.Status.NominatedNodeName}
	}
	if e.responsible(old) && old.UID == cur.UID && clearsNomination(old, cur) {
		e.shadowRemoved(recentRemoval{at: e.shadow.arrived, pod: old, nomination: old.Status.NominatedNodeName})
	}
	e.bump()
	e.clusterEvent(c, "")
	e.updatePod(old, cur)
	prebind := false
	if e.responsible(old) {
		prebind = e.shadow.track(old, cur)
	}
	if f, ok := e.shadow.inflight[cur.UID]; ok && prebind && traced != nil {
		f.atTrace = traced
		e.shadow.inflight[cur.UID] = f
	}
	if j != nil && j.d.node == "" && e.responsible(cur) {
		e.requeueRejected(cur, j.res.a)
	}
	if j != nil {
		e.observeJudgement(j)
	}
	switch {
	case j != nil && j.d.node != "":
		e.reviseRecent(cur.UID, key(cur), "bound", true)
	case prebind:
		e.reviseRecent(cur.UID, key(cur), "nominated to "+cur.Status.NominatedNodeName+" for PreBind", false)
	}
}

// requeueRejected mirrors in the queue the attempt in which the cluster's
// scheduler rejected pod: taken in flight, then requeued as after a failed
// attempt, with the rejecting plugins of schedtui's attempt on the same
// state (the API does not name the cluster's) when it rejected the pod
// too; when schedtui placed it, with none, as after an error: it retries
// after its backoff. With no event recorded while in flight a rejected
// pod joins the unschedulable pool; the cluster's events move it from
// there as the plugins' queueing hints say, through backoff, in real time
// when live.
func (e *Engine) requeueRejected(pod *v1.Pod, a *record.Attempt) {
	pi, ok := e.q.PopAttempted(pod.Namespace, pod.Name)
	if !ok {
		return
	}
	info := requeueInfo(pi, a)
	if err := e.q.AddUnschedulablePodIfNotPresent(&info); err != nil {
		e.event(Event{Kind: EventQueueMove, Pod: key(pod), Reason: ScheduleAttemptFailureError, Message: err.Error()})
	}
}

// judgedPod is the pod as the cluster's scheduler attempted it: before
// its own PreBind nomination.
func (e *Engine) judgedPod(p *v1.Pod) *v1.Pod {
	f, ok := e.shadow.inflight[p.UID]
	if !ok || f.node != p.Status.NominatedNodeName {
		return p
	}
	out := p.DeepCopy()
	out.Status.NominatedNodeName = f.before
	return out
}

// judgeDecision evaluates the pod's attempt for decision d on the state before
// it, with the backward alternatives when it disagrees.
func (e *Engine) judgeDecision(old *v1.Pod, d decision) *judgement {
	traced := ""
	if f, ok := e.shadow.inflight[old.UID]; ok && f.atTrace != nil && d.node == f.node {
		// Bound where it went in flight: judged on the state when it did.
		t := f.atTrace
		j := &judgement{d: d, pod: t.res.pod, res: t.res, tracedOp: t.op}
		j.res.judged.AsOf = fmt.Sprintf("%s, %s before the binding (the cluster's scheduler had assumed the pod then)",
			t.what, e.shadow.arrived.Sub(t.at))
		j.verdict, j.why = shadowVerdict(j.res.a, d)
		if j.verdict != Disagree {
			return j
		}
		// Pods assumed before it may have been bound after its trace
		// (their binding cycles commit out of order): the state at its
		// binding is judged next.
		traced = fmt.Sprintf("on the state when %s arrived it disagrees (%s)", t.what, j.why)
	}
	pod := e.judgedPod(old)
	j := &judgement{d: d, pod: pod, res: e.evaluate(pod, nil), tracedOp: -1}
	j.verdict, j.why = shadowVerdict(j.res.a, d)
	if j.verdict != Disagree {
		j.uncertain = traced
		return j
	}
	recent := e.recentChanges(pod.UID)
	var alternatives [][]pastChange
	for k := 1; k <= len(recent) && k <= maxShadowAlternatives; k++ {
		alternatives = append(alternatives, recent[len(recent)-k:])
	}
	var deletions, annotations []pastChange
	for _, c := range recent {
		switch {
		case c.deleted:
			deletions = append(deletions, c)
		case c.claim != "":
			annotations = append(annotations, c)
		}
	}
	if len(deletions) > 0 && len(deletions) < len(recent) {
		// The cluster's scheduler assumed its own bindings before they
		// arrived; the kubelet's deletions it may not have seen yet.
		for k := 1; k <= len(deletions) && k <= maxShadowAlternatives; k++ {
			alternatives = append(alternatives, deletions[len(deletions)-k:])
		}
	}
	if len(annotations) > 0 && len(annotations) < len(recent) {
		// Whatever else arrived after them: the claims come through
		// another watch than the pods (recentChanges).
		alternatives = append(alternatives, annotations)
	}
	if victims := terminatingOn(recent, pod.Status.NominatedNodeName); len(victims) > 0 {
		// A preemptor is not eligible to preempt again while a victim
		// still terminates on its nominated node: the cluster's
		// scheduler may not have seen any of their deletions yet.
		alternatives = append(alternatives, victims)
	}
	for _, undo := range alternatives {
		alt := e.evaluate(pod, undo)
		if v, why := shadowVerdict(alt.a, d); v != Disagree {
			j.res, j.verdict, j.why = alt, v, why
			j.uncertain = joinNotes(fmt.Sprintf("%s only if the cluster's scheduler attempted the pod before it saw %s (up to %s before; %s): judged without them",
				v, changeList(undo), e.shadow.arrived.Sub(undo[0].at), e.windows()), []string{traced})
			return j
		}
	}
	if len(recent) > 0 {
		j.uncertain = fmt.Sprintf("%s arrived shortly before (%s): the cluster's scheduler may have attempted the pod before them (without them it disagrees too)",
			changeList(recent), e.windows())
	}
	return j
}

// terminatingOn are the deletions among cs of pods that were terminating
// on node.
func terminatingOn(cs []pastChange, node string) []pastChange {
	var out []pastChange
	for _, c := range cs {
		if node != "" && c.deleted && c.pod.DeletionTimestamp != nil && c.pod.Spec.NodeName == node {
			out = append(out, c)
		}
	}
	return out
}

// windows says how far back the changes doubted reach.
func (e *Engine) windows() string {
	s := e.shadow
	lag := fmt.Sprintf("deletions and cleared nominations within %s", s.lagWindow())
	if len(s.reactions) > 0 {
		lag += fmt.Sprintf(" (the median of the cluster's scheduler's %d latest reaction times to a new pod)", len(s.reactions))
	}
	return fmt.Sprintf("bindings and claims' selected nodes within %s, %s", ShadowWindow, lag)
}

func changeList(cs []pastChange) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}

// recentChanges are the changes of other pods that arrived shortly before
// now, in arrival order: the bindings of pods still bound there (within
// ShadowWindow: their binding cycles commit out of attempt order), the
// selected-node annotations of claims whose pods are still in flight
// (within ShadowWindow, as bindings: the cluster's scheduler assumed the
// pod before it wrote the annotation, maybe after it attempted this one;
// and claims and pods come through separate watches, so a claim's update
// written after the decision may arrive before it, in a live session and
// not in the recording of the same run, or the other way round), the
// deletions of bound pods not back since, and the nominations cleared of
// pods still pending without one (within lagWindow: the cluster's
// scheduler may not have seen them yet).
func (e *Engine) recentChanges(uid types.UID) []pastChange {
	var out []pastChange
	for _, r := range e.shadow.recent {
		if r.d.node == "" || r.uid == uid || e.shadow.arrived.Sub(r.at) > ShadowWindow {
			continue
		}
		if p := e.Pod(r.pod); p != nil && p.UID == r.uid && p.Spec.NodeName == r.d.node {
			out = append(out, pastChange{at: r.at, pod: p})
		}
	}
	for _, f := range e.inflightPods(uid) {
		if f.claim != "" && f.atTrace != nil && e.shadow.arrived.Sub(f.atTrace.at) <= ShadowWindow {
			out = append(out, pastChange{at: f.atTrace.at, pod: e.Pod(f.pod), claim: f.claim, node: f.node})
		}
	}
	for _, d := range e.shadow.removed {
		if d.pod.UID == uid || e.shadow.arrived.Sub(d.at) > e.shadow.lagWindow() {
			continue
		}
		p := e.Pod(key(d.pod))
		switch {
		case d.nomination == "" && p == nil:
			out = append(out, pastChange{at: d.at, pod: d.pod, deleted: true})
		case d.nomination != "" && p != nil && p.UID == d.pod.UID && p.Spec.NodeName == "" && p.Status.NominatedNodeName == "":
			out = append(out, pastChange{at: d.at, pod: p, nomination: d.nomination})
		}
	}
	// Stable: a binding and a removal at the same instant keep the
	// bindings first (both orders are doubted alike).
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// observeJudgement puts a judged decision on the timeline: the attempt,
// then the observation, and remembers it for ShadowWindow.
func (e *Engine) observeJudgement(j *judgement) {
	idx := e.recordAttempt(j.res)
	if j.tracedOp >= 0 {
		e.shadow.tracedOps[idx] = j.tracedOp
	}
	// A copy: a pointer into j would keep the whole judgement, the
	// attempt and the pod, for as long as the observation is kept.
	judged := j.res.judged
	e.event(Event{Kind: EventObserved, Pod: key(j.pod), Node: j.d.node, Predicted: j.res.a.Node, Reason: string(j.verdict),
		Message: j.why, Attempt: idx, Judged: &judged, Uncertain: joinNotes(j.uncertain, j.res.notes), ClusterMessage: j.d.msg})
	s := e.shadow
	kept := s.recent[:0]
	for _, r := range s.recent {
		if s.arrived.Sub(r.at) <= ShadowWindow {
			kept = append(kept, r)
		}
	}
	if len(kept) >= maxRecent {
		kept = append(kept[:0], kept[len(kept)-maxRecent+1:]...)
	}
	s.recent = append(kept, recentDecision{at: s.arrived, pod: key(j.pod), uid: j.pod.UID, d: j.d, judged: j.pod, ev: e.eventNumber(len(e.timeline) - 1)})
}

func joinNotes(first string, notes []string) string {
	var all []string
	for _, n := range append([]string{first}, notes...) {
		if n != "" {
			all = append(all, n)
		}
	}
	return strings.Join(all, "; ")
}

// reviseRecent judges again the recent disagreements the cluster's
// scheduler may have decided after it assumed pod (uid), which is now
// counted on its node: bound, or in flight; what says how it got there.
// A verdict that turns replaces the observation, flagged uncertain.
func (e *Engine) reviseRecent(uid types.UID, pod, what string, bound bool) {
	s := e.shadow
	for i := range s.recent {
		r := &s.recent[i]
		k := r.ev - e.eventNumber(0)
		if r.uid == uid || s.arrived.Sub(r.at) > ShadowWindow || k < 0 || e.timeline[k].Reason != string(Disagree) {
			continue
		}
		p := e.Pod(r.pod)
		if p == nil || p.UID != r.uid || p.Spec.NodeName != r.d.node {
			continue
		}
		var undo []pastChange
		if r.d.node != "" {
			undo = []pastChange{{at: r.at, pod: p}}
		}
		res := e.evaluate(r.judged, undo)
		v, why := shadowVerdict(res.a, r.d)
		if v == Disagree {
			continue
		}
		idx := e.recordAttempt(res)
		judged := res.judged
		if bound {
			judged.Bound--
			judged.InFlight = append(judged.InFlight, pod+"→"+e.Pod(pod).Spec.NodeName)
		}
		ev := e.timeline[k]
		ev.Attempt, ev.Predicted, ev.Reason, ev.Message, ev.Judged = idx, res.a.Node, string(v), why, &judged
		ev.Uncertain = joinNotes(fmt.Sprintf("%s only if the cluster's scheduler assumed %s (%s %s later) before it attempted the pod: judged again with it",
			v, pod, what, s.arrived.Sub(r.at)), res.notes)
		e.timeline[k] = ev
	}
}

// evalResult is one evaluation: the attempt, the state it was judged on,
// notes on the reconstruction, and, in a fork, the state itself.
type evalResult struct {
	a      *record.Attempt
	pod    *v1.Pod
	judged JudgedOn
	notes  []string
	fork   *scheduler.Scheduler
}

// evaluate runs Scheduler.Evaluate for pod on the engine's state with the
// pods in flight assumed on their nodes and the changes of undo undone
// (bound pods taken off their nodes, deleted ones put back, cleared
// nominations made again, the pods a claim's annotation put in flight not
// counted), and undoes all that afterwards.
func (e *Engine) evaluate(pod *v1.Pod, undoChanges []pastChange) evalResult {
	var res evalResult
	snap := e.sched.Snapshot()
	nom := e.sched.Nominator()
	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	notInFlight := map[types.UID]bool{}
	for _, c := range undoChanges {
		p := c.pod
		switch {
		case c.claim != "":
			notInFlight[p.UID] = true
		case c.nomination != "":
			if nom.NominatedNode(p.UID) == "" {
				nom.Add(framework.NewPodInfo(p), c.nomination)
				undo = append(undo, func() { nom.Delete(p.UID) })
			}
		case !c.deleted:
			if snap.RemovePod(p) == nil {
				undo = append(undo, func() { _ = snap.AddPod(p) })
			}
		case snap.AddPod(p) == nil:
			undo = append(undo, func() { _ = snap.RemovePod(p) })
		}
	}
	for _, ni := range snap.List() {
		res.judged.Bound += len(ni.Pods)
	}
	res.judged.InFlight = []string{}
	for _, f := range e.inflightPods(pod.UID) {
		q := e.Pod(f.pod)
		if notInFlight[q.UID] {
			continue
		}
		ni, err := snap.Get(f.node)
		if err != nil {
			continue
		}
		if f.claim == "" && !hasRoom(ni, q) {
			res.notes = append(res.notes, fmt.Sprintf("%s is nominated to %s without a PodScheduled change (PreBind?), but %s has no room for it: counted as an ordinary nomination",
				f.pod, f.node, f.node))
			continue
		}
		assumed := q.DeepCopy()
		assumed.Spec.NodeName = f.node
		if snap.AddPod(assumed) != nil {
			continue
		}
		wasNominated := nom.NominatedNode(q.UID)
		nom.Delete(q.UID)
		undo = append(undo, func() {
			_ = snap.RemovePod(assumed)
			if wasNominated != "" {
				nom.Add(framework.NewPodInfo(q), wasNominated)
			}
		})
		res.judged.InFlight = append(res.judged.InFlight, f.pod+"→"+f.node)
	}
	res.a, res.pod = e.sched.Evaluate(pod, scheduler.Judgement), pod
	if c := e.shadow.capture; c != nil && c.sched == nil && c.of == key(pod) {
		res.fork = e.cloneScheduler()
	}
	return res
}

// inflightPods are the pods nominated for PreBind that are still pending
// with that nomination, but the pod uid, in arrival order.
func (e *Engine) inflightPods(uid types.UID) []inflight {
	var out []inflight
	for u, f := range e.shadow.inflight {
		if u == uid {
			continue
		}
		p := e.Pod(f.pod)
		if p == nil || p.UID != u || p.Spec.NodeName != "" {
			continue
		}
		// A pod in flight by its claim keeps the nomination it had, or
		// gets its PreBind nomination after the claim's annotation
		// arrived (two watches).
		if p.Status.NominatedNodeName == f.node || f.claim != "" && p.Status.NominatedNodeName == f.before {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// hasRoom reports whether pod fits ni's free resources: NodeResourcesFit's
// check of cpu, memory, ephemeral storage, extended resources and the pod
// count.
func hasRoom(ni *framework.NodeInfo, pod *v1.Pod) bool {
	if len(ni.Pods)+1 > ni.Allocatable.AllowedPodNumber {
		return false
	}
	req := ni.PodResource(pod).Resource
	free := func(alloc, used, want int64) bool { return want == 0 || want <= alloc-used }
	if !free(ni.Allocatable.MilliCPU, ni.Requested.MilliCPU, req.MilliCPU) ||
		!free(ni.Allocatable.Memory, ni.Requested.Memory, req.Memory) ||
		!free(ni.Allocatable.EphemeralStorage, ni.Requested.EphemeralStorage, req.EphemeralStorage) {
		return false
	}
	for name, q := range req.ScalarResources {
		if !free(ni.Allocatable.ScalarResources[name], ni.Requested.ScalarResources[name], q) {
			return false
		}
	}
	return true
}

// recordAttempt puts an evaluation's attempt on the timeline.
func (e *Engine) recordAttempt(res evalResult) int {
	a := res.a
	a.Phases[record.PhasePreEnqueue] = record.PhaseStatus{Code: record.CodeSuccess}
	e.attempts = append(e.attempts, a)
	idx := e.attemptCount() - 1
	e.event(Event{Kind: EventAttempt, Pod: a.Pod, Attempt: idx, Node: a.Node, Reason: a.Outcome.String(), Message: a.Message, Time: a.Time})
	if c := e.shadow.capture; c != nil && c.want == idx && res.fork != nil {
		c.sched, c.pod = res.fork, res.pod
	}
	return idx
}

// shadowVerdict compares schedtui's attempt with the decision. An
// unschedulable decision agrees only when schedtui finds no node either
// and its message is the condition's, character for character.
func shadowVerdict(a *record.Attempt, d decision) (Verdict, string) {
	if d.node != "" {
		return judge(a, d.node, "")
	}
	switch {
	case a.Outcome == record.Scheduled:
		return Disagree, fmt.Sprintf("schedtui places the pod on %s; the cluster's scheduler says: %s", a.Node, d.msg)
	case a.Message == d.msg:
		return Agree, "the same message: " + d.msg
	default:
		return Disagree, fmt.Sprintf("the messages differ: the cluster's scheduler says %q; schedtui says %q", d.msg, a.Message)
	}
}

// shadowStep is Step in shadow mode: it applies the changes due, one at a
// time, jumping virtual time from one to the next, until one of them
// makes an attempt (a decision of the cluster's scheduler judged); it
// returns errQuiescent when no change is left (before limit).
func (e *Engine) shadowStep(limit time.Time) (*record.Attempt, *framework.QueuedPodInfo, error) {
	n := e.attemptCount()
	for {
		for {
			t := e.timers.peek()
			if t == nil || t.at.After(e.now) {
				break
			}
			e.timers.pop()
			e.fire(t)
			if e.attemptCount() > n {
				return e.attempts[len(e.attempts)-1], nil, nil
			}
		}
		t := e.timers.peek()
		if t == nil || !limit.IsZero() && t.at.After(limit) {
			return nil, nil, errQuiescent
		}
		e.now = t.at
	}
}

// cloneScheduler is a separate scheduler holding the engine's state.
func (e *Engine) cloneScheduler() *scheduler.Scheduler {
	st, err := e.sched.CaptureState(nil)
	if err != nil {
		return nil
	}
	now := e.now
	s, err := scheduler.New(nil, nil, nil, scheduler.Options{Config: e.opts.Config, Registry: e.opts.Registry, Seed: e.opts.Seed,
		Clock: func() time.Time { return now }, ExtenderAnswers: e.opts.ExtenderAnswers, Features: e.opts.Features})
	if err != nil || s.RestoreState(st) != nil {
		return nil
	}
	s.SetExtenderReplay(func() bool { return e.replaying })
	return s
}

// shadowFork is Fork's end in shadow mode: the fork, replayed with the
// capture set since before the op that evaluated attempt i's state
// (shadowTracedAt), runs op o, which made attempt i, and keeps the state
// that attempt was evaluated on.
func (e *Engine) shadowFork(i, k int, o op) (*scheduler.Scheduler, *v1.Pod, error) {
	c := e.shadow.capture
	e.replaying = true
	e.replayOp = k
	e.runOp(o)
	if c == nil || c.sched == nil || i >= e.attemptCount() {
		return nil, nil, fmt.Errorf("replaying to attempt %d (op %d): the attempt was not made again", i, k)
	}
	return c.sched, c.pod, nil
}

// shadowTracedAt is the op from which a fork of attempt i replays: the
// op that made it (k), or, for an attempt evaluated when its pod went in
// flight, the op during which it was.
func (e *Engine) shadowTracedAt(i, k int) int {
	if e.shadow == nil {
		return k
	}
	if op, ok := e.shadow.tracedOps[i]; ok && op < k {
		return op
	}
	return k
}

// shadowCapture makes a fork keep the state attempt i (of pod) is
// evaluated on as it replays.
func (e *Engine) shadowCapture(i int, pod string) {
	if e.shadow != nil {
		e.shadow.capture = &forkCapture{want: i, of: pod}
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
