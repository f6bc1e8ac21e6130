package engine

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Workload-aware scheduling (GenericWorkload) in shadow mode: the
// cluster's scheduler places a pod group's queued members in one
// pod-group cycle, each member through Filter and Score in the group's
// member order with the members before it assumed where it placed them,
// and then binds them all at once: the bindings, each in its own
// goroutine, arrive in any order, within moments of each other.
//
// A member's binding is therefore not judged on the state when it
// arrives (the members bound before it in arrival order are not those
// before it in the cycle) but with its batch: the bindings of the group
// are gathered from the first one until every member pending then is
// decided (or groupBatchWindow has passed by the arrival of a later
// change, or another decision about a member already decided arrives: a
// later cycle), and then judged member by member in member order, each
// on the state before the cycle with the members before it on the nodes
// the cluster bound them to, as the cycle had them assumed: a tie earlier
// in the cycle is followed as the cluster broke it, so that later members
// are judged on the cluster's placements, not on schedtui's.

// The decisions about the group itself — a member's Unschedulable
// condition, the PodGroup's PodGroupInitiallyScheduled condition — are
// judged against schedtui's own pod-group cycle for the group (its
// queued members, as the queue mirror holds them), made on a copy of the
// state when the batch opened, before the first of the cycle's decisions
// arrived: the member's attempt in it must give the same message, the
// PodGroup the same condition (status, reason and message). A member's
// binding is judged, besides, against that cycle: a member the cycle
// does not place disagrees.

// groupBatchWindow is how long after a group's first binding its batch
// waits for the other members' decisions: the bindings of one pod-group
// cycle are written together, each as soon as its binding cycle ends.
const groupBatchWindow = 5 * time.Second

// groupBatch is the cluster's decisions about the members of one pod group
// in one of its pod-group cycles, gathered until they can be judged.
type groupBatch struct {
	group  string
	opened time.Time
	// members are the members pending when the batch opened, in the
	// group's member order, as they were then (the pods to judge).
	members []*v1.Pod
	// bound holds the node each member was bound to, by namespace/name;
	// decided every member the cluster decided about in this batch.
	bound   map[string]string
	decided map[string]bool
	// late are the members decided in the batch that were not pending
	// when it opened (not yet seen then), as they were before their
	// decision: judged after the others.
	late []*v1.Pod
	// others are the pods of no member bound while the batch was open:
	// the cluster's pod-group cycle ran before them.
	others []*v1.Pod
	// cycle is schedtui's pod-group cycle on the state when the batch
	// opened (nil when the group could not be evaluated: no PodGroup,
	// no member queued, why says so); attempts are its members' attempts'
	// indices on the timeline, by member (namespace/name), first the
	// first of them (-1 for none).
	cycle    *scheduler.PodGroupCycle
	why      string
	attempts map[string]int
	first    int
	// bindingsJudged: the members' bindings are judged (judgeBindings);
	// conditionsJudged holds the PodGroups (namespace/name) whose
	// condition is: the group's, or those of a hierarchy's PodGroups.
	bindingsJudged   bool
	conditionsJudged map[string]bool
}

func (b *groupBatch) clone() *groupBatch {
	c := *b
	c.members = slices.Clone(b.members)
	c.late = slices.Clone(b.late)
	c.others = slices.Clone(b.others)
	c.bound = make(map[string]string, len(b.bound))
	for k, v := range b.bound {
		c.bound[k] = v
	}
	c.decided = make(map[string]bool, len(b.decided))
	for k, v := range b.decided {
		c.decided[k] = v
	}
	c.attempts = make(map[string]int, len(b.attempts))
	for k, v := range b.attempts {
		c.attempts[k] = v
	}
	c.conditionsJudged = maps.Clone(b.conditionsJudged)
	return &c
}

// complete: every member pending when the batch opened is decided.
func (b *groupBatch) complete() bool { return len(b.decided) >= len(b.members)+len(b.late) }

// has reports whether pod is one of the batch's members or late members.
func (b *groupBatch) has(pod string) bool {
	for _, m := range append(b.members, b.late...) {
		if key(m) == pod {
			return true
		}
	}
	return false
}

// groupOf is the batch key of pod's group when the pod is scheduled with
// its group (GenericWorkload on), else "": its PodGroup's key, or, with
// CompositePodGroup, for a PodGroup in a hierarchy, its root's
// (compositeBatchPrefix + namespace/name): the cluster's scheduler
// places a hierarchy's members in one cycle.
func (s *shadow) groupOf(pod *v1.Pod) string {
	if !s.e.sched.Features().EnableGenericWorkload || framework.PodGroupNameOf(pod) == "" {
		return ""
	}
	return s.batchKey(pod.Namespace, framework.PodGroupNameOf(pod))
}

// compositeBatchPrefix marks the batch key of a hierarchy's root.
const compositeBatchPrefix = "compositepodgroup/"

// batchKey is the batch key of the PodGroup namespace/name (groupOf).
func (s *shadow) batchKey(namespace, name string) string {
	if s.e.sched.Features().EnableCompositePodGroup {
		root, ok, err := framework.GroupRoot(s.e.sched.Objects(), true, framework.GroupRef{Namespace: namespace, Name: name})
		if err == nil && ok && root.Composite {
			return compositeBatchPrefix + root.Namespace + "/" + root.Name
		}
	}
	return framework.PodGroupKey(namespace, name)
}

// batchFor is group's open batch for a decision about member (its
// namespace/name; "" for the PodGroup's condition), old the pod before
// the decision (nil for the condition), binding for a binding. A batch
// open for longer than groupBatchWindow, in which the member (or the
// condition) was already decided, or that holds only rejections when a
// binding comes (a cycle that placed the group rejects none of the
// members it placed, one that did not binds none), is of an earlier
// cycle: its bindings are judged and a new one opens, with schedtui's
// pod-group cycle on the state now.
func (s *shadow) batchFor(group, member string, old *v1.Pod, binding bool) *groupBatch {
	b := s.batches[group]
	if b != nil && (s.arrived.Sub(b.opened) > groupBatchWindow || member != "" && b.decided[member] ||
		binding && len(b.bound) == 0 && len(b.decided) > 0) {
		s.closeBatch(b)
		b = nil
	}
	if b == nil {
		held := s.heldOf(group)
		priors := make([]*schedulingv1beta1.PodGroup, len(held))
		for i, k := range held {
			priors[i] = s.held[k].old
		}
		b = s.openBatch(group, old, priors...)
		if member != "" {
			// The conditions came first, through the PodGroups'
			// watch: they are this cycle's.
			for _, k := range held {
				h := s.held[k]
				delete(s.held, k)
				s.observeGroupJudgement(s.judgeCondition(b, h.cur))
			}
		}
	}
	return b
}

// memberBound takes the binding of member old of group into its batch;
// the bindings are judged once every member is decided (judgeDueBatches).
func (s *shadow) memberBound(group string, old *v1.Pod, node string) {
	b := s.batchFor(group, key(old), old, true)
	if !b.has(key(old)) {
		b.late = append(b.late, old)
	}
	b.bound[key(old)] = node
	b.decided[key(old)] = true
}

// memberRejected judges the member's Unschedulable condition against its
// attempt in schedtui's pod-group cycle: the same message, or a
// disagreement.
func (s *shadow) memberRejected(group string, old *v1.Pod, msg string) *groupJudgement {
	b := s.batchFor(group, key(old), old, false)
	if !b.has(key(old)) {
		b.late = append(b.late, old)
	}
	b.decided[key(old)] = true
	d := decision{msg: msg}
	j := &groupJudgement{pod: key(old), d: d, attempt: -1}
	i, ok := b.attempts[key(old)]
	switch {
	case b.cycle == nil:
		j.verdict, j.why = Disagree, "schedtui's pod-group cycle could not be made: "+b.why+"; the cluster's scheduler says: "+msg
	case !ok:
		j.verdict, j.why = Disagree, "schedtui's pod-group cycle for "+group+" does not try the pod (it is not queued with its group); the cluster's scheduler says: "+msg
	default:
		j.attempt = i
		a := s.e.hist.At(i)
		j.verdict, j.why = shadowVerdict(a, d)
		if why, ok := victimCountTie(b.cycle, msg, a.Message); ok && j.verdict == Disagree {
			j.verdict, j.why = Tie, why
		}
	}
	return j
}

// groupVictimsRE finds the number of victims in a pod group preemption's
// message (DefaultPreemption's "found a placement for podgroup, preempting
// N victims").
var groupVictimsRE = regexp.MustCompile(`found a placement for podgroup, preempting (\d+) victims`)

// victimCountTie says why the cluster's message (or condition) theirs and
// schedtui's mine are a tie: they differ only in how many victims the pod
// group's preemption takes, and schedtui's preemption placed members on
// nodes tied at the top total score in its scheduling run. kube-scheduler
// breaks such a tie by the order its parallel Filter returned the nodes
// (each goroutine appends the node it checked as it finishes; the score
// heap's top among equal totals is the first of them), which is not fixed:
// members land on other tied nodes, those without victims among them, and
// the reprieve gives back the victims no member needs.
func victimCountTie(c *scheduler.PodGroupCycle, theirs, mine string) (string, bool) {
	if c == nil || c.Group.Preemption == nil || c.Group.Preemption.TiedPlacements == 0 {
		return "", false
	}
	t, m := groupVictimsRE.FindStringSubmatch(theirs), groupVictimsRE.FindStringSubmatch(mine)
	if t == nil || m == nil || t[1] == m[1] ||
		groupVictimsRE.ReplaceAllString(theirs, "") != groupVictimsRE.ReplaceAllString(mine, "") {
		return "", false
	}
	return fmt.Sprintf("the messages differ only in the pod group preemption's victims: the cluster's scheduler preempts %s, schedtui %s; "+
		"in the preemption's scheduling run (every victim taken off) %d of the members had nodes tied at the top total score, "+
		"which kube-scheduler breaks by the order its parallel Filter returned them (not fixed), "+
		"and the nodes the members take decide which victims are given back: %q",
		t[1], m[1], c.Group.Preemption.TiedPlacements, theirs), true
}

// podGroupUpdated judges a change of the PodGroup's
// PodGroupInitiallyScheduled condition (podGroupConditionChanged) on the
// state before it, and puts the observation on the timeline once the
// update is stored.
func (s *shadow) podGroupUpdated(old, cur *schedulingv1beta1.PodGroup) func() {
	j := s.podGroupConditionChanged(old, cur)
	if j == nil {
		return nil
	}
	return func() { s.observeGroupJudgement(j) }
}

// heldCondition is a PodGroup's new condition waiting for the first
// decision about its members: PodGroups and pods come through separate
// watches, so the condition a pod-group cycle wrote may arrive before
// the members' decisions, or before the members themselves.
type heldCondition struct {
	at time.Time
	// old is the PodGroup before the condition, as the cycle that wrote
	// it saw it; cur with it.
	old, cur *schedulingv1beta1.PodGroup
	// batch is the batch key of the PodGroup's group (groupOf).
	batch string
}

// heldOf are the PodGroups (namespace/name, sorted) whose held condition
// is of batch key group.
func (s *shadow) heldOf(group string) []string {
	var out []string
	for k, h := range s.held {
		if h.batch == group {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// podGroupConditionChanged judges the PodGroup's new
// PodGroupInitiallyScheduled condition against the one schedtui's
// pod-group cycle writes, when the group's batch holds decisions of that
// cycle's; else it holds the condition until the first member decision
// opens the cycle's batch (batchFor), or for groupBatchWindow
// (judgeDueBatches). nil when the update does not change the condition,
// or when the condition is held.
func (s *shadow) podGroupConditionChanged(old, cur *schedulingv1beta1.PodGroup) *groupJudgement {
	c := apimeta.FindStatusCondition(cur.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	if c == nil || !s.e.sched.Features().EnableGenericWorkload {
		return nil
	}
	if was := apimeta.FindStatusCondition(old.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled); was != nil &&
		was.Status == c.Status && was.Reason == c.Reason && was.Message == c.Message {
		return nil
	}
	pgKey := framework.PodGroupKey(cur.Namespace, cur.Name)
	if _, ok := s.held[pgKey]; ok {
		// Two conditions before any member decision: the first is
		// judged on the state now.
		s.judgeHeld(pgKey)
	}
	group := s.batchKey(cur.Namespace, cur.Name)
	if b := s.batches[group]; b != nil && !b.conditionsJudged[pgKey] && len(b.decided) > 0 && s.arrived.Sub(b.opened) <= groupBatchWindow {
		return s.judgeCondition(b, cur)
	}
	s.held[pgKey] = heldCondition{at: s.arrived, old: old, cur: cur, batch: group}
	return nil
}

// judgeHeld judges the PodGroup pgKey's held condition on a batch of its
// group opened now (the one open closed first).
func (s *shadow) judgeHeld(pgKey string) {
	h := s.held[pgKey]
	if b := s.batches[h.batch]; b != nil {
		s.closeBatch(b)
	}
	b := s.openBatch(h.batch, nil, h.old)
	delete(s.held, pgKey)
	s.observeGroupJudgement(s.judgeCondition(b, h.cur))
}

// judgeCondition judges the PodGroup cur's condition against the one
// schedtui's pod-group cycle of batch b writes.
func (s *shadow) judgeCondition(b *groupBatch, cur *schedulingv1beta1.PodGroup) *groupJudgement {
	pgKey := framework.PodGroupKey(cur.Namespace, cur.Name)
	b.conditionsJudged[pgKey] = true
	c := apimeta.FindStatusCondition(cur.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	theirs := GroupConditionText(c.Status, c.Reason, c.Message)
	j := &groupJudgement{pod: PodGroupRef(pgKey), d: decision{msg: theirs}, attempt: b.first}
	var mine string
	if w := b.write(pgKey); w != nil {
		if w := apimeta.FindStatusCondition(w.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled); w != nil {
			mine = GroupConditionText(w.Status, w.Reason, w.Message)
		}
	}
	j.predicted = mine
	switch {
	case b.cycle == nil:
		j.verdict, j.why = Disagree, "schedtui's pod-group cycle could not be made: "+b.why+"; the cluster's condition: "+theirs
	case mine == theirs:
		j.verdict, j.why = Agree, SameCondition+theirs
	case mine == "":
		j.verdict, j.why = Disagree, fmt.Sprintf("schedtui's pod-group cycle (%s) writes no condition; the cluster's: %s", b.cycle.Group.Result, theirs)
	default:
		if why, ok := victimCountTie(b.cycle, theirs, mine); ok {
			j.verdict, j.why = Tie, why
			break
		}
		j.verdict, j.why = Disagree, fmt.Sprintf("the conditions differ: the cluster's scheduler writes %q; schedtui's pod-group cycle %q", theirs, mine)
	}
	return j
}

// write is the batch's cycle's write of the PodGroup pgKey, nil when
// none.
func (b *groupBatch) write(pgKey string) *schedulingv1beta1.PodGroup {
	if b.cycle == nil {
		return nil
	}
	return b.cycle.PodGroupWrite(pgKey)
}

// openBatch opens group's batch with its members pending now (old, when
// set, being one of them, before its decision), in member order, and
// makes schedtui's pod-group cycle for them on a copy of the state now
// (with the PodGroup as prior when set: a condition already stored is
// the cycle's own write), its attempts put on the timeline.
func (s *shadow) openBatch(group string, old *v1.Pod, priors ...*schedulingv1beta1.PodGroup) *groupBatch {
	e := s.e
	b := &groupBatch{group: group, opened: s.arrived, bound: map[string]string{}, decided: map[string]bool{}, attempts: map[string]int{}, first: -1,
		conditionsJudged: map[string]bool{}}
	s.batches[group] = b
	// The group's hierarchy: its PodGroup, or a composite root's tree,
	// with the PodGroups of priors as they were (a condition already
	// stored is the cycle's own write).
	objs := e.sched.Objects()
	var tree *framework.PodGroupInfo
	unknown := "PodGroup " + group
	if root, ok := strings.CutPrefix(group, compositeBatchPrefix); ok {
		ns, name := splitKey(root)
		tree = framework.Hierarchy(objs, framework.GroupRef{Composite: true, Namespace: ns, Name: name})
		unknown = "CompositePodGroup " + root
	} else {
		ns, name := splitKey(group)
		tree = framework.Hierarchy(objs, framework.GroupRef{Namespace: ns, Name: name})
	}
	if tree != nil {
		for _, prior := range priors {
			if n, _ := tree.Find(prior.Name); n != nil && !n.Composite {
				n.PodGroup = prior
			}
		}
	}
	var queued []*framework.QueuedPodInfo
	for _, p := range objs.Pods() {
		if old != nil && p.UID == old.UID {
			p = old
		}
		if p.Spec.NodeName != "" || s.groupOf(p) != group || p.DeletionTimestamp != nil || !e.responsible(p) {
			continue
		}
		qi, _ := e.q.Get(p.Namespace, p.Name)
		if qi == nil {
			qi = &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p)}
		}
		queued = append(queued, &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(s.judgedPod(p)), QueueingParams: qi.QueueingParams})
	}
	slices.SortFunc(queued, framework.PodGroupMemberPodsOrdering)
	var g *framework.QueuedPodGroupInfo
	if tree != nil {
		g = &framework.QueuedPodGroupInfo{PodGroupInfo: tree}
		for _, qi := range queued {
			g.AddMember(qi)
		}
		// The cycle's order: leaf by leaf, each in member order.
		for _, leaf := range g.Leaves() {
			for _, m := range g.LeafMembers(leaf) {
				b.members = append(b.members, m.Pod)
			}
		}
	} else {
		for _, qi := range queued {
			b.members = append(b.members, qi.Pod)
		}
	}
	switch {
	case tree == nil:
		b.why = unknown + " is not known"
		return b
	case len(queued) == 0:
		b.why = "no member of " + group + " is pending"
		return b
	}
	fork := s.cloneScheduler()
	if fork == nil {
		b.why = "the state could not be copied"
		return b
	}
	for _, prior := range priors {
		fork.SetPodGroup(prior)
	}
	// A fork replaying to one of the members' attempts (shadow.fork)
	// keeps the state before the cycle, which the cycle changes.
	var before *scheduler.Scheduler
	if c := s.capture; c != nil && c.sched == nil && slices.ContainsFunc(queued, func(qi *framework.QueuedPodInfo) bool { return key(qi.Pod) == c.of }) {
		if before = s.cloneScheduler(); before != nil {
			for _, prior := range priors {
				before.SetPodGroup(prior)
			}
		}
	}
	// The cluster's scheduler popped the group: its members are in
	// flight, out of its queue, so their nominations are stubs to the
	// cycle (a higher-priority member does not count another's).
	resolve := inFlightNominations(queued)
	fork.Nominator().SetResolver(resolve)
	if before != nil {
		before.Nominator().SetResolver(resolve)
	}
	b.cycle = fork.ScheduleOnePodGroup(g)
	if len(b.cycle.Attempts) == 0 {
		return b
	}
	b.cycle.Group.FirstAttempt = e.hist.Len()
	for i, a := range b.cycle.Attempts {
		res := evalResult{a: a, pod: b.cycle.Members[i].Pod}
		if before != nil && a.Pod == s.capture.of {
			res.fork = before
		}
		idx := s.recordAttempt(res)
		b.cycle.Group.Members[i].Attempt = idx
		b.attempts[a.Pod] = idx
		if b.first < 0 {
			b.first = idx
		}
	}
	e.hist.AddGroup(b.cycle.Group)
	return b
}

// inFlightNominations resolves nominated pods for a pod-group cycle of the
// cluster's over the queued members: a member is in flight, out of the
// cluster's scheduling queue, so its nomination is a stub
// (nominationStub) to the cycle; any other pod is as nominated.
func inFlightNominations(queued []*framework.QueuedPodInfo) func(*framework.PodInfo) *framework.PodInfo {
	stubs := make(map[types.UID]*framework.PodInfo, len(queued))
	for _, qi := range queued {
		stubs[qi.Pod.UID] = nominationStub(qi.PodInfo)
	}
	return func(pi *framework.PodInfo) *framework.PodInfo {
		if s, ok := stubs[pi.Pod.UID]; ok {
			return s
		}
		return pi
	}
}

// closeBatch judges what is left of a batch (its bindings) and drops it.
func (s *shadow) closeBatch(b *groupBatch) {
	if !b.bindingsJudged {
		s.judgeBindings(b)
	}
	delete(s.batches, b.group)
}

// judgeDueBatches judges the bindings of the batches whose members are
// all decided, and closes those open for longer than groupBatchWindow,
// in the order they opened.
func (s *shadow) judgeDueBatches() {
	var due []*groupBatch
	for _, b := range s.batches {
		if !b.bindingsJudged && b.complete() || s.arrived.Sub(b.opened) > groupBatchWindow {
			due = append(due, b)
		}
	}
	slices.SortFunc(due, func(a, b *groupBatch) int { return a.opened.Compare(b.opened) })
	for _, b := range due {
		if s.arrived.Sub(b.opened) > groupBatchWindow {
			s.closeBatch(b)
		} else {
			s.judgeBindings(b)
		}
	}
	var expired []string
	for g, h := range s.held {
		if s.arrived.Sub(h.at) > groupBatchWindow {
			expired = append(expired, g)
		}
	}
	// No member decision followed the condition: it is judged on the
	// state now.
	slices.Sort(expired)
	for _, g := range expired {
		s.judgeHeld(g)
	}
}

// otherBound notes a pod bound that no open batch holds: it was bound
// after the cycles of the open batches.
func (s *shadow) otherBound(cur *v1.Pod, group string) {
	for g, b := range s.batches {
		if g != group {
			b.others = append(b.others, cur)
		}
	}
}

// judgeBindings judges the bindings of a batch, member by member in
// member order: each member on the state with itself and the members
// after it in the cycle taken off the nodes the cluster bound them to,
// and the pods bound after the cycle (others) taken off theirs. A member
// schedtui's pod-group cycle does not place disagrees, whatever its own
// attempt says.
func (s *shadow) judgeBindings(b *groupBatch) {
	b.bindingsJudged = true
	e := s.e
	// boundNow is the pod as bound now (still bound, by the same UID).
	boundNow := func(p *v1.Pod) (pastChange, bool) {
		cur := e.Pod(key(p))
		if cur == nil || cur.UID != p.UID || cur.Spec.NodeName == "" {
			return pastChange{}, false
		}
		return pastChange{at: b.opened, pod: cur}, true
	}
	var others []pastChange
	for _, o := range b.others {
		if c, ok := boundNow(o); ok {
			others = append(others, c)
		}
	}
	members := make([]*pastChange, len(b.members))
	for i, m := range b.members {
		if _, ok := b.bound[key(m)]; !ok {
			continue
		}
		if c, ok := boundNow(m); ok {
			members[i] = &c
		}
	}
	for i, m := range b.members {
		node, ok := b.bound[key(m)]
		if !ok {
			continue
		}
		undo := slices.Clone(others)
		for _, c := range members[i:] {
			if c != nil {
				undo = append(undo, *c)
			}
		}
		s.judgeMemberBinding(b, m, node, undo)
	}
	// The members not seen when the batch opened, after the others, each
	// with itself taken off its node.
	for _, m := range b.late {
		node, ok := b.bound[key(m)]
		if !ok {
			continue
		}
		undo := slices.Clone(others)
		if c, ok := boundNow(m); ok {
			undo = append(undo, c)
		}
		s.judgeMemberBinding(b, m, node, undo)
	}
}

// judgeMemberBinding judges member m's binding to node on the state with
// undo undone: its own attempt there, and schedtui's pod-group cycle of b
// placing it.
func (s *shadow) judgeMemberBinding(b *groupBatch, m *v1.Pod, node string, undo []pastChange) {
	d := decision{node: node}
	j := &judgement{d: d, pod: m, res: s.evaluate(m, undo), tracedOp: -1, batched: true}
	j.verdict, j.why = shadowVerdict(j.res.a, d)
	if placed := s.placedInCycle(b, key(m)); placed != "" && j.verdict != Disagree {
		j.verdict, j.why = Disagree, placed
	}
	s.observeJudgement(j)
}

// placedInCycle says why schedtui's pod-group cycle of b does not place
// member, "" when it does.
func (s *shadow) placedInCycle(b *groupBatch, member string) string {
	if b.cycle == nil {
		return "schedtui's pod-group cycle could not be made: " + b.why
	}
	if b.cycle.Group.Result != record.GroupScheduled {
		return fmt.Sprintf("schedtui's pod-group cycle leaves the group %s: %s", b.cycle.Group.Result, b.cycle.Group.Message)
	}
	i, ok := b.attempts[member]
	if !ok {
		return "schedtui's pod-group cycle for " + b.group + " does not try the pod (it is not queued with its group)"
	}
	if a := s.e.hist.At(i); a.Outcome != record.Scheduled {
		return "schedtui's pod-group cycle places the group but not this member: " + a.Message
	}
	return ""
}

// groupJudgement is a decision about a pod group judged against
// schedtui's pod-group cycle: a member's Unschedulable condition (pod
// set) or the PodGroup's condition (pod is PodGroupRef's), with the
// attempt it names on the timeline (-1 for none).
type groupJudgement struct {
	pod       string
	d         decision
	predicted string
	attempt   int
	verdict   Verdict
	why       string
}

// observeGroupJudgement puts the observation of a group judgement on the
// timeline.
func (s *shadow) observeGroupJudgement(j *groupJudgement) {
	s.e.event(history.Event{Kind: history.EventObserved, Pod: j.pod, Predicted: j.predicted, Reason: string(j.verdict), Message: j.why,
		Attempt: j.attempt, ClusterMessage: j.d.msg})
}

// PodGroupRef names a pod group (namespace/name) where an observation
// names a pod: "podgroup/NS/NAME", as explain takes it.
func PodGroupRef(group string) string { return podGroupRefPrefix + group }

// IsPodGroupRef reports whether an observation's Pod names a pod group
// (PodGroupRef).
func IsPodGroupRef(pod string) bool { return strings.HasPrefix(pod, podGroupRefPrefix) }

const podGroupRefPrefix = "podgroup/"

// SameCondition begins the reason of an observation of a PodGroup
// condition that schedtui's pod-group cycle writes too; the condition
// (GroupConditionText) follows.
const SameCondition = "the same condition: "

// GroupConditionText is a PodGroup's PodGroupInitiallyScheduled condition
// as shadow mode quotes it: "PodGroupInitiallyScheduled=False
// (Unschedulable): message", without ": message" when it has none.
func GroupConditionText(status metav1.ConditionStatus, reason, message string) string {
	t := fmt.Sprintf("%s=%s (%s)", schedulingv1beta1.PodGroupInitiallyScheduled, status, reason)
	if message != "" {
		t += ": " + message
	}
	return t
}
