package volumerestrictions

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a deleted pod may release a disk or a ReadWriteOncePod
// claim; a new node may fit; a created claim may be the missing one.
// Volumes are immutable, so pod updates are not registered.
func (pl *VolumeRestrictions) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, QueueingHintFn: pl.isSchedulableAfterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
		{Event: framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPersistentVolumeClaimAdded},
	}, nil
}

// isSchedulableAfterPersistentVolumeClaimAdded queues when the new claim
// is one the pod references.
func (pl *VolumeRestrictions) isSchedulableAfterPersistentVolumeClaimAdded(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, pvc, err := helper.As[*v1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: %w", err)
	}
	if pvc == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: no claim")
	}
	if pvc.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil && vol.PersistentVolumeClaim.ClaimName == pvc.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterAssignedPodDeleted queues when the deleted pod (in the
// pod's namespace) held a conflicting disk or shared a claim with the pod.
// Claims are compared by name without checking their access mode, as
// upstream does to keep the hint cheap.
func (pl *VolumeRestrictions) isSchedulableAfterAssignedPodDeleted(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterAssignedPodDeleted: %w", err)
	}
	if deleted == nil {
		return framework.Queue, fmt.Errorf("unexpected objects in isSchedulableAfterAssignedPodDeleted: no pod")
	}
	if deleted.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; needsRestrictionsCheck(v) && isVolumeConflict(v, deleted) {
			return framework.Queue, nil
		}
	}
	claims := sets.New[string]()
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil {
			claims.Insert(vol.PersistentVolumeClaim.ClaimName)
		}
	}
	for _, vol := range deleted.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil && claims.Has(vol.PersistentVolumeClaim.ClaimName) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
