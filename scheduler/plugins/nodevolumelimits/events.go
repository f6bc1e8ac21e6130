package nodevolumelimits

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

// EventsToRegister: a new CSINode or a raised limit, a deleted pod or
// VolumeAttachment freeing a slot, or the pod's claim being created may
// make the pod fit. Any new CSINode may, so CSINode/Add has no hint.
func (pl *CSILimits) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add}},
		{Event: framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterCSINodeUpdated},
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, QueueingHintFn: pl.isSchedulableAfterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPVCAdded},
		{Event: framework.ClusterEvent{Resource: framework.VolumeAttachment, ActionType: framework.Delete}, QueueingHintFn: pl.isSchedulableAfterVolumeAttachmentDeleted},
	}, nil
}

// isSchedulableAfterAssignedPodDeleted queues when the deleted pod was on
// (or nominated to) a node and had a volume that could count.
func (pl *CSILimits) isSchedulableAfterAssignedPodDeleted(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterAssignedPodDeleted: %w", err)
	}
	if deleted == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterAssignedPodDeleted: no pod")
	}
	if len(deleted.Spec.Volumes) == 0 {
		return framework.QueueSkip, nil
	}
	if deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	for i := range deleted.Spec.Volumes {
		vol := &deleted.Spec.Volumes[i]
		if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil || csimigration.IsInlineMigratable(vol) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterPVCAdded queues when the claim is one the pod uses,
// directly or as a generic ephemeral volume.
func (pl *CSILimits) isSchedulableAfterPVCAdded(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := helper.As[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPVCAdded: %w", err)
	}
	if pvc == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPVCAdded: no claim")
	}
	if framework.PodUsesClaim(pod, pvc) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterVolumeAttachmentDeleted queues when the pod has any
// claim (the attachment may have been one of its driver's), or an inline
// migratable volume whose CSI driver is the attachment's attacher.
// Generic ephemeral volumes are not considered, as upstream.
func (pl *CSILimits) isSchedulableAfterVolumeAttachmentDeleted(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	va, _, err := helper.As[*storagev1.VolumeAttachment](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterVolumeAttachmentDeleted: %w", err)
	}
	if va == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterVolumeAttachmentDeleted: no attachment")
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.PersistentVolumeClaim != nil {
			return framework.Queue, nil
		}
		if !csimigration.IsInlineMigratable(vol) {
			continue
		}
		src, err := csimigration.TranslateInTreeInlineVolumeToCSI(vol, pod.Namespace)
		if err != nil || src == nil {
			return framework.Queue, fmt.Errorf("converting volume(%s) from inline to csi: %w", vol.Name, err)
		}
		if va.Spec.Attacher == src.Driver {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterCSINodeUpdated queues when some driver's limit grew
// (a driver without a count has limit 0 here).
func (pl *CSILimits) isSchedulableAfterCSINodeUpdated(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := helper.As[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterCSINodeUpdated: %w", err)
	}
	if oldNode == nil || newNode == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterCSINodeUpdated: missing CSINode")
	}
	oldLimits := map[string]int32{}
	for _, d := range oldNode.Spec.Drivers {
		oldLimits[d.Name] = driverCount(d)
	}
	for _, d := range newNode.Spec.Drivers {
		if driverCount(d) > oldLimits[d.Name] {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

func driverCount(d storagev1.CSINodeDriver) int32 {
	if d.Allocatable != nil && d.Allocatable.Count != nil {
		return *d.Allocatable.Count
	}
	return 0
}
