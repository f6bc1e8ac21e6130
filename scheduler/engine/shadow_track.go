package engine

import (
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
)

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

// arriving notes the arrival time of a change about to be applied: its
// At, or the engine's now for a change without one.
func (s *shadow) arriving(c change.Change) {
	at := c.At
	if at.IsZero() {
		at = s.e.now
	}
	if at.After(s.arrived) {
		s.arrived = at
	}
	if len(s.batches) > 0 || len(s.held) > 0 {
		// A batch open too long is judged on the state before this
		// change.
		s.judgeDueBatches()
	}
}

// pendingAdded notes a pending pod arriving with a nomination (in
// flight), and, for a pod created while the engine follows the cluster
// (not initial), its arrival, for its reaction time.
func (s *shadow) pendingAdded(p *v1.Pod, initial bool) {
	s.nominatedAdded(p)
	if !initial {
		s.created[p.UID] = s.arrived
	}
}

// reacted takes the reaction time of the first decision about a
// pod created while the engine follows the cluster; a pod deleted before
// any decision (reacted false) is forgotten.
func (s *shadowState) reacted(uid types.UID, reacted bool) {
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

// nominatedAdded notes a pending pod arriving with a nomination.
func (s *shadow) nominatedAdded(p *v1.Pod) {
	if p.Spec.NodeName != "" || p.Status.NominatedNodeName == "" {
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

// claimUpdated notes a claim's selected-node annotation newly set: the
// pending pods using the claim are in flight on that node, and the recent
// disagreements they may explain are judged again. It is called before
// the claim's update is stored, to evaluate those pods on the state their
// attempt saw, and returns what to do once it is stored (nil: nothing).
func (s *shadow) claimUpdated(old, cur *v1.PersistentVolumeClaim) func() {
	e := s.e
	node := cur.Annotations[framework.AnnSelectedNode]
	if node == "" || node == old.Annotations[framework.AnnSelectedNode] {
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
			atTrace: &tracedAttempt{res: s.evaluate(judged, nil), at: s.arrived, op: e.currentOp(), what: "claim " + claim + " annotated with selected node " + node}})
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
			s.reviseRecent(p.UID, f.pod, f.atTrace.what, false)
		}
	}
}

// podDeleted notes the deletion of a bound pod, as it was, for the
// backward alternatives; a pending pod deleted before any decision about
// it has no reaction time.
func (s *shadow) podDeleted(old *v1.Pod) {
	if old.Spec.NodeName == "" {
		s.reacted(old.UID, false)
		return
	}
	s.noteRemoval(recentRemoval{at: s.arrived, pod: old})
}

// noteRemoval notes a deletion or a cleared nomination for the backward
// alternatives.
func (s *shadow) noteRemoval(r recentRemoval) {
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

// inflightPods are the pods nominated for PreBind that are still pending
// with that nomination, but the pod uid, in arrival order.
func (s *shadow) inflightPods(uid types.UID) []inflight {
	e := s.e
	var out []inflight
	for u, f := range s.inflight {
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
