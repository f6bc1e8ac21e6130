package dynamicresources

// Devices' binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus), as upstream:
//
//   - Filter: an allocated claim whose device reports a binding failure,
//     or that is not ready and was allocated longer ago than
//     bindingTimeout, is unusable on every node, so PostFilter deallocates
//     it.
//   - PreBind: once the claims are written, a pod with a device that has
//     binding conditions waits for them. Upstream blocks its binding
//     goroutine in a poll (every bindingPollInterval, at most
//     bindingTimeout); here PreBind checks once (the poll's immediate
//     check) and, if still waiting, returns Wait: the scheduler parks the
//     binding cycle with the pod assumed (scheduler/schedule_one.go) and
//     the engine polls at the same instants (scheduler/engine/binding_wait.go)
//     through PollBindingWait. All conditions True: the binding goes on;
//     a failure condition True, or a claim not ready past its timeout:
//     PreBind's error; the wait's own timeout: "device binding timeout:
//     context deadline exceeded".

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// bindingPollInterval is the interval of upstream's PreBind poll.
const bindingPollInterval = 5 * time.Second

// Upstream's errors: their texts begin PreBind's error messages.
var (
	ErrDeviceBindingTimeout = errors.New("device binding timeout")
	ErrDeviceBindingFailed  = errors.New("device binding failed")
)

// bindingWaitMessage is PreBind's Wait message: upstream's
// BindingConditionsPending event.
func bindingWaitMessage(node string) string {
	return fmt.Sprintf("waiting for binding conditions for device on node %s", node)
}

// claimReadyForBinding is upstream's isClaimReadyForBinding: in result
// order, devices without binding conditions are skipped, the first one
// with conditions but no status ends the check (not ready), a failure
// condition True on a device's status is an error, and a condition not
// True ends the check (not ready).
func claimReadyForBinding(claim *resourcev1.ResourceClaim) (bool, error) {
	if claim.Status.Allocation == nil {
		return false, nil
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if len(r.BindingConditions) == 0 {
			continue
		}
		status := deviceStatus(claim, &r)
		if status == nil {
			return false, nil
		}
		for _, cond := range r.BindingFailureConditions {
			if c := apimeta.FindStatusCondition(status.Conditions, cond); c != nil && c.Status == metav1.ConditionTrue {
				return false, fmt.Errorf("%w: claim=%s, reason=%s, message=%q", ErrDeviceBindingFailed, claim.Name, c.Reason, c.Message)
			}
		}
		for _, cond := range r.BindingConditions {
			if !apimeta.IsStatusConditionTrue(status.Conditions, cond) {
				return false, nil
			}
		}
	}
	return true, nil
}

// claimTimedOut is upstream's isClaimTimeout: a device of the claim has
// binding conditions and the allocation is older than the binding
// timeout.
func (pl *DynamicResources) claimTimedOut(claim *resourcev1.ResourceClaim) bool {
	a := claim.Status.Allocation
	if a == nil || a.AllocationTimestamp == nil {
		return false
	}
	for _, r := range a.Devices.Results {
		if r.BindingConditions != nil && a.AllocationTimestamp.Add(pl.bindingTimeout).Before(pl.h.Now()) {
			return true
		}
	}
	return false
}

// unusableForBinding is Filter's check of an allocated claim: its binding
// failed, or it is not ready and timed out.
func (pl *DynamicResources) unusableForBinding(claim *resourcev1.ResourceClaim) bool {
	ready, err := claimReadyForBinding(claim)
	return err != nil || !ready && pl.claimTimedOut(claim)
}

// hasBindingConditions: a device allocated to one of the claims has
// binding conditions.
func hasBindingConditions(claims []*resourcev1.ResourceClaim) bool {
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if len(r.BindingConditions) > 0 {
				return true
			}
		}
	}
	return false
}

// podReadyForBinding is upstream's isPodReadyForBinding: the first claim
// not ready ends the check, with the timeout error if it timed out. With
// refresh the claims are first read again from the store (a poll); PreBind's
// own check reads those it just wrote, which the scheduler stores after
// PreBind.
func (pl *DynamicResources) podReadyForBinding(s *stateData, refresh bool) (bool, error) {
	for i, cur := range s.claims {
		if refresh {
			c, err := pl.h.Objects().ResourceClaim(cur.Namespace, cur.Name)
			if err != nil {
				return false, err
			}
			s.claims[i], cur = c, c
		}
		ready, err := claimReadyForBinding(cur)
		if err != nil {
			return false, err
		}
		if !ready {
			if pl.claimTimedOut(cur) {
				return false, fmt.Errorf("%w: claim=%s", ErrDeviceBindingTimeout, cur.Name)
			}
			return false, nil
		}
	}
	return true, nil
}

// BindingWait is upstream's poll: every bindingPollInterval, for
// bindingTimeout at most.
func (pl *DynamicResources) BindingWait() (interval, timeout time.Duration) {
	return bindingPollInterval, pl.bindingTimeout
}

// PollBindingWait is one poll of PreBind's wait (framework.PreBindWaiterPlugin).
func (pl *DynamicResources) PollBindingWait(_ context.Context, cs *framework.CycleState, _ *v1.Pod, expired bool) (bool, *framework.Status) {
	if expired {
		return true, framework.AsStatus(fmt.Errorf("%w: %w", ErrDeviceBindingTimeout, context.DeadlineExceeded))
	}
	s, err := getStateData(cs)
	if err != nil {
		return true, framework.AsStatus(err)
	}
	ready, err := pl.podReadyForBinding(s, true)
	if err != nil {
		return true, framework.AsStatus(err)
	}
	return ready, nil
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
