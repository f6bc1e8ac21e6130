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

// WithSchedulerState is the cluster as a scheduler held it at one moment
// (engine.AttemptState): its nodes, its pods, and objects, the objects of
// the kinds its store keeps, with c's PriorityClasses, RuntimeClasses and
// DaemonSets, which the scheduler does not read (admission and controllers
// do) and which loading the result needs. Objects are shared, not copied.
func (c *Cluster) WithSchedulerState(nodes []*v1.Node, pods []*v1.Pod, objects []any) *Cluster {
	out := &Cluster{Nodes: nodes, Pods: pods, PriorityClasses: c.PriorityClasses, RuntimeClasses: c.RuntimeClasses, DaemonSets: c.DaemonSets}
	for _, o := range objects {
		out.add(o)
	}
	return out
}

// add appends an object to its kind's list; other types are ignored.
func (c *Cluster) add(obj any) {
	switch o := obj.(type) {
	case *v1.Node:
		c.Nodes = append(c.Nodes, o)
	case *v1.Pod:
		c.Pods = append(c.Pods, o)
	case *schedulingv1.PriorityClass:
		c.PriorityClasses = append(c.PriorityClasses, o)
	case *policyv1.PodDisruptionBudget:
		c.PodDisruptionBudgets = append(c.PodDisruptionBudgets, o)
	case *v1.Namespace:
		c.Namespaces = append(c.Namespaces, o)
	case *v1.PersistentVolume:
		c.PersistentVolumes = append(c.PersistentVolumes, o)
	case *v1.PersistentVolumeClaim:
		c.PersistentVolumeClaims = append(c.PersistentVolumeClaims, o)
	case *storagev1.StorageClass:
		c.StorageClasses = append(c.StorageClasses, o)
	case *storagev1.CSINode:
		c.CSINodes = append(c.CSINodes, o)
	case *storagev1.CSIDriver:
		c.CSIDrivers = append(c.CSIDrivers, o)
	case *storagev1.CSIStorageCapacity:
		c.CSIStorageCapacities = append(c.CSIStorageCapacities, o)
	case *storagev1.VolumeAttachment:
		c.VolumeAttachments = append(c.VolumeAttachments, o)
	case *v1.Service:
		c.Services = append(c.Services, o)
	case *appsv1.ReplicaSet:
		c.ReplicaSets = append(c.ReplicaSets, o)
	case *appsv1.StatefulSet:
		c.StatefulSets = append(c.StatefulSets, o)
	case *v1.ReplicationController:
		c.ReplicationControllers = append(c.ReplicationControllers, o)
	case *appsv1.DaemonSet:
		c.DaemonSets = append(c.DaemonSets, o)
	case *nodev1.RuntimeClass:
		c.RuntimeClasses = append(c.RuntimeClasses, o)
	case *resourcev1.DeviceClass:
		c.DeviceClasses = append(c.DeviceClasses, o)
	case *resourcev1.ResourceSlice:
		c.ResourceSlices = append(c.ResourceSlices, o)
	case *resourcev1.DeviceTaintRule:
		c.DeviceTaintRules = append(c.DeviceTaintRules, o)
	case *resourcev1.ResourceClaimTemplate:
		c.ResourceClaimTemplates = append(c.ResourceClaimTemplates, o)
	case *resourcev1.ResourceClaim:
		c.ResourceClaims = append(c.ResourceClaims, o)
	case *schedulingv1beta1.Workload:
		c.Workloads = append(c.Workloads, o)
	case *schedulingv1beta1.PodGroup:
		c.PodGroups = append(c.PodGroups, o)
	case *schedulingv1alpha3.CompositePodGroup:
		c.CompositePodGroups = append(c.CompositePodGroups, o)
	}
}
