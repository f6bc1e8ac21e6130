package why

// A member's claims that are its PodGroup's (DRAWorkloadResourceClaims):
// what the Pod view and explain say of them.

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// MemberPodGroup is the PodGroup whose claims pod may share: its group,
// when DRAWorkloadResourceClaims is on and the group exists; nil
// otherwise.
func MemberPodGroup(s *scheduler.Scheduler, pod *v1.Pod) *schedulingv1beta1.PodGroup {
	name := framework.PodGroupNameOf(pod)
	if name == "" || !s.Features().EnableDRAWorkloadResourceClaims {
		return nil
	}
	pg, err := s.Objects().PodGroup(pod.Namespace, name)
	if err != nil {
		return nil
	}
	return pg
}

// GroupClaimNote says what the pod's entry pc, resolved to claim c (nil:
// not found), is to its PodGroup pg (MemberPodGroup): "reserved for
// PodGroup ns/name" once the claim is reserved for the group,
// "PodGroup ns/name's claim" while pg's spec.resourceClaims lists the
// entry alike (the claim is to be reserved for the group, not the pod),
// "" for a claim of the pod's own.
func GroupClaimNote(pg *schedulingv1beta1.PodGroup, pod *v1.Pod, pc *v1.PodResourceClaim, c *resourcev1.ResourceClaim) string {
	if pg == nil {
		return ""
	}
	key := pg.Namespace + "/" + pg.Name
	if c != nil && ReservedForGroup(c, pg) {
		return "reserved for PodGroup " + key
	}
	if ref, err := resourceclaim.BindTo(pod, pg, pc); err == nil && ref.Resource == "podgroups" {
		return "PodGroup " + key + "'s claim"
	}
	return ""
}

// ReservedForGroup: c's status.reservedFor lists PodGroup pg (nil: no).
func ReservedForGroup(c *resourcev1.ResourceClaim, pg *schedulingv1beta1.PodGroup) bool {
	if pg == nil {
		return false
	}
	return slices.ContainsFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool {
		return r.APIGroup == schedulingv1beta1.GroupName && r.Resource == "podgroups" && r.UID == pg.UID
	})
}

// groupNamesClaim: pg's spec.resourceClaims names c (directly, or through
// the claim the controller made from its template).
func groupNamesClaim(pg *schedulingv1beta1.PodGroup, c *resourcev1.ResourceClaim) bool {
	for i := range pg.Spec.ResourceClaims {
		if name, _, err := resourceclaim.NameFromPodGroup(pg, &pg.Spec.ResourceClaims[i]); err == nil && name != nil && *name == c.Name {
			return true
		}
	}
	return false
}

// GroupClaimLines are, for a member not bound by the attempt explained,
// its claims that are its PodGroup's, each with GroupClaimNote:
// "gpu: default/train-gpu-x7k2q (PodGroup default/train's claim)"; none
// without DRAWorkloadResourceClaims or a PodGroup owning claims.
func GroupClaimLines(s *scheduler.Scheduler, pod *v1.Pod) []string {
	pg := MemberPodGroup(s, pod)
	if pg == nil || len(pg.Spec.ResourceClaims) == 0 {
		return nil
	}
	var out []string
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		name, _, err := resourceclaim.Name(pod, pc)
		if err != nil || name == nil {
			continue
		}
		c, _ := s.Objects().ResourceClaim(pod.Namespace, *name)
		if note := GroupClaimNote(pg, pod, pc, c); note != "" {
			out = append(out, pc.Name+": "+pod.Namespace+"/"+*name+" ("+note+")")
		}
	}
	return out
}
