package snapshot

// DeepCopy copies every object, so that two schedulers fed the same
// snapshot cannot see each other's writes.
func (c *Cluster) DeepCopy() *Cluster {
	if c == nil {
		return nil
	}
	return &Cluster{
		Nodes:                  deepCopyAll(c.Nodes),
		Pods:                   deepCopyAll(c.Pods),
		PriorityClasses:        deepCopyAll(c.PriorityClasses),
		PodDisruptionBudgets:   deepCopyAll(c.PodDisruptionBudgets),
		Namespaces:             deepCopyAll(c.Namespaces),
		PersistentVolumes:      deepCopyAll(c.PersistentVolumes),
		PersistentVolumeClaims: deepCopyAll(c.PersistentVolumeClaims),
		StorageClasses:         deepCopyAll(c.StorageClasses),
		CSINodes:               deepCopyAll(c.CSINodes),
		CSIDrivers:             deepCopyAll(c.CSIDrivers),
		CSIStorageCapacities:   deepCopyAll(c.CSIStorageCapacities),
		VolumeAttachments:      deepCopyAll(c.VolumeAttachments),
		Services:               deepCopyAll(c.Services),
		ReplicaSets:            deepCopyAll(c.ReplicaSets),
		StatefulSets:           deepCopyAll(c.StatefulSets),
		ReplicationControllers: deepCopyAll(c.ReplicationControllers),
		DaemonSets:             deepCopyAll(c.DaemonSets),
		RuntimeClasses:         deepCopyAll(c.RuntimeClasses),
		DeviceClasses:          deepCopyAll(c.DeviceClasses),
		ResourceSlices:         deepCopyAll(c.ResourceSlices),
		DeviceTaintRules:       deepCopyAll(c.DeviceTaintRules),
		ResourceClaimTemplates: deepCopyAll(c.ResourceClaimTemplates),
		Workloads:              deepCopyAll(c.Workloads),
		PodGroups:              deepCopyAll(c.PodGroups),
		CompositePodGroups:     deepCopyAll(c.CompositePodGroups),
		ResourceClaims:         deepCopyAll(c.ResourceClaims),
	}
}

func deepCopyAll[T interface{ DeepCopy() T }](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, o := range in {
		out[i] = o.DeepCopy()
	}
	return out
}
