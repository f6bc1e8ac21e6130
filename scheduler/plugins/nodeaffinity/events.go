package nodeaffinity

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a node added or relabelled.
func (pl *NodeAffinity) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
	}, nil
}

// Queue when the new node matches addedAffinity and the pod's required
// affinity, and (for an update) the old one did not. Parse errors queue.
func (pl *NodeAffinity) isSchedulableAfterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		return framework.Queue, errors.New("no added or updated node in the event")
	}
	if pl.addedNodeSelector != nil && !pl.addedNodeSelector.Match(modified) {
		return framework.QueueSkip, nil
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	matched, err := required.Match(modified)
	if err != nil {
		return framework.Queue, err
	}
	if !matched {
		return framework.QueueSkip, nil
	}
	if original == nil {
		return framework.Queue, nil
	}
	wasMatched, err := required.Match(original)
	if err != nil {
		return framework.Queue, err
	}
	if wasMatched {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
