package scheduler

// The other half of the resourceclaim controller (snapshot/claims.go plays
// the half that creates claims from templates): what it, and the garbage
// collector, write to a pod's claims once the pod has left the cluster,
// and (DRAWorkloadResourceClaims) to a PodGroup's once it is deleted.
// Without it a preemption victim's devices would stay allocated forever in
// a simulation, where no controller runs.

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// ReleaseClaims returns the writes the resourceclaim controller and the
// garbage collector make to the claims of pod once it is gone (deleted, or
// terminal), in the order they make them; objs must no longer hold pod.
// Each write is the claim as stored afterwards, a deletion being a claim
// with a deletionTimestamp (now) and no finalizers (framework.ClaimDeleted).
//
// The controller looks at the claims the pod names (spec.resourceClaims,
// resolved through status.resourceClaimStatuses, then the extended-resource
// claim of status.extendedResourceClaimStatus), each once, and for each:
//   - drops from status.reservedFor every pod consumer that is gone (this
//     pod, any pod no longer stored or replaced by another UID, any pod that
//     is done: terminal, or deleted before it was scheduled) and, when
//     groups (DRAWorkloadResourceClaims) says so, every PodGroup consumer
//     no longer stored or replaced; other consumers stay;
//   - if that empties reservedFor of a claim carrying the
//     "resource.kubernetes.io/delete-protection" finalizer, clears
//     status.allocation in the same status update (the API server then drops
//     the status.devices entries of the devices no longer allocated), and
//     then removes the finalizer with a second, plain update;
//   - a claim generated for a pod that is gone is deleted: by the garbage
//     collector once every owner is absent, even if other pods still use
//     the claim; by the controller, when nobody uses it, if its controlling
//     owner is stored but done or replaced. A claim still carrying
//     finalizers is only marked for deletion (deletionTimestamp); the
//     controller then deallocates it and drops its finalizer once nobody
//     uses it, which removes it.
//
// A claim reserved for others keeps its allocation; a claim nobody owns
// (resourceClaimName) stays, deallocated, for the next pod to allocate.
func ReleaseClaims(objs framework.ObjectLister, pod *v1.Pod, now time.Time, groups bool) []*resourcev1.ResourceClaim {
	return releaseNamedClaims(objs, pod.Namespace, podClaimNames(pod), pod.UID, now, groups)
}

// ReleasePodGroupClaims is ReleaseClaims for a PodGroup deleted
// (DRAWorkloadResourceClaims): the controller syncs each claim its
// spec.resourceClaims names (resolved through status.resourceClaimStatuses),
// dropping the group's reservation, and the garbage collector deletes a
// claim generated for it once no owner is left; its members' own
// reservations stay.
func ReleasePodGroupClaims(objs framework.ObjectLister, pg *schedulingv1beta1.PodGroup, now time.Time) []*resourcev1.ResourceClaim {
	var names []string
	for i := range pg.Spec.ResourceClaims {
		name, _, err := resourceclaim.NameFromPodGroup(pg, &pg.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			// Not created yet, or not needed: nothing to release.
			continue
		}
		names = append(names, *name)
	}
	return releaseNamedClaims(objs, pg.Namespace, names, pg.UID, now, true)
}

// releaseNamedClaims releases the claims of namespace named, each once,
// after the consumer with UID gone left.
func releaseNamedClaims(objs framework.ObjectLister, namespace string, names []string, gone types.UID, now time.Time, groups bool) []*resourcev1.ResourceClaim {
	var writes []*resourcev1.ResourceClaim
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		claim, err := objs.ResourceClaim(namespace, name)
		if err != nil {
			continue
		}
		writes = append(writes, releaseClaim(objs, claim, gone, now, groups)...)
	}
	return writes
}

// podClaimNames are the names of the claims the controller enqueues for a
// pod that is gone: its resolvable claims, in spec order, then its
// extended-resource claim.
func podClaimNames(pod *v1.Pod) []string {
	var out []string
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			// Not created yet, or not needed: nothing to release.
			continue
		}
		out = append(out, *name)
	}
	if s := pod.Status.ExtendedResourceClaimStatus; s != nil && s.ResourceClaimName != "" {
		out = append(out, s.ResourceClaimName)
	}
	return out
}

// releaseClaim is the controller's sync of one claim after the pod with
// UID gone left, followed by the deletion of a generated claim whose owner
// is gone (and, if that only marked it, the controller's sync again).
func releaseClaim(objs framework.ObjectLister, claim *resourcev1.ResourceClaim, gone types.UID, now time.Time, groups bool) []*resourcev1.ResourceClaim {
	writes, claim := syncReleasedClaim(objs, claim, gone, groups)
	if claim.DeletionTimestamp != nil || !ownerGone(objs, claim, gone) {
		return writes
	}
	deleted := claim.DeepCopy()
	ts := metav1.NewTime(now)
	deleted.DeletionTimestamp = &ts
	writes = append(writes, deleted)
	if framework.ClaimDeleted(deleted) {
		return writes
	}
	more, _ := syncReleasedClaim(objs, deleted, gone, groups)
	return append(writes, more...)
}

// syncReleasedClaim is the controller's syncClaim: the writes it makes and
// the claim as they leave it.
func syncReleasedClaim(objs framework.ObjectLister, claim *resourcev1.ResourceClaim, gone types.UID, groups bool) ([]*resourcev1.ResourceClaim, *resourcev1.ResourceClaim) {
	remaining := slices.DeleteFunc(slices.Clone(claim.Status.ReservedFor), func(ref resourcev1.ResourceClaimConsumerReference) bool {
		switch {
		case ref.APIGroup == "" && ref.Resource == "pods":
			return !podStillRuns(objs, claim.Namespace, ref.Name, ref.UID, gone)
		case groups && ref.APIGroup == schedulingv1beta1.GroupName && ref.Resource == "podgroups":
			return !podGroupStored(objs, claim.Namespace, ref.Name, ref.UID, gone)
		}
		return false
	})
	protected := slices.Contains(claim.Finalizers, resourcev1.Finalizer)
	var writes []*resourcev1.ResourceClaim
	switch {
	case len(remaining) < len(claim.Status.ReservedFor):
		updated := claim.DeepCopy()
		updated.Status.ReservedFor = remaining
		if len(remaining) == 0 {
			// UpdateStatus; ReservedFor nil rather than empty, as the
			// API server returns an omitted list.
			updated.Status.ReservedFor = nil
			if protected {
				deallocate(updated)
			}
		}
		writes = append(writes, updated)
		claim = updated
		if protected && claim.Status.Allocation == nil {
			claim = withoutProtection(claim)
			writes = append(writes, claim)
		}
	case protected && claim.DeletionTimestamp != nil && len(remaining) == 0:
		if claim.Status.Allocation != nil {
			claim = claim.DeepCopy()
			deallocate(claim)
			writes = append(writes, claim)
		}
		claim = withoutProtection(claim)
		writes = append(writes, claim)
	}
	return writes, claim
}

// deallocate clears the allocation, and, as the API server's status
// strategy does on that update, the status of the devices it allocated.
func deallocate(claim *resourcev1.ResourceClaim) {
	old := claim.Status.Allocation
	claim.Status.Allocation = nil
	if old == nil {
		return
	}
	claim.Status.Devices = slices.DeleteFunc(claim.Status.Devices, func(d resourcev1.AllocatedDeviceStatus) bool {
		return slices.ContainsFunc(old.Devices.Results, func(r resourcev1.DeviceRequestAllocationResult) bool {
			return r.Driver == d.Driver && r.Pool == d.Pool && r.Device == d.Device && sameShare(r.ShareID, d.ShareID)
		})
	})
	if len(claim.Status.Devices) == 0 {
		claim.Status.Devices = nil
	}
}

func sameShare(a *types.UID, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return string(*a) == *b
}

// withoutProtection is the claim after the controller's update removing
// its delete-protection finalizer.
func withoutProtection(claim *resourcev1.ResourceClaim) *resourcev1.ResourceClaim {
	out := claim.DeepCopy()
	out.Finalizers = slices.DeleteFunc(out.Finalizers, func(f string) bool { return f == resourcev1.Finalizer })
	if len(out.Finalizers) == 0 {
		out.Finalizers = nil
	}
	return out
}

// podStillRuns: the pod name/uid of namespace is stored and may still run,
// so its reservation stays.
func podStillRuns(objs framework.ObjectLister, namespace, name string, uid, gone types.UID) bool {
	if uid == gone {
		return false
	}
	p, err := objs.Pod(namespace, name)
	return err == nil && p.UID == uid && !podDone(p)
}

// podGroupStored: the PodGroup name/uid of namespace is stored, so its
// reservation stays.
func podGroupStored(objs framework.ObjectLister, namespace, name string, uid, gone types.UID) bool {
	if uid == gone {
		return false
	}
	pg, err := objs.PodGroup(namespace, name)
	return err == nil && pg.UID == uid
}

// podDone: none of the pod's containers runs or ever will (the
// controller's isPodDone): a terminal phase, or deleted before it was
// scheduled.
func podDone(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed ||
		p.DeletionTimestamp != nil && p.Spec.NodeName == ""
}

// ownerGone: the claim's owners are gone, so it is deleted: by the
// garbage collector when every owner is a pod or a PodGroup no longer
// stored (an owner of another kind is taken to exist), whoever still uses
// the claim; by the
// controller when nobody does and its controlling owner is a stored pod
// that is done or another pod of the same name (isPodDone, UID mismatch).
func ownerGone(objs framework.ObjectLister, claim *resourcev1.ResourceClaim, gone types.UID) bool {
	if len(claim.OwnerReferences) == 0 {
		return false
	}
	allAbsent := true
	for _, o := range claim.OwnerReferences {
		if o.Kind == "PodGroup" && strings.HasPrefix(o.APIVersion, schedulingv1beta1.GroupName+"/") {
			if podGroupStored(objs, claim.Namespace, o.Name, o.UID, gone) {
				allAbsent = false
			}
			continue
		}
		if o.APIVersion != "v1" || o.Kind != "Pod" {
			allAbsent = false
			continue
		}
		p, err := objs.Pod(claim.Namespace, o.Name)
		if err != nil || o.UID == gone {
			continue
		}
		allAbsent = false
		if o.Controller != nil && *o.Controller && len(claim.Status.ReservedFor) == 0 && (p.UID != o.UID || podDone(p)) {
			return true
		}
	}
	return allAbsent
}
