package volumebinding

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: classes (allowed topologies), claims and PVs being
// created or changed, nodes joining or relabelled, CSINode migration
// annotations, CSIDriver capacity tracking and CSIStorageCapacity changes
// may each make the pod's volumes satisfiable.
func (pl *VolumeBinding) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterStorageClassChange},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterPersistentVolumeClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterCSINodeChange},
		{Event: framework.ClusterEvent{Resource: framework.CSIDriver, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterCSIDriverChange},
		{Event: framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterCSIStorageCapacityChange},
	}, nil
}

// isSchedulableAfterCSINodeChange queues for a new CSINode and for a
// change of its migrated-plugins annotation (which decides whether in-tree
// PVs are checked as CSI volumes).
func (pl *VolumeBinding) isSchedulableAfterCSINodeChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	if oldObj == nil {
		return framework.Queue, nil
	}
	oldNode, newNode, err := helper.As[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldNode == nil || newNode == nil {
		return framework.Queue, fmt.Errorf("unexpected objects: missing CSINode")
	}
	if oldNode.Annotations[v1.MigratedPluginsAnnotationKey] != newNode.Annotations[v1.MigratedPluginsAnnotationKey] {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterPersistentVolumeClaimChange queues when the claim is
// one of the pod's (directly or as a generic ephemeral volume).
func (pl *VolumeBinding) isSchedulableAfterPersistentVolumeClaimChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := helper.As[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if pvc == nil {
		return framework.Queue, fmt.Errorf("unexpected objects: missing claim")
	}
	if framework.PodUsesClaim(pod, pvc) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterStorageClassChange queues for a new class and for a
// change of allowed topologies (the binding mode is immutable).
func (pl *VolumeBinding) isSchedulableAfterStorageClassChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldSC, newSC, err := helper.As[*storagev1.StorageClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldSC == nil {
		return framework.Queue, nil
	}
	if newSC == nil {
		return framework.Queue, fmt.Errorf("unexpected objects: missing new StorageClass")
	}
	if !apiequality.Semantic.DeepEqual(newSC.AllowedTopologies, oldSC.AllowedTopologies) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCSIStorageCapacityChange queues for a new capacity and
// for a grown volume limit (maximumVolumeSize, else capacity).
func (pl *VolumeBinding) isSchedulableAfterCSIStorageCapacityChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldCap, newCap, err := helper.As[*storagev1.CSIStorageCapacity](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldCap == nil {
		return framework.Queue, nil
	}
	if newCap == nil {
		return framework.Queue, fmt.Errorf("unexpected objects: missing new CSIStorageCapacity")
	}
	oldLimit, newLimit := volumeLimit(oldCap), volumeLimit(newCap)
	if newLimit != nil && (oldLimit == nil || newLimit.Value() > oldLimit.Value()) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCSIDriverChange queues when a driver the pod uses
// inline stops tracking storage capacity.
func (pl *VolumeBinding) isSchedulableAfterCSIDriverChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldDriver, newDriver, err := helper.As[*storagev1.CSIDriver](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if oldDriver == nil || newDriver == nil {
		return framework.Queue, fmt.Errorf("unexpected objects: missing CSIDriver")
	}
	for _, vol := range pod.Spec.Volumes {
		if vol.CSI == nil || vol.CSI.Driver != newDriver.Name {
			continue
		}
		wasOn := oldDriver.Spec.StorageCapacity != nil && *oldDriver.Spec.StorageCapacity
		isOn := newDriver.Spec.StorageCapacity != nil && *newDriver.Spec.StorageCapacity
		if wasOn && !isOn {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
