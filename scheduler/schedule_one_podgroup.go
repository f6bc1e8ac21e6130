package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The pod-group scheduling cycle (GenericWorkload), as upstream's
// schedule_one_podgroup.go: every queued member through Filter and Score
// in the group's member order, each placed member assumed and reserved so
// that later members see it, GangScheduling's PlacementFeasible deciding
// whether minCount can still be met (with TopologyAwareWorkloadScheduling,
// once per placement the PlacementGenerate plugins propose, the
// PlacementScore plugins choosing); everything reverted; then, when the
// group is unschedulable, PodGroupPostFilter (workload-aware preemption)
// with a function that runs the algorithm again; then the submission:
// members of a schedulable group to binding (assume, Reserve, Permit
// again), the others back to the queue, and the PodGroup's
// PodGroupInitiallyScheduled condition written.
//
// With CompositePodGroup the popped group may be a hierarchy's root: the
// composite algorithm tries the root's placements, and in each its
// children in child order (a child composite recursively, a PodGroup with
// its own algorithm), what a child places staying assumed for those after
// it; PlacementFeasible counts children against minGroupCount. A child
// that succeeded under a parent that failed takes the parent's status,
// and every PodGroup of the hierarchy gets its condition.

// errPodGroupUnschedulable is upstream's: the error of a member rejected
// with its group, leading its PodScheduled message.
var errPodGroupUnschedulable = errors.New("pod group is unschedulable")

// PodGroupConditionScheduled is the PodGroup condition the cycle writes,
// and its reasons (upstream's scheduling API constants).
const (
	PodGroupInitiallyScheduled   = "PodGroupInitiallyScheduled"
	PodGroupReasonScheduled      = "Scheduled"
	PodGroupReasonUnschedulable  = "Unschedulable"
	PodGroupReasonSchedulerError = "SchedulerError"
)

// PodGroupCycle is what one pod-group cycle did, for the engine to apply
// as upstream's failure handler and informers would.
type PodGroupCycle struct {
	// Group is the cycle's record.
	Group *record.GroupAttempt
	// Attempts are the members' attempts, in member order (Group.Members'
	// order); each failed one goes back to the queue (Engine.failed).
	Attempts []*record.Attempt
	// Members are the queued members the attempts are of, as popped.
	Members []*framework.QueuedPodInfo
	// Status is the root status the group is requeued with
	// (AddAttemptedPodGroupIfNeeded).
	Status *framework.Status
	// PodGroupWrites are the PodGroups with their status condition as
	// the cycle wrote them (the API server's copies after the patch): the
	// group's, or each leaf PodGroup's of a composite hierarchy; empty
	// when nothing was written.
	PodGroupWrites []*schedulingv1beta1.PodGroup
}

// memberResult is upstream's algorithmResult: one member's outcome in the
// group algorithm.
type memberResult struct {
	pi    *framework.QueuedPodInfo
	pod   *v1.Pod
	state *framework.CycleState
	rec   *recorder
	host  string
	ni    *framework.NominatingInfo
	st    *framework.Status
	// evaluated is false for a member the algorithm never reached.
	evaluated bool
}

// groupResult is upstream's podGroupAlgorithmResult: a leaf group's (its
// members' results) or a composite node's (none).
type groupResult struct {
	info *framework.PodGroupInfo
	// invalidated is, for a group that succeeded under a parent that
	// failed (a composite hierarchy), its own result, which the parent's
	// replaced: the record still shows where its members were placed.
	invalidated         *groupResult
	members             []*memberResult
	status              *framework.Status
	waitingOnPreemption bool
	anyScheduled        bool
}

// ScheduleOnePodGroup makes one pod-group cycle for the popped group and
// applies its effects to the in-memory cluster: bindings, nominations,
// preemption decisions. Requeueing is the engine's part, as for a pod.
func (s *Scheduler) ScheduleOnePodGroup(g *framework.QueuedPodGroupInfo) *PodGroupCycle {
	ctx := s.ctx()
	s.groupSeq++
	c := &PodGroupCycle{Group: &record.GroupAttempt{
		Seq: s.groupSeq, Time: s.clock(), Namespace: g.Namespace, Name: g.Name,
		Policy: g.Policy(), MinCount: g.MinCount(), Priority: g.Priority(),
	}}
	// The queue's members may be older than the store's (a status patch
	// arrives after the requeue), as scheduleOne refreshes a pod.
	for _, m := range g.Members {
		if cur, err := s.objects.Pod(m.Pod.Namespace, m.Pod.Name); err == nil && cur.UID == m.Pod.UID {
			g.UpdateMember(cur)
		}
	}

	// reconcilePodGroupWithSnapshot: the cycle works on the groups as the
	// cache holds them now.
	if err := s.reconcilePodGroup(g.PodGroupInfo); err != nil {
		g.PodGroup, g.CompositePodGroup = nil, nil
		s.podGroupFailedBeforeScheduling(c, g, err)
		return c
	}
	c.Group.Policy, c.Group.MinCount, c.Group.Priority = g.Policy(), g.MinCount(), g.Priority()
	c.Group.Composite = g.Composite
	if err := s.validatePodGroup(g); err != nil {
		s.podGroupFailedBeforeScheduling(c, g, err)
		return c
	}
	fwk := s.profiles[g.Members[0].Pod.Spec.SchedulerName]
	c.Group.Profile = fwk.ProfileName()
	s.skipPodGroupPods(c, g)
	if len(g.Members) == 0 {
		c.Group.Result = record.GroupSkipped
		c.Status = nil
		return c
	}
	s.podGroupCycle(ctx, fwk, c, g)
	return c
}

// podGroupFailedBeforeScheduling is handlePodGroupFailureBeforeScheduling:
// every member fails with err, the PodGroup (if there is one) gets the
// SchedulerError condition, the group is requeued with the error.
func (s *Scheduler) podGroupFailedBeforeScheduling(c *PodGroupCycle, g *framework.QueuedPodGroupInfo, err error) {
	st := framework.AsStatus(err)
	for _, m := range g.Members {
		a := s.newMemberAttempt(c, m)
		s.handleSchedulingFailure(m.Pod, st, clearNominatedNode, a)
		c.Group.Members[len(c.Group.Members)-1].Nominated = a.Nominated
	}
	c.Group.Result, c.Group.Message, c.Status = record.GroupError, err.Error(), st
	// updatePodGroupConditionWithError: the PodGroup, or every PodGroup
	// below a composite root (none when the root's object is gone).
	var write func(n *framework.PodGroupInfo)
	write = func(n *framework.PodGroupInfo) {
		if n.PodGroup != nil {
			c.writePodGroup(s.podGroupCondition(n.PodGroup, metav1.ConditionFalse, PodGroupReasonSchedulerError, err.Error()))
			return
		}
		if n.CompositePodGroup != nil {
			for _, ch := range n.Children {
				write(ch)
			}
		}
	}
	write(g.PodGroupInfo)
}

// writePodGroup keeps a PodGroup status write (nil: nothing written).
func (c *PodGroupCycle) writePodGroup(pg *schedulingv1beta1.PodGroup) {
	if pg != nil {
		c.PodGroupWrites = append(c.PodGroupWrites, pg)
	}
}

// PodGroupWrite is the cycle's write of the PodGroup namespace/name, nil
// when it wrote none.
func (c *PodGroupCycle) PodGroupWrite(key string) *schedulingv1beta1.PodGroup {
	for _, pg := range c.PodGroupWrites {
		if framework.PodGroupKey(pg.Namespace, pg.Name) == key {
			return pg
		}
	}
	return nil
}

// reconcilePodGroup is reconcilePodGroupWithSnapshot: every group of the
// popped hierarchy as the cache holds it now; a hierarchy whose shape
// changed meanwhile (a parent or the number of children) is an error.
func (s *Scheduler) reconcilePodGroup(n *framework.PodGroupInfo) error {
	if s.gates.EnableCompositePodGroup && n.Composite {
		ref := framework.GroupRef{Composite: true, Namespace: n.Namespace, Name: n.Name}
		cpg, err := s.objects.CompositePodGroup(n.Namespace, n.Name)
		if err != nil {
			return fmt.Errorf("composite pod group not found in snapshot: %v", ref)
		}
		if n.CompositePodGroup != nil && framework.ParentOfCompositePodGroup(cpg) != framework.ParentOfCompositePodGroup(n.CompositePodGroup) {
			return fmt.Errorf("different parent in composite pod group between snapshot (%s) and queued entity (%s)",
				parentOrUnset(framework.ParentOfCompositePodGroup(cpg)), parentOrUnset(framework.ParentOfCompositePodGroup(n.CompositePodGroup)))
		}
		if got := len(framework.GroupChildren(s.objects, n.Namespace, n.Name)); got != len(n.Children) {
			return fmt.Errorf("different number of children in composite pod group between snapshot (%d) and queued entity (%d)", got, len(n.Children))
		}
		for _, ch := range n.Children {
			if err := s.reconcilePodGroup(ch); err != nil {
				return err
			}
		}
		n.CompositePodGroup = cpg
		return nil
	}
	pg, err := s.objects.PodGroup(n.Namespace, n.Name)
	if err != nil {
		return err
	}
	if s.gates.EnableCompositePodGroup && n.PodGroup != nil && framework.ParentOfPodGroup(pg) != framework.ParentOfPodGroup(n.PodGroup) {
		return fmt.Errorf("different parent in pod group between snapshot (%s) and queued entity (%s)",
			parentOrUnset(framework.ParentOfPodGroup(pg)), parentOrUnset(framework.ParentOfPodGroup(n.PodGroup)))
	}
	n.PodGroup = pg
	return nil
}

// parentOrUnset is a parent's name as upstream's messages print it.
func parentOrUnset(name string) string {
	if name == "" {
		return "[unset]"
	}
	return name
}

// newMemberAttempt starts a member's attempt and its line in the group
// record.
func (s *Scheduler) newMemberAttempt(c *PodGroupCycle, m *framework.QueuedPodInfo) *record.Attempt {
	s.seq++
	a := s.newAttempt(m.Pod, s.seq)
	c.Attempts = append(c.Attempts, a)
	c.Members = append(c.Members, m)
	c.Group.Members = append(c.Group.Members, record.GroupMember{Pod: a.Pod, PodUID: a.PodUID, AttemptSeq: a.Seq, Attempt: -1})
	return a
}

// validatePodGroup is upstream's validatePodGroup: the group's pods,
// queued and scheduled, share one schedulerName, the group's priority and
// one preemption policy (with PodGroupPreemptionPolicy, the PodGroup's:
// PreemptLowerPriority when unset), and a profile serves them.
func (s *Scheduler) validatePodGroup(g *framework.QueuedPodGroupInfo) error {
	schedulerName := g.Members[0].Pod.Spec.SchedulerName
	priority := g.Priority()
	var policy v1.PreemptionPolicy
	groupPolicy := s.gates.EnablePodGroupPreemptionPolicy
	if groupPolicy {
		policy = v1.PreemptLowerPriority
		if pg := g.PodGroup; pg != nil && pg.Spec.PreemptionPolicy != nil {
			policy = v1.PreemptionPolicy(*pg.Spec.PreemptionPolicy)
		} else if cpg := g.CompositePodGroup; cpg != nil && cpg.Spec.PreemptionPolicy != nil {
			policy = v1.PreemptionPolicy(*cpg.Spec.PreemptionPolicy)
		}
	}
	validate := func(pod *v1.Pod) error {
		if pod.Spec.SchedulerName != schedulerName {
			return fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", pod.Spec.SchedulerName, schedulerName)
		}
		if p := corev1helpers.PodPriority(pod); p != priority {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", p, priority)
		}
		pp := v1.PreemptLowerPriority
		if pod.Spec.PreemptionPolicy != nil {
			pp = *pod.Spec.PreemptionPolicy
		}
		if groupPolicy {
			if pp != policy {
				return fmt.Errorf("all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got %v and %v", pp, policy)
			}
		} else if policy == "" {
			policy = pp
		} else if pp != policy {
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %v and %v", pp, policy)
		}
		return nil
	}
	for _, m := range g.Members {
		if err := validate(m.Pod); err != nil {
			return err
		}
	}
	for _, leaf := range g.Leaves() {
		for _, p := range s.PodGroupState(leaf.Namespace, leaf.Name).ScheduledPods() {
			if err := validate(p); err != nil {
				return err
			}
		}
	}
	if s.profiles[schedulerName] == nil {
		return fmt.Errorf("profile not found for scheduler name %q", schedulerName)
	}
	return nil
}

// skipPodGroupPods is skipPodGroupPodSchedule: members being deleted or
// already assumed leave the cycle (and the queue's tracking); they get a
// Skipped attempt.
func (s *Scheduler) skipPodGroupPods(c *PodGroupCycle, g *framework.QueuedPodGroupInfo) {
	for _, m := range slices.Clone(g.Members) {
		var why string
		switch {
		case m.Pod.DeletionTimestamp != nil:
			why = fmt.Sprintf("skip schedule deleting pod: %v/%v", m.Pod.Namespace, m.Pod.Name)
		case s.assumed[string(m.Pod.UID)] != nil:
			why = fmt.Sprintf("skip schedule assumed pod: %v/%v", m.Pod.Namespace, m.Pod.Name)
		default:
			continue
		}
		a := s.newMemberAttempt(c, m)
		a.Outcome, a.Message = record.Skipped, why
		g.RemoveMember(m.Pod)
	}
}

// podGroupCycle is upstream's podGroupCycle: the root's algorithm (a
// leaf group's, or a composite hierarchy's), PodGroupPostFilter when the
// root is unschedulable, then the submission of every leaf's result.
func (s *Scheduler) podGroupCycle(ctx context.Context, fwk *runtime.Framework, c *PodGroupCycle, g *framework.QueuedPodGroupInfo) {
	for _, leaf := range g.Leaves() {
		c.Group.Scheduled += s.PodGroupState(leaf.Namespace, leaf.Name).ScheduledPodsCount()
	}
	recs := recSet{}
	for _, leaf := range g.Leaves() {
		for _, m := range g.LeafMembers(leaf) {
			a := s.newMemberAttempt(c, m)
			if g.Composite {
				c.Group.Members[len(c.Group.Members)-1].Group = leaf.Name
			}
			recs[leaf] = append(recs[leaf], &recorder{a: a, index: map[string]uint16{}})
		}
	}
	// The pod-group cycle's state: the members' cycle states link to it
	// (DynamicResources keeps each member's state there for its
	// PodGroupPostFilter).
	state := framework.NewCycleState()
	results := s.runRootAlgorithm(ctx, fwk, state, g, recs, &c.Group.Placements)
	rootStatus := results[g.PodGroupInfo].status
	results.complete(g, recs)

	if rootStatus.Code() == framework.Unschedulable {
		// tied counts the members the last run of schedule placed on one
		// of several nodes tied at the top total score.
		tied := 0
		schedule := func(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
			// The algorithm again, on the snapshot as the plugin left it,
			// recorded nowhere.
			scratch := recSet{}
			for _, leaf := range g.Leaves() {
				for _, m := range g.LeafMembers(leaf) {
					scratch[leaf] = append(scratch[leaf], &recorder{a: s.newAttempt(m.Pod, 0), index: map[string]uint16{}})
				}
			}
			rs := s.runRootAlgorithm(ctx, fwk, framework.NewCycleState(), g, scratch, nil)
			out := &framework.PodGroupAssignments{}
			tied = 0
			for _, n := range g.Nodes() {
				r := rs[n]
				if r == nil {
					continue
				}
				for _, m := range r.members {
					if m.st.IsSuccess() && m.host != "" {
						out.ProposedAssignments = append(out.ProposedAssignments, framework.ProposedAssignment{PodInfo: m.pi.PodInfo, NodeName: m.host, State: m.state})
						if len(m.rec.a.Top()) > 1 {
							tied++
						}
					}
				}
			}
			return out, rs[g.PodGroupInfo].status
		}
		pfr, st := fwk.RunPodGroupPostFilterPlugins(ctx, state, g.PodGroupInfo, schedule)
		s.storeClaimWrites(fwk, state)
		s.recordGroupPreemption(c, g, state, st)
		if p := c.Group.Preemption; p != nil {
			p.TiedPlacements = tied
		}
		results.applyPostFilter(pfr, st)
	}
	s.submitPodGroupResult(ctx, fwk, c, g, results)
	c.Status = rootStatus
}

// recSet are a cycle's member recorders by leaf PodGroup, in member order.
type recSet map[*framework.PodGroupInfo][]*recorder

// copyFor copies the recorders of the subtree's leaves: a placement's run
// records into the copies.
func (rs recSet) copyFor(n *framework.PodGroupInfo) recSet {
	c := recSet{}
	for _, leaf := range n.Leaves() {
		for _, r := range rs[leaf] {
			a := *r.a
			c[leaf] = append(c[leaf], &recorder{a: &a, index: map[string]uint16{}})
		}
	}
	return c
}

// adopt makes the copies' records the originals': the run they record is
// the one whose result the cycle keeps.
func (rs recSet) adopt(from recSet) {
	for leaf, copies := range from {
		for i, pr := range copies {
			*rs[leaf][i].a = *pr.a
			pr.a = rs[leaf][i].a
		}
	}
}

// cycleResults are the algorithm's results by node of the hierarchy
// (upstream's map by entity key).
type cycleResults map[*framework.PodGroupInfo]*groupResult

// revertAll runs the undo functions last first.
func revertAll(reverts []func()) {
	for i := len(reverts) - 1; i >= 0; i-- {
		reverts[i]()
	}
}

// runRootAlgorithm is runRootSchedulingAlgorithm: a leaf group's
// algorithm, or the recursive one over a composite hierarchy; everything
// it assumed reverted; the root Unschedulable when it placed nobody.
// tried, when set, receives the placements the root tried.
func (s *Scheduler) runRootAlgorithm(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, g *framework.QueuedPodGroupInfo, recs recSet, tried *[]record.PlacementTried) cycleResults {
	results := cycleResults{}
	var root *groupResult
	var reverts []func()
	if s.gates.EnableCompositePodGroup && g.Composite {
		root, reverts = s.recursiveAlgorithm(ctx, fwk, state, g, g.PodGroupInfo, results, recs, tried)
	} else {
		root, reverts = s.leafAlgorithm(ctx, fwk, state, g.PodGroupInfo, g.Members, recs[g.PodGroupInfo], tried)
		results[g.PodGroupInfo] = root
	}
	revertAll(reverts)
	if root.status.IsSuccess() && !root.anyScheduled {
		// The framework requires at least one pod scheduled for success.
		root.status = framework.NewStatus(framework.Unschedulable).WithError(errPodGroupUnschedulable)
	}
	return results
}

// recursiveAlgorithm is podGroupSchedulingRecursiveAlgorithm: a leaf's
// algorithm, or a composite node's over its children.
func (s *Scheduler) recursiveAlgorithm(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, g *framework.QueuedPodGroupInfo, n *framework.PodGroupInfo, results cycleResults, recs recSet, tried *[]record.PlacementTried) (*groupResult, []func()) {
	if !n.Composite {
		r, reverts := s.leafAlgorithm(ctx, fwk, state, n, g.LeafMembers(n), recs[n], tried)
		results[n] = r
		return r, reverts
	}
	// A composite group needs TopologyAwareWorkloadScheduling (a gate
	// dependency): its placements are always tried.
	return s.compositePlacementAlgorithm(ctx, fwk, state, g, n, results, recs, tried)
}

// leafAlgorithm is podGroupSchedulingAlgorithm for one PodGroup: its
// placements (TopologyAwareWorkloadScheduling) or the default algorithm.
// The undo functions returned are those of what stays assumed: the
// default algorithm's members, or the chosen placement's (in a
// hierarchy, CompositePodGroup, so that the groups after it see them).
func (s *Scheduler) leafAlgorithm(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, leaf *framework.PodGroupInfo, members []*framework.QueuedPodInfo, recs []*recorder, tried *[]record.PlacementTried) (*groupResult, []func()) {
	if s.gates.EnableTopologyAwareWorkloadScheduling {
		return s.podGroupPlacementAlgorithm(ctx, fwk, state, leaf, members, recs, tried)
	}
	var reverts []func()
	r := s.podGroupDefaultAlgorithm(ctx, fwk, state, leaf, members, recs, &reverts)
	return r, reverts
}

// podGroupDefaultAlgorithm is podGroupSchedulingDefaultAlgorithm: each
// member in order through the scheduling algorithm, a placed member
// assumed and reserved (reverts collects the undo); PlacementFeasible
// before the first and after each member; on failure everything is
// reverted at once.
func (s *Scheduler) podGroupDefaultAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, leaf *framework.PodGroupInfo, members []*framework.QueuedPodInfo, recs []*recorder, reverts *[]func()) (result *groupResult) {
	result = &groupResult{info: leaf, status: framework.NewStatus(framework.Unschedulable).WithError(errPodGroupUnschedulable)}
	defer func() {
		if !result.status.IsSuccess() {
			revertAll(*reverts)
			*reverts = nil
			result.anyScheduled = false
		}
	}()
	state := framework.NewCycleState()
	progress := framework.PlacementProgress{
		Remaining: len(members),
		Scheduled: s.PodGroupState(leaf.Namespace, leaf.Name).ScheduledPodsCount(),
	}
	feasible := fwk.RunPlacementFeasiblePlugins(ctx, state, leaf, progress)
	result.status = feasible
	if feasible.IsError() {
		result.status = framework.AsStatus(fmt.Errorf("failed to evaluate placement feasibility: %w", feasible.AsError()))
		return result
	}
	if feasible.Code() == framework.Unschedulable {
		result.status = framework.NewStatus(framework.Unschedulable, feasible.Reasons()...).WithError(errPodGroupUnschedulable)
		return result
	}
	anyScheduled := false
	for i, m := range members {
		mr, revert := s.podGroupMemberAlgorithm(ctx, fwk, root, m, recs[i])
		result.members = append(result.members, mr)
		if revert != nil {
			*reverts = append(*reverts, revert)
		}
		if !mr.st.IsSuccess() && !mr.st.IsRejected() {
			result.status = framework.AsStatus(fmt.Errorf("failed to schedule other pod from a pod group: %w", mr.st.AsError()))
			break
		}
		progress.Remaining--
		if mr.st.IsSuccess() {
			progress.Scheduled++
		}
		feasible := fwk.RunPlacementFeasiblePlugins(ctx, state, leaf, progress)
		if feasible.IsError() {
			result.status = framework.AsStatus(fmt.Errorf("failed to evaluate placement feasibility: %w", feasible.AsError()))
			break
		}
		result.status = feasible
		if feasible.Code() == framework.Unschedulable {
			break
		}
		anyScheduled = anyScheduled || mr.st.IsSuccess()
	}
	if result.status.IsWait() {
		result.status = framework.NewStatus(framework.Unschedulable, result.status.Reasons()...).WithError(errPodGroupUnschedulable)
	}
	result.anyScheduled = anyScheduled
	return result
}

// compositeDefaultAlgorithm is compositePodGroupSchedulingDefaultAlgorithm:
// each child in child order through the recursive algorithm (what it
// places stays assumed for the children after it), PlacementFeasible
// counting children before the first and after each; on failure the
// whole subtree reverted.
func (s *Scheduler) compositeDefaultAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, g *framework.QueuedPodGroupInfo, n *framework.PodGroupInfo, results cycleResults, recs recSet) (result *groupResult, reverts []func()) {
	defer func() {
		results[n] = result
		if !result.status.IsSuccess() {
			revertAll(reverts)
			reverts = nil
			result.anyScheduled = false
		}
	}()
	state := framework.NewCycleState()
	progress := framework.PlacementProgress{Remaining: len(n.Children)}
	feasible := fwk.RunPlacementFeasiblePlugins(ctx, state, n, progress)
	if feasible.Code() == framework.Unschedulable || feasible.Code() == framework.Error {
		return &groupResult{info: n, status: feasible}, nil
	}
	anyScheduled := false
	for _, child := range n.Children {
		cr, childReverts := s.recursiveAlgorithm(ctx, fwk, root, g, child, results, recs, nil)
		if cr.status.IsError() {
			return &groupResult{info: n, status: framework.AsStatus(fmt.Errorf("composite pod group evaluation failed due to child error: %w", cr.status.AsError()))}, reverts
		}
		anyScheduled = anyScheduled || cr.anyScheduled
		reverts = append(reverts, childReverts...)
		progress.Remaining--
		if cr.status.IsSuccess() {
			progress.Scheduled++
		}
		feasible = fwk.RunPlacementFeasiblePlugins(ctx, state, n, progress)
		if feasible.Code() == framework.Unschedulable || feasible.Code() == framework.Error {
			break
		}
	}
	if feasible.IsWait() {
		feasible = framework.NewStatus(framework.Unschedulable, feasible.Reasons()...).WithError(errPodGroupUnschedulable)
	}
	return &groupResult{info: n, status: feasible, anyScheduled: anyScheduled}, reverts
}

// successfulLeaves is successfulLeafResults: the results of the leaves
// below n that succeeded with every ancestor up to n, depth first.
func (rs cycleResults) successfulLeaves(n *framework.PodGroupInfo) []*groupResult {
	r, ok := rs[n]
	if !ok || !r.status.IsSuccess() {
		return nil
	}
	var out []*groupResult
	for _, c := range n.Children {
		out = append(out, rs.successfulLeaves(c)...)
	}
	if len(r.members) > 0 {
		out = append(out, r)
	}
	return out
}

// assumeResults is assumeSubtreeWithRevert: the placed members of the
// results assumed and reserved again, so that the groups tried after
// them see them; the undo functions, or an error (everything undone).
func (s *Scheduler) assumeResults(ctx context.Context, fwk *runtime.Framework, results []*groupResult) ([]func(), error) {
	var reverts []func()
	for _, r := range results {
		for _, mr := range r.members {
			if !mr.st.IsSuccess() || mr.host == "" {
				continue
			}
			scratch := &recorder{a: s.newAttempt(mr.pod, 0), index: map[string]uint16{}}
			assumed, st := s.assumeAndReserve(ctx, fwk, mr.state, mr.pod, mr.host, scratch)
			if !st.IsSuccess() {
				revertAll(reverts)
				return nil, st.AsError()
			}
			reverts = append(reverts, s.memberRevert(ctx, fwk, mr.state, mr.pod, assumed, mr.host))
		}
	}
	return reverts, nil
}

// memberRevert undoes a member's assume and Reserve.
func (s *Scheduler) memberRevert(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod, assumed *v1.Pod, host string) func() {
	return func() {
		s.unreserveAndForget(ctx, fwk, state, assumed, host)
		if nnn := pod.Status.NominatedNodeName; nnn != "" {
			// assume dropped the nomination; the revert restores it.
			s.nominator.Add(framework.NewPodInfo(pod), nnn)
		}
	}
}

// placedMembers are the members a result placed, as placement scorers see
// them.
func placedMembers(results ...*groupResult) []framework.ProposedAssignment {
	var out []framework.ProposedAssignment
	for _, r := range results {
		for _, m := range r.members {
			if m.st.IsSuccess() && m.host != "" {
				out = append(out, framework.ProposedAssignment{PodInfo: m.pi.PodInfo, NodeName: m.host, State: m.state})
			}
		}
	}
	return out
}

// bestPlacement is findBestPlacement: the PlacementScore plugins' best of
// the feasible placements (a single one needs no scoring). Upstream
// breaks equal totals at random; schedtui keeps the first, in the
// generator's order. The scores are noted on the tried lines.
func (s *Scheduler) bestPlacement(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, n *framework.PodGroupInfo, placements []*framework.Placement, assigned [][]framework.ProposedAssignment, tried *[]record.PlacementTried) (int, *framework.Status) {
	best := 0
	if len(placements) > 1 {
		assignments := make([]*framework.PodGroupAssignments, len(placements))
		for i, p := range placements {
			assignments[i] = &framework.PodGroupAssignments{Placement: p, ProposedAssignments: assigned[i]}
		}
		scores, st := fwk.RunPlacementScorePlugins(ctx, state, n, assignments)
		if !st.IsSuccess() {
			return 0, st
		}
		for i, sc := range scores {
			if sc > scores[best] {
				best = i
			}
			if tried != nil {
				for k := range *tried {
					if (*tried)[k].Name == placements[i].Name {
						(*tried)[k].Score = sc
					}
				}
			}
		}
	}
	if tried != nil {
		for k := range *tried {
			(*tried)[k].Chosen = (*tried)[k].Name == placements[best].Name
		}
	}
	return best, nil
}

// podGroupPlacementAlgorithm is podGroupSchedulingPlacementAlgorithm for a
// leaf group: the placements the PlacementGenerate plugin proposes, each
// assumed in the snapshot in turn and tried with the default algorithm
// (everything reverted after each), the best successful one chosen by the
// PlacementScore plugins; when none succeeds, the first one's result.
// The members' records are those of the placement whose result is
// returned. With CompositePodGroup the chosen placement's members are
// assumed again (the undo returned).
func (s *Scheduler) podGroupPlacementAlgorithm(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, leaf *framework.PodGroupInfo, members []*framework.QueuedPodInfo, recs []*recorder, tried *[]record.PlacementTried) (*groupResult, []func()) {
	placements, st := fwk.RunPlacementGeneratePlugins(ctx, state, leaf, s.snapshot.ListNodesInPlacement())
	if !st.IsSuccess() {
		return &groupResult{info: leaf, status: st}, nil
	}
	parent := s.snapshot.Placement()
	defer func() {
		s.snapshot.ForgetPlacement()
		// The parent was assumed before: it is still valid.
		_ = s.snapshot.AssumePlacement(parent)
	}()
	type run struct {
		placement *framework.Placement
		result    *groupResult
		recs      []*recorder
	}
	var first *run
	var successful []*run
	for _, p := range placements {
		if err := s.snapshot.AssumePlacement(p); err != nil {
			return &groupResult{info: leaf, status: framework.AsStatus(fmt.Errorf("failed to assume pod group placement: %w", err))}, nil
		}
		prs := recSet{leaf: recs}.copyFor(leaf)[leaf]
		var reverts []func()
		result := s.podGroupDefaultAlgorithm(ctx, fwk, state, leaf, members, prs, &reverts)
		revertAll(reverts)
		if tried != nil {
			*tried = append(*tried, record.PlacementTried{Name: p.Name, Nodes: len(p.Nodes), Feasible: result.status.IsSuccess(), Message: result.status.Message(), Placed: len(placedMembers(result))})
		}
		if result.status.IsError() {
			return result, nil
		}
		r := &run{placement: p, result: result, recs: prs}
		if first == nil {
			first = r
		}
		if result.status.IsSuccess() {
			successful = append(successful, r)
		}
	}
	adopt := func(r *run) *groupResult {
		recSet{leaf: recs}.adopt(recSet{leaf: r.recs})
		return r.result
	}
	if len(successful) == 0 {
		result := adopt(first)
		result.status = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("0/%d placements are available, first placement status: %v", len(placements), result.status.AsError())).WithError(errPodGroupUnschedulable)
		return result, nil
	}
	ps := make([]*framework.Placement, len(successful))
	assigned := make([][]framework.ProposedAssignment, len(successful))
	for i, r := range successful {
		ps[i], assigned[i] = r.placement, placedMembers(r.result)
	}
	best, st := s.bestPlacement(ctx, fwk, state, leaf, ps, assigned, tried)
	if !st.IsSuccess() {
		return &groupResult{info: leaf, status: st}, nil
	}
	result := adopt(successful[best])
	if !s.gates.EnableCompositePodGroup {
		return result, nil
	}
	reverts, err := s.assumeResults(ctx, fwk, []*groupResult{result})
	if err != nil {
		return &groupResult{info: leaf, status: framework.AsStatus(fmt.Errorf("failed to assume the subtree: %w", err))}, nil
	}
	return result, reverts
}

// compositePlacementAlgorithm is compositePodGroupSchedulingPlacementAlgorithm:
// the composite node's placements, each assumed in turn and tried with
// the composite default algorithm over its children (everything reverted
// after each), the best successful one chosen by the PlacementScore
// plugins over the members of its successful leaves and assumed again;
// when none succeeds, the first one's results.
func (s *Scheduler) compositePlacementAlgorithm(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, g *framework.QueuedPodGroupInfo, n *framework.PodGroupInfo, results cycleResults, recs recSet, tried *[]record.PlacementTried) (final *groupResult, reverts []func()) {
	defer func() { results[n] = final }()
	placements, st := fwk.RunPlacementGeneratePlugins(ctx, state, n, s.snapshot.ListNodesInPlacement())
	if !st.IsSuccess() {
		return &groupResult{info: n, status: st}, nil
	}
	parent := s.snapshot.Placement()
	defer func() {
		s.snapshot.ForgetPlacement()
		_ = s.snapshot.AssumePlacement(parent)
	}()
	type run struct {
		placement *framework.Placement
		sub       cycleResults
		recs      recSet
	}
	var first *run
	var successful []*run
	for _, p := range placements {
		if err := s.snapshot.AssumePlacement(p); err != nil {
			return &groupResult{info: n, status: framework.AsStatus(fmt.Errorf("failed to assume pod group placement: %w", err))}, nil
		}
		prs := recs.copyFor(n)
		sub := cycleResults{}
		result, placementReverts := s.compositeDefaultAlgorithm(ctx, fwk, state, g, n, sub, prs)
		revertAll(placementReverts)
		if tried != nil {
			placed := 0
			for _, leaf := range n.Leaves() {
				if r := sub[leaf]; r != nil {
					placed += len(placedMembers(r))
				}
			}
			*tried = append(*tried, record.PlacementTried{Name: p.Name, Nodes: len(p.Nodes), Feasible: result.status.IsSuccess(), Message: result.status.Message(), Placed: placed})
		}
		if result.status.IsError() {
			return result, nil
		}
		r := &run{placement: p, sub: sub, recs: prs}
		if first == nil {
			first = r
		}
		if result.status.IsSuccess() {
			successful = append(successful, r)
		}
	}
	if len(successful) == 0 {
		root := first.sub[n]
		root.status = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("0/%d placements are available, first placement status: %v", len(placements), root.status.AsError())).WithError(errPodGroupUnschedulable)
		// The first placement's results of the whole subtree are kept:
		// its members' own FitErrors name the plugins to requeue on.
		maps.Copy(results, first.sub)
		recs.adopt(first.recs)
		return root, nil
	}
	ps := make([]*framework.Placement, len(successful))
	assigned := make([][]framework.ProposedAssignment, len(successful))
	for i, r := range successful {
		ps[i], assigned[i] = r.placement, placedMembers(r.sub.successfulLeaves(n)...)
	}
	best, st := s.bestPlacement(ctx, fwk, state, n, ps, assigned, tried)
	if !st.IsSuccess() {
		return &groupResult{info: n, status: st}, nil
	}
	b := successful[best]
	recs.adopt(b.recs)
	reverts, err := s.assumeResults(ctx, fwk, b.sub.successfulLeaves(n))
	if err != nil {
		return &groupResult{info: n, status: framework.AsStatus(fmt.Errorf("failed to assume the subtree: %w", err))}, nil
	}
	maps.Copy(results, b.sub)
	return b.sub[n], reverts
}

// complete is completePodGroupAlgorithmResult (and, for a hierarchy,
// completeCompositePodGroupAlgorithmResult): a child that succeeded under
// a failed parent takes the parent's status (shared, as upstream shares
// it), a group never reached too; then every leaf's members the algorithm
// never reached get a copy of their group's status.
func (rs cycleResults) complete(g *framework.QueuedPodGroupInfo, recs recSet) {
	if g.Composite {
		var walk func(n *framework.PodGroupInfo, parent *framework.Status)
		walk = func(n *framework.PodGroupInfo, parent *framework.Status) {
			r, ok := rs[n]
			if !ok || !parent.IsSuccess() && r.status.IsSuccess() {
				r = &groupResult{info: n, status: parent, invalidated: r}
				rs[n] = r
			}
			for _, c := range n.Children {
				walk(c, r.status)
			}
		}
		walk(g.PodGroupInfo, nil)
	}
	for _, leaf := range g.Leaves() {
		r := rs[leaf]
		members := g.LeafMembers(leaf)
		for i := len(r.members); i < len(members); i++ {
			m := members[i]
			r.members = append(r.members, &memberResult{pi: m, pod: m.Pod, state: framework.NewCycleState(), rec: recs[leaf][i], st: r.status.Clone()})
		}
	}
}

// applyPostFilter is applyPodGroupPostFilterResult: on success every
// group of the hierarchy waits on preemption, its members nominated where
// the plugin says; an error replaces every group's status; otherwise the
// plugin's message joins each group's (once per group sharing it).
func (rs cycleResults) applyPostFilter(pfr *framework.PodGroupPostFilterResult, st *framework.Status) {
	for _, r := range rs {
		if st.IsSuccess() {
			r.waitingOnPreemption = true
			if pfr != nil {
				for _, m := range r.members {
					if ni, ok := pfr.NominatingInfos[types.NamespacedName{Namespace: m.pod.Namespace, Name: m.pod.Name}]; ok {
						m.ni = ni
					}
				}
			}
		}
		if st.IsError() {
			r.status = st
			continue
		}
		r.status.AppendReason(st.String())
	}
}

// submitPodGroupResult is submitPodGroupAlgorithmResult: each leaf's
// members' outcome (binding, or the failure handler's part), then each
// leaf PodGroup's condition; the record takes the root's result.
func (s *Scheduler) submitPodGroupResult(ctx context.Context, fwk *runtime.Framework, c *PodGroupCycle, g *framework.QueuedPodGroupInfo, rs cycleResults) {
	line := map[string]int{}
	for i, a := range c.Attempts {
		line[a.PodUID] = i
	}
	type permitted struct {
		mr      *memberResult
		a       *record.Attempt
		assumed *v1.Pod
		// waits are the Permit plugins it waits on, nil when allowed.
		waits map[string]time.Duration
		wait  *framework.Status
	}
	var toBind []permitted
	leaves := g.Leaves()
	for _, leaf := range leaves {
		r := rs[leaf]
		own := map[string]*memberResult{}
		if r.invalidated != nil {
			for _, mr := range r.invalidated.members {
				own[string(mr.pod.UID)] = mr
			}
		}
		for _, mr := range r.members {
			i := line[string(mr.pod.UID)]
			a := c.Attempts[i]
			gm := &c.Group.Members[i]
			seen := mr
			if o := own[string(mr.pod.UID)]; o != nil {
				// Placed with its group, rejected with the parent.
				seen = o
			}
			gm.Evaluated = seen.evaluated
			if seen.st.IsSuccess() {
				gm.Node = seen.host
			}
			gm.Unschedulable = seen.evaluated && !seen.st.IsSuccess()
			switch {
			case r.status.IsError():
				if mr.st.IsError() {
					s.podGroupMemberFailed(mr, mr.st, clearNominatedNode, a)
				} else {
					s.podGroupMemberFailed(mr, r.status, clearNominatedNode, a)
				}
			case mr.st.IsSuccess() && r.status.IsSuccess():
				// prepareForBindingCycle: assume, Reserve and Permit again,
				// outside the group cycle.
				mr.state.SetPodGroupCycle(nil)
				assumed, st := s.assumeAndReserve(ctx, fwk, mr.state, mr.pod, mr.host, mr.rec)
				var waits map[string]time.Duration
				if st.IsSuccess() {
					waits, st = s.permit(ctx, fwk, mr.state, mr.pod, assumed, mr.host, mr.rec)
				}
				if !st.IsSuccess() && !st.IsWait() {
					s.podGroupMemberFailed(mr, st, clearNominatedNode, a)
					continue
				}
				toBind = append(toBind, permitted{mr: mr, a: a, assumed: assumed, waits: waits, wait: st})
			case mr.st.IsSuccess() && r.status.IsRejected():
				if r.waitingOnPreemption {
					s.podGroupMemberFailed(mr, r.status, mr.ni, a)
				} else {
					st := framework.NewStatus(framework.Unschedulable, r.status.Message()).WithError(errPodGroupUnschedulable)
					s.podGroupMemberFailed(mr, st, clearNominatedNode, a)
				}
			case mr.st.IsSuccess():
				err := fmt.Errorf("received unexpected pod group scheduling algorithm status code: %s", r.status.Code())
				s.podGroupMemberFailed(mr, framework.AsStatus(err), clearNominatedNode, a)
			default:
				s.podGroupMemberFailed(mr, mr.st, mr.ni, a)
			}
		}
	}
	// Upstream's binding cycles wait on Permit until GangScheduling's
	// quorum: the member whose Permit finds it allows every waiting member
	// of the gang (of the hierarchy's tree, CompositePodGroup), this
	// cycle's and those an earlier cycle left waiting (allowPermitWaits). A
	// member nobody allows stays assumed, its binding cycle parked at
	// Permit until the wait times out (binding_wait.go).
	quorum := false
	for _, p := range toBind {
		quorum = quorum || p.waits == nil
	}
	if quorum {
		s.allowPermitWaits(s.sameGang(g))
	}
	for _, p := range toBind {
		if p.waits != nil && !quorum {
			s.parkAtPermit(&waitingBinding{fwk: fwk, state: p.mr.state, pod: p.mr.pod, assumed: p.assumed, host: p.mr.host, rec: p.mr.rec,
				permit: p.waits}, p.wait, p.a)
			continue
		}
		p.mr.rec.phase(record.PhasePermit, nil)
		s.bindPodGroupMember(ctx, fwk, p.mr, p.assumed, p.a)
	}
	for i := range c.Group.Members {
		c.Group.Members[i].Nominated = c.Attempts[i].Nominated
	}

	for _, leaf := range leaves {
		r := rs[leaf]
		status, reason, msg := conditionOf(r)
		if leaf.PodGroup != nil {
			c.writePodGroup(s.podGroupCondition(leaf.PodGroup, status, reason, msg))
		}
	}
	root := rs[g.PodGroupInfo]
	c.Group.Result = resultOf(root)
	if root.status.IsSuccess() || root.status.IsRejected() {
		c.Group.Message = root.status.Message()
	} else {
		c.Group.Message = root.status.AsError().Error()
	}
	if g.Composite {
		var walk func(n *framework.PodGroupInfo, depth int)
		walk = func(n *framework.PodGroupInfo, depth int) {
			for _, ch := range n.Children {
				r := rs[ch]
				_, _, msg := conditionOf(r)
				c.Group.Children = append(c.Group.Children, record.GroupChild{Name: ch.Name, Parent: n.Name, Composite: ch.Composite, Depth: depth,
					Policy: ch.Policy(), MinCount: ch.MinCount(), Result: resultOf(r), Message: msg})
				walk(ch, depth+1)
			}
		}
		walk(g.PodGroupInfo, 1)
	}
}

// conditionOf is the PodGroupInitiallyScheduled condition a group's
// result writes.
func conditionOf(r *groupResult) (metav1.ConditionStatus, string, string) {
	switch {
	case r.status.IsSuccess():
		return metav1.ConditionTrue, PodGroupReasonScheduled, r.status.Message()
	case r.status.IsRejected():
		return metav1.ConditionFalse, PodGroupReasonUnschedulable, r.status.Message()
	}
	return metav1.ConditionFalse, PodGroupReasonSchedulerError, r.status.AsError().Error()
}

// resultOf is a group's result as the record names it.
func resultOf(r *groupResult) record.GroupResult {
	switch {
	case r.status.IsSuccess():
		return record.GroupScheduled
	case r.status.IsRejected() && r.waitingOnPreemption:
		return record.GroupWaitingOnPreemption
	case r.status.IsRejected():
		return record.GroupUnschedulable
	}
	return record.GroupError
}

// sameGang tells the pods GangScheduling's Permit allows with a member of
// g: its gang's, or, in a hierarchy (CompositePodGroup), every PodGroup's
// of the root's tree (allowAssumedPodsInHierarchy).
func (s *Scheduler) sameGang(g *framework.QueuedPodGroupInfo) func(*v1.Pod) bool {
	if !g.Composite {
		key := framework.PodGroupKey(g.Namespace, g.Name)
		return func(pod *v1.Pod) bool { return framework.PodGroupKeyOf(pod) == key }
	}
	root := framework.GroupRef{Composite: true, Namespace: g.Namespace, Name: g.Name}
	return func(pod *v1.Pod) bool {
		if pod.Namespace != g.Namespace || framework.PodGroupNameOf(pod) == "" {
			return false
		}
		r, ok, err := framework.GroupRoot(s.objects, true, framework.GroupRef{Namespace: pod.Namespace, Name: framework.PodGroupNameOf(pod)})
		return err == nil && ok && r == root
	}
}

// podGroupMemberAlgorithm is podGroupPodSchedulingAlgorithm: the
// scheduling algorithm for one member (no PostFilter: the group's comes
// later), then assume and Reserve, with the undo.
func (s *Scheduler) podGroupMemberAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, m *framework.QueuedPodInfo, rec *recorder) (*memberResult, func()) {
	pod := m.Pod
	mr := &memberResult{pi: m, pod: pod, state: framework.NewCycleState(), rec: rec, evaluated: true}
	mr.state.SetPodGroupCycle(root)
	host, err := s.schedulePod(ctx, fwk, mr.state, pod, rec)
	// The extenders' calls of this member's algorithm are its attempt's.
	defer s.takeExtenderCalls(rec.a)
	if err != nil {
		var fitErr *framework.FitError
		switch {
		case errors.Is(err, framework.ErrNoNodesAvailable):
			mr.ni, mr.st = clearNominatedNode, framework.NewStatus(framework.UnschedulableAndUnresolvable).WithError(err)
		case errors.As(err, &fitErr):
			// No nomination change: PodGroupPostFilter may set one.
			mr.st = framework.NewStatus(framework.Unschedulable).WithError(err)
		default:
			mr.ni, mr.st = clearNominatedNode, framework.AsStatus(err)
		}
		return mr, nil
	}
	assumed, st := s.assumeAndReserve(ctx, fwk, mr.state, pod, host, rec)
	if !st.IsSuccess() {
		mr.ni, mr.st = clearNominatedNode, st
		return mr, nil
	}
	mr.host = host
	return mr, s.memberRevert(ctx, fwk, mr.state, pod, assumed, host)
}

// recordGroupPreemption keeps PodGroupPostFilter's preemption record and,
// when it succeeded, carries it out for the group (upstream's executor
// does it inside the plugin, before the members are requeued).
func (s *Scheduler) recordGroupPreemption(c *PodGroupCycle, g *framework.QueuedPodGroupInfo, state *framework.CycleState, st *framework.Status) {
	p, err := state.Read(record.PreemptionStateKey)
	if err != nil {
		return
	}
	c.Group.Preemption = p.(*record.PreemptionState).Preemption
	c.Group.Victims = c.Group.Preemption.VictimNames()
	if st.IsSuccess() {
		s.actuatePodGroupPreemption(g.PodGroupInfo, c.Group.Preemption)
	}
}

// podGroupMemberFailed is the failure handler's scheduler part for a
// member: a rejection that is not the member's own FitError names no
// rejector plugin (upstream clears them and only a FitError sets them).
func (s *Scheduler) podGroupMemberFailed(mr *memberResult, st *framework.Status, ni *framework.NominatingInfo, a *record.Attempt) {
	var fitErr *framework.FitError
	if !errors.As(st.Err(), &fitErr) {
		a.UnschedulablePlugins, a.PendingPlugins = nil, nil
	}
	s.handleSchedulingFailure(mr.pod, st, ni, a)
}

// bindPodGroupMember runs a permitted member's binding cycle, as
// scheduleOne does after its scheduling cycle.
func (s *Scheduler) bindPodGroupMember(ctx context.Context, fwk *runtime.Framework, mr *memberResult, assumed *v1.Pod, a *record.Attempt) {
	status, skip := s.bindingCycle(ctx, fwk, mr.state, assumed, mr.host, mr.rec)
	defer s.takeExtenderCalls(a)
	if status.IsWait() {
		s.park(&waitingBinding{fwk: fwk, state: mr.state, pod: mr.pod, assumed: assumed, host: mr.host, rec: mr.rec,
			plugin: status.Plugin(), skip: skip})
		a.Outcome = record.Waiting
		a.Message = status.Message()
		a.Node = mr.host
		a.Chosen = s.nodeList.Index(mr.host)
		return
	}
	s.endBindingCycle(mr.pod, mr.host, status, a)
}

// podGroupCondition is updatePodGroupCondition: the PodGroup with the
// PodGroupInitiallyScheduled condition set, nil when nothing changes (a
// group once scheduled never regresses to False).
func (s *Scheduler) podGroupCondition(pg *schedulingv1beta1.PodGroup, status metav1.ConditionStatus, reason, msg string) *schedulingv1beta1.PodGroup {
	if existing := apimeta.FindStatusCondition(pg.Status.Conditions, PodGroupInitiallyScheduled); existing != nil &&
		existing.Status == metav1.ConditionTrue && status != metav1.ConditionTrue {
		return nil
	}
	updated := pg.DeepCopy()
	cond := metav1.Condition{Type: PodGroupInitiallyScheduled, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: pg.Generation, LastTransitionTime: metav1.NewTime(s.clock())}
	if !apimeta.SetStatusCondition(&updated.Status.Conditions, cond) {
		return nil
	}
	return updated
}
