package engine

import (
	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// releaseClaims plays the resourceclaim controller and the garbage
// collector once pod has left the cluster: the writes of
// scheduler.ReleaseClaims (the pod's reservations dropped, claims reserved
// for nobody deallocated, claims generated for it deleted), each applied
// as a cluster change (ObjectUpdate, ObjectDelete), so the queue hears the
// ResourceClaim events, the timeline shows them, and a rewind replays them
// with the pod's removal that caused them.
//
// Only the simulate mode plays the controller (simulation.podDeleted and
// the eviction of a victim, terminate), the half of it that creates
// claims from templates being played at load (snapshot/claims.go): in
// shadow mode, or when schedtui binds in a real cluster (--bind), the
// cluster's own controller releases the claims and its updates arrive as
// changes.
//
// Upstream the controller reacts to the pod's delete event asynchronously,
// within milliseconds; here its writes are made at the same virtual
// instant, right after the pod's delete event, before the next attempt.
// Any other instant would be a guess, and a scheduler popping a pod in
// the milliseconds between sees the devices still allocated only to be
// requeued by the claim update that follows.
func (e *Engine) releaseClaims(pod *v1.Pod) {
	if e.opts.Shadow || e.opts.Bind != nil {
		return
	}
	e.applyReleases(scheduler.ReleaseClaims(e.sched.Objects(), pod, e.now, e.sched.Features().EnableDRAWorkloadResourceClaims))
}

// releasePodGroupClaims is releaseClaims for a PodGroup deleted, with
// DRAWorkloadResourceClaims (scheduler.ReleasePodGroupClaims): the group's
// reservations dropped, its claims reserved for nobody deallocated, the
// claims generated for it deleted.
func (e *Engine) releasePodGroupClaims(pg *schedulingv1beta1.PodGroup) {
	if e.opts.Shadow || e.opts.Bind != nil || !e.sched.Features().EnableDRAWorkloadResourceClaims {
		return
	}
	e.applyReleases(scheduler.ReleasePodGroupClaims(e.sched.Objects(), pg, e.now))
}

// applyReleases applies the controller's writes, each as a cluster change.
func (e *Engine) applyReleases(writes []*resourcev1.ResourceClaim) {
	for _, c := range writes {
		w := change.Change{Kind: change.ObjectUpdate, Object: c, At: e.now}
		if framework.ClaimDeleted(c) {
			w.Kind = change.ObjectDelete
		}
		if err := e.applyObject(w); err != nil {
			e.clusterEvent(w, "not applied: "+err.Error())
		}
	}
}

// AlreadyReleased is the message of a cluster change about a claim the
// simulated garbage collector already deleted when its owner left: a
// recording or a live cluster reports its own controller's writes to it
// afterwards.
const AlreadyReleased = "ignored: schedtui's resourceclaim controller deleted the claim when its pod left"

// releasedHere reports a change about a claim the simulation's garbage
// collector deleted: a ResourceClaim no longer stored, generated for pods
// or PodGroups none of which is stored any more.
func (e *Engine) releasedHere(obj runtime.Object) bool {
	c, ok := obj.(*resourcev1.ResourceClaim)
	if !ok || e.opts.Shadow || e.opts.Bind != nil || len(c.OwnerReferences) == 0 {
		return false
	}
	for _, o := range c.OwnerReferences {
		switch {
		case o.APIVersion == "v1" && o.Kind == "Pod":
			if p, err := e.sched.Objects().Pod(c.Namespace, o.Name); err == nil && p.UID == o.UID {
				return false
			}
		case o.APIVersion == schedulingv1beta1.SchemeGroupVersion.String() && o.Kind == "PodGroup":
			if pg, err := e.sched.Objects().PodGroup(c.Namespace, o.Name); err == nil && pg.UID == o.UID {
				return false
			}
		default:
			return false
		}
	}
	return true
}
