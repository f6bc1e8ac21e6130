// Package snapshot reads, writes and captures the cluster state schedtui
// schedules against.
package snapshot

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
)

// Cluster is every object of a snapshot that scheduling reads, typed and
// defaulted as the API server would have stored it. Slices keep file order:
// node order matters to the scheduler's node tree, and pod order is the order
// in which pods were added to the scheduling queue.
type Cluster struct {
	Nodes []*v1.Node
	// Pods holds bound pods (spec.nodeName set) and pending ones alike.
	Pods                   []*v1.Pod
	PriorityClasses        []*schedulingv1.PriorityClass
	PodDisruptionBudgets   []*policyv1.PodDisruptionBudget
	Namespaces             []*v1.Namespace
	PersistentVolumes      []*v1.PersistentVolume
	PersistentVolumeClaims []*v1.PersistentVolumeClaim
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	CSIDrivers             []*storagev1.CSIDriver
	CSIStorageCapacities   []*storagev1.CSIStorageCapacity
	VolumeAttachments      []*storagev1.VolumeAttachment
	Services               []*v1.Service
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	ReplicationControllers []*v1.ReplicationController
	DaemonSets             []*appsv1.DaemonSet
	RuntimeClasses         []*nodev1.RuntimeClass
	// Dynamic resource allocation (resource.k8s.io/v1).
	DeviceClasses          []*resourcev1.DeviceClass
	ResourceSlices         []*resourcev1.ResourceSlice
	DeviceTaintRules       []*resourcev1.DeviceTaintRule
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	ResourceClaims         []*resourcev1.ResourceClaim
	// Workload-aware scheduling (scheduling.k8s.io; GenericWorkload).
	Workloads          []*schedulingv1beta1.Workload
	PodGroups          []*schedulingv1beta1.PodGroup
	CompositePodGroups []*schedulingv1alpha3.CompositePodGroup
}
