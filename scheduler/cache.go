package scheduler

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The scheduler cache: the cluster mutations the informers' event handlers
// apply (upstream's addPodToCache, updatePodInCache, ... over
// backend/cache), here to the snapshot and the object store.

// AddAssignedPod stores a bound pod and puts it on its node (a pod naming
// a node that does not exist waits in the store until the node appears).
func (s *Scheduler) AddAssignedPod(pod *v1.Pod) {
	s.objects.Add(pod)
	if _, err := s.snapshot.Get(pod.Spec.NodeName); err == nil {
		if err := s.snapshot.AddPod(pod); err != nil {
			s.cacheFailed("AddPod", pod, err)
		}
	}
}

// UpdateAssignedPod replaces a bound pod, on its node too.
func (s *Scheduler) UpdateAssignedPod(oldPod, newPod *v1.Pod) {
	if _, err := s.snapshot.Get(oldPod.Spec.NodeName); err == nil {
		if err := s.snapshot.RemovePod(oldPod); err != nil {
			s.cacheFailed("UpdatePod", oldPod, err)
		}
	}
	s.AddAssignedPod(newPod)
}

// RemoveAssignedPod deletes a bound pod.
func (s *Scheduler) RemoveAssignedPod(pod *v1.Pod) {
	s.objects.Delete(pod)
	if _, err := s.snapshot.Get(pod.Spec.NodeName); err == nil {
		if err := s.snapshot.RemovePod(pod); err != nil {
			s.cacheFailed("RemovePod", pod, err)
		}
	}
}

// SetPendingPod stores (adds or replaces) a pod without a node.
func (s *Scheduler) SetPendingPod(pod *v1.Pod) { s.objects.Add(pod) }

// DeletePendingPod removes a pod without a node from the store.
func (s *Scheduler) DeletePendingPod(pod *v1.Pod) { s.objects.Delete(pod) }

// SetNodes rebuilds the node set from nodes in add order: surviving nodes
// keep their pods, new nodes receive the stored pods bound to them, and
// the node list of later attempts follows the new node-tree order.
func (s *Scheduler) SetNodes(nodes []*v1.Node) {
	old := s.snapshot
	var fresh []string
	snap := framework.RebuildSnapshot(nodes, func(name string) *framework.NodeInfo {
		if ni, err := old.Get(name); err == nil {
			return ni
		}
		fresh = append(fresh, name)
		return nil
	}, framework.ResourceGatesOf(s.gates))
	if len(fresh) > 0 {
		isFresh := map[string]bool{}
		for _, n := range fresh {
			isFresh[n] = true
		}
		for _, p := range s.objects.Pods() {
			if p.Spec.NodeName != "" && isFresh[p.Spec.NodeName] {
				if ni, err := snap.Get(p.Spec.NodeName); err == nil {
					ni.AddPod(p)
				}
			}
		}
		snap.RefreshLists()
	}
	s.snapshot = snap
	names := make([]string, 0, snap.NumNodes())
	for _, ni := range snap.List() {
		names = append(names, ni.Name())
	}
	s.nodeList = record.NewNodeList(names)
	if s.nextStartNodeIndex >= len(names) {
		s.nextStartNodeIndex = 0
	}
}
