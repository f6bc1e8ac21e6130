package nodedeclaredfeatures

import (
	"context"
	"errors"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a node added or changing its declared features, or
// any update of the pod (Update is every update action); none with the
// gate off.
func (pl *NodeDeclaredFeatures) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	if !pl.enabled {
		return nil, nil
	}
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeDeclaredFeature}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterTargetPodUpdate},
	}, nil
}

// Queue when the pod's inferred requirements changed at all, in either
// direction; inference errors queue.
func (pl *NodeDeclaredFeatures) isSchedulableAfterTargetPodUpdate(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPod, newPod, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldPod == nil || newPod == nil {
		return framework.Queue, errors.New("pod update without old or new pod")
	}
	oldReqs, err := pl.requirements(oldPod)
	if err != nil {
		return framework.Queue, err
	}
	newReqs, err := pl.requirements(newPod)
	if err != nil {
		return framework.Queue, err
	}
	if newReqs.Equal(oldReqs) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// Queue for any added node, and for an update whose declared-feature list
// differs (compared as ordered slices, without regard to the pod).
func (pl *NodeDeclaredFeatures) isSchedulableAfterNodeChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if newNode == nil {
		return framework.Queue, errors.New("no added or updated node in the event")
	}
	if oldNode != nil && slices.Equal(oldNode.Status.DeclaredFeatures, newNode.Status.DeclaredFeatures) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
