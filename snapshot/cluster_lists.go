package snapshot

// The cluster as lists of objects: every object, and every object but
// nodes and pods.

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// Objects returns every object of the cluster in the order Write writes
// them: the kinds other objects refer to first, then nodes and pods, each
// kind in the cluster's order.
func (c *Cluster) Objects() []runtime.Object {
	return c.appendObjects(nil, true)
}

// SchedulerObjects returns every object of the cluster other than nodes
// and pods, as the scheduler's object store takes them (it keeps the kinds
// plugins read and ignores the rest).
func (c *Cluster) SchedulerObjects() []any {
	objs := c.appendObjects(nil, false)
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// appendObjects appends the cluster's objects to out in Objects' order,
// the nodes and pods only when nodesAndPods is set.
func (c *Cluster) appendObjects(out []runtime.Object, nodesAndPods bool) []runtime.Object {
	add := func(n int, get func(int) runtime.Object) {
		for i := 0; i < n; i++ {
			out = append(out, get(i))
		}
	}
	nodes, pods := len(c.Nodes), len(c.Pods)
	if !nodesAndPods {
		nodes, pods = 0, 0
	}
	add(len(c.Namespaces), func(i int) runtime.Object { return c.Namespaces[i] })
	add(len(c.PriorityClasses), func(i int) runtime.Object { return c.PriorityClasses[i] })
	add(len(c.RuntimeClasses), func(i int) runtime.Object { return c.RuntimeClasses[i] })
	add(len(c.StorageClasses), func(i int) runtime.Object { return c.StorageClasses[i] })
	add(len(c.CSIDrivers), func(i int) runtime.Object { return c.CSIDrivers[i] })
	add(nodes, func(i int) runtime.Object { return c.Nodes[i] })
	add(len(c.CSINodes), func(i int) runtime.Object { return c.CSINodes[i] })
	add(len(c.CSIStorageCapacities), func(i int) runtime.Object { return c.CSIStorageCapacities[i] })
	add(len(c.PersistentVolumes), func(i int) runtime.Object { return c.PersistentVolumes[i] })
	add(len(c.PersistentVolumeClaims), func(i int) runtime.Object { return c.PersistentVolumeClaims[i] })
	add(len(c.VolumeAttachments), func(i int) runtime.Object { return c.VolumeAttachments[i] })
	add(len(c.Services), func(i int) runtime.Object { return c.Services[i] })
	add(len(c.ReplicationControllers), func(i int) runtime.Object { return c.ReplicationControllers[i] })
	add(len(c.ReplicaSets), func(i int) runtime.Object { return c.ReplicaSets[i] })
	add(len(c.StatefulSets), func(i int) runtime.Object { return c.StatefulSets[i] })
	add(len(c.DaemonSets), func(i int) runtime.Object { return c.DaemonSets[i] })
	add(len(c.PodDisruptionBudgets), func(i int) runtime.Object { return c.PodDisruptionBudgets[i] })
	add(len(c.DeviceClasses), func(i int) runtime.Object { return c.DeviceClasses[i] })
	add(len(c.ResourceSlices), func(i int) runtime.Object { return c.ResourceSlices[i] })
	add(len(c.DeviceTaintRules), func(i int) runtime.Object { return c.DeviceTaintRules[i] })
	add(len(c.ResourceClaimTemplates), func(i int) runtime.Object { return c.ResourceClaimTemplates[i] })
	add(len(c.ResourceClaims), func(i int) runtime.Object { return c.ResourceClaims[i] })
	add(len(c.Workloads), func(i int) runtime.Object { return c.Workloads[i] })
	add(len(c.CompositePodGroups), func(i int) runtime.Object { return c.CompositePodGroups[i] })
	add(len(c.PodGroups), func(i int) runtime.Object { return c.PodGroups[i] })
	add(pods, func(i int) runtime.Object { return c.Pods[i] })
	return out
}
