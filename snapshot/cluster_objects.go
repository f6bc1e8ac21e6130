package snapshot

// SchedulerObjects returns every object of the cluster other than nodes
// and pods, as the scheduler's object store takes them.
func (c *Cluster) SchedulerObjects() []any {
	var out []any
	add := func(n int, get func(int) any) {
		for i := 0; i < n; i++ {
			out = append(out, get(i))
		}
	}
	add(len(c.PodDisruptionBudgets), func(i int) any { return c.PodDisruptionBudgets[i] })
	add(len(c.Namespaces), func(i int) any { return c.Namespaces[i] })
	add(len(c.PersistentVolumes), func(i int) any { return c.PersistentVolumes[i] })
	add(len(c.PersistentVolumeClaims), func(i int) any { return c.PersistentVolumeClaims[i] })
	add(len(c.StorageClasses), func(i int) any { return c.StorageClasses[i] })
	add(len(c.CSINodes), func(i int) any { return c.CSINodes[i] })
	add(len(c.CSIDrivers), func(i int) any { return c.CSIDrivers[i] })
	add(len(c.CSIStorageCapacities), func(i int) any { return c.CSIStorageCapacities[i] })
	add(len(c.VolumeAttachments), func(i int) any { return c.VolumeAttachments[i] })
	add(len(c.Services), func(i int) any { return c.Services[i] })
	add(len(c.ReplicaSets), func(i int) any { return c.ReplicaSets[i] })
	add(len(c.StatefulSets), func(i int) any { return c.StatefulSets[i] })
	add(len(c.ReplicationControllers), func(i int) any { return c.ReplicationControllers[i] })
	return out
}
