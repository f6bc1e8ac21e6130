package scheduler

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/record"
)

// actuatePreemption carries out a preemption decision as the executor's
// API calls would: lower-priority pods nominated to the chosen node lose
// their nomination, and the victims leave the cluster.
//
// Victims are deleted at once here; graceful termination in virtual time
// belongs to the queue engine.
func (s *Scheduler) actuatePreemption(preemptor *v1.Pod, p *record.Preemption) {
	if p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
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
		if err != nil {
			continue
		}
		_ = s.snapshot.RemovePod(pod)
		s.objects.Delete(pod)
	}
}
