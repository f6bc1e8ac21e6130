package engine

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// decision is what the cluster's scheduler decided: a binding to node, or
// "" and the unschedulable message.
type decision struct {
	node, msg string
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
	// batched: judged with its pod group's batch (shadow_group.go), in
	// member order on the cluster's placements; not judged again when
	// later bindings arrive (reviseRecent), which would judge it alone.
	batched bool
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

// podUpdated applies a pod update in shadow mode: a decision of the
// cluster's scheduler is judged on the state before it, then the update
// is applied as the event handlers apply it, then the attempt and the
// observation go on the timeline, and earlier decisions the binding may
// have preceded in the cluster's scheduler are judged again.
func (s *shadow) podUpdated(c change.Change, old *v1.Pod) {
	e := s.e
	cur := c.Pod
	var j *judgement
	var gj *groupJudgement
	group := s.groupOf(old)
	batched := false
	if e.responsible(old) && old.Spec.NodeName == "" && old.UID == cur.UID {
		switch msg, ok := unschedulableDecision(old, cur); {
		case cur.Spec.NodeName != "" && group != "":
			// Judged with the other bindings of its group's cycle
			// (shadow_group.go).
			s.memberBound(group, old, cur.Spec.NodeName)
			batched = true
		case cur.Spec.NodeName != "":
			j = s.judgeDecision(old, decision{node: cur.Spec.NodeName})
		case ok && group != "":
			gj = s.memberRejected(group, old, msg)
		case ok:
			j = s.judgeDecision(old, decision{msg: msg})
		}
		if j != nil || gj != nil || batched {
			s.reacted(cur.UID, true)
		}
	}
	if old.Spec.NodeName == "" && cur.Spec.NodeName != "" && !batched {
		s.otherBound(cur, group)
	}
	var traced *tracedAttempt
	if e.responsible(old) && old.Spec.NodeName == "" && old.UID == cur.UID && preBindNomination(old, cur) {
		traced = &tracedAttempt{res: s.evaluate(s.judgedPod(old), nil), at: s.arrived, op: e.currentOp(),
			what: "its PreBind nomination to " + cur.Status.NominatedNodeName}
	}
	if e.responsible(old) && old.UID == cur.UID && clearsNomination(old, cur) {
		s.noteRemoval(recentRemoval{at: s.arrived, pod: old, nomination: old.Status.NominatedNodeName})
	}
	e.bump()
	e.clusterEvent(c, "")
	e.updatePod(old, cur)
	prebind := false
	if e.responsible(old) {
		prebind = s.track(old, cur)
	}
	if f, ok := s.inflight[cur.UID]; ok && prebind && traced != nil {
		f.atTrace = traced
		s.inflight[cur.UID] = f
	}
	switch {
	case j != nil && j.d.node == "" && e.responsible(cur):
		s.requeueRejected(cur, j.res.a)
	case gj != nil && e.responsible(cur):
		a := &record.Attempt{Outcome: record.Error}
		if gj.attempt >= 0 {
			a = e.hist.At(gj.attempt)
		}
		s.requeueRejected(cur, a)
	}
	if j != nil {
		s.observeJudgement(j)
	}
	if gj != nil {
		s.observeGroupJudgement(gj)
	}
	if len(s.batches) > 0 {
		s.judgeDueBatches()
	}
	switch {
	case batched || j != nil && j.d.node != "":
		s.reviseRecent(cur.UID, key(cur), "bound", true)
	case prebind:
		s.reviseRecent(cur.UID, key(cur), "nominated to "+cur.Status.NominatedNodeName+" for PreBind", false)
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
func (s *shadow) requeueRejected(pod *v1.Pod, a *record.Attempt) {
	e := s.e
	pi, ok := e.q.PopAttempted(pod.Namespace, pod.Name)
	if !ok {
		return
	}
	info := requeueInfo(pi, a)
	if err := e.q.AddUnschedulablePodIfNotPresent(&info); err != nil {
		e.event(history.Event{Kind: history.EventQueueMove, Pod: key(pod), Reason: ScheduleAttemptFailureError, Message: err.Error()})
	}
}

// judgedPod is the pod as the cluster's scheduler attempted it: before
// its own PreBind nomination.
func (s *shadow) judgedPod(p *v1.Pod) *v1.Pod {
	f, ok := s.inflight[p.UID]
	if !ok || f.node != p.Status.NominatedNodeName {
		return p
	}
	out := p.DeepCopy()
	out.Status.NominatedNodeName = f.before
	return out
}

// judgeDecision evaluates the pod's attempt for decision d on the state
// before it (or, for a pod bound where it went in flight, first on the
// state then), with the backward alternatives when it disagrees
// (reconsider, shadow_revise.go).
func (s *shadow) judgeDecision(old *v1.Pod, d decision) *judgement {
	traced := ""
	if f, ok := s.inflight[old.UID]; ok && f.atTrace != nil && d.node == f.node {
		// Bound where it went in flight: judged on the state when it did.
		t := f.atTrace
		j := &judgement{d: d, pod: t.res.pod, res: t.res, tracedOp: t.op}
		j.res.judged.AsOf = fmt.Sprintf("%s, %s before the binding (the cluster's scheduler had assumed the pod then)",
			t.what, s.arrived.Sub(t.at))
		j.verdict, j.why = shadowVerdict(j.res.a, d)
		if j.verdict != Disagree {
			return j
		}
		// Pods assumed before it may have been bound after its trace
		// (their binding cycles commit out of order): the state at its
		// binding is judged next.
		traced = fmt.Sprintf("on the state when %s arrived it disagrees (%s)", t.what, j.why)
	}
	pod := s.judgedPod(old)
	j := &judgement{d: d, pod: pod, res: s.evaluate(pod, nil), tracedOp: -1}
	j.verdict, j.why = shadowVerdict(j.res.a, d)
	if j.verdict != Disagree {
		j.uncertain = traced
		return j
	}
	return s.reconsider(j, pod, traced)
}

// observeJudgement puts a judged decision on the timeline: the attempt,
// then the observation, and remembers it for ShadowWindow.
func (s *shadow) observeJudgement(j *judgement) {
	e := s.e
	idx := s.recordAttempt(j.res)
	if j.tracedOp >= 0 {
		s.tracedOps[idx] = j.tracedOp
	}
	// A copy: a pointer into j would keep the whole judgement, the
	// attempt and the pod, for as long as the observation is kept.
	judged := j.res.judged
	e.event(history.Event{Kind: history.EventObserved, Pod: key(j.pod), Node: j.d.node, Predicted: j.res.a.Node, Reason: string(j.verdict),
		Message: j.why, Attempt: idx, Judged: &judged, Uncertain: joinNotes(j.uncertain, j.res.notes), ClusterMessage: j.d.msg})
	if j.batched {
		return
	}
	kept := s.recent[:0]
	for _, r := range s.recent {
		if s.arrived.Sub(r.at) <= ShadowWindow {
			kept = append(kept, r)
		}
	}
	if len(kept) >= maxRecent {
		kept = append(kept[:0], kept[len(kept)-maxRecent+1:]...)
	}
	s.recent = append(kept, recentDecision{at: s.arrived, pod: key(j.pod), uid: j.pod.UID, d: j.d, judged: j.pod, ev: e.hist.EventNumber(len(e.hist.Tail()) - 1)})
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

// evalResult is one evaluation: the attempt, the state it was judged on,
// notes on the reconstruction, and, in a fork, the state itself.
type evalResult struct {
	a      *record.Attempt
	pod    *v1.Pod
	judged history.JudgedOn
	notes  []string
	fork   *scheduler.Scheduler
}

// evaluate runs Scheduler.Evaluate for pod on the engine's state with the
// pods in flight assumed on their nodes and the changes of undo undone
// (bound pods taken off their nodes, deleted ones put back, cleared
// nominations made again, the pods a claim's annotation put in flight not
// counted), and undoes all that afterwards.
func (s *shadow) evaluate(pod *v1.Pod, undoChanges []pastChange) evalResult {
	e := s.e
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
	for _, f := range s.inflightPods(pod.UID) {
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
	if c := s.capture; c != nil && c.sched == nil && c.of == key(pod) {
		res.fork = s.cloneScheduler()
	}
	return res
}

// recordAttempt puts an evaluation's attempt on the timeline.
func (s *shadow) recordAttempt(res evalResult) int {
	e := s.e
	a := res.a
	a.Phases[record.PhasePreEnqueue] = record.PhaseStatus{Code: record.CodeSuccess}
	idx := e.hist.Add(a)
	e.event(history.Event{Kind: history.EventAttempt, Pod: a.Pod, Attempt: idx, Node: a.Node, Reason: a.Outcome.String(), Message: a.Message, Time: a.Time})
	if c := s.capture; c != nil && c.want == idx && res.fork != nil {
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
