package dynamicresources

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// EventsToRegister lists upstream's events so that the queue's notion of
// "events of interest" matches upstream's, even though schedtui never
// produces the resource.k8s.io ones.
func (pl *DynamicResources) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, QueueingHintFn: pl.isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodGeneratedResourceClaim}, QueueingHintFn: pl.isSchedulableAfterTargetPodUpdate},
		{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add | framework.Update}},
	}, nil
}

// Claims are not modelled, so there is nothing to compare: queue, which is
// what upstream does whenever it cannot tell.
func (pl *DynamicResources) isSchedulableAfterClaimChange(_ *v1.Pod, _, _ any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}

// Upstream queues when every claim of the updated pod can be looked up.
// No claim ever exists in schedtui, so that holds only for a pod without
// claims.
func (pl *DynamicResources) isSchedulableAfterTargetPodUpdate(_ *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	pod, ok := newObj.(*v1.Pod)
	if !ok || pod == nil {
		return framework.Queue, fmt.Errorf("unexpected object in isSchedulableAfterTargetPodUpdate: expected *v1.Pod, but got %T", newObj)
	}
	if hasClaims(pod) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
