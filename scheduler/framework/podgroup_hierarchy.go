package framework

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// The cache's view of pod-group hierarchies (CompositePodGroup), as
// upstream's cache and snapshot answer it (GetRootKeyForGroup, the
// CompositePodGroupStates' children): from the observed PodGroups and
// CompositePodGroups, each naming its parent. Without the gate a
// PodGroup's parent is ignored.

// GroupRef names a group of a hierarchy: a PodGroup or a
// CompositePodGroup.
type GroupRef struct {
	Composite       bool
	Namespace, Name string
}

// String is upstream's EntityKey.String: type/namespace/name, the type
// "podgroup" or "compositepodgroup" (its messages carry it).
func (r GroupRef) String() string {
	kind := "podgroup"
	if r.Composite {
		kind = "compositepodgroup"
	}
	return kind + "/" + PodGroupKey(r.Namespace, r.Name)
}

// maxTreeDepth is upstream's WorkloadMaxTreeDepth: the hierarchy's depth
// limit the API enforces and the walks stop at.
const maxTreeDepth = 4

// GroupRoot is GetRootKeyForGroup: the root of r's hierarchy; false when
// an object on the way up is not observed; an error for a loop.
func GroupRoot(objs ObjectLister, compositeEnabled bool, r GroupRef) (GroupRef, bool, error) {
	seen := map[GroupRef]bool{}
	for {
		if seen[r] {
			return GroupRef{}, false, fmt.Errorf("cycle detected in the hierarchy at %s", r)
		}
		seen[r] = true
		var parent string
		if r.Composite {
			cpg, err := objs.CompositePodGroup(r.Namespace, r.Name)
			if err != nil || cpg == nil {
				return GroupRef{}, false, nil
			}
			parent = ParentOfCompositePodGroup(cpg)
		} else {
			pg, err := objs.PodGroup(r.Namespace, r.Name)
			if err != nil || pg == nil {
				return GroupRef{}, false, nil
			}
			if compositeEnabled {
				parent = ParentOfPodGroup(pg)
			}
		}
		if parent == "" {
			return r, true, nil
		}
		r = GroupRef{Composite: true, Namespace: r.Namespace, Name: parent}
	}
}

// GroupChildren are the observed children of the CompositePodGroup
// namespace/name (its state's GetChildren): PodGroups then
// CompositePodGroups, each in name order.
func GroupChildren(objs ObjectLister, namespace, name string) []GroupRef {
	var out []GroupRef
	for _, pg := range objs.PodGroups(namespace) {
		if ParentOfPodGroup(pg) == name {
			out = append(out, GroupRef{Namespace: namespace, Name: pg.Name})
		}
	}
	n := len(out)
	for _, cpg := range objs.CompositePodGroups(namespace) {
		if ParentOfCompositePodGroup(cpg) == name {
			out = append(out, GroupRef{Composite: true, Namespace: namespace, Name: cpg.Name})
		}
	}
	byName := func(a, b GroupRef) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(out[:n], byName)
	slices.SortFunc(out[n:], byName)
	return out
}

// HierarchyLeaves is helper.GetPodGroupStates' walk: the PodGroups below
// r (r itself for a PodGroup), an error past the depth limit.
func HierarchyLeaves(objs ObjectLister, r GroupRef) ([]GroupRef, error) {
	var out []GroupRef
	var walk func(r GroupRef, depth int) error
	walk = func(r GroupRef, depth int) error {
		if depth >= maxTreeDepth {
			return fmt.Errorf("exceeded maximum hierarchy depth at %v", r)
		}
		if !r.Composite {
			out = append(out, r)
			return nil
		}
		for _, c := range GroupChildren(objs, r.Namespace, r.Name) {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(r, 0)
}

// ScheduledPodsOfGroup are the scheduled (assumed or bound) pods of the
// group: with CompositePodGroup, of every PodGroup below it (upstream's
// helper.GetPodGroupStates); without, of the PodGroup itself.
func ScheduledPodsOfGroup(h Handle, group *PodGroupInfo) ([]*v1.Pod, error) {
	if !h.Features().EnableCompositePodGroup {
		return h.PodGroupState(group.Namespace, group.Name).ScheduledPods(), nil
	}
	leaves, err := HierarchyLeaves(h.Objects(), GroupRef{Composite: group.Composite, Namespace: group.Namespace, Name: group.Name})
	if err != nil {
		return nil, err
	}
	var out []*v1.Pod
	for _, l := range leaves {
		out = append(out, h.PodGroupState(l.Namespace, l.Name).ScheduledPods()...)
	}
	return out, nil
}

// PodGroupStater is what the readiness checks read: the observed groups
// and each PodGroup's pods (a Handle is one).
type PodGroupStater interface {
	Objects() ObjectLister
	PodGroupState(namespace, name string) *PodGroupState
}

// TreeReady is GangScheduling's isCPGTreeReady: at least minGroupCount
// (1 for a basic composite) of the CompositePodGroup's children are
// ready, a PodGroup child when count of its pods reaches its minCount.
func TreeReady(h PodGroupStater, namespace, name string, count func(*PodGroupState) int) bool {
	objs := h.Objects()
	cpg, err := objs.CompositePodGroup(namespace, name)
	if err != nil {
		return false
	}
	ready := 0
	for _, c := range GroupChildren(objs, namespace, name) {
		if c.Composite && TreeReady(h, namespace, c.Name, count) || !c.Composite && PodGroupReady(h, namespace, c.Name, count) {
			ready++
		}
	}
	return ready >= CompositePodGroupMinGroupCount(cpg)
}

// PodGroupReady is isPGReady: count of the group's pods reaches its
// minCount (1 for a basic group).
func PodGroupReady(h PodGroupStater, namespace, name string, count func(*PodGroupState) int) bool {
	pg, err := h.Objects().PodGroup(namespace, name)
	if err != nil {
		return false
	}
	return count(h.PodGroupState(namespace, name)) >= PodGroupMinCount(pg)
}

// Hierarchy is the observed tree below the CompositePodGroup r (its
// PodGroups and CompositePodGroups, in child order), nil when r is not
// observed: the group a cycle of r's hierarchy works on.
func Hierarchy(objs ObjectLister, r GroupRef) *PodGroupInfo {
	return hierarchy(objs, r, 0)
}

func hierarchy(objs ObjectLister, r GroupRef, depth int) *PodGroupInfo {
	if !r.Composite {
		pg, err := objs.PodGroup(r.Namespace, r.Name)
		if err != nil {
			return nil
		}
		return NewPodGroupInfo(pg)
	}
	cpg, err := objs.CompositePodGroup(r.Namespace, r.Name)
	if err != nil || depth >= maxTreeDepth {
		return nil
	}
	n := NewCompositePodGroupInfo(cpg)
	for _, c := range GroupChildren(objs, r.Namespace, r.Name) {
		if ch := hierarchy(objs, c, depth+1); ch != nil {
			n.AddChild(ch)
		}
	}
	return n
}
