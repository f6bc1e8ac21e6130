package scenario

// Curated scenarios about volumes: VolumeBinding, VolumeZone, CSI volume
// limits, storage capacity, ReadWriteOncePod claims.

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// curUnboundImmediatePVC: PreFilter U&U from VolumeBinding — no Filter runs,
// the FitError carries the PreFilter message, and PostFilter ends with
// DynamicResources' "not found" error.
func curUnboundImmediatePVC() *Scenario {
	b := curatedBase("prefilter-unbound-immediate-pvc")
	b.addCSIDriver(drvEBS, true, false, false)
	b.addStorageClass("standard", drvEBS, storagev1.VolumeBindingImmediate, true, nil)
	for i := 1; i <= 3; i++ {
		b.addNode(cnode(fmt.Sprintf("node-%d", i), "us-east-1a", 4000, 8*gi))
	}
	b.addPVC(pvcSpec{ns: "default", name: "data", class: "standard", size: 10 * gi, pending: true})
	p := newPod("default", "db", app("db"), ctr("db", "docker.io/library/postgres:17.4", "cpu=500m", "memory=1Gi"))
	p.Spec.Volumes = []v1.Volume{pvcVolume("data", "data")}
	b.pending(p)
	return b.done(`Expected: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found" — the PreFilter
chain stopped before DynamicResources, whose PostFilter then fails reading its cycle state (fwk.ErrNotFound): an Error
status ends the PostFilter chain, so DefaultPreemption never runs.`, FeatVBUnboundImmediate, "PreFilter/unresolvable")
}

// curVolumeZoneLabels: VolumeZone compares PV zone labels (GA or beta,
// "__"-separated multi-zone values) with node labels, translating beta keys.
func curVolumeZoneLabels() *Scenario {
	b := curatedBase("volume-zone-labels")
	b.addCSIDriver(drvEBS, true, false, false)
	b.addStorageClass(scGP3, drvEBS, storagev1.VolumeBindingWaitForFirstConsumer, true, nil)
	b.addNode(cnode("node-a", "us-east-1a", 4000, 8*gi))
	b.addNode(cnode("node-b", "us-east-1b", 4000, 8*gi))
	b.addNode(cnode("node-c", "us-east-1c", 4000, 8*gi))
	b.addNode(cnode("node-none", "", 4000, 8*gi))
	mk := func(pod, pv string, labels map[string]string) {
		b.addPV(pvSpec{name: pv, class: scGP3, size: 10 * gi, driver: drvEBS, dynamic: true, labels: labels})
		b.addPVC(pvcSpec{ns: "default", name: pv + "-claim", class: scGP3, size: 10 * gi, volume: pv})
		p := newPod("default", pod, app("v"), ctr("c", nginx, "cpu=100m"))
		p.Spec.Volumes = []v1.Volume{pvcVolume("data", pv+"-claim")}
		b.pending(p)
	}
	mk("ga-zone", "pv-ga", map[string]string{labelZone: "us-east-1a", labelRegion: "us-east-1"})
	mk("beta-zone", "pv-beta", map[string]string{labelBetaZone: "us-east-1b"})
	mk("multi-zone", "pv-multi", map[string]string{labelZone: "us-east-1a__us-east-1c"})
	return b.done(`ga-zone: node-a and node-none (no zone labels: always OK). beta-zone: node-b and node-none (beta key falls back
to the GA node label). multi-zone: node-a, node-c, node-none. Others: "node(s) had no available volume zone".`,
		FeatVolumeZone, FeatVolumeZoneBeta, FeatVolumeZoneMulti)
}

// curCSIVolumeLimits: CSINode allocatable counts, VolumeAttachments without
// pods, and a driver that opts in to preventPodSchedulingIfMissing.
func curCSIVolumeLimits() *Scenario {
	b := curatedBase("csi-volume-limits")
	b.addCSIDriver(drvEBS, true, false, false)
	b.addCSIDriver(drvDisk, true, false, true)
	b.addStorageClass(scGP3, drvEBS, storagev1.VolumeBindingWaitForFirstConsumer, true, nil)
	b.addStorageClass(scDisk, drvDisk, storagev1.VolumeBindingImmediate, false, nil)
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		b.addNode(cnode(n, "", 4000, 8*gi))
	}
	b.addCSINode("node-1", csiDriverEntry(drvEBS, "i-1", 2), csiDriverEntry(drvDisk, "node-1", 8))
	b.addCSINode("node-2", csiDriverEntry(drvEBS, "i-2", 2))
	// node-3 has no CSINode at all
	pv := func(name, drv, class string) {
		b.addPV(pvSpec{name: name, class: class, size: 10 * gi, driver: drv, dynamic: true})
		b.addPVC(pvcSpec{ns: "default", name: name + "-claim", class: class, size: 10 * gi, volume: name})
	}
	pv("pv-used", drvEBS, scGP3)
	used := newPod("default", "user", app("u"), ctr("c", nginx, "cpu=100m"))
	used.Spec.Volumes = []v1.Volume{pvcVolume("d", "pv-used-claim")}
	b.addBound(used, "node-1", b.now(), false)
	b.addPV(pvSpec{name: "pv-attached", class: scGP3, size: 10 * gi, driver: drvEBS, dynamic: true})
	b.addVolumeAttachment(drvEBS, "node-1", "pv-attached")
	pv("pv-new", drvEBS, scGP3)
	pv("pv-disk", drvDisk, scDisk)
	p := newPod("default", "one-more-ebs", app("e"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Volumes = []v1.Volume{pvcVolume("d", "pv-new-claim")}
	b.pending(p)
	p = newPod("default", "needs-disk-driver", app("d"), ctr("c", nginx, "cpu=100m"))
	p.Spec.Volumes = []v1.Volume{pvcVolume("d", "pv-disk-claim")}
	b.pending(p)
	return b.done(`one-more-ebs: node-1 has 1 pod volume + 1 VolumeAttachment = limit 2 → "node(s) exceed max volume count";
node-2/node-3 pass. needs-disk-driver: node-2 and node-3 (no CSINode) fail with
"disk.csi.example.com CSI driver is not installed on the node".`,
		FeatVolLimitCount, FeatVolLimitAttachments, FeatVolLimitDriverMissing, FeatCSINodeLimits)
}

// curStorageCapacity: WaitForFirstConsumer provisioning checks
// CSIStorageCapacity (maximumVolumeSize preferred over capacity).
func curStorageCapacity() *Scenario {
	b := curatedBase("wffc-storage-capacity")
	b.addCSIDriver(drvLVM, false, true, false)
	b.addStorageClass(scLVM, drvLVM, storagev1.VolumeBindingWaitForFirstConsumer, false, nil)
	b.addStorageClass(scLocal, provNo, storagev1.VolumeBindingWaitForFirstConsumer, false, nil)
	for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
		b.addNode(cnode("node-"+z[len(z)-1:], z, 4000, 8*gi))
	}
	zsel := func(z string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{labelZone: z}}
	}
	b.addStorageCapacity("kube-system", "cap-a", scLVM, 100*gi, 0, zsel("us-east-1a"))
	b.addStorageCapacity("kube-system", "cap-b", scLVM, 100*gi, 20*gi, zsel("us-east-1b"))
	b.addStorageCapacity("kube-system", "cap-c", scLVM, 10*gi, 0, zsel("us-east-1c"))
	b.addPV(pvSpec{name: "local-a", class: scLocal, size: 50 * gi, affinity: nodeAffinityHostname("node-a")})
	b.addPVC(pvcSpec{ns: "default", name: "scratch", class: scLVM, size: 50 * gi})
	b.addPVC(pvcSpec{ns: "default", name: "local-small", class: scLocal, size: 20 * gi})
	b.addPVC(pvcSpec{ns: "default", name: "local-huge", class: scLocal, size: 200 * gi})
	for _, c := range []string{"scratch", "local-small", "local-huge"} {
		p := newPod("default", "uses-"+c, app("s"), ctr("c", nginx, "cpu=100m"))
		p.Spec.Volumes = []v1.Volume{pvcVolume("d", c)}
		b.pending(p)
	}
	return b.done(`uses-scratch: only node-a ("node(s) did not have enough free storage" on b: maximumVolumeSize 20Gi, and c).
uses-local-small binds local-a on node-a; uses-local-huge: "node(s) didn't find available persistent volumes to bind".`,
		FeatVBStorageCapacity, FeatVBWFFCMatch, FeatVBWFFCNoPV, FeatVBWFFCProvision)
}

// curRWOPPreemption: a ReadWriteOncePod claim in use makes every node
// Unschedulable (resolvable), so preemption can evict the holder.
func curRWOPPreemption() *Scenario {
	b := curatedBase("rwop-preemption")
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	b.addCSIDriver(drvEBS, true, false, false)
	b.addStorageClass(scGP3, drvEBS, storagev1.VolumeBindingWaitForFirstConsumer, true, nil)
	b.addNode(cnode("node-1", "", 4000, 8*gi))
	b.addNode(cnode("node-2", "", 4000, 8*gi))
	b.addPV(pvSpec{name: "pv-rwop", class: scGP3, size: 10 * gi, driver: drvEBS, dynamic: true, modes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod}})
	b.addPVC(pvcSpec{ns: "default", name: "exclusive", class: scGP3, size: 10 * gi, modes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod}, volume: "pv-rwop"})
	holder := newPod("default", "holder", app("h"), ctr("c", nginx, "cpu=100m"))
	holder.Spec.PriorityClassName = "low"
	holder.Spec.Volumes = []v1.Volume{pvcVolume("d", "exclusive")}
	b.addBound(holder, "node-1", b.now(), false)
	p := newPod("default", "wants-exclusive", app("w"), ctr("c", nginx, "cpu=100m"))
	p.Spec.PriorityClassName = "high"
	p.Spec.Volumes = []v1.Volume{pvcVolume("d", "exclusive")}
	b.pending(p)
	return b.done(`"0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode
already in-use by another pod." Preemption removes holder (node-1 only: removing it clears the conflict).`,
		FeatRWOPInUse, FeatPreemptLowerVictim)
}
