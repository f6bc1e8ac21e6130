package queue

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// The workload forest (upstream's backend/queue/workload_forest.go): the
// observed PodGroups and, with CompositePodGroup, the CompositePodGroups
// above them. A member is queued with the root of its hierarchy: its
// PodGroup when the group has no parent (or the gate is off), else the
// topmost CompositePodGroup; the root's entry holds the queued members of
// every leaf PodGroup below it. A member whose chain up to the root is not
// fully observed waits in incomplete, as one whose PodGroup is missing.

// rootRef names a hierarchy's root: its entry key (the root's
// PodGroupInfo.EntityKey) and the root's namespace and name.
type rootRef struct {
	entryKey, namespace, name string
	composite                 bool
}

// podGroupHasParent: the PodGroup's parent counts only with the gate on.
func (q *PriorityQueue) podGroupHasParent(pgKey string) (string, bool) {
	pg := q.podGroups[pgKey]
	if pg == nil || !q.opts.Features.EnableCompositePodGroup {
		return "", false
	}
	parent := framework.ParentOfPodGroup(pg)
	return parent, parent != ""
}

// rootOfPodGroup is getRootLookupInfoForPodGroup: the root above the
// PodGroup gk, false when the PodGroup or a CompositePodGroup on the way
// up is not observed (or the chain loops).
func (q *PriorityQueue) rootOfPodGroup(gk string) (rootRef, bool) {
	pg, ok := q.podGroups[gk]
	if !ok {
		return rootRef{}, false
	}
	parent, has := q.podGroupHasParent(gk)
	if !has {
		return rootRef{entryKey: framework.KindPodGroup + "/" + gk, namespace: pg.Namespace, name: pg.Name}, true
	}
	return q.rootOfComposite(pg.Namespace, parent)
}

// rootOfComposite is getRootLookupInfoForParentCPG: up the parent chain
// from the CompositePodGroup name to the root.
func (q *PriorityQueue) rootOfComposite(namespace, name string) (rootRef, bool) {
	seen := map[string]bool{}
	for {
		k := framework.PodGroupKey(namespace, name)
		if seen[k] {
			return rootRef{}, false
		}
		seen[k] = true
		cpg, ok := q.composites[k]
		if !ok {
			return rootRef{}, false
		}
		parent := framework.ParentOfCompositePodGroup(cpg)
		if parent == "" {
			return rootRef{entryKey: framework.KindCompositePodGroup + "/" + k, namespace: namespace, name: name, composite: true}, true
		}
		name = parent
	}
}

// rootOfPod is getRootLookupInfoForPod.
func (q *PriorityQueue) rootOfPod(pod *v1.Pod) (rootRef, bool) {
	return q.rootOfPodGroup(framework.PodGroupKeyOf(pod))
}

// childKeys are the observed children of the CompositePodGroup
// namespace/name: PodGroups, then CompositePodGroups, each sorted by name.
func (q *PriorityQueue) childKeys(namespace, name string) (podGroups, composites []string) {
	for k, pg := range q.podGroups {
		if pg.Namespace == namespace && framework.ParentOfPodGroup(pg) == name {
			podGroups = append(podGroups, k)
		}
	}
	for k, cpg := range q.composites {
		if cpg.Namespace == namespace && framework.ParentOfCompositePodGroup(cpg) == name {
			composites = append(composites, k)
		}
	}
	slices.Sort(podGroups)
	slices.Sort(composites)
	return podGroups, composites
}

// leafPodGroups is getLeafPodGroups: the keys of the PodGroups below the
// root (the root itself for a PodGroup root).
func (q *PriorityQueue) leafPodGroups(r rootRef) []string {
	if !r.composite {
		return []string{framework.PodGroupKey(r.namespace, r.name)}
	}
	var out []string
	seen := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		pgs, cpgs := q.childKeys(r.namespace, name)
		out = append(out, pgs...)
		for _, k := range cpgs {
			walk(q.composites[k].Name)
		}
	}
	walk(r.name)
	return out
}

// subtree is buildPodGroupInfoForCPG: the CompositePodGroup's node with
// every observed descendant.
func (q *PriorityQueue) subtree(cpg *schedulingv1alpha3.CompositePodGroup, seen map[string]bool) *framework.PodGroupInfo {
	n := framework.NewCompositePodGroupInfo(cpg)
	k := n.EntityKey()
	if seen[k] {
		return nil
	}
	seen[k] = true
	pgs, cpgs := q.childKeys(cpg.Namespace, cpg.Name)
	for _, pk := range pgs {
		n.AddChild(framework.NewPodGroupInfo(q.podGroups[pk]))
	}
	for _, ck := range cpgs {
		if c := q.subtree(q.composites[ck], seen); c != nil {
			n.AddChild(c)
		}
	}
	return n
}

// buildGroup is buildQueuedPodGroupInfo: the root's hierarchy as observed,
// with no members; nil when the root is gone.
func (q *PriorityQueue) buildGroup(r rootRef) *framework.QueuedPodGroupInfo {
	k := framework.PodGroupKey(r.namespace, r.name)
	if !r.composite {
		pg, ok := q.podGroups[k]
		if !ok {
			return nil
		}
		return &framework.QueuedPodGroupInfo{PodGroupInfo: framework.NewPodGroupInfo(pg)}
	}
	cpg, ok := q.composites[k]
	if !ok {
		return nil
	}
	return &framework.QueuedPodGroupInfo{PodGroupInfo: q.subtree(cpg, map[string]bool{})}
}

// AddCompositePodGroup is AddCompositePodGroup: the CompositePodGroup is
// observed; a queued hierarchy gains the subtree, and the members below
// the root waiting for it join the queue.
func (q *PriorityQueue) AddCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) {
	if !q.opts.Features.EnableCompositePodGroup {
		return
	}
	q.composites[framework.PodGroupKey(cpg.Namespace, cpg.Name)] = cpg
	r, ok := q.rootOfComposite(cpg.Namespace, cpg.Name)
	if !ok {
		return
	}
	if e, ok := q.pods[r.entryKey]; ok {
		if parent := framework.ParentOfCompositePodGroup(cpg); parent != "" {
			if p, _ := e.group.Find(parent); p != nil && p.Composite {
				if sub := q.subtree(cpg, map[string]bool{}); sub != nil {
					p.AddChild(sub)
				}
			}
		}
	}
	q.admitIncomplete(r)
}

// admitIncomplete moves the members of the root's leaves waiting in
// incomplete into the queue (addPodGroupMember for each).
func (q *PriorityQueue) admitIncomplete(r rootRef) {
	for _, gk := range q.leafPodGroups(r) {
		for _, w := range q.incomplete.clear(gk) {
			q.addPodGroupMember(w.pi, WaitingForPodGroup)
		}
	}
}

// UpdateCompositePodGroup is UpdateCompositePodGroup: the queued
// hierarchy sees the new object.
func (q *PriorityQueue) UpdateCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) {
	if !q.opts.Features.EnableCompositePodGroup {
		return
	}
	q.composites[framework.PodGroupKey(cpg.Namespace, cpg.Name)] = cpg
	r, ok := q.rootOfComposite(cpg.Namespace, cpg.Name)
	if !ok {
		return
	}
	if e, ok := q.pods[r.entryKey]; ok {
		if n, _ := e.group.Find(cpg.Name); n != nil && n.Composite {
			n.CompositePodGroup = cpg
		}
	}
}

// DeleteCompositePodGroup is DeleteCompositePodGroup: the members of the
// CompositePodGroup's subtree, queued or pending, wait for it again.
func (q *PriorityQueue) DeleteCompositePodGroup(cpg *schedulingv1alpha3.CompositePodGroup) {
	if !q.opts.Features.EnableCompositePodGroup {
		return
	}
	k := framework.PodGroupKey(cpg.Namespace, cpg.Name)
	r, ok := q.rootOfComposite(cpg.Namespace, cpg.Name)
	if !ok {
		delete(q.composites, k)
		return
	}
	leaves := q.leafPodGroups(r)
	delete(q.composites, k)
	e, queued := q.pods[r.entryKey]
	if !queued {
		if q.lastPopped != r.entryKey {
			return
		}
		for _, gk := range leaves {
			for _, w := range q.pendingMembers.clear(gk) {
				if _, stays := q.rootOfPodGroup(gk); stays {
					q.pendingMembers.add(w.pi, w.from)
				} else {
					q.incomplete.add(w.pi, w.from)
				}
			}
		}
		return
	}
	q.removeSubtree(e, cpg.Name)
}

// removeSubtree takes the subtree named name out of a queued hierarchy:
// its members wait in incomplete; the rest of the hierarchy, if it has
// members, goes back where it was.
func (q *PriorityQueue) removeSubtree(e *entry, name string) {
	was, s := e.location(), strategyOf(e.where)
	q.detach(e)
	label := EventUnscheduledPodUpdate.Label()
	for _, m := range e.group.RemoveSubtree(name) {
		q.incomplete.add(m, was)
		q.emitMember(m, framework.PodGroupKeyOf(m.Pod), was, WaitingForPodGroup, label)
	}
	if e.group.Size() == 0 {
		return
	}
	q.requeue(e, s, label, was)
}

// CompositePodGroups are the observed CompositePodGroups by key.
func (q *PriorityQueue) CompositePodGroups() map[string]*schedulingv1alpha3.CompositePodGroup {
	return q.composites
}
