package scenario

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CSI drivers and storage classes the generator uses.
const (
	drvEBS  = "ebs.csi.example.com"  // attachable, per-node limits, zone topology
	drvDisk = "disk.csi.example.com" // preventPodSchedulingIfMissing: true
	drvLVM  = "lvm.csi.example.com"  // storage-capacity aware
	provNo  = "kubernetes.io/no-provisioner"

	scGP3       = "gp3"
	scImmediate = "gp3-immediate"
	scLocal     = "local-storage"
	scLVM       = "lvm"
	scDisk      = "disk"
)

type storageInfra struct {
	ebs, disk, lvm, local bool
	immediate             bool
}

func (g *gen) genStorageInfra() {
	s := &g.storage
	if g.chance(0.75) {
		s.ebs = true
		g.addCSIDriver(drvEBS, true, false, false)
		var topo []v1.TopologySelectorTerm
		if len(g.zones) > 2 && g.chance(0.2) {
			topo = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
				{Key: labelZone, Values: sample(g, g.zones, len(g.zones)-1)}}}}
		}
		g.addStorageClass(scGP3, drvEBS, storagev1.VolumeBindingWaitForFirstConsumer, g.chance(0.6), topo)
		if g.chance(0.5) {
			s.immediate = true
			g.addStorageClass(scImmediate, drvEBS, storagev1.VolumeBindingImmediate, false, nil)
		}
		if g.chance(0.4) {
			s.disk = true
			g.addCSIDriver(drvDisk, true, false, true)
			g.addStorageClass(scDisk, drvDisk, storagev1.VolumeBindingImmediate, false, nil)
		}
		if g.chance(0.35) {
			s.lvm = true
			g.addCSIDriver(drvLVM, false, true, false)
			g.addStorageClass(scLVM, drvLVM, storagev1.VolumeBindingWaitForFirstConsumer, false, nil)
		}
		limits := []int32{2, 3, 4, 8, 16, 25, 39}
		for _, ni := range g.ninfos {
			if g.chance(0.08) {
				continue // kubelet has not registered a CSINode yet
			}
			ni.csiNode = true
			var drivers []storagev1.CSINodeDriver
			if g.chance(0.95) {
				ni.ebsLimit = limits[g.weighted(8, 8, 8, 10, 20, 30, 16)]
				drivers = append(drivers, csiDriverEntry(drvEBS, "i-"+hashHex(ni.name, 17), ni.ebsLimit, labelZone))
				g.feat(FeatCSINodeLimits)
			}
			if s.disk && g.chance(0.6) {
				ni.diskDriver = true
				drivers = append(drivers, csiDriverEntry(drvDisk, ni.name, 16))
			}
			if s.lvm {
				drivers = append(drivers, csiDriverEntry(drvLVM, ni.name, -1, labelHostname))
			}
			g.addCSINode(ni.name, drivers...)
		}
		if s.lvm {
			for i, z := range g.zones {
				size := []int64{5 * gi, 20 * gi, 100 * gi, 500 * gi}[g.weighted(20, 30, 30, 20)]
				var maxVol int64
				if g.chance(0.4) {
					maxVol = size / 2
				}
				g.addStorageCapacity("kube-system", fmt.Sprintf("csisc-%s", hashHex(g.name+z, 5)), scLVM, size, maxVol,
					&metav1.LabelSelector{MatchLabels: map[string]string{labelZone: z}})
				if i == 0 && g.chance(0.3) {
					// a capacity object for another class, which must be ignored
					g.addStorageCapacity("kube-system", fmt.Sprintf("csisc-%s", hashHex(g.name+z+"x", 5)), scGP3, 1*ti, 0,
						&metav1.LabelSelector{MatchLabels: map[string]string{labelZone: z}})
				}
			}
		}
	}
	if g.chance(0.4) {
		s.local = true
		g.addStorageClass(scLocal, provNo, storagev1.VolumeBindingWaitForFirstConsumer, false, nil)
		for _, ni := range g.ninfos {
			if !g.chance(0.3) {
				continue
			}
			for range g.between(1, 3) {
				g.pvSeq++
				g.addPV(pvSpec{name: fmt.Sprintf("local-pv-%03d", g.pvSeq), class: scLocal,
					size:     []int64{10 * gi, 50 * gi, 100 * gi, 500 * gi}[g.weighted(30, 30, 30, 10)],
					local:    fmt.Sprintf("/mnt/disks/ssd%d", g.pvSeq),
					affinity: nodeAffinityHostname(ni.name)})
			}
		}
	}
}

// ebsClaim creates a dynamically provisioned EBS-like PV (zone node affinity and
// zone labels when the node has a zone) plus a PVC bound to it.
func (g *gen) ebsClaim(ns string, size int64, ni *nodeInfo, modes []v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	g.pvSeq++
	g.pvcSeq++
	pvName := fmt.Sprintf("pv-%03d", g.pvSeq)
	s := pvSpec{name: pvName, class: scGP3, size: size, driver: drvEBS, dynamic: true, modes: modes}
	if ni != nil && ni.zone != "" {
		s.affinity = nodeAffinityLabel(labelZone, ni.zone)
		s.labels = map[string]string{labelZone: ni.zone, labelRegion: ni.region}
	}
	g.addPV(s)
	return g.addPVC(pvcSpec{ns: ns, name: fmt.Sprintf("pvc-%03d", g.pvcSeq), class: scGP3, size: size, modes: modes, volume: pvName})
}
