package defaultpreemption

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// findCandidates dry-runs preemption on the nodes whose Filter status was
// plain Unschedulable, starting at a random offset, and stops once it has
// enough candidates (at least one of them without PDB violations).
func (pl *DefaultPreemption) findCandidates(ctx context.Context, state *framework.CycleState, allNodes []*framework.NodeInfo, pod *v1.Pod, m *framework.NodeToStatus) ([]*candidate, *framework.NodeToStatus, error) {
	if len(allNodes) == 0 {
		return nil, nil, errors.New("no nodes available")
	}
	potential := m.NodesForStatusCode(allNodes, framework.Unschedulable)
	if len(potential) == 0 {
		return nil, framework.NewDefaultNodeToStatus(), nil
	}
	pdbs := pl.h.Objects().PodDisruptionBudgets()
	n := int32(len(potential))
	offset := pl.h.Rand().Int32N(n)
	numCandidates := pl.numCandidates(n)

	statuses := framework.NewDefaultNodeToStatus()
	var nonViolating, violating []*candidate
	var errs []error
	// Upstream checks nodes in parallel and cancels once it has enough;
	// schedtui checks them in order, as upstream with parallelism 1.
	for i := 0; i < len(potential); i++ {
		ni := potential[(int(offset)+i)%len(potential)]
		victims, numViolations, status := pl.selectVictimsOnNode(ctx, state.Clone(), pod, ni.Clone(), pdbs)
		if status.IsSuccess() && len(victims) != 0 {
			c := &candidate{node: ni.Name(), victims: victims, pdbViolations: numViolations}
			if numViolations == 0 {
				nonViolating = appendCapped(nonViolating, c, numCandidates)
			} else {
				violating = appendCapped(violating, c, numCandidates)
			}
			if len(nonViolating) > 0 && int32(len(nonViolating)+len(violating)) >= numCandidates {
				break
			}
			continue
		}
		if status.IsSuccess() && len(victims) == 0 {
			status = framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", ni.Name()))
		}
		if status.Code() == framework.Error {
			errs = append(errs, status.AsError())
		}
		statuses.Set(ni.Name(), status)
	}
	return append(nonViolating, violating...), statuses, utilerrors.NewAggregate(errs)
}

// appendCapped keeps at most limit candidates per list, as upstream's
// fixed-capacity candidate lists do.
func appendCapped(list []*candidate, c *candidate, limit int32) []*candidate {
	if int32(len(list)) < limit {
		return append(list, c)
	}
	return list
}

// numCandidates is max(n × percentage / 100, absolute), at most n.
func (pl *DefaultPreemption) numCandidates(n int32) int32 {
	c := n * *pl.args.MinCandidateNodesPercentage / 100
	if c < *pl.args.MinCandidateNodesAbsolute {
		c = *pl.args.MinCandidateNodesAbsolute
	}
	if c > n {
		c = n
	}
	return c
}

// selectVictimsOnNode removes every lower-priority pod, checks the pod
// then fits, and reprieves victims (PDB-violating ones first, each group
// most important first) as long as the pod still fits.
func (pl *DefaultPreemption) selectVictimsOnNode(ctx context.Context, state *framework.CycleState, preemptor *v1.Pod, ni *framework.NodeInfo, pdbs []*policyv1.PodDisruptionBudget) ([]*v1.Pod, int, *framework.Status) {
	prio := corev1helpers.PodPriority(preemptor)
	var potential []*framework.PodInfo
	for _, pi := range ni.Pods {
		if corev1helpers.PodPriority(pi.Pod) < prio {
			potential = append(potential, pi)
		}
	}
	if len(potential) == 0 {
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, "No preemption victims found for incoming pod")
	}
	remove := func(pi *framework.PodInfo) error {
		if err := ni.RemovePod(pi.Pod); err != nil {
			return err
		}
		return pl.h.RunPreFilterExtensionRemovePod(ctx, state, preemptor, pi, ni).AsError()
	}
	add := func(pi *framework.PodInfo) error {
		ni.AddPodInfo(pi)
		return pl.h.RunPreFilterExtensionAddPod(ctx, state, preemptor, pi, ni).AsError()
	}
	for _, pi := range potential {
		if err := remove(pi); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	if st := pl.h.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, ni); !st.IsSuccess() {
		return nil, 0, st
	}
	now := pl.h.Now()
	// sort.Slice, like upstream: equal victims keep the order the same
	// (deterministic) algorithm leaves them in.
	sort.Slice(potential, func(i, j int) bool { return moreImportant(potential[i].Pod, potential[j].Pod, now) })
	violatingPods, nonViolatingPods := splitByPDBInfos(potential, pdbs)

	var victims []*framework.PodInfo
	reprieve := func(pi *framework.PodInfo) (bool, error) {
		if err := add(pi); err != nil {
			return false, err
		}
		fits := pl.h.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, ni).IsSuccess()
		if !fits {
			if err := remove(pi); err != nil {
				return false, err
			}
			victims = append(victims, pi)
		}
		return fits, nil
	}
	numViolations := 0
	for _, v := range violatingPods {
		fits, err := reprieve(v)
		if err != nil {
			return nil, 0, framework.AsStatus(err)
		}
		if !fits {
			numViolations++
		}
	}
	for _, v := range nonViolatingPods {
		if _, err := reprieve(v); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	if len(violatingPods) != 0 && len(nonViolatingPods) != 0 {
		sort.Slice(victims, func(i, j int) bool { return moreImportant(victims[i].Pod, victims[j].Pod, now) })
	}
	out := make([]*v1.Pod, len(victims))
	for i, v := range victims {
		out[i] = v.Pod
	}
	return out, numViolations, nil
}

// moreImportant orders victims: higher priority first, then earlier
// start (pods not started yet count as starting now).
func moreImportant(a, b *v1.Pod, now time.Time) bool {
	pa, pb := corev1helpers.PodPriority(a), corev1helpers.PodPriority(b)
	if pa != pb {
		return pa > pb
	}
	return startTime(a, now).Before(startTime(b, now))
}

// violatingPod is a victim whose eviction would break PDBs (namespace/name).
type violatingPod struct {
	pod  *v1.Pod
	pdbs []string
}

// splitByPDBInfos splits victims, in order, into those whose eviction
// would take a matching PDB below zero allowed disruptions and the rest.
// PDBs with an empty selector match nothing (1.37); pods listed in a PDB's
// status.disruptedPods are not counted again.
func splitByPDBInfos(victims []*framework.PodInfo, pdbs []*policyv1.PodDisruptionBudget) (violating, nonViolating []*framework.PodInfo) {
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	for _, pi := range victims {
		if len(violatedPDBs(pi.Pod, pdbs, allowed)) > 0 {
			violating = append(violating, pi)
		} else {
			nonViolating = append(nonViolating, pi)
		}
	}
	return violating, nonViolating
}

// splitByPDB is splitByPDBInfos over plain pods, for the record: each
// violating pod comes with the PDBs it breaks.
func splitByPDB(victims []*v1.Pod, pdbs []*policyv1.PodDisruptionBudget) (nonViolating []*v1.Pod, violating []violatingPod) {
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	for _, p := range victims {
		if names := violatedPDBs(p, pdbs, allowed); len(names) > 0 {
			violating = append(violating, violatingPod{pod: p, pdbs: names})
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	return nonViolating, violating
}

// violatedPDBs spends one of pod's disruptions on each PDB matching it, in
// the lister's order, until one is left below zero, and returns that one
// (namespace/name), or nil. As upstream's FilterVictimsWithPDBViolation, a
// victim violates at most one budget and spends nothing of the budgets
// after it: a pod under two budgets whose first is spent leaves the second
// untouched.
func violatedPDBs(pod *v1.Pod, pdbs []*policyv1.PodDisruptionBudget, allowed []int32) []string {
	if len(pod.Labels) == 0 {
		return nil
	}
	for i, pdb := range pdbs {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || selector.Empty() || !selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, disrupted := pdb.Status.DisruptedPods[pod.Name]; disrupted {
			continue
		}
		allowed[i]--
		if allowed[i] < 0 {
			return []string{pdb.Namespace + "/" + pdb.Name}
		}
	}
	return nil
}
