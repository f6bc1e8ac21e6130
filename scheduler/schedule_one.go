package scheduler

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Constants of upstream's schedule_one.go.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// clearNominatedNode is the nomination change of failures that are not
// FitErrors with a PostFilter result: the pod loses its nomination.
var clearNominatedNode = &framework.NominatingInfo{NominatingMode: framework.ModeOverride}

// scheduleResult is what the scheduling algorithm decided.
type scheduleResult struct {
	host           string
	nominatingInfo *framework.NominatingInfo
}

// ScheduleOne makes one scheduling attempt for pod and applies its effects
// to the in-memory cluster, as upstream's ScheduleOne: the scheduling
// cycle (schedulingCycle), then, when it found a node, the binding cycle
// (bindingCycle). A scheduled pod is bound to its node; a pod that failed
// gets the nomination PostFilter decided (handleSchedulingFailure); a pod
// whose PreBind waits (a device's binding conditions) is Waiting, assumed
// on its node, until PollBinding ends its binding cycle (binding_wait.go).
//
// Upstream's failure handler also requeues the pod. Here that is the
// engine's part: Engine.failed in scheduler/engine/engine.go puts a failed
// pod back into the scheduling queue (AddUnschedulablePodIfNotPresent) and
// sends the PodScheduled condition; without an engine (a ScheduleOne loop)
// nothing is requeued.
func (s *Scheduler) ScheduleOne(pod *v1.Pod) *record.Attempt {
	a := s.scheduleOne(pod)
	s.takeExtenderCalls(a)
	return a
}

func (s *Scheduler) scheduleOne(pod *v1.Pod) *record.Attempt {
	ctx := s.ctx()
	// The queue holds the latest version of a pending pod (informer
	// updates replace it); an earlier attempt may have changed its status,
	// e.g. a preemption that cleared its nomination.
	if cur, err := s.objects.Pod(pod.Namespace, pod.Name); err == nil && cur.UID == pod.UID {
		pod = cur
	}
	s.seq++
	a := s.newAttempt(pod, s.seq)
	fwk := s.profiles[pod.Spec.SchedulerName]
	switch {
	case fwk == nil:
		a.Outcome = record.Skipped
		a.Message = profileNotFound(pod)
		return a
	case pod.DeletionTimestamp != nil:
		a.Outcome = record.Skipped
		a.Message = fmt.Sprintf("skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)
		return a
	}
	rec := &recorder{a: a, index: map[string]uint16{}, linesOnly: s.linesOnly}
	if s.linesOnly {
		defer a.Summarize()
	}
	state := framework.NewCycleState()

	result, assumed, status := s.schedulingCycle(ctx, fwk, state, pod, rec)
	if !status.IsSuccess() {
		s.handleSchedulingFailure(pod, status, result.nominatingInfo, a)
		return a
	}
	// Upstream runs the binding cycle in a goroutine; schedtui runs it at
	// once, so the next attempt sees the pod bound, unless PreBind waits:
	// then the cycle is parked (binding_wait.go) and a poll ends it.
	status, skip := s.bindingCycle(ctx, fwk, state, assumed, result.host, rec)
	if status.IsWait() {
		s.park(&waitingBinding{fwk: fwk, state: state, pod: pod, assumed: assumed, host: result.host, rec: rec,
			plugin: status.Plugin(), skip: skip})
		a.Outcome = record.Waiting
		a.Message = status.Message()
		a.Node = result.host
		a.Chosen = s.nodeList.Index(result.host)
		return a
	}
	s.endBindingCycle(pod, result.host, status, a)
	return a
}

// endBindingCycle records the end of a binding cycle on host: bound, or
// the failure handled.
func (s *Scheduler) endBindingCycle(pod *v1.Pod, host string, status *framework.Status, a *record.Attempt) {
	if !status.IsSuccess() {
		a.Node, a.Chosen = "", -1
		s.handleSchedulingFailure(pod, status, clearNominatedNode, a)
		return
	}
	a.Outcome = record.Scheduled
	a.Message = ""
	a.Node = host
	a.Chosen = s.nodeList.Index(host)
}

// newAttempt starts the record of an attempt for pod: popped, every
// other phase not run yet, no node chosen.
func (s *Scheduler) newAttempt(pod *v1.Pod, seq int) *record.Attempt {
	a := &record.Attempt{
		Seq: seq, Time: s.clock(), Pod: pod.Namespace + "/" + pod.Name, PodUID: string(pod.UID),
		Priority: corev1helpers.PodPriority(pod), Profile: pod.Spec.SchedulerName,
		Nodes: s.nodeList, Chosen: -1, AbsentStatus: -1,
	}
	for i := range a.Phases {
		a.Phases[i].Code = record.CodeNotRun
	}
	a.Phases[record.PhasePop].Code = record.CodeSuccess
	return a
}

// handleSchedulingFailure is the scheduler's part of upstream's failure
// handler: it records the outcome and applies the nomination (ModeOverride
// replaces the pod's status nomination, ModeNoop keeps it). The requeue is
// the engine's part (Engine.failed).
func (s *Scheduler) handleSchedulingFailure(pod *v1.Pod, status *framework.Status, ni *framework.NominatingInfo, a *record.Attempt) {
	a.Outcome = record.Error
	if status.IsRejected() {
		a.Outcome = record.Unschedulable
	}
	a.Message = status.Message()
	nominated := pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		nominated = ni.NominatedNodeName
	}
	a.Nominated = nominated
	if nominated != pod.Status.NominatedNodeName {
		updated := pod.DeepCopy()
		updated.Status.NominatedNodeName = nominated
		s.objects.Add(updated)
		pod = updated
	}
	s.nominator.Add(framework.NewPodInfo(pod), nominated)
}

// schedulingCycle is upstream's schedulingCycle: the scheduling algorithm
// (schedulePod, and PostFilter when it ends in a FitError), then assume,
// Reserve and Permit on the chosen host. On success it returns the assumed
// pod, placed on host in the snapshot; on failure nothing stays assumed.
func (s *Scheduler) schedulingCycle(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, rec *recorder) (scheduleResult, *v1.Pod, *framework.Status) {
	host, err := s.schedulePod(ctx, fwk, state, pod, rec)
	if err != nil {
		result, st := s.handleSchedulePodError(ctx, fwk, state, pod, err, rec)
		return result, nil, st
	}

	assumed, st := s.assumeAndReserve(ctx, fwk, state, pod, host, rec)
	if !st.IsSuccess() {
		return scheduleResult{nominatingInfo: clearNominatedNode}, nil, st
	}
	// Permit: a Wait would park the pod until another plugin allows it;
	// outside a pod-group cycle (GangScheduling waits for its gang there)
	// no default plugin waits, so schedtui treats Wait as allowed.
	if _, st := s.permit(ctx, fwk, state, pod, assumed, host, rec); !st.IsSuccess() && !st.IsWait() {
		return scheduleResult{nominatingInfo: clearNominatedNode}, nil, st
	}
	rec.phase(record.PhasePermit, nil)
	return scheduleResult{host: host}, assumed, nil
}

// assumeAndReserve is upstream's assumeAndReserve: the pod assumed on
// host, then Reserve; a failure undoes both and is returned as upstream
// reports it (a rejection as a FitError on host).
func (s *Scheduler) assumeAndReserve(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, host string, rec *recorder) (*v1.Pod, *framework.Status) {
	assumed := pod.DeepCopy()
	if err := s.assume(assumed, host); err != nil {
		return nil, framework.AsStatus(err)
	}
	if st := fwk.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		rec.phase(record.PhaseReserve, st)
		s.unreserveAndForget(ctx, fwk, state, assumed, host)
		return nil, rejectedOnHost(pod, host, st, rec)
	}
	rec.phase(record.PhaseReserve, nil)
	return assumed, nil
}

// permit runs the Permit plugins on the assumed pod; a rejection or an
// error undoes assume and Reserve and is returned as upstream reports it.
// A Wait is returned as it is, recorded, with the plugins that wait and
// their timeouts: the caller decides.
func (s *Scheduler) permit(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod, assumed *v1.Pod, host string, rec *recorder) (map[string]time.Duration, *framework.Status) {
	waits, st := fwk.RunPermitPlugins(ctx, state, assumed, host)
	if st.IsSuccess() {
		return nil, nil
	}
	rec.phase(record.PhasePermit, st)
	if st.IsWait() {
		return waits, st
	}
	s.unreserveAndForget(ctx, fwk, state, assumed, host)
	return nil, rejectedOnHost(pod, host, st, rec)
}

// handleSchedulePodError is the failure branch of upstream's
// schedulingCycle: no nodes at all, an error, or a FitError, which runs the
// PostFilter plugins (preemption) when the profile has any.
func (s *Scheduler) handleSchedulePodError(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, err error, rec *recorder) (scheduleResult, *framework.Status) {
	if errors.Is(err, framework.ErrNoNodesAvailable) {
		return scheduleResult{nominatingInfo: clearNominatedNode}, framework.NewStatus(framework.UnschedulableAndUnresolvable).WithError(err)
	}
	var fitErr *framework.FitError
	if !errors.As(err, &fitErr) {
		return scheduleResult{nominatingInfo: clearNominatedNode}, framework.AsStatus(err)
	}
	if !fwk.HasPostFilterPlugins() {
		return scheduleResult{nominatingInfo: clearNominatedNode}, framework.NewStatus(framework.Unschedulable).WithError(err)
	}
	result, st := fwk.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
	s.storeClaimWrites(fwk, state)
	rec.phase(record.PhasePostFilter, st)
	if p, err := state.Read(record.PreemptionStateKey); err == nil {
		rec.a.Preemption = p.(*record.PreemptionState).Preemption
		rec.a.Victims = rec.a.Preemption.VictimNames()
		if st.IsSuccess() {
			s.actuatePreemption(PodPreemptor(pod), rec.a.Preemption)
		}
	}
	fitErr.Diagnosis.PostFilterMsg = st.Message()
	var ni *framework.NominatingInfo
	if result != nil {
		ni = result.NominatingInfo
	}
	return scheduleResult{nominatingInfo: ni}, framework.NewStatus(framework.Unschedulable).WithError(err)
}

// assume is upstream's assume: the pod, with its node set, goes into the
// snapshot (the cache's AssumePod) so that later cycles see it there, and
// loses its nomination.
func (s *Scheduler) assume(assumed *v1.Pod, host string) error {
	assumed.Spec.NodeName = host
	if err := s.snapshot.AddPod(assumed); err != nil {
		return err
	}
	s.nominator.Delete(assumed.UID)
	s.noteAssumed(assumed)
	return nil
}

// unreserveAndForget undoes assume and Reserve after a later phase
// failed: Unreserve, then the cache's ForgetPod.
func (s *Scheduler) unreserveAndForget(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, assumed *v1.Pod, host string) {
	fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
	s.storeClaimWrites(fwk, state)
	if err := s.snapshot.RemovePod(assumed); err != nil {
		s.cacheFailed("ForgetPod", assumed, err)
	}
	s.forgetAssumed(assumed)
}

// rejectedOnHost turns a Reserve or Permit rejection into the FitError
// upstream reports: one node, the host, with the plugin's status. Other
// failures are returned as they are.
func rejectedOnHost(pod *v1.Pod, host string, st *framework.Status, rec *recorder) *framework.Status {
	if !st.IsRejected() {
		return st
	}
	rec.rejectedAt(st)
	fitErr := &framework.FitError{NumAllNodes: 1, Pod: pod, Diagnosis: framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}}
	fitErr.Diagnosis.NodeToStatus.Set(host, st)
	fitErr.Diagnosis.AddPluginStatus(st)
	return framework.NewStatus(st.Code()).WithError(fitErr)
}

// bindingCycle is upstream's bindingCycle, run in memory, from after
// WaitOnPermit (a pod-group member's wait at Permit is parked before it:
// binding_wait.go; outside a pod-group cycle none waits, see
// schedulingCycle): PreBind, Bind, the writes
// PreBind decided for the pod's volumes, the pod stored as bound, PostBind.
// On failure the assumed pod is unreserved and forgotten, as upstream's
// handleBindingCycleError does.
//
// The PreBind preflights run only with NominatedNodeNameForExpectation,
// as upstream asks them only to decide whether to write the nomination
// before PreBind (a write schedtui's in-memory binding has no use for);
// without the gate every PreBind plugin runs.
//
// A PreBind Wait is returned as it is, with the plugins the preflights
// skipped, the pod still assumed and nothing undone: the caller parks the
// cycle, and finishBinding (after RunPreBindPluginsAfter) goes on with it
// once the wait is over.
func (s *Scheduler) bindingCycle(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, assumed *v1.Pod, host string, rec *recorder) (*framework.Status, sets.Set[string]) {
	var pre *framework.Status
	skip := sets.New[string]()
	if s.gates.EnableNominatedNodeNameForExpectation {
		pre, skip = fwk.RunPreBindPreFlights(ctx, state, assumed, host)
	}
	if pre.IsError() {
		rec.phase(record.PhasePreBind, pre)
		s.unreserveAndForget(ctx, fwk, state, assumed, host)
		return pre, skip
	}
	st := fwk.RunPreBindPlugins(ctx, state, assumed, host, skip)
	s.storeClaimWrites(fwk, state)
	if st.IsWait() {
		rec.phase(record.PhasePreBind, st)
		return st, skip
	}
	return s.finishBinding(ctx, fwk, state, assumed, host, rec, st), skip
}

// finishBinding is the binding cycle from PreBind's outcome st on: the
// failure undone, or Bind and what follows it.
func (s *Scheduler) finishBinding(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, assumed *v1.Pod, host string, rec *recorder, st *framework.Status) *framework.Status {
	if !st.IsSuccess() {
		rec.phase(record.PhasePreBind, st)
		s.unreserveAndForget(ctx, fwk, state, assumed, host)
		return st
	}
	rec.phase(record.PhasePreBind, nil)
	if st := s.bind(ctx, fwk, state, assumed, host); !st.IsSuccess() {
		rec.phase(record.PhaseBind, st)
		s.unreserveAndForget(ctx, fwk, state, assumed, host)
		return st
	}
	rec.phase(record.PhaseBind, nil)
	// The writes PreBind decided for the pod's volumes, with the PV
	// controller's part played too: pre-bound claims and volumes end up
	// Bound, claims to provision carry the selected-node annotation (no
	// provisioner runs in schedtui, so they stay pending until a recording
	// says otherwise).
	for _, obj := range fwk.VolumeWrites(state).Objects() {
		s.objects.Add(obj)
	}
	assumed.Status.NominatedNodeName = ""
	s.objects.Add(assumed)
	s.forgetAssumed(assumed)
	fwk.RunPostBindPlugins(ctx, state, assumed, host)
	s.afterBind(state, assumed, host)
	return nil
}

// bind is upstream's bind: a bind extender first (only with --bind, see
// bindThroughExtenders), else the Bind plugins.
func (s *Scheduler) bind(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, assumed *v1.Pod, host string) *framework.Status {
	if bound, err := s.bindThroughExtenders(ctx, assumed, host); bound {
		return framework.AsStatus(err)
	}
	return fwk.RunBindPlugins(ctx, state, assumed, host)
}

// schedulePod finds the feasible nodes, scores them and picks one.
func (s *Scheduler) schedulePod(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, rec *recorder) (string, error) {
	if s.snapshot.NumNodesInPlacement() == 0 {
		return "", framework.ErrNoNodesAvailable
	}
	// The node-local plugins' verdicts are kept from cycle to cycle
	// (runtime's verdict memo): pods of one shape, most nodes unchanged.
	vc := fwk.VerdictsFor(pod)
	state.SetPodShape(vc.Key())
	feasible, diagnosis, err := s.findNodesThatFitPod(ctx, fwk, state, pod, vc, rec)
	rec.diagnosis(diagnosis)
	if err != nil {
		return "", err
	}
	rec.feasible(feasible)
	if len(feasible) == 0 {
		return "", &framework.FitError{Pod: pod, NumAllNodes: s.snapshot.NumNodesInPlacement(), Diagnosis: diagnosis}
	}
	if len(feasible) == 1 {
		return feasible[0].Name(), nil
	}
	scores, err := s.prioritizeNodes(ctx, fwk, state, pod, feasible, vc, rec)
	if err != nil {
		return "", err
	}
	h := nodeScoreHeap(scores)
	heap.Init(&h)
	return heap.Pop(&h).(framework.NodePluginScores).Name, nil
}

// findNodesThatFitPod runs PreFilter, the nominated-node fast path, and
// Filter over the nodes in play.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, vc *runtime.VerdictCycle, rec *recorder) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	allNodes := s.snapshot.ListNodesInPlacement()
	preRes, st, narrowing := fwk.RunPreFilterPlugins(ctx, state, pod)
	rec.phase(record.PhasePreFilter, st)
	rec.preFilterResultFrom(narrowing)
	diagnosis.UnschedulablePlugins = narrowing
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, diagnosis, st.AsError()
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(st)
		diagnosis.PreFilterMsg = st.Message()
		diagnosis.AddPluginStatus(st)
		return nil, diagnosis, nil
	}

	if nnn := pod.Status.NominatedNodeName; nnn != "" {
		if ni, err := s.snapshot.GetNodeInPlacement(nnn); err == nil {
			rec.a.NominatedFastPath = true
			feasible, _, err := s.findNodesThatPassFilters(ctx, fwk, state, pod, vc, &diagnosis, []*framework.NodeInfo{ni})
			if err == nil {
				// An extender's error here only ends the fast path, as
				// upstream logs it and searches every node.
				feasible, err = s.findNodesThatPassExtenders(pod, feasible, diagnosis.NodeToStatus, rec)
			}
			if err == nil && len(feasible) != 0 {
				rec.phase(record.PhaseFilter, nil)
				return feasible, diagnosis, nil
			}
		}
	}

	nodes := allNodes
	if !preRes.AllNodes() {
		// Upstream visits the result's node set in map order; schedtui
		// keeps node-tree order so that runs are reproducible.
		nodes = make([]*framework.NodeInfo, 0, len(preRes.NodeNames))
		for _, ni := range allNodes {
			if preRes.NodeNames.Has(ni.Name()) {
				nodes = append(nodes, ni)
			}
		}
		rec.narrowed(nodes)
		diagnosis.NodeToStatus.SetAbsentNodesStatus(framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(narrowing))))
	}
	rec.a.StartIndex = int32(s.nextStartNodeIndex)
	feasible, toFind, err := s.findNodesThatPassFilters(ctx, fwk, state, pod, vc, &diagnosis, nodes)
	rec.a.NodesToFind = int32(toFind)
	processed := len(feasible) + diagnosis.NodeToStatus.Len()
	s.nextStartNodeIndex = (s.nextStartNodeIndex + processed) % len(allNodes)
	if err != nil {
		rec.phase(record.PhaseFilter, framework.AsStatus(err))
		return nil, diagnosis, err
	}
	passed, err := s.findNodesThatPassExtenders(pod, feasible, diagnosis.NodeToStatus, rec)
	if err == nil {
		err = s.checkExtenderNodes(passed)
	}
	if err != nil {
		rec.phase(record.PhaseFilter, framework.AsStatus(err))
		return nil, diagnosis, err
	}
	noteExtenderRejections(len(feasible), len(passed), &diagnosis)
	feasible = passed
	if len(feasible) == 0 {
		rec.phase(record.PhaseFilter, framework.NewStatus(framework.Unschedulable, "no feasible nodes"))
	} else {
		rec.phase(record.PhaseFilter, nil)
	}
	return feasible, diagnosis, nil
}

// findNodesThatPassFilters runs Filter (with nominated pods) on nodes from
// the rotating start index. kube-scheduler checks nodes in parallel and
// stops once it has one feasible node more than it needs; schedtui checks
// them in order, which is what kube-scheduler does with parallelism 1.
func (s *Scheduler) findNodesThatPassFilters(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, vc *runtime.VerdictCycle, diagnosis *framework.Diagnosis, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, int, error) {
	numAll := len(nodes)
	toFind := s.numFeasibleNodesToFind(fwk.PercentageOfNodesToScore(), numAll)
	if !s.hasExtenderFilters() && !fwk.HasScorePlugins() && !s.hasExtenderPrioritizers() {
		toFind = 1
	}
	// The feasible nodes live until the cycle has scored them: one
	// buffer serves every cycle (hundreds of nodes, each cycle).
	if cap(s.feasibleBuf) < toFind {
		s.feasibleBuf = make([]*framework.NodeInfo, 0, toFind)
	}
	feasible := s.feasibleBuf[:0]
	if !fwk.HasFilterPlugins() {
		for i := 0; i < toFind; i++ {
			feasible = append(feasible, nodes[(s.nextStartNodeIndex+i)%numAll])
		}
		return feasible, toFind, nil
	}
	for i := 0; i < numAll; i++ {
		ni := nodes[(s.nextStartNodeIndex+i)%numAll]
		st := fwk.FilterNode(ctx, state, pod, ni, vc)
		if st.Code() == framework.Error {
			return feasible, toFind, st.AsError()
		}
		if st.IsSuccess() {
			if len(feasible) == toFind {
				break
			}
			feasible = append(feasible, ni)
			continue
		}
		diagnosis.NodeToStatus.Set(ni.Name(), st)
		diagnosis.AddPluginStatus(st)
	}
	return feasible, toFind, nil
}

// numFeasibleNodesToFind is how many feasible nodes the search looks for
// before it stops: all below 100 nodes; else a percentage (adaptive by
// default: 50% minus 1% per 125 nodes, at least 5%), at least 100.
func (s *Scheduler) numFeasibleNodesToFind(profilePercentage *int32, numAll int) int {
	return NumFeasibleNodesToFind(profilePercentage, s.percentageOfNodesToScore, numAll)
}

// NumFeasibleNodesToFind is numFeasibleNodesToFind with the global
// percentage given.
func NumFeasibleNodesToFind(profilePercentage *int32, global int32, numAll int) int {
	n := int32(numAll)
	if n < minFeasibleNodesToFind {
		return numAll
	}
	percentage := global
	if profilePercentage != nil {
		percentage = *profilePercentage
	}
	if percentage == 0 {
		percentage = 50 - n/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	num := n * percentage / 100
	if num < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return int(num)
}

// prioritizeNodes runs PreScore, Score and the extenders' prioritize;
// without Score plugins and extenders every node scores 1.
func (s *Scheduler) prioritizeNodes(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo, vc *runtime.VerdictCycle, rec *recorder) ([]framework.NodePluginScores, error) {
	if len(s.extenders) == 0 && !fwk.HasScorePlugins() {
		out := make([]framework.NodePluginScores, len(nodes))
		for i, ni := range nodes {
			out[i] = framework.NodePluginScores{Name: ni.Name(), TotalScore: 1}
		}
		return out, nil
	}
	st := fwk.RunPreScorePlugins(ctx, state, pod, nodes)
	rec.phase(record.PhasePreScore, st)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	scores, cols, st := fwk.RunScorePlugins(ctx, state, pod, nodes, vc)
	rec.phase(record.PhaseScore, st)
	rec.phase(record.PhaseNormalizeScore, st)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	rec.scores(len(nodes), cols)
	rec.a.Scores = append(rec.a.Scores, s.addExtenderScores(pod, nodes, scores)...)
	return scores, nil
}

// nodeScoreHeap orders by total score, then Randomizer (0 without
// extenders), as 1.37's sorted scored nodes; the winner is heap.Pop.
type nodeScoreHeap []framework.NodePluginScores

func (h nodeScoreHeap) Len() int { return len(h) }
func (h nodeScoreHeap) Less(i, j int) bool {
	return h[i].TotalScore > h[j].TotalScore || (h[i].TotalScore == h[j].TotalScore && h[i].Randomizer > h[j].Randomizer)
}
func (h nodeScoreHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeScoreHeap) Push(x any)   { *h = append(*h, x.(framework.NodePluginScores)) }
func (h *nodeScoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
