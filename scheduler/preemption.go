package scheduler

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/record"
)

// actuatePreemption carries out a preemption decision.
//
// With an engine (SetPreemptionActuator), the decision is handed over as
// upstream's async preemption hands it to a goroutine: the engine marks
// the preemptor as preempting (DefaultPreemption's PreEnqueue gate), and,
// after the failure handler has requeued the preemptor, clears lower
// priority nominations on the node and marks the victims (DisruptionTarget
// condition, deletionTimestamp); they leave the cluster once their grace
// period has passed in virtual time.
//
// Without one (the default, used by the conformance suite's ScheduleOne
// loop), the executor's API calls take effect at once: lower-priority pods
// nominated to the chosen node lose their nomination and the victims leave
// the cluster immediately, their claims released (ReleaseClaims).
func (s *Scheduler) actuatePreemption(preemptor *v1.Pod, p *record.Preemption) {
	if p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
		return
	}
	if s.hooks.preempt != nil {
		s.hooks.preempt(preemptor, p)
		return
	}
	c := p.Candidates[p.Chosen]
	prio := corev1helpers.PodPriority(preemptor)
	for _, pi := range append(s.nominator.NominatedPodsForNode(c.Node)[:0:0], s.nominator.NominatedPodsForNode(c.Node)...) {
		if pi.Pod.UID == preemptor.UID || corev1helpers.PodPriority(pi.Pod) >= prio {
			continue
		}
		s.nominator.Delete(pi.Pod.UID)
		if cur, err := s.objects.Pod(pi.Pod.Namespace, pi.Pod.Name); err == nil {
			updated := cur.DeepCopy()
			updated.Status.NominatedNodeName = ""
			s.objects.Add(updated)
		}
		p.NominatedPodsCleared = append(p.NominatedPodsCleared, pi.Pod.Namespace+"/"+pi.Pod.Name)
	}
	for _, v := range c.Victims {
		ns, name, _ := strings.Cut(v.Pod, "/")
		pod, err := s.objects.Pod(ns, name)
		// A victim already being deleted gets no second delete: it keeps
		// terminating on its own schedule, as upstream's executor skips it.
		if err != nil || pod.DeletionTimestamp != nil {
			continue
		}
		if err := s.snapshot.RemovePod(pod); err != nil {
			s.cacheFailed("RemovePod", pod, err)
		}
		s.objects.Delete(pod)
		// The resourceclaim controller and the garbage collector release
		// its claims at once too.
		for _, c := range ReleaseClaims(s.objects, pod, s.clock()) {
			s.storeClaimWrite(c)
		}
	}
}
