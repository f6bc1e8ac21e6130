package defaultpreemption

import (
	"context"
	"errors"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

var _ framework.PodGroupPostFilterPlugin = &DefaultPreemption{}

// ClusterCandidate is the name of a pod group preemption's one candidate:
// upstream's domain for workload-aware preemption is the whole cluster.
const ClusterCandidate = "cluster"

// PodGroupPostFilter is workload-aware preemption (GenericWorkload), run
// when a pod group's cycle found no placement: upstream's
// PodGroupPostFilter with its 1.37 algorithm. Every lower-priority victim
// in the cluster is taken off the snapshot at once, the group's algorithm
// runs once on what is left (schedule), then victims are given back, most
// important first, as long as every placed member still passes Filter
// where the algorithm put it. The snapshot is restored afterwards.
//
// Success means the group fits once the victims are gone (the result
// nominates each placed member) or that an earlier preemption for it is
// still under way; the message is prefixed "pod group preemption: ".
// What it decided is left in state under record.PreemptionStateKey (one
// candidate, "cluster"), for the cycle to actuate and record.
func (pl *DefaultPreemption) PodGroupPostFilter(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, schedule framework.PodGroupSchedulingFunc) (result *framework.PodGroupPostFilterResult, status *framework.Status) {
	rec := &record.Preemption{Chosen: -1}
	state.Write(record.PreemptionStateKey, &record.PreemptionState{Preemption: rec})
	snap := pl.h.Snapshot()
	if err := snap.StartMutations(); err != nil {
		return nil, framework.AsStatus(fmt.Errorf("pod group preemption: failed to start mutations: %w", err))
	}
	defer func() {
		if err := snap.EndMutations(); err != nil {
			status = framework.AsStatus(fmt.Errorf("pod group preemption: failed to end mutations: %w", err))
		}
	}()
	result, status = pl.preemptForGroup(ctx, group, schedule, rec)
	if msg := status.Message(); len(msg) > 0 {
		return result, framework.NewStatus(status.Code(), "pod group preemption: "+msg)
	}
	return result, status
}

// groupPreemptor is upstream's podGroupPreemptor.
type groupPreemptor struct {
	members  []*v1.Pod
	priority int32
	policy   schedulingv1beta1.PreemptionPolicy
}

func (pl *DefaultPreemption) newGroupPreemptor(group *framework.PodGroupInfo) *groupPreemptor {
	p := &groupPreemptor{members: group.AllUnscheduledPods(), priority: group.Priority()}
	var own *schedulingv1beta1.PreemptionPolicy
	if group.PodGroup != nil {
		own = group.PodGroup.Spec.PreemptionPolicy
	} else if cpg := group.CompositePodGroup; cpg != nil && cpg.Spec.PreemptionPolicy != nil {
		policy := schedulingv1beta1.PreemptionPolicy(*cpg.Spec.PreemptionPolicy)
		own = &policy
	}
	p.policy = pl.groupPreemptionPolicy(own, p.members)
	return p
}

// groupPreemptionPolicy is upstream's resolvePreemptionPolicy: with
// PodGroupPreemptionPolicy the group's own field (unset: PreemptLowerPriority);
// without, Never when any member says Never.
func (pl *DefaultPreemption) groupPreemptionPolicy(own *schedulingv1beta1.PreemptionPolicy, members []*v1.Pod) schedulingv1beta1.PreemptionPolicy {
	if pl.groupPolicy {
		if own != nil {
			return *own
		}
		return schedulingv1beta1.PreemptLowerPriority
	}
	for _, p := range members {
		if p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == v1.PreemptNever {
			return schedulingv1beta1.PreemptNever
		}
	}
	return schedulingv1beta1.PreemptLowerPriority
}

// preemptForGroup is upstream's PodGroupEvaluator.Preempt, the actuation
// left to the caller (the record's chosen candidate).
func (pl *DefaultPreemption) preemptForGroup(ctx context.Context, group *framework.PodGroupInfo, schedule framework.PodGroupSchedulingFunc, rec *record.Preemption) (*framework.PodGroupPostFilterResult, *framework.Status) {
	g := pl.groups()
	// The domain is the whole cluster, its victims found before anything
	// is taken off.
	nodes := pl.h.Snapshot().List()
	victims, err := g.victimsOn(nodes)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("failed to create domain: %w", err))
	}
	preemptor := pl.newGroupPreemptor(group)
	if preemptor.policy == schedulingv1beta1.PreemptNever {
		rec.Reason = "not eligible due to preemptionPolicy=Never."
		return nil, framework.NewStatus(framework.Unschedulable, rec.Reason)
	}
	if pl.ongoingGroupPreemption(g, preemptor) {
		rec.Reason = "ongoing preemption on nominated nodes"
		return &framework.PodGroupPostFilterResult{NominatingInfos: currentNominations(preemptor.members)},
			framework.NewStatus(framework.Success, rec.Reason)
	}
	rec.Eligible = true
	chosen, pdbViolations, nominations, status := pl.selectVictimsInCluster(ctx, victims, preemptor, schedule)
	if !status.IsSuccess() {
		return nil, status
	}
	c := newCandidate(ClusterCandidate, chosen, pdbViolations)
	rec.Candidates = []record.Candidate{pl.recordCandidate(c)}
	rec.Chosen = 0
	rec.DecidedBy = "single candidate"
	return &framework.PodGroupPostFilterResult{NominatingInfos: nominations},
		framework.NewStatus(framework.Success, fmt.Sprintf("found a placement for podgroup, preempting %d victims", len(c.victims)))
}

// ongoingGroupPreemption is upstream's isOngoingPreemption: a node a
// member is nominated to holds a lower-priority pod (at its group's
// priority) the scheduler is already deleting.
func (pl *DefaultPreemption) ongoingGroupPreemption(g *groups, p *groupPreemptor) bool {
	seen := map[string]bool{}
	for _, m := range p.members {
		nnn := m.Status.NominatedNodeName
		if nnn == "" || seen[nnn] {
			continue
		}
		seen[nnn] = true
		ni, err := pl.h.Snapshot().Get(nnn)
		if err != nil {
			continue
		}
		for _, pi := range ni.Pods {
			if g.priority(pi.Pod) < p.priority && TerminatingByPreemption(pi.Pod) {
				return true
			}
		}
	}
	return false
}

// currentNominations keeps every member's nomination as it is (an empty
// one too), upstream's buildCurrentNominatingInfos.
func currentNominations(members []*v1.Pod) map[types.NamespacedName]*framework.NominatingInfo {
	out := make(map[types.NamespacedName]*framework.NominatingInfo, len(members))
	for _, m := range members {
		out[types.NamespacedName{Namespace: m.Namespace, Name: m.Name}] = &framework.NominatingInfo{
			NominatingMode: framework.ModeOverride, NominatedNodeName: m.Status.NominatedNodeName}
	}
	return out
}

// selectVictimsInCluster is upstream's selectVictimsOnDomain over the
// cluster: the victims to evict, most important first, how many of their
// pods break PDBs, and the placed members' nominations.
func (pl *DefaultPreemption) selectVictimsInCluster(ctx context.Context, victims []*victim, preemptor *groupPreemptor, schedule framework.PodGroupSchedulingFunc) ([]*victim, int, map[types.NamespacedName]*framework.NominatingInfo, *framework.Status) {
	snap := pl.h.Snapshot()
	var potential []*victim
	for _, v := range victims {
		if v.priority < preemptor.priority {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		return nil, 0, nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "No preemption victims found for incoming preemptor")
	}
	// Taken off before the algorithm runs: it builds fresh cycle states,
	// whose PreFilter sees the cluster without them.
	for _, v := range potential {
		for _, pi := range v.pods {
			if err := snap.RemovePod(pi.Pod); err != nil {
				return nil, 0, nil, framework.AsStatus(err)
			}
		}
	}
	assignments, status := schedule(ctx)
	if !status.IsSuccess() {
		return nil, 0, nil, status
	}
	sort.Slice(potential, func(i, j int) bool { return moreImportantVictim(potential[i], potential[j]) })
	violating, nonViolating := splitVictimsByPDB(potential, pl.h.Objects().PodDisruptionBudgets())
	var placed []framework.ProposedAssignment
	if assignments != nil {
		for _, a := range assignments.ProposedAssignments {
			if a.NodeName != "" {
				placed = append(placed, a)
			}
		}
	}

	var chosen []*victim
	numViolations := 0
	for _, v := range violating {
		fits, err := pl.reprieveForGroup(ctx, v.victim, placed)
		if err != nil {
			return nil, 0, nil, framework.AsStatus(err)
		}
		if !fits {
			chosen = append(chosen, v.victim)
			numViolations += v.pods
		}
	}
	for _, v := range nonViolating {
		fits, err := pl.reprieveForGroup(ctx, v, placed)
		if err != nil {
			return nil, 0, nil, framework.AsStatus(err)
		}
		if !fits {
			chosen = append(chosen, v)
		}
	}
	sort.Slice(chosen, func(i, j int) bool { return moreImportantVictim(chosen[i], chosen[j]) })
	nominations := make(map[types.NamespacedName]*framework.NominatingInfo, len(placed))
	for _, a := range placed {
		p := a.PodInfo.Pod
		nominations[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = &framework.NominatingInfo{
			NominatingMode: framework.ModeOverride, NominatedNodeName: a.NodeName}
	}
	return chosen, numViolations, nominations, nil
}

// reprieveForGroup gives victim back (to the snapshot and to every placed
// member's PreFilter state) and checks that each placed member, in the
// algorithm's order, still passes Filter on its node with the members
// before it assumed and reserved there; those are taken off again before
// it returns. A victim that does not fit is taken off again (it will be
// evicted). Each member's state is the one the algorithm built, which
// already knew the members before it as placed.
func (pl *DefaultPreemption) reprieveForGroup(ctx context.Context, v *victim, placed []framework.ProposedAssignment) (fits bool, err error) {
	snap := pl.h.Snapshot()
	if err := pl.moveGroupVictim(ctx, v, placed, true); err != nil {
		return false, err
	}
	var undo []func() error
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				err = errors.Join(err, uerr)
			}
		}
	}()
	for _, a := range placed {
		ni, err := snap.Get(a.NodeName)
		if err != nil {
			return false, err
		}
		if !pl.h.RunFilterPluginsWithNominatedPods(ctx, a.State, a.PodInfo.Pod, ni).IsSuccess() {
			return false, pl.moveGroupVictim(ctx, v, placed, false)
		}
		// The member as assumed there, for the members after it.
		assumed := a.PodInfo.Pod.DeepCopy()
		assumed.Spec.NodeName = a.NodeName
		if err := snap.AddPod(assumed); err != nil {
			return false, err
		}
		pl.h.RunReservePluginsReserve(ctx, a.State, a.PodInfo.Pod, a.NodeName)
		undo = append(undo, func() error {
			pl.h.RunReservePluginsUnreserve(ctx, a.State, a.PodInfo.Pod, a.NodeName)
			return snap.RemovePod(assumed)
		})
	}
	return true, nil
}

// moveGroupVictim puts the victim's pods back on their nodes (back) or
// takes them off, telling every placed member's PreFilter extensions.
func (pl *DefaultPreemption) moveGroupVictim(ctx context.Context, v *victim, placed []framework.ProposedAssignment, back bool) error {
	snap := pl.h.Snapshot()
	for _, pi := range v.pods {
		var err error
		if back {
			err = snap.AddPod(pi.Pod)
		} else {
			err = snap.RemovePod(pi.Pod)
		}
		if err != nil {
			return err
		}
		ni, err := snap.Get(pi.Pod.Spec.NodeName)
		if err != nil {
			return err
		}
		for _, a := range placed {
			var st *framework.Status
			if back {
				st = pl.h.RunPreFilterExtensionAddPod(ctx, a.State, a.PodInfo.Pod, pi, ni)
			} else {
				st = pl.h.RunPreFilterExtensionRemovePod(ctx, a.State, a.PodInfo.Pod, pi, ni)
			}
			if !st.IsSuccess() {
				return st.AsError()
			}
		}
	}
	return nil
}
