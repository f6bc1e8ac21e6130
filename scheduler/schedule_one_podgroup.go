package scheduler

import (
	"context"
	"errors"
	"fmt"
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
// schedule_one_podgroup.go for a leaf PodGroup with the default algorithm
// (TopologyAwareWorkloadScheduling and CompositePodGroup are refused by
// their gates): every queued member through Filter and Score in the
// group's member order, each placed member assumed and reserved so that
// later members see it, GangScheduling's PlacementFeasible deciding
// whether minCount can still be met; everything reverted; then, when the
// group is unschedulable, PodGroupPostFilter (workload-aware preemption)
// with a function that runs the algorithm again; then the submission:
// members of a schedulable group to binding (assume, Reserve, Permit
// again), the others back to the queue, and the PodGroup's
// PodGroupInitiallyScheduled condition written.

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
	// PodGroupWrite is the PodGroup with its status condition as the
	// cycle wrote it (the API server's copy after the patch), nil when
	// nothing was written.
	PodGroupWrite *schedulingv1beta1.PodGroup
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

// groupResult is upstream's podGroupAlgorithmResult for a leaf group.
type groupResult struct {
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
			m.PodInfo = framework.NewPodInfo(cur)
		}
	}
	g.UnscheduledPods = g.UnscheduledPods[:0]
	for _, m := range g.Members {
		g.UnscheduledPods = append(g.UnscheduledPods, m.Pod)
	}

	// reconcilePodGroupWithSnapshot: the cycle works on the PodGroup as
	// the cache holds it now.
	pg, err := s.objects.PodGroup(g.Namespace, g.Name)
	if err != nil {
		g.PodGroup = nil
		s.podGroupFailedBeforeScheduling(c, g, err)
		return c
	}
	g.PodGroup = pg
	c.Group.Policy, c.Group.MinCount, c.Group.Priority = g.Policy(), g.MinCount(), g.Priority()
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
	if g.PodGroup != nil {
		c.PodGroupWrite = s.podGroupCondition(g.PodGroup, metav1.ConditionFalse, PodGroupReasonSchedulerError, err.Error())
	}
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
	for _, p := range s.PodGroupState(g.Namespace, g.Name).ScheduledPods() {
		if err := validate(p); err != nil {
			return err
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
	kept := g.Members[:0]
	for _, m := range g.Members {
		var why string
		switch {
		case m.Pod.DeletionTimestamp != nil:
			why = fmt.Sprintf("skip schedule deleting pod: %v/%v", m.Pod.Namespace, m.Pod.Name)
		case s.assumed[string(m.Pod.UID)] != nil:
			why = fmt.Sprintf("skip schedule assumed pod: %v/%v", m.Pod.Namespace, m.Pod.Name)
		default:
			kept = append(kept, m)
			continue
		}
		a := s.newMemberAttempt(c, m)
		a.Outcome, a.Message = record.Skipped, why
	}
	g.Members = kept
	g.UnscheduledPods = g.UnscheduledPods[:0]
	for _, m := range g.Members {
		g.UnscheduledPods = append(g.UnscheduledPods, m.Pod)
	}
}

// podGroupCycle is upstream's podGroupCycle for a leaf group.
func (s *Scheduler) podGroupCycle(ctx context.Context, fwk *runtime.Framework, c *PodGroupCycle, g *framework.QueuedPodGroupInfo) {
	scheduledBefore := s.PodGroupState(g.Namespace, g.Name).ScheduledPodsCount()
	c.Group.Scheduled = scheduledBefore
	recs := make([]*recorder, len(g.Members))
	for i, m := range g.Members {
		a := s.newMemberAttempt(c, m)
		recs[i] = &recorder{a: a, index: map[string]uint16{}}
	}
	// The pod-group cycle's state: the members' cycle states link to it
	// (DynamicResources keeps each member's state there for its
	// PodGroupPostFilter).
	state := framework.NewCycleState()
	result := s.runPodGroupAlgorithm(ctx, fwk, state, g, recs, &c.Group.Placements)
	rootStatus := result.status
	result.complete(g, recs)

	if rootStatus.Code() == framework.Unschedulable {
		// tied counts the members the last run of schedule placed on one
		// of several nodes tied at the top total score.
		tied := 0
		schedule := func(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
			// The algorithm again, on the snapshot as the plugin left it,
			// recorded nowhere.
			scratch := make([]*recorder, len(g.Members))
			for i, m := range g.Members {
				scratch[i] = &recorder{a: s.newAttempt(m.Pod, 0), index: map[string]uint16{}}
			}
			r := s.runPodGroupAlgorithm(ctx, fwk, framework.NewCycleState(), g, scratch, nil)
			out := &framework.PodGroupAssignments{}
			tied = 0
			for _, m := range r.members {
				if m.st.IsSuccess() && m.host != "" {
					out.ProposedAssignments = append(out.ProposedAssignments, framework.ProposedAssignment{PodInfo: m.pi.PodInfo, NodeName: m.host, State: m.state})
					if len(m.rec.a.Top()) > 1 {
						tied++
					}
				}
			}
			return out, r.status
		}
		pfr, st := fwk.RunPodGroupPostFilterPlugins(ctx, state, g.PodGroupInfo, schedule)
		s.storeClaimWrites(fwk, state)
		s.recordGroupPreemption(c, g, state, st)
		if p := c.Group.Preemption; p != nil {
			p.TiedPlacements = tied
		}
		result.applyPostFilter(pfr, st)
	}
	s.submitPodGroupResult(ctx, fwk, c, g, result)
	c.Status = rootStatus
}

// runPodGroupAlgorithm is runRootSchedulingAlgorithm for a leaf group: the
// default algorithm, everything it assumed reverted, Unschedulable when it
// placed nobody.
//
// With TopologyAwareWorkloadScheduling the placement algorithm runs
// instead; tried, when set, receives the placements it tried.
func (s *Scheduler) runPodGroupAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, g *framework.QueuedPodGroupInfo, recs []*recorder, tried *[]record.PlacementTried) *groupResult {
	var reverts []func()
	var result *groupResult
	if s.gates.EnableTopologyAwareWorkloadScheduling {
		result = s.podGroupPlacementAlgorithm(ctx, fwk, root, g, recs, tried)
	} else {
		result = s.podGroupDefaultAlgorithm(ctx, fwk, root, g, recs, &reverts)
	}
	for i := len(reverts) - 1; i >= 0; i-- {
		reverts[i]()
	}
	if result.status.IsSuccess() && !result.anyScheduled {
		// The framework requires at least one pod scheduled for success.
		result.status = framework.NewStatus(framework.Unschedulable).WithError(errPodGroupUnschedulable)
	}
	return result
}

// podGroupDefaultAlgorithm is podGroupSchedulingDefaultAlgorithm: each
// member in order through the scheduling algorithm, a placed member
// assumed and reserved (reverts collects the undo); PlacementFeasible
// before the first and after each member; on failure everything is
// reverted at once.
func (s *Scheduler) podGroupDefaultAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, g *framework.QueuedPodGroupInfo, recs []*recorder, reverts *[]func()) (result *groupResult) {
	result = &groupResult{status: framework.NewStatus(framework.Unschedulable).WithError(errPodGroupUnschedulable)}
	defer func() {
		if !result.status.IsSuccess() {
			for i := len(*reverts) - 1; i >= 0; i-- {
				(*reverts)[i]()
			}
			*reverts = nil
			result.anyScheduled = false
		}
	}()
	state := framework.NewCycleState()
	progress := framework.PlacementProgress{
		Remaining: len(g.Members),
		Scheduled: s.PodGroupState(g.Namespace, g.Name).ScheduledPodsCount(),
	}
	feasible := fwk.RunPlacementFeasiblePlugins(ctx, state, g.PodGroupInfo, progress)
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
	for i, m := range g.Members {
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
		feasible := fwk.RunPlacementFeasiblePlugins(ctx, state, g.PodGroupInfo, progress)
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
	return mr, func() {
		s.unreserveAndForget(ctx, fwk, mr.state, assumed, host)
		if nnn := pod.Status.NominatedNodeName; nnn != "" {
			// assume dropped the nomination; the revert restores it.
			s.nominator.Add(framework.NewPodInfo(pod), nnn)
		}
	}
}

// complete is completePodGroupAlgorithmResult: a member the algorithm
// never reached gets the group's status.
func (r *groupResult) complete(g *framework.QueuedPodGroupInfo, recs []*recorder) {
	for i := len(r.members); i < len(g.Members); i++ {
		m := g.Members[i]
		r.members = append(r.members, &memberResult{pi: m, pod: m.Pod, state: framework.NewCycleState(), rec: recs[i], st: r.status.Clone()})
	}
}

// applyPostFilter is applyPodGroupPostFilterResult: on success every member
// waits on preemption, nominated where the plugin says; an error replaces
// the group's status; otherwise the plugin's message joins it.
func (r *groupResult) applyPostFilter(pfr *framework.PodGroupPostFilterResult, st *framework.Status) {
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
		return
	}
	r.status.AppendReason(st.String())
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

// submitPodGroupResult is submitPodGroupAlgorithmResult for a leaf group:
// each member's outcome (binding, or the failure handler's part), then
// the PodGroup's condition.
func (s *Scheduler) submitPodGroupResult(ctx context.Context, fwk *runtime.Framework, c *PodGroupCycle, g *framework.QueuedPodGroupInfo, r *groupResult) {
	first := len(c.Attempts) - len(g.Members)
	type permitted struct {
		mr      *memberResult
		a       *record.Attempt
		assumed *v1.Pod
		// waits are the Permit plugins it waits on, nil when allowed.
		waits map[string]time.Duration
		wait  *framework.Status
	}
	var toBind []permitted
	for i, mr := range r.members {
		a := c.Attempts[first+i]
		line := &c.Group.Members[first+i]
		line.Evaluated = mr.evaluated
		if mr.st.IsSuccess() {
			line.Node = mr.host
		}
		line.Unschedulable = mr.evaluated && !mr.st.IsSuccess()
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
	// Upstream's binding cycles wait on Permit until GangScheduling's
	// quorum: the member whose Permit finds it allows every waiting member
	// of the gang, this cycle's and those an earlier cycle left waiting
	// (allowPermitWaits). A member nobody allows stays assumed, its
	// binding cycle parked at Permit until the wait times out
	// (binding_wait.go).
	quorum := false
	for _, p := range toBind {
		quorum = quorum || p.waits == nil
	}
	if quorum {
		key := framework.PodGroupKey(g.Namespace, g.Name)
		s.allowPermitWaits(func(pod *v1.Pod) bool { return framework.PodGroupKeyOf(pod) == key })
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
	for i := range r.members {
		c.Group.Members[first+i].Nominated = c.Attempts[first+i].Nominated
	}

	var status metav1.ConditionStatus
	var reason, msg string
	switch {
	case r.status.IsSuccess():
		c.Group.Result = record.GroupScheduled
		status, reason, msg = metav1.ConditionTrue, PodGroupReasonScheduled, r.status.Message()
	case r.status.IsRejected():
		c.Group.Result = record.GroupUnschedulable
		if r.waitingOnPreemption {
			c.Group.Result = record.GroupWaitingOnPreemption
		}
		status, reason, msg = metav1.ConditionFalse, PodGroupReasonUnschedulable, r.status.Message()
	default:
		c.Group.Result = record.GroupError
		status, reason, msg = metav1.ConditionFalse, PodGroupReasonSchedulerError, r.status.AsError().Error()
	}
	c.Group.Message = msg
	c.PodGroupWrite = s.podGroupCondition(g.PodGroup, status, reason, msg)
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

// podGroupPlacementAlgorithm is podGroupSchedulingPlacementAlgorithm for a
// leaf group: the placements the PlacementGenerate plugin proposes, each
// assumed in the snapshot in turn and tried with the default algorithm
// (everything reverted after each), the best successful one chosen by the
// PlacementScore plugins; when none succeeds, the first one's result.
// The members' records are those of the placement whose result is
// returned.
func (s *Scheduler) podGroupPlacementAlgorithm(ctx context.Context, fwk *runtime.Framework, root *framework.CycleState, g *framework.QueuedPodGroupInfo, recs []*recorder, tried *[]record.PlacementTried) *groupResult {
	state := root
	placements, st := fwk.RunPlacementGeneratePlugins(ctx, state, g.PodGroupInfo, s.snapshot.ListNodesInPlacement())
	if !st.IsSuccess() {
		return &groupResult{status: st}
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
			return &groupResult{status: framework.AsStatus(fmt.Errorf("failed to assume pod group placement: %w", err))}
		}
		prs := make([]*recorder, len(recs))
		for i, r := range recs {
			a := *r.a
			prs[i] = &recorder{a: &a, index: map[string]uint16{}}
		}
		var reverts []func()
		result := s.podGroupDefaultAlgorithm(ctx, fwk, root, g, prs, &reverts)
		for i := len(reverts) - 1; i >= 0; i-- {
			reverts[i]()
		}
		if tried != nil {
			line := record.PlacementTried{Name: p.Name, Nodes: len(p.Nodes), Feasible: result.status.IsSuccess(), Message: result.status.Message()}
			for _, m := range result.members {
				if m.st.IsSuccess() {
					line.Placed++
				}
			}
			*tried = append(*tried, line)
		}
		if result.status.IsError() {
			return result
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
		for i, pr := range r.recs {
			*recs[i].a = *pr.a
			pr.a = recs[i].a
		}
		return r.result
	}
	if len(successful) == 0 {
		result := adopt(first)
		result.status = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("0/%d placements are available, first placement status: %v", len(placements), result.status.AsError())).WithError(errPodGroupUnschedulable)
		return result
	}
	best := successful[0]
	if len(successful) > 1 {
		assignments := make([]*framework.PodGroupAssignments, len(successful))
		for i, r := range successful {
			a := &framework.PodGroupAssignments{Placement: r.placement}
			for _, m := range r.result.members {
				if m.st.IsSuccess() && m.host != "" {
					a.ProposedAssignments = append(a.ProposedAssignments, framework.ProposedAssignment{PodInfo: m.pi.PodInfo, NodeName: m.host, State: m.state})
				}
			}
			assignments[i] = a
		}
		scores, st := fwk.RunPlacementScorePlugins(ctx, state, g.PodGroupInfo, assignments)
		if !st.IsSuccess() {
			return &groupResult{status: st}
		}
		// Upstream breaks equal totals at random; schedtui keeps the
		// first, in the generator's order.
		bestIdx := 0
		for i, sc := range scores {
			if sc > scores[bestIdx] {
				bestIdx = i
			}
			if tried != nil {
				for k := range *tried {
					if (*tried)[k].Name == successful[i].placement.Name {
						(*tried)[k].Score = sc
					}
				}
			}
		}
		best = successful[bestIdx]
	}
	if tried != nil {
		for k := range *tried {
			(*tried)[k].Chosen = (*tried)[k].Name == best.placement.Name
		}
	}
	return adopt(best)
}
