package noderesources

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister returns the events that can make room for a pod Fit
// rejected, in upstream's order: DeviceClass events only with
// DRAExtendedResource on, the scale-down events only with
// InPlacePodVerticalScaling on. The scale-up events of the alpha
// InPlacePodVerticalScalingSchedulerPreemption gate are never registered:
// a profile refuses that gate.
func (f *Fit) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	events := []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, QueueingHintFn: f.isSchedulableAfterAssignedPodDelete},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable}, QueueingHintFn: f.isSchedulableAfterNodeChange},
	}
	if f.dra != nil {
		events = append(events,
			framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}, QueueingHintFn: f.isSchedulableAfterDeviceClassEvent})
	}
	if f.gates.StatusResources {
		events = append(events,
			framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.UpdatePodScaleDown}, QueueingHintFn: f.isSchedulableAfterAssignedPodScaleDown},
			framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodScaleDown}, QueueingHintFn: f.isSchedulableAfterTargetPodScaleDown})
	}
	return events, nil
}

// isSchedulableAfterAssignedPodDelete: a deleted pod frees resources only
// if it held some on a node, bound or nominated (nominated pods are
// counted on their node during Filter).
func (f *Fit) isSchedulableAfterAssignedPodDelete(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil {
		return framework.Queue, fmt.Errorf("deleted pod is missing")
	}
	if deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// isSchedulableAfterTargetPodScaleDown: the rejected pod itself asking for
// less may be enough.
func (f *Fit) isSchedulableAfterTargetPodScaleDown(_ *v1.Pod, _, _ any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}

// isSchedulableAfterAssignedPodScaleDown queues only when a scheduled pod
// gave back some of a resource the rejected pod asks for.
func (f *Fit) isSchedulableAfterAssignedPodScaleDown(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if original == nil || modified == nil {
		return framework.Queue, fmt.Errorf("scaled-down pod is missing")
	}
	if !haveEnoughRelevantResourcesDecreased(pod, original, modified, f.gates) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// haveEnoughRelevantResourcesDecreased compares the scaled pod's requests
// (status resources and pod-level resizes included as their gates say)
// for each resource the target pod requests. As upstream, pod-level
// resources are read here whatever PodLevelResources says.
func haveEnoughRelevantResourcesDecreased(target, original, modified *v1.Pod, g framework.ResourceGates) bool {
	if modified.Spec.NodeName == "" {
		// An unscheduled pod holds nothing on any node.
		return false
	}
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: g.StatusResources, InPlacePodLevelResourcesVerticalScalingEnabled: g.PodLevelStatusResources}
	before, after := &framework.Resource{}, &framework.Resource{}
	setMaxResource(before, resourcehelper.PodRequests(original, opts))
	setMaxResource(after, resourcehelper.PodRequests(modified, opts))
	for name, q := range resourcehelper.PodRequests(target, opts) {
		if q.IsZero() {
			continue
		}
		switch name {
		case v1.ResourceCPU:
			if before.MilliCPU > after.MilliCPU {
				return true
			}
		case v1.ResourceMemory:
			if before.Memory > after.Memory {
				return true
			}
		case v1.ResourceEphemeralStorage:
			if before.EphemeralStorage > after.EphemeralStorage {
				return true
			}
		default:
			if framework.IsScalarResourceName(name) && before.ScalarResources[name] > after.ScalarResources[name] {
				return true
			}
		}
	}
	return false
}

// isSchedulableAfterNodeChange queues when the new or updated node could
// host the pod on its own (empty), and, for an update, when allocatable
// grew for something the pod needs: an update that changes nothing the
// pod cares about cannot be what it was waiting for.
func (f *Fit) isSchedulableAfterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if !isFit(pod, modified, f.gates.PodLevelResources, f.dra) {
		return framework.QueueSkip, nil
	}
	if original == nil {
		return framework.Queue, nil
	}
	if !haveAnyRequestedResourcesIncreased(pod, original, modified, f.gates.PodLevelResources, f.dra) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// isFit checks the pod against the node without any pods on it.
func isFit(pod *v1.Pod, node *v1.Node, podLevelResources bool, dra DeviceClassResolver) bool {
	if node == nil {
		return false
	}
	ni := framework.NewNodeInfo()
	ni.SetNode(node)
	return len(Fits(pod, ni, podLevelResources, dra)) == 0
}

// haveAnyRequestedResourcesIncreased: more pod slots always count, since
// every pod takes one; otherwise only resources the pod requests, and a
// requested resource the modified node would leave to DynamicResources.
func haveAnyRequestedResourcesIncreased(pod *v1.Pod, original, modified *v1.Node, podLevelResources bool, dra DeviceClassResolver) bool {
	req := computePodResourceRequest(pod, podLevelResources)
	before := framework.NewResource(original.Status.Allocatable)
	after := framework.NewResource(modified.Status.Allocatable)
	if after.AllowedPodNumber > before.AllowedPodNumber {
		return true
	}
	if requestsNothing(req) {
		return false
	}
	if (req.MilliCPU > 0 && after.MilliCPU > before.MilliCPU) ||
		(req.Memory > 0 && after.Memory > before.Memory) ||
		(req.EphemeralStorage > 0 && after.EphemeralStorage > before.EphemeralStorage) {
		return true
	}
	for name, q := range req.ScalarResources {
		if q == 0 {
			continue
		}
		if after.ScalarResources[name] > before.ScalarResources[name] {
			return true
		}
		if delegatedToDRA(name, &framework.NodeInfo{Allocatable: after}, dra) {
			return true
		}
	}
	return false
}

// isSchedulableAfterDeviceClassEvent: a DeviceClass can back an extended
// resource the pod requests, explicitly (spec.extendedResourceName) or
// implicitly (deviceclass.resource.kubernetes.io/<class name>).
func (f *Fit) isSchedulableAfterDeviceClassEvent(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := helper.As[*resourceapi.DeviceClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		return framework.Queue, fmt.Errorf("device class is missing")
	}
	if original != nil {
		if deref(original.Spec.ExtendedResourceName) == deref(modified.Spec.ExtendedResourceName) {
			return framework.QueueSkip, nil
		}
	} else {
		// The implicit name derives from the class name, which an update
		// cannot change, so only an add can newly match it.
		reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		if _, ok := reqs[v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+modified.Name)]; ok {
			return framework.Queue, nil
		}
	}
	if modified.Spec.ExtendedResourceName != nil {
		reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		if _, ok := reqs[v1.ResourceName(*modified.Spec.ExtendedResourceName)]; ok {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
