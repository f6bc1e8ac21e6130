package upstream

// The resourceclaim controller and the garbage collector, which release a
// deleted pod's claims in a real cluster (kube-controller-manager). The
// controller is upstream's own (k8s.io/kubernetes/pkg/controller/
// resourceclaim), running in process against the fake API server; the
// garbage collector, which needs discovery and a metadata client the fake
// API server lacks, is played here as it behaves for a claim: a claim
// whose every owner is a pod that no longer exists is deleted.

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// startClaimController starts upstream's resourceclaim controller over
// the harness's informers (starting those the scheduler does not use).
//
// With DRAWorkloadResourceClaims the controller gets informers of its
// own, started once it is built, as kube-controller-manager starts them:
// its constructor registers the claim informer's handler before it sets up
// the PodGroup index that handler reads, so the scheduler's claim
// informer, already running, would call the handler too early (a nil
// dereference in enqueueResourceClaim).
func (h *harness) startClaimController() error {
	factory := h.factory
	if utilfeature.DefaultFeatureGate.Enabled(kubefeatures.DRAWorkloadResourceClaims) {
		factory = informers.NewSharedInformerFactory(h.api.client, 0)
		h.claimFactory = factory
	}
	ctrl, err := resourceclaim.NewController(h.logger, h.api.client,
		factory.Core().V1().Pods(),
		factory.Scheduling().V1beta1().PodGroups(),
		factory.Resource().V1().ResourceClaims(),
		factory.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		return fmt.Errorf("upstream: creating the resourceclaim controller: %w", err)
	}
	h.factory.Start(h.ctx.Done())
	if factory != h.factory {
		factory.Start(h.ctx.Done())
		factory.WaitForCacheSync(h.ctx.Done())
	}
	if err := h.fastSync(); err != nil {
		return err
	}
	go ctrl.Run(h.ctx, 1)
	return nil
}

// claimsReservedFor lists the claims reserved for pod, read before its
// deletion.
func (h *harness) claimsReservedFor(pod *v1.Pod) ([]string, error) {
	if len(pod.Spec.ResourceClaims) == 0 && pod.Status.ExtendedResourceClaimStatus == nil {
		return nil, nil
	}
	list, err := h.api.client.ResourceV1().ResourceClaims(pod.Namespace).List(h.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range list.Items {
		if reservedFor(&c, pod.UID) {
			out = append(out, c.Name)
		}
	}
	return out, nil
}

// releaseClaims waits, once victim has left the informer, for the
// resourceclaim controller to release the claims that were reserved for
// it, plays the garbage collector's deletion of the claims generated for
// it, and waits for the scheduler's claim cache to show the result, so
// that the next attempt sees what a real cluster lets it see milliseconds
// later.
//
// The controller is done with a claim once the victim is gone from its
// reservedFor and the claim is not between the controller's two writes
// (allocation cleared and reserved for nobody, finalizer not yet removed).
func (h *harness) releaseClaims(victim *v1.Pod, reserved []string) error {
	if len(victim.Spec.ResourceClaims) == 0 && victim.Status.ExtendedResourceClaimStatus == nil {
		return nil
	}
	ctx := h.ctx
	claims := h.api.client.ResourceV1().ResourceClaims(victim.Namespace)
	if err := h.poll("the resourceclaim controller to release the claims of "+victim.Namespace+"/"+victim.Name, func() bool {
		for _, name := range reserved {
			c, err := claims.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				return false
			}
			if reservedFor(c, victim.UID) || c.Status.Allocation == nil && len(c.Status.ReservedFor) == 0 &&
				slices.Contains(c.Finalizers, resourcev1.Finalizer) {
				return false
			}
		}
		return true
	}); err != nil {
		return err
	}
	list, err := claims.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range list.Items {
		if ownedOnlyBy(&c, victim.UID) {
			if err := h.deleteClaim(&c); err != nil {
				return fmt.Errorf("garbage collector: deleting claim %s/%s: %w", c.Namespace, c.Name, err)
			}
		}
	}
	return h.claimsSynced()
}

// deleteClaim deletes a claim as the API server does, which the fake one
// does not: a claim with finalizers is only marked (deletionTimestamp),
// and the resourceclaim controller, once nobody uses it, deallocates it
// and drops its finalizer, which removes it.
func (h *harness) deleteClaim(c *resourcev1.ResourceClaim) error {
	claims := h.api.client.ResourceV1().ResourceClaims(c.Namespace)
	if len(c.Finalizers) == 0 {
		if err := claims.Delete(h.ctx, c.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
	marked := c.DeepCopy()
	now := metav1.Now()
	marked.DeletionTimestamp = &now
	if _, err := claims.Update(h.ctx, marked, metav1.UpdateOptions{}); err != nil {
		return err
	}
	var unprotected *resourcev1.ResourceClaim
	if err := h.poll("the resourceclaim controller to process the deletion of claim "+c.Namespace+"/"+c.Name, func() bool {
		got, err := claims.Get(h.ctx, c.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		// Still used: the controller leaves it alone.
		if len(got.Status.ReservedFor) > 0 || len(got.Finalizers) == 0 {
			unprotected = got
			return true
		}
		return false
	}); err != nil {
		return err
	}
	if len(unprotected.Finalizers) == 0 {
		return h.deleteClaim(unprotected)
	}
	return nil
}

func reservedFor(c *resourcev1.ResourceClaim, uid types.UID) bool {
	return slices.ContainsFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool { return r.UID == uid })
}

// ownedOnlyBy: every owner of the claim is the pod uid, the garbage
// collector's rule for deleting a dependent once that owner is gone.
func ownedOnlyBy(c *resourcev1.ResourceClaim, uid types.UID) bool {
	if len(c.OwnerReferences) == 0 {
		return false
	}
	for _, o := range c.OwnerReferences {
		if o.UID != uid {
			return false
		}
	}
	return true
}

// claimsSynced waits for the scheduler's DRA state (shared by all
// profiles) to be the API server's: the slice tracker holds every
// ResourceSlice, the claim cache holds the claims as stored, and the
// allocated-device tracker counts exactly the devices they allocate.
func (h *harness) claimsSynced() error {
	for _, fw := range h.sched.Profiles {
		dra := fw.SharedDRAManager()
		if dra == nil {
			return nil
		}
		cache := dra.ResourceClaims()
		return h.poll("the scheduler's claim cache to catch up with the API server", func() bool {
			list, err := h.api.client.ResourceV1().ResourceClaims("").List(h.ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			want := map[structured.DeviceID]bool{}
			inAPI := map[string]bool{}
			for _, c := range list.Items {
				inAPI[c.Namespace+"/"+c.Name] = true
				got, err := cache.Get(c.Namespace, c.Name)
				if err != nil || got.ResourceVersion != c.ResourceVersion {
					return false
				}
				if a := c.Status.Allocation; a != nil {
					for _, r := range a.Devices.Results {
						// Devices allocated for admin access are not in use.
						if r.AdminAccess == nil || !*r.AdminAccess {
							want[structured.MakeDeviceID(r.Driver, r.Pool, r.Device)] = true
						}
					}
				}
			}
			slices, err := h.api.client.ResourceV1().ResourceSlices().List(h.ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			if tracked, err := dra.ResourceSlices().ListWithDeviceTaintRules(); err != nil || len(tracked) != len(slices.Items) {
				return false
			}
			cached, err := cache.List()
			if err != nil {
				return false
			}
			for _, c := range cached {
				if !inAPI[c.Namespace+"/"+c.Name] {
					return false
				}
			}
			devices, err := cache.ListAllAllocatedDevices()
			if err != nil || len(devices) != len(want) {
				return false
			}
			for d := range devices {
				if !want[d] {
					return false
				}
			}
			return true
		})
	}
	return nil
}

// victimStarted and victimDone bracket the deletion of a victim and the
// release of its claims (err if it failed).
func (h *harness) victimStarted() {
	h.releaseMu.Lock()
	defer h.releaseMu.Unlock()
	h.victimsInFlight++
}

func (h *harness) victimDone(err error) {
	h.releaseMu.Lock()
	defer h.releaseMu.Unlock()
	h.victimsInFlight--
	if h.releaseErr == nil {
		h.releaseErr = err
	}
}

// waitVictims waits, once the preemption no longer reports itself running,
// for the victims' deletion and the release of their claims to be over:
// the preemption stops reporting itself running as soon as its last victim
// has left the informer, before the resourceclaim controller has released
// that victim's claims.
func (h *harness) waitVictims() error {
	if err := h.poll("the victims' deletion and the release of their claims", func() bool {
		h.releaseMu.Lock()
		defer h.releaseMu.Unlock()
		return h.victimsInFlight == 0
	}); err != nil {
		return err
	}
	h.releaseMu.Lock()
	defer h.releaseMu.Unlock()
	err := h.releaseErr
	h.releaseErr = nil
	return err
}
