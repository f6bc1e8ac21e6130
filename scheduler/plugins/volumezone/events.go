package volumezone

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a new WaitForFirstConsumer class, a node joining or
// relabelled, the pod's claim appearing or getting bound, or a PV's
// labels changing may each make the pod schedulable. volumeBindingMode is
// immutable, so StorageClass updates are not registered.
func (pl *VolumeZone) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterStorageClassAdded},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterPersistentVolumeClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update}, QueueingHintFn: pl.isSchedulableAfterPersistentVolumeChange},
	}, nil
}

// isSchedulableAfterPersistentVolumeClaimChange queues when the claim is
// one of the pod's (same namespace).
func (pl *VolumeZone) isSchedulableAfterPersistentVolumeClaimChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := helper.As[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: %w", err)
	}
	if pvc == nil || pvc.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, name := range claimNames(pod) {
		if name == pvc.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterStorageClassAdded queues only for a class with
// WaitForFirstConsumer binding: only such a class turns an unbound claim
// from an error into one the plugin ignores.
func (pl *VolumeZone) isSchedulableAfterStorageClassAdded(_ *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	_, sc, err := helper.As[*storagev1.StorageClass](nil, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterStorageClassAdded: %w", err)
	}
	if sc == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterStorageClassAdded: no class")
	}
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// isSchedulableAfterPersistentVolumeChange queues for a new PV, and for an
// update that changes the PV's zone/region constraints.
func (pl *VolumeZone) isSchedulableAfterPersistentVolumeChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPV, newPV, err := helper.As[*v1.PersistentVolume](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPersistentVolumeChange: %w", err)
	}
	if oldPV == nil {
		return framework.Queue, nil
	}
	if newPV == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPersistentVolumeChange: no new PV")
	}
	if !equalTopologies(getPVTopologies(oldPV), getPVTopologies(newPV)) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
