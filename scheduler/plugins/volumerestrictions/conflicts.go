package volumerestrictions

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// needsRestrictionsCheck: only these in-tree sources can conflict.
func needsRestrictionsCheck(v *v1.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.RBD != nil || v.ISCSI != nil
}

// satisfyVolumeConflicts reports whether none of the pod's restricted
// volumes conflicts with a volume of a pod already on the node.
func satisfyVolumeConflicts(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	if nodeInfo == nil {
		return true
	}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if !needsRestrictionsCheck(v) {
			continue
		}
		for _, existing := range nodeInfo.Pods {
			if existing != nil && existing.Pod != nil && isVolumeConflict(v, existing.Pod) {
				return false
			}
		}
	}
	return true
}

// isVolumeConflict applies each source's sharing rule against every volume
// of pod:
//   - GCE PD: same disk conflicts unless both mounts are read-only;
//   - AWS EBS: same volume ID always conflicts;
//   - iSCSI: same IQN conflicts unless both are read-only;
//   - RBD: an overlapping monitor, same pool and same image conflict
//     unless both are read-only.
func isVolumeConflict(volume *v1.Volume, pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		existing := &pod.Spec.Volumes[i]
		if d, e := volume.GCEPersistentDisk, existing.GCEPersistentDisk; d != nil && e != nil {
			if d.PDName == e.PDName && !(d.ReadOnly && e.ReadOnly) {
				return true
			}
		}
		if d, e := volume.AWSElasticBlockStore, existing.AWSElasticBlockStore; d != nil && e != nil {
			if d.VolumeID == e.VolumeID {
				return true
			}
		}
		if d, e := volume.ISCSI, existing.ISCSI; d != nil && e != nil {
			if d.IQN == e.IQN && !(d.ReadOnly && e.ReadOnly) {
				return true
			}
		}
		if d, e := volume.RBD, existing.RBD; d != nil && e != nil {
			if haveOverlap(d.CephMonitors, e.CephMonitors) && d.RBDPool == e.RBDPool &&
				d.RBDImage == e.RBDImage && !(d.ReadOnly && e.ReadOnly) {
				return true
			}
		}
	}
	return false
}

func haveOverlap(a1, a2 []string) bool {
	m := make(map[string]struct{}, len(a1))
	for _, v := range a1 {
		m[v] = struct{}{}
	}
	for _, v := range a2 {
		if _, ok := m[v]; ok {
			return true
		}
	}
	return false
}
