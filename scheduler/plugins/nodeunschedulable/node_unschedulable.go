// Package nodeunschedulable is upstream's NodeUnschedulable plugin: nodes
// with spec.unschedulable reject pods that do not tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
package nodeunschedulable

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.NodeUnschedulable
	// ErrReasonUnknownCondition is kept because upstream still exports it,
	// though 1.37 never returns it.
	ErrReasonUnknownCondition = "node(s) had unknown conditions"
	// ErrReasonUnschedulable is upstream's Filter reason.
	ErrReasonUnschedulable = "node(s) were unschedulable"
)

// The toleration helpers only log when comparison operators are on; the
// zero logger discards.
var noLog klog.Logger

// unschedulableTaint is the taint a cordoned node is treated as having.
var unschedulableTaint = &v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}

// NodeUnschedulable filters cordoned nodes.
type NodeUnschedulable struct {
	// comparisonOperators is the TaintTolerationComparisonOperators gate
	// (alpha, off by default in 1.37): off, Lt/Gt tolerations tolerate
	// nothing.
	comparisonOperators bool
}

var (
	_ framework.PreFilterPlugin   = &NodeUnschedulable{}
	_ framework.FilterPlugin      = &NodeUnschedulable{}
	_ framework.EnqueueExtensions = &NodeUnschedulable{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &NodeUnschedulable{comparisonOperators: h.Features().EnableTaintTolerationComparisonOperators}, nil
}

// Name returns the plugin's name.
func (pl *NodeUnschedulable) Name() string { return Name }

// EventsToRegister: a node added or uncordoned, or the pod gaining the
// toleration. Uncordoning arrives as UpdateNodeTaint because the node
// controller removes the unschedulable taint along with the flag.
func (pl *NodeUnschedulable) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration}, QueueingHintFn: pl.isSchedulableAfterTargetPodTolerationChange},
	}, nil
}

// A rejected pod lacks the toleration (tolerations can only be added), so
// only the new pod needs checking.
func (pl *NodeUnschedulable) isSchedulableAfterTargetPodTolerationChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		return framework.Queue, errors.New("no updated pod in the event")
	}
	if corev1helpers.TolerationsTolerateTaint(noLog, modified.Spec.Tolerations, unschedulableTaint, pl.comparisonOperators) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// Queue only for a node that became schedulable or was added schedulable.
func (pl *NodeUnschedulable) isSchedulableAfterNodeChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		return framework.Queue, errors.New("no added or updated node in the event")
	}
	if (original != nil && original.Spec.Unschedulable && !modified.Spec.Unschedulable) ||
		(original == nil && !modified.Spec.Unschedulable) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// PreFilter exists because upstream has one; it only Skips deferred-resize
// pods when the alpha InPlacePodVerticalScalingSchedulerPreemption gate is
// on, which it is not in 1.37, so it never does anything.
func (pl *NodeUnschedulable) PreFilter(_ context.Context, _ *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// PreFilterExtensions: no state to maintain.
func (pl *NodeUnschedulable) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a cordoned node unless the pod tolerates the
// unschedulable taint (the taint itself need not be on the node).
func (pl *NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	if !node.Spec.Unschedulable {
		return nil
	}
	if !corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, unschedulableTaint, pl.comparisonOperators) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
	}
	return nil
}

// NodeLocal: Filter reads the pod's tolerations and the node's
// spec.unschedulable.
func (pl *NodeUnschedulable) NodeLocal() bool { return true }
