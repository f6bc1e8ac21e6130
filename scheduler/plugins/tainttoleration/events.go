package tainttoleration

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
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
	original, modified, err := as[*v1.Node](oldObj, newObj)
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

// as converts a hint's objects like upstream's util.As: nil stays the zero
// value, anything of another type is an error (which queues the pod).
func as[T any](oldObj, newObj any) (T, T, error) {
	var o, n T
	var ok bool
	if newObj != nil {
		if n, ok = newObj.(T); !ok {
			return o, n, fmt.Errorf("expected %T, but got %T", n, newObj)
		}
	}
	if oldObj != nil {
		if o, ok = oldObj.(T); !ok {
			return o, n, fmt.Errorf("expected %T, but got %T", o, oldObj)
		}
	}
	return o, n, nil
}
