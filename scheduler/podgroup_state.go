package scheduler

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// The cache's per-group state (upstream's backend/cache/podgroupstate.go),
// derived here from what the scheduler already keeps: the store's index of
// a group's pods (bound ones are assigned) and the pods assumed by a cycle
// and not bound yet, noted as they are assumed and forgotten.

// noteAssumed records a pod a cycle assumed (GenericWorkload only: nothing
// else reads it).
func (s *Scheduler) noteAssumed(assumed *v1.Pod) {
	if !s.gates.EnableGenericWorkload || framework.PodGroupNameOf(assumed) == "" {
		return
	}
	if s.assumed == nil {
		s.assumed = map[string]*v1.Pod{}
	}
	s.assumed[string(assumed.UID)] = assumed
}

// forgetAssumed drops a pod that is no longer assumed: forgotten, or
// stored bound.
func (s *Scheduler) forgetAssumed(pod *v1.Pod) { delete(s.assumed, string(pod.UID)) }

// rebuildAssumed recomputes the assumed pods after a restore: the
// snapshot's pods that the store still holds without a node.
func (s *Scheduler) rebuildAssumed() {
	s.assumed = nil
	if !s.gates.EnableGenericWorkload {
		return
	}
	for _, ni := range s.snapshot.List() {
		for _, pi := range ni.Pods {
			if framework.PodGroupNameOf(pi.Pod) == "" {
				continue
			}
			if cur, err := s.objects.Pod(pi.Pod.Namespace, pi.Pod.Name); err == nil && cur.UID == pi.Pod.UID && cur.Spec.NodeName == "" {
				s.noteAssumed(pi.Pod)
			}
		}
	}
}

// PodGroupState is the cache's state of a group's pods: bound ones
// assigned, assumed ones, and the pending pods this scheduler is
// responsible for (upstream's cache learns of those as its queue does).
func (s *Scheduler) PodGroupState(namespace, name string) *framework.PodGroupState {
	st := &framework.PodGroupState{}
	for _, p := range s.objects.PodGroupMembers(namespace, name) {
		switch {
		case p.Spec.NodeName != "":
			st.Assigned = append(st.Assigned, p)
		case s.assumed[string(p.UID)] != nil:
			st.Assumed = append(st.Assumed, s.assumed[string(p.UID)])
		case s.profiles[p.Spec.SchedulerName] != nil:
			st.Unscheduled = append(st.Unscheduled, p)
		}
	}
	return st
}

// SetPodGroup stores a PodGroup added or updated (the informer side).
func (s *Scheduler) SetPodGroup(pg *schedulingv1beta1.PodGroup) { s.objects.Add(pg) }

// DeletePodGroup removes a PodGroup.
func (s *Scheduler) DeletePodGroup(pg *schedulingv1beta1.PodGroup) { s.objects.Delete(pg) }
