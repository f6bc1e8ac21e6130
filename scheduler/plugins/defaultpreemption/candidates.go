package defaultpreemption

import (
	"context"
	"errors"
	"fmt"
	"sort"

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
	g := pl.groups()
	var nonViolating, violating []*candidate
	var errs []error
	// Upstream checks nodes in parallel and cancels once it has enough;
	// schedtui checks them in order, as upstream with parallelism 1.
	for i := 0; i < len(potential); i++ {
		ni := potential[(int(offset)+i)%len(potential)]
		onNode, err := g.victimsOnNode(ni)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		chosen, numViolations, status := pl.selectVictimsOnNode(ctx, state.Clone(), pod, ni.Clone(), onNode, pdbs)
		if status.IsSuccess() && len(chosen) != 0 {
			c := newCandidate(ni.Name(), chosen, numViolations)
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
		if status.IsSuccess() && len(chosen) == 0 {
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

// selectVictimsOnNode removes every lower-priority victim, checks the pod
// then fits, and reprieves victims (PDB-violating ones first, each group
// most important first) as long as the pod still fits. victims are the
// node's (victimsOn); only ni, the node's copy, is changed: a group
// victim's pods on other nodes are removed for the PreFilter extensions
// only, as upstream's. It returns the victims to evict, in order, and how
// many of their pods break PDBs.
func (pl *DefaultPreemption) selectVictimsOnNode(ctx context.Context, state *framework.CycleState, preemptor *v1.Pod, ni *framework.NodeInfo, victims []*victim, pdbs []*policyv1.PodDisruptionBudget) ([]*victim, int, *framework.Status) {
	main := ni.Name()
	nameToNode := map[string]*framework.NodeInfo{main: ni}
	remove := func(v *victim) error {
		for _, pi := range v.pods {
			if pi.Pod.Spec.NodeName == main {
				if err := ni.RemovePod(pi.Pod); err != nil {
					return err
				}
			}
			if err := pl.h.RunPreFilterExtensionRemovePod(ctx, state, preemptor, pi, nameToNode[pi.Pod.Spec.NodeName]).AsError(); err != nil {
				return err
			}
		}
		return nil
	}
	add := func(v *victim) error {
		for _, pi := range v.pods {
			if pi.Pod.Spec.NodeName == main {
				ni.AddPodInfo(pi)
			}
			if err := pl.h.RunPreFilterExtensionAddPod(ctx, state, preemptor, pi, nameToNode[pi.Pod.Spec.NodeName]).AsError(); err != nil {
				return err
			}
		}
		return nil
	}
	prio := corev1helpers.PodPriority(preemptor)
	var potential []*victim
	for _, v := range victims {
		if v.priority < prio {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, "No preemption victims found for incoming pod")
	}
	for _, v := range potential {
		for name, other := range v.nodes {
			if _, ok := nameToNode[name]; !ok {
				nameToNode[name] = other
			}
		}
		if err := remove(v); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	if st := pl.h.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, ni); !st.IsSuccess() {
		return nil, 0, st
	}
	// sort.Slice, like upstream: equal victims keep the order the same
	// (deterministic) algorithm leaves them in.
	sort.Slice(potential, func(i, j int) bool { return moreImportantVictim(potential[i], potential[j]) })
	violating, nonViolating := splitVictimsByPDB(potential, pdbs)

	var chosen []*victim
	reprieve := func(v *victim) (bool, error) {
		if err := add(v); err != nil {
			return false, err
		}
		fits := pl.h.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, ni).IsSuccess()
		if !fits {
			if err := remove(v); err != nil {
				return false, err
			}
			chosen = append(chosen, v)
		}
		return fits, nil
	}
	numViolations := 0
	for _, v := range violating {
		fits, err := reprieve(v.victim)
		if err != nil {
			return nil, 0, framework.AsStatus(err)
		}
		if !fits {
			numViolations += v.pods
		}
	}
	for _, v := range nonViolating {
		if _, err := reprieve(v); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	if len(violating) != 0 && len(nonViolating) != 0 {
		sort.Slice(chosen, func(i, j int) bool { return moreImportantVictim(chosen[i], chosen[j]) })
	}
	return chosen, numViolations, nil
}

// violatingPod is a victim whose eviction would break PDBs (namespace/name).
type violatingPod struct {
	pod  *v1.Pod
	pdbs []string
}

// splitByPDB splits victims, in order, as splitVictimsByPDB does pods
// alone, for the record: each violating pod comes with the PDBs it breaks.
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
