package defaultpreemption

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// victimKind is upstream's fwk.EntityKeyType for a preemption unit; its
// order is the rank MoreImportantVictim compares (a composite group is
// kept before a group, a group before a pod).
type victimKind uint8

const (
	podVictim victimKind = iota + 1
	podGroupVictim
	compositePodGroupVictim
)

// victim is what preemption evicts as one unit (upstream's DomainVictim): a
// pod, or with GenericWorkload every scheduled pod of a group whose
// disruptionMode is all, across the cluster.
type victim struct {
	pods []*framework.PodInfo
	// priority is the unit's: the root group's for a pod of a group.
	priority int32
	// earliestStart is the earliest start of its pods (now for a pod not
	// started yet).
	earliestStart time.Time
	// kind: upstream marks a pod of a pod group podgroup even when it goes
	// alone (disruptionMode single), which ranks it above a plain pod.
	kind victimKind
	// nodes are the nodes its pods run on.
	nodes map[string]*framework.NodeInfo
	// group is the disruptionMode-all group (namespace/name) it is; "" for
	// a pod evicted on its own.
	group string
}

// isGroup is upstream's Victim.IsGroup (the workload-disruption count).
func (v *victim) isGroup() bool { return v.kind != podVictim }

// moreImportantVictim is upstream's MoreImportantVictim: higher priority,
// then composite group over group over pod, then more pods, then the
// earlier start.
func moreImportantVictim(a, b *victim) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.kind != b.kind {
		return a.kind > b.kind
	}
	if len(a.pods) != len(b.pods) {
		return len(a.pods) > len(b.pods)
	}
	return a.earliestStart.Before(b.earliestStart)
}

// groups answers what preemption asks about pods' scheduling groups, with
// the gates the profile was built with: off, every pod is on its own at
// its own priority.
type groups struct {
	objects framework.ObjectLister
	// workloads is GenericWorkload; composites is CompositePodGroup.
	workloads, composites bool
	snapshot              *framework.Snapshot
	now                   time.Time
	// scheduled indexes the snapshot's pods by their PodGroup
	// (namespace/name), in node-tree order: upstream's PodGroupState
	// ScheduledPods (assumed or bound). Built on first use.
	scheduled map[string][]*framework.PodInfo
}

func (pl *DefaultPreemption) groups() *groups {
	return &groups{objects: pl.h.Objects(), workloads: pl.workloads, composites: pl.composites, snapshot: pl.h.Snapshot(), now: pl.h.Now()}
}

// groupKey names a PodGroup or CompositePodGroup in the hierarchy walk.
type groupKey struct {
	kind      victimKind // podGroupVictim or compositePodGroupVictim
	namespace string
	name      string
}

func (k groupKey) String() string { return k.namespace + "/" + k.name }

// maxTreeDepth is schedulingv1beta1.WorkloadMaxTreeDepth: how far up a
// hierarchy is walked.
const maxTreeDepth = schedulingv1beta1.WorkloadMaxTreeDepth

// walkUp is upstream's TraverseHierarchyUp: from the pod's PodGroup up
// through its parent CompositePodGroups, stopping where a parent is
// missing, at a cycle, or after maxTreeDepth levels. Only with both gates.
func (g *groups) walkUp(namespace, podGroup string, visit func(key groupKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup)) {
	if !g.workloads || !g.composites {
		return
	}
	key := groupKey{podGroupVictim, namespace, podGroup}
	seen := map[groupKey]bool{}
	for range maxTreeDepth {
		if seen[key] {
			return
		}
		seen[key] = true
		var parent *string
		if key.kind == podGroupVictim {
			pg, err := g.objects.PodGroup(namespace, key.name)
			if err != nil {
				return
			}
			visit(key, pg, nil)
			parent = pg.Spec.ParentCompositePodGroupName
		} else {
			cpg, err := g.objects.CompositePodGroup(namespace, key.name)
			if err != nil {
				return
			}
			visit(key, nil, cpg)
			parent = cpg.Spec.ParentCompositePodGroupName
		}
		if parent == nil {
			return
		}
		key = groupKey{compositePodGroupVictim, namespace, *parent}
	}
}

// podGroupPriority and compositePodGroupPriority are upstream's: an
// unset priority is 0.
func podGroupPriority(pg *schedulingv1beta1.PodGroup) int32 {
	if pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return 0
}

func compositePodGroupPriority(cpg *schedulingv1alpha3.CompositePodGroup) int32 {
	if cpg.Spec.Priority != nil {
		return *cpg.Spec.Priority
	}
	return 0
}

// priority is upstream's GetPodPriority: a pod of a group has its root
// group's priority (the highest group found walking up); a pod alone, or
// whose PodGroup is missing, its own.
func (g *groups) priority(p *v1.Pod) int32 {
	if p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil || !g.workloads {
		return corev1helpers.PodPriority(p)
	}
	if !g.composites {
		pg, err := g.objects.PodGroup(p.Namespace, *p.Spec.SchedulingGroup.PodGroupName)
		if err != nil {
			return corev1helpers.PodPriority(p)
		}
		return podGroupPriority(pg)
	}
	prio, found := int32(0), false
	g.walkUp(p.Namespace, *p.Spec.SchedulingGroup.PodGroupName, func(_ groupKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup) {
		found = true
		if pg != nil {
			prio = podGroupPriority(pg)
		} else {
			prio = compositePodGroupPriority(cpg)
		}
	})
	if !found {
		return corev1helpers.PodPriority(p)
	}
	return prio
}

// highestAllAncestor is upstream's getHighestAllAncestor: the highest
// group above the pod (its PodGroup included) whose disruptionMode is all.
func (g *groups) highestAllAncestor(p *v1.Pod) (groupKey, bool) {
	if p.Spec.SchedulingGroup == nil || p.Spec.SchedulingGroup.PodGroupName == nil || !g.workloads {
		return groupKey{}, false
	}
	name := *p.Spec.SchedulingGroup.PodGroupName
	if !g.composites {
		pg, err := g.objects.PodGroup(p.Namespace, name)
		if err != nil || pg.Spec.DisruptionMode == nil || pg.Spec.DisruptionMode.All == nil {
			return groupKey{}, false
		}
		return groupKey{podGroupVictim, p.Namespace, name}, true
	}
	var highest groupKey
	found := false
	g.walkUp(p.Namespace, name, func(key groupKey, pg *schedulingv1beta1.PodGroup, cpg *schedulingv1alpha3.CompositePodGroup) {
		if (pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil) ||
			(cpg != nil && cpg.Spec.DisruptionMode != nil && cpg.Spec.DisruptionMode.All != nil) {
			highest, found = key, true
		}
	})
	return highest, found
}

// podVictimOf is upstream's NewPodVictim: the pod alone, at its effective
// priority, marked podgroup when it belongs to a group (with the gate).
func (g *groups) podVictimOf(pi *framework.PodInfo) *victim {
	kind := podVictim
	if pi.Pod.Spec.SchedulingGroup != nil && g.workloads {
		kind = podGroupVictim
	}
	return g.newVictim([]*framework.PodInfo{pi}, g.priority(pi.Pod), kind, "")
}

func (g *groups) newVictim(pods []*framework.PodInfo, priority int32, kind victimKind, group string) *victim {
	v := &victim{pods: pods, priority: priority, kind: kind, group: group}
	for i, pi := range pods {
		if t := startTime(pi.Pod, g.now); i == 0 || t.Before(v.earliestStart) {
			v.earliestStart = t
		}
	}
	return v
}

// victimsOnNode is upstream's GetVictimsOnNode: without GenericWorkload
// each pod on the node alone at its own priority (their nodes need no
// lookup: they are all on this one).
func (g *groups) victimsOnNode(ni *framework.NodeInfo) ([]*victim, error) {
	if !g.workloads {
		out := make([]*victim, len(ni.Pods))
		for i, pi := range ni.Pods {
			out[i] = g.newVictim([]*framework.PodInfo{pi}, corev1helpers.PodPriority(pi.Pod), podVictim, "")
		}
		return out, nil
	}
	return g.victimsOn([]*framework.NodeInfo{ni})
}

// victimsOn is upstream's getCrossNodesVictims over nodes: each pod on its
// own, except that a pod whose group hierarchy has a disruptionMode-all
// group brings in every scheduled pod under that group, on any node, as
// one victim (once). Each victim knows the nodes it runs on.
func (g *groups) victimsOn(nodes []*framework.NodeInfo) ([]*victim, error) {
	seenPods := map[string]bool{}
	seenGroups := map[groupKey]bool{}
	var out []*victim
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			key, all := g.highestAllAncestor(pi.Pod)
			switch {
			case !all:
				if k := pi.Pod.Namespace + "/" + pi.Pod.Name; !seenPods[k] {
					seenPods[k] = true
					out = append(out, g.podVictimOf(pi))
				}
			case !seenGroups[key]:
				seenGroups[key] = true
				out = append(out, g.groupVictim(key, pi))
			}
		}
	}
	for _, v := range out {
		v.nodes = map[string]*framework.NodeInfo{}
		for _, pi := range v.pods {
			name := pi.Pod.Spec.NodeName
			if _, ok := v.nodes[name]; ok {
				continue
			}
			ni, err := g.snapshot.Get(name)
			if err != nil {
				return nil, fmt.Errorf("failed to get node info for node %q from snapshot: %w", name, err)
			}
			v.nodes[name] = ni
		}
	}
	return out, nil
}

// groupVictim is upstream's searchCrossNodesVictimPods: every scheduled
// pod of the leaf PodGroups under key, at the priority of the pod that
// brought it in; that pod alone when none is found.
func (g *groups) groupVictim(key groupKey, found *framework.PodInfo) *victim {
	var pods []*framework.PodInfo
	for _, leaf := range g.leaves(key) {
		pods = append(pods, g.scheduledPods(leaf)...)
	}
	if len(pods) == 0 {
		return g.podVictimOf(found)
	}
	return g.newVictim(pods, g.priority(found.Pod), key.kind, key.String())
}

// leaves are the PodGroups at and under key (a CompositePodGroup's
// children, depth first in the lister's order).
func (g *groups) leaves(key groupKey) []groupKey {
	if key.kind == podGroupVictim {
		return []groupKey{key}
	}
	var out []groupKey
	seen := map[groupKey]bool{}
	var walk func(k groupKey, depth int)
	walk = func(k groupKey, depth int) {
		if seen[k] || depth > maxTreeDepth {
			return
		}
		seen[k] = true
		for _, pg := range g.objects.PodGroups(k.namespace) {
			if p := pg.Spec.ParentCompositePodGroupName; p != nil && *p == k.name {
				out = append(out, groupKey{podGroupVictim, pg.Namespace, pg.Name})
			}
		}
		for _, cpg := range g.objects.CompositePodGroups(k.namespace) {
			if p := cpg.Spec.ParentCompositePodGroupName; p != nil && *p == k.name {
				walk(groupKey{compositePodGroupVictim, cpg.Namespace, cpg.Name}, depth+1)
			}
		}
	}
	walk(key, 1)
	return out
}

// scheduledPods are the assumed and bound pods of a PodGroup, in the
// snapshot's node order (upstream's order is a map's).
func (g *groups) scheduledPods(key groupKey) []*framework.PodInfo {
	if g.scheduled == nil {
		g.scheduled = map[string][]*framework.PodInfo{}
		for _, ni := range g.snapshot.List() {
			for _, pi := range ni.Pods {
				if sg := pi.Pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
					k := pi.Pod.Namespace + "/" + *sg.PodGroupName
					g.scheduled[k] = append(g.scheduled[k], pi)
				}
			}
		}
	}
	return g.scheduled[key.String()]
}

// violatingVictim is a victim whose eviction breaks PDBs, with how many of
// its pods do.
type violatingVictim struct {
	victim *victim
	pods   int
}

// splitVictimsByPDB is upstream's FilterVictimsWithPDBViolation: a victim
// is atomic, so one pod of it that would take a PDB below zero makes the
// whole victim violating.
func splitVictimsByPDB(victims []*victim, pdbs []*policyv1.PodDisruptionBudget) (violating []violatingVictim, nonViolating []*victim) {
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	for _, v := range victims {
		n := 0
		for _, pi := range v.pods {
			if len(violatedPDBs(pi.Pod, pdbs, allowed)) > 0 {
				n++
			}
		}
		if n > 0 {
			violating = append(violating, violatingVictim{victim: v, pods: n})
		} else {
			nonViolating = append(nonViolating, v)
		}
	}
	return violating, nonViolating
}
