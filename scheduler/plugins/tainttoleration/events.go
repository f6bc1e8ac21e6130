package tainttoleration

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a node added or re-tainted, or the pod gaining a
// toleration.
func (pl *TaintToleration) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration}, QueueingHintFn: pl.isSchedulableAfterTargetPodTolerationChange},
	}, nil
}

// Queue only when the node went from having an untolerated
// NoSchedule/NoExecute taint to having none; an added node counts as
// having had one.
func (pl *TaintToleration) isSchedulableAfterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		return framework.Queue, errors.New("no added or updated node in the event")
	}
	wasUntolerated := true
	if original != nil {
		_, wasUntolerated = corev1helpers.FindMatchingUntoleratedTaint(noLog, original.Spec.Taints, pod.Spec.Tolerations, doNotSchedule, pl.comparisonOperators)
	}
	_, isUntolerated := corev1helpers.FindMatchingUntoleratedTaint(noLog, modified.Spec.Taints, pod.Spec.Tolerations, doNotSchedule, pl.comparisonOperators)
	if wasUntolerated && !isUntolerated {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// Upstream queues on any toleration change of the rejected pod without
// checking what was added.
func (pl *TaintToleration) isSchedulableAfterTargetPodTolerationChange(_ *v1.Pod, _, _ any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}
