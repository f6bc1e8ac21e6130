package framework

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// ActionType is a bit set of what happened to an object (upstream's values).
type ActionType int64

const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeAnnotation
	UpdateNodeDeclaredFeature
	UpdateNodePreemptionPolicy
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodScaleUp
	UpdatePodToleration
	UpdatePodSchedulingGatesEliminated
	UpdatePodGeneratedResourceClaim

	All ActionType = 1<<iota - 1

	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition |
		UpdateNodeAnnotation | UpdateNodeDeclaredFeature | UpdateNodePreemptionPolicy | UpdatePodLabel |
		UpdatePodScaleDown | UpdatePodScaleUp | UpdatePodToleration | UpdatePodSchedulingGatesEliminated |
		UpdatePodGeneratedResourceClaim

	None ActionType = 0
)

var actionNames = map[ActionType]string{
	Add: "Add", Delete: "Delete", UpdateNodeAllocatable: "UpdateNodeAllocatable",
	UpdateNodeLabel: "UpdateNodeLabel", UpdateNodeTaint: "UpdateNodeTaint",
	UpdateNodeCondition: "UpdateNodeCondition", UpdateNodeAnnotation: "UpdateNodeAnnotation",
	UpdateNodeDeclaredFeature: "UpdateNodeDeclaredFeature", UpdateNodePreemptionPolicy: "UpdateNodePreemptionPolicy",
	UpdatePodLabel: "UpdatePodLabel", UpdatePodScaleDown: "UpdatePodScaleDown", UpdatePodScaleUp: "UpdatePodScaleUp",
	UpdatePodToleration: "UpdatePodToleration", UpdatePodSchedulingGatesEliminated: "UpdatePodSchedulingGatesEliminated",
	UpdatePodGeneratedResourceClaim: "UpdatePodGeneratedResourceClaim", All: "All", Update: "Update",
}

func (a ActionType) String() string { return actionNames[a] }

// EventResource names the kind of object an event is about.
type EventResource string

const (
	// Pod matches AssignedPod, UnscheduledPod and TargetPod when registered.
	Pod EventResource = "Pod"
	// AssignedPod is a pod bound (or assumed) to a node.
	AssignedPod EventResource = "AssignedPod"
	// UnscheduledPod is a pending pod other than the one being requeued.
	UnscheduledPod EventResource = "UnscheduledPod"
	// TargetPod is the pending pod whose requeueing is being decided.
	TargetPod             EventResource = "TargetPod"
	Node                  EventResource = "Node"
	PersistentVolume      EventResource = "PersistentVolume"
	PersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	CSINode               EventResource = "storage.k8s.io/CSINode"
	CSIDriver             EventResource = "storage.k8s.io/CSIDriver"
	VolumeAttachment      EventResource = "storage.k8s.io/VolumeAttachment"
	CSIStorageCapacity    EventResource = "storage.k8s.io/CSIStorageCapacity"
	StorageClass          EventResource = "storage.k8s.io/StorageClass"
	ResourceClaim         EventResource = "resource.k8s.io/ResourceClaim"
	ResourceSlice         EventResource = "resource.k8s.io/ResourceSlice"
	DeviceClass           EventResource = "resource.k8s.io/DeviceClass"
	PodGroup              EventResource = "scheduling.k8s.io/PodGroup"
	CompositePodGroup     EventResource = "scheduling.k8s.io/CompositePodGroup"
	WildCard              EventResource = "*"
)

// ClusterEvent is something that happened in the cluster.
type ClusterEvent struct {
	Resource    EventResource
	ActionType  ActionType
	CustomLabel string
}

// Label names the event in logs and the timeline (e.g. "NodeAdd").
func (ce ClusterEvent) Label() string {
	if ce.CustomLabel != "" {
		return ce.CustomLabel
	}
	return fmt.Sprintf("%v%v", ce.Resource, ce.ActionType)
}

// QueueingHint is a plugin's verdict on whether an event may make a pod
// it rejected schedulable.
type QueueingHint int

const (
	QueueSkip QueueingHint = iota
	Queue
)

func (h QueueingHint) String() string {
	if h == Queue {
		return "Queue"
	}
	return "QueueSkip"
}

// QueueingHintFn decides, for a pod the plugin rejected, whether the event
// (old and new object; either may be nil) is worth a retry. An error is
// treated as Queue.
type QueueingHintFn func(pod *v1.Pod, oldObj, newObj any) (QueueingHint, error)

// ClusterEventWithHint is an event a plugin registers, with its hint (nil
// means always Queue).
type ClusterEventWithHint struct {
	Event          ClusterEvent
	QueueingHintFn QueueingHintFn
}

// EnqueueExtensions is implemented by plugins that register the events
// which may make pods they rejected schedulable.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister(ctx context.Context) ([]ClusterEventWithHint, error)
}
