package podtopologyspread

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister lists what may make a pod this plugin rejected
// schedulable: matching pods appearing, leaving or relabelling; the pod
// itself gaining tolerations or labels; nodes coming, going, or changing
// their topology labels or taints.
func (pl *PodTopologySpread) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}, QueueingHintFn: pl.isSchedulableAfterAssignedPodChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration | framework.UpdatePodLabel}, QueueingHintFn: pl.isSchedulableAfterTargetPodChange},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
	}, nil
}

// getConstraints returns the hard constraints the Filter applies: the
// pod's own, else the DoNotSchedule defaults (none with System defaulting).
func (pl *PodTopologySpread) getConstraints(pod *v1.Pod) ([]topologySpreadConstraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		c, err := pl.filterTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, v1.DoNotSchedule)
		if err != nil {
			return nil, fmt.Errorf("obtaining pod's hard topology spread constraints: %w", err)
		}
		return c, nil
	}
	c, err := pl.buildDefaultConstraints(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, fmt.Errorf("setting default hard topology spread constraints: %w", err)
	}
	return c, nil
}

// involvedInTopologySpreading reports whether an (assigned or nominated)
// pod can be counted by podWithSpreading's constraints at all.
func involvedInTopologySpreading(incomingPod, podWithSpreading *v1.Pod) bool {
	if incomingPod.Spec.NodeName == "" && incomingPod.Status.NominatedNodeName == "" {
		return false
	}
	return incomingPod.Namespace == podWithSpreading.Namespace
}

func hasConstraintWithNodeTaintsPolicyHonor(constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
			return true
		}
	}
	return false
}

// isSchedulableAfterTargetPodChange: a new toleration only matters when
// some constraint honours taints; a label change only when it flips a
// selector's verdict on the pod.
func (pl *PodTopologySpread) isSchedulableAfterTargetPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if original == nil || modified == nil {
		return framework.Queue, fmt.Errorf("target pod update without both old and new pod")
	}
	constraints, err := pl.getConstraints(pod)
	if err != nil {
		return framework.Queue, err
	}
	if !equality.Semantic.DeepEqual(modified.Spec.Tolerations, original.Spec.Tolerations) && hasConstraintWithNodeTaintsPolicyHonor(constraints) {
		return framework.Queue, nil
	}
	return isSchedulableAfterPodLabelChange(original, modified, constraints), nil
}

// isSchedulableAfterAssignedPodChange: only pods in the same namespace that
// are bound or nominated can change counts, and only if a selector
// matches them (or stops/starts matching them).
func (pl *PodTopologySpread) isSchedulableAfterAssignedPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (modified != nil && !involvedInTopologySpreading(modified, pod)) || (original != nil && !involvedInTopologySpreading(original, pod)) {
		return framework.QueueSkip, nil
	}
	constraints, err := pl.getConstraints(pod)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case modified != nil && original != nil:
		return isSchedulableAfterPodLabelChange(original, modified, constraints), nil
	case modified != nil:
		if podLabelsMatchSpreadConstraints(constraints, modified.Labels) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case original != nil:
		if podLabelsMatchSpreadConstraints(constraints, original.Labels) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

func isSchedulableAfterPodLabelChange(original, modified *v1.Pod, constraints []topologySpreadConstraint) framework.QueueingHint {
	if equality.Semantic.DeepEqual(modified.Labels, original.Labels) {
		return framework.QueueSkip
	}
	for _, c := range constraints {
		if c.Selector.Matches(labels.Set(original.Labels)) != c.Selector.Matches(labels.Set(modified.Labels)) {
			return framework.Queue
		}
	}
	return framework.QueueSkip
}

// isSchedulableAfterNodeChange: a node matters if it carries every
// topology key (before or after), and for updates only if that changed or
// a key's value or the taints changed.
func (pl *PodTopologySpread) isSchedulableAfterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	constraints, err := pl.getConstraints(pod)
	if err != nil {
		return framework.Queue, err
	}
	var originalMatching, modifiedMatching bool
	if original != nil {
		originalMatching = nodeLabelsMatchSpreadConstraints(original.Labels, constraints)
	}
	if modified != nil {
		modifiedMatching = nodeLabelsMatchSpreadConstraints(modified.Labels, constraints)
	}
	switch {
	case original != nil && modified != nil:
		if originalMatching != modifiedMatching {
			return framework.Queue, nil
		}
		if modifiedMatching && (topologyKeyLabelsChanged(original.Labels, modified.Labels, constraints) || !equality.Semantic.DeepEqual(original.Spec.Taints, modified.Spec.Taints)) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case modified != nil:
		if modifiedMatching {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case originalMatching:
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func topologyKeyLabelsChanged(originalLabels, modifiedLabels map[string]string, constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if originalLabels[c.TopologyKey] != modifiedLabels[c.TopologyKey] {
			return true
		}
	}
	return false
}
