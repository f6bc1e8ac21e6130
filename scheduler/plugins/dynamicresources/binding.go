package dynamicresources

// Devices' binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus).
//
// Simulated: an allocated claim whose device reports a binding failure is
// unusable on every node (Filter), so PostFilter deallocates it, as
// upstream. Not simulated: PreBind's wait for the conditions (the pod
// would stay assumed on its node, its binding cycle pending, until the
// claim's status changes or bindingTimeout passes) and, with it, Filter's
// check of a claim past its binding timeout: both need a binding cycle
// that outlives its attempt, which the scheduler does not have
// (scheduler/schedule_one.go: bindingCycle runs to its end at once).

import (
	resourcev1 "k8s.io/api/resource/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bindingFailed is the failure of upstream's isClaimReadyForBinding: in
// result order, devices without binding conditions are skipped, the first
// one with conditions but no status ends the check (not ready, no
// failure), and a failure condition that is True on a device's status is
// a failure.
func bindingFailed(claim *resourcev1.ResourceClaim) bool {
	if claim.Status.Allocation == nil {
		return false
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if len(r.BindingConditions) == 0 {
			continue
		}
		status := deviceStatus(claim, &r)
		if status == nil {
			return false
		}
		for _, cond := range r.BindingFailureConditions {
			if c := apimeta.FindStatusCondition(status.Conditions, cond); c != nil && c.Status == metav1.ConditionTrue {
				return true
			}
		}
		for _, cond := range r.BindingConditions {
			if !apimeta.IsStatusConditionTrue(status.Conditions, cond) {
				return false
			}
		}
	}
	return false
}

// deviceStatus is the claim's status of the result's device (by driver,
// pool and device, as upstream: share IDs are not compared).
func deviceStatus(claim *resourcev1.ResourceClaim, r *resourcev1.DeviceRequestAllocationResult) *resourcev1.AllocatedDeviceStatus {
	for i := range claim.Status.Devices {
		d := &claim.Status.Devices[i]
		if d.Driver == r.Driver && d.Pool == r.Pool && d.Device == r.Device {
			return d
		}
	}
	return nil
}
