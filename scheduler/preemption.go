package scheduler

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Preemptor is who preempts, as upstream's preemption executor sees it
// (its ExecutorPreemptor): a pod whose PostFilter chose a node, or a pod
// group whose PodGroupPostFilter (GenericWorkload) chose victims across
// the cluster.
type Preemptor struct {
	// Kind is upstream's preemptor type, as its messages name it: "pod"
	// or "podgroup".
	Kind string
	// UID is the pod's or the PodGroup's: async preemption holds the
	// preemptor back by it until its victims are being deleted.
	UID types.UID
	// Key is the pod's or the PodGroup's namespace/name.
	Key string
	// SchedulerName is the pod's, or a group's first member's.
	SchedulerName string
	// Priority is the pod's, or the group's: lower-priority pods
	// nominated to the chosen node lose their nomination.
	Priority int32
	// Pods are the preempting pod, or the group's members being
	// scheduled.
	Pods []*v1.Pod
}

// Preemptor kinds, upstream's fwk.PodKeyType and fwk.PodGroupKeyType.
const (
	PreemptorPod      = "pod"
	PreemptorPodGroup = "podgroup"
)

// PodPreemptor is a pod preempting for itself.
func PodPreemptor(pod *v1.Pod) Preemptor {
	return Preemptor{Kind: PreemptorPod, UID: pod.UID, Key: pod.Namespace + "/" + pod.Name,
		SchedulerName: pod.Spec.SchedulerName, Priority: corev1helpers.PodPriority(pod), Pods: []*v1.Pod{pod}}
}

// PodGroupPreemptor is a pod group preempting for its members.
func PodGroupPreemptor(group *framework.PodGroupInfo) Preemptor {
	p := Preemptor{Kind: PreemptorPodGroup, Key: group.Key(), Priority: group.Priority(), Pods: group.AllUnscheduledPods()}
	if group.PodGroup != nil {
		p.UID = group.PodGroup.UID
	} else if group.CompositePodGroup != nil {
		p.UID = group.CompositePodGroup.UID
	}
	if len(p.Pods) > 0 {
		// All members of a group use the same scheduler.
		p.SchedulerName = p.Pods[0].Spec.SchedulerName
	}
	return p
}

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
//
// A pod group's decision (actuatePodGroupPreemption) goes the same way:
// its candidate is "cluster", which names no node, so no nomination is
// cleared, as upstream's executor clears none for a group.
func (s *Scheduler) actuatePreemption(preemptor Preemptor, p *record.Preemption) {
	if p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
		return
	}
	if s.hooks.preempt != nil {
		s.hooks.preempt(preemptor, p)
		return
	}
	c := p.Candidates[p.Chosen]
	for _, pi := range append(s.nominator.NominatedPodsForNode(c.Node)[:0:0], s.nominator.NominatedPodsForNode(c.Node)...) {
		if pi.Pod.UID == preemptor.UID || corev1helpers.PodPriority(pi.Pod) >= preemptor.Priority {
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
		for _, c := range ReleaseClaims(s.objects, pod, s.clock(), s.Features().EnableDRAWorkloadResourceClaims) {
			s.storeClaimWrite(c)
		}
	}
}

// actuatePodGroupPreemption carries out what a pod group's
// PodGroupPostFilter decided (upstream's actuatePodGroupPreemption, called
// inside the plugin before the members go back to the queue): the record
// the plugin left in the group cycle's state, its one candidate
// "cluster" with its victims.
func (s *Scheduler) actuatePodGroupPreemption(group *framework.PodGroupInfo, p *record.Preemption) {
	s.actuatePreemption(PodGroupPreemptor(group), p)
}
