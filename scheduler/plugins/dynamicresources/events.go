package dynamicresources

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// EventsToRegister lists upstream's events and hints.
func (pl *DynamicResources) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	if !pl.enabled {
		return nil, nil
	}
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, QueueingHintFn: pl.isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodGeneratedResourceClaim}, QueueingHintFn: pl.isSchedulableAfterTargetPodUpdate},
		{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add | framework.Update}},
	}, nil
}

// isSchedulableAfterClaimChange is upstream's hint, in its order: a
// deleted claim matters only if it was allocated; a pod whose claims still
// cannot all be found waits; a deallocation frees devices for anyone;
// otherwise only the pod's own claims matter, when created or when their
// status changed.
func (pl *DynamicResources) isSchedulableAfterClaimChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	var oldClaim, newClaim *resourcev1.ResourceClaim
	if oldObj != nil {
		c, ok := oldObj.(*resourcev1.ResourceClaim)
		if !ok {
			return framework.Queue, fmt.Errorf("unexpected object in isSchedulableAfterClaimChange: expected *ResourceClaim, but got %T", oldObj)
		}
		oldClaim = c
	}
	if newObj != nil {
		c, ok := newObj.(*resourcev1.ResourceClaim)
		if !ok {
			return framework.Queue, fmt.Errorf("unexpected object in isSchedulableAfterClaimChange: expected *ResourceClaim, but got %T", newObj)
		}
		newClaim = c
	}
	if newClaim == nil {
		if oldClaim == nil || oldClaim.Status.Allocation != nil {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	usesClaim := false
	if err := pl.foreachPodResourceClaim(pod, func(c *resourcev1.ResourceClaim) {
		if c.UID == newClaim.UID {
			usesClaim = true
		}
	}); err != nil {
		return framework.QueueSkip, nil
	}
	if oldClaim != nil && oldClaim.Status.Allocation != nil && newClaim.Status.Allocation == nil {
		return framework.Queue, nil
	}
	if !usesClaim {
		return framework.QueueSkip, nil
	}
	if oldClaim == nil {
		return framework.Queue, nil
	}
	if apiequality.Semantic.DeepEqual(&oldClaim.Status, &newClaim.Status) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// isSchedulableAfterTargetPodUpdate queues the pod once every claim it
// references can be found (its generated claims were recorded).
func (pl *DynamicResources) isSchedulableAfterTargetPodUpdate(_ *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	pod, ok := newObj.(*v1.Pod)
	if !ok || pod == nil {
		return framework.Queue, fmt.Errorf("unexpected object in isSchedulableAfterTargetPodUpdate: expected *v1.Pod, but got %T", newObj)
	}
	if err := pl.foreachPodResourceClaim(pod, nil); err != nil {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
