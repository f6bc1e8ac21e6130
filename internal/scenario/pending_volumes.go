package scenario

// Pending pods' volume traits: claims in use, volume limits, missing
// drivers, bound and unbound claims, storage capacity, volume zones
// (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone).

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

func (g *gen) nextClaimName() string {
	g.pvcSeq++
	return fmt.Sprintf("pvc-%03d", g.pvcSeq)
}

func (g *gen) holderPod(ns string, ni *nodeInfo, claim string, vol v1.Volume) {
	p := newPod(ns, g.nextPodName(), map[string]string{"app": "holder"}, ctr("holder", "docker.io/library/busybox:latest", "cpu=50m", "memory=32Mi"))
	p.Spec.PriorityClassName = g.lowClass()
	if claim != "" {
		g.useClaim(p, "data", claim)
	} else {
		p.Spec.Volumes = append(p.Spec.Volumes, vol)
	}
	g.admitPod(p)
	g.commitBound(p, ni, nil)
}

func (g *gen) tRWOPInUse(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	ni := pick(g, g.schedulableNodes())
	claim := g.ebsClaim(p.Namespace, 10*gi, ni, []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod})
	g.holderPod(p.Namespace, ni, claim.Name, v1.Volume{})
	g.useClaim(p, "rwop", claim.Name)
	g.feat(FeatRWOPInUse)
	return true
}

func (g *gen) tRWOPFree(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	claim := g.ebsClaim(p.Namespace, 10*gi, pick(g, g.ninfos), []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod})
	g.useClaim(p, "rwop", claim.Name)
	g.feat(FeatRWOPFree)
	return true
}

func (g *gen) tDiskConflict(p *v1.Pod) bool {
	g.seq++
	vol := v1.Volume{Name: "disk", VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{
		PDName: fmt.Sprintf("shared-disk-%d", g.seq), FSType: "ext4"}}}
	g.holderPod(p.Namespace, pick(g, g.ninfos), "", vol)
	vol.Name = volName(p, vol.Name)
	p.Spec.Volumes = append(p.Spec.Volumes, vol)
	g.feat(FeatDiskConflict)
	return true
}

// tVolumeLimit fills a node with a small EBS attach limit up to the limit and
// gives the pod new EBS volumes.
func (g *gen) tVolumeLimit(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	var limited []*nodeInfo
	for _, ni := range g.ninfos {
		if ni.ebsLimit >= 0 && ni.ebsLimit <= 8 {
			limited = append(limited, ni)
		}
	}
	if len(limited) == 0 {
		return false
	}
	ni := pick(g, limited)
	for ni.ebsUsed < int(ni.ebsLimit) {
		claim := g.ebsClaim(pick(g, g.userNS), 10*gi, nil, nil)
		g.holderPod(claim.Namespace, ni, claim.Name, v1.Volume{})
		ni.ebsUsed++
	}
	for i := range g.between(1, 2) {
		var name string
		if g.chance(0.5) {
			name = g.ebsClaim(p.Namespace, 10*gi, nil, nil).Name
		} else {
			// unbound WaitForFirstConsumer claim: counted through its StorageClass
			name = g.nextClaimName()
			g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scGP3, size: 10 * gi})
			g.feat(FeatVBWFFCProvision)
		}
		g.useClaim(p, fmt.Sprintf("ebs-%d", i), name)
	}
	g.feat(FeatVolLimitCount)
	return true
}

func (g *gen) tDriverMissing(p *v1.Pod) bool {
	if !g.storage.disk {
		return false
	}
	g.pvSeq++
	pv := g.addPV(pvSpec{name: fmt.Sprintf("pv-%03d", g.pvSeq), class: scDisk, size: 50 * gi, driver: drvDisk, dynamic: true})
	claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scDisk, size: 50 * gi, volume: pv.Name})
	g.useClaim(p, "disk", claim.Name)
	g.feat(FeatVolLimitDriverMissing)
	return true
}

func (g *gen) tBoundPVAffinity(p *v1.Pod) bool {
	if g.storage.local && g.chance(0.6) {
		for _, ni := range g.r.Perm(len(g.ninfos)) {
			if pvs := g.storage.localFor(g.ninfos[ni].name, g); len(pvs) > 0 {
				claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scLocal, size: 10 * gi, volume: pvs[0].Name})
				g.useClaim(p, "local", claim.Name)
				g.feat(FeatVBBoundAffinity)
				return true
			}
		}
	}
	if !g.storage.ebs || len(g.zones) == 0 {
		return false
	}
	var zoned []*nodeInfo
	for _, ni := range g.ninfos {
		if ni.zone != "" {
			zoned = append(zoned, ni)
		}
	}
	if len(zoned) == 0 {
		return false
	}
	claim := g.ebsClaim(p.Namespace, 20*gi, pick(g, zoned), nil)
	g.useClaim(p, "data", claim.Name)
	g.feat(FeatVBBoundAffinity)
	return true
}

func (g *gen) tUnboundImmediate(p *v1.Pod) bool {
	if !g.storage.immediate {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scImmediate, size: 10 * gi, pending: true})
	g.useClaim(p, "data", name)
	g.feat(FeatVBUnboundImmediate)
	return true
}

func (g *gen) tWFFCMatch(p *v1.Pod) bool {
	if !g.storage.local {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLocal, size: []int64{5 * gi, 10 * gi, 50 * gi, 100 * gi}[g.r.IntN(4)]})
	g.useClaim(p, "local", name)
	g.feat(FeatVBWFFCMatch)
	return true
}

func (g *gen) tWFFCNoPV(p *v1.Pod) bool {
	if !g.storage.local {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLocal, size: 2 * ti})
	g.useClaim(p, "local", name)
	g.feat(FeatVBWFFCNoPV)
	return true
}

func (g *gen) tWFFCProvision(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scGP3, size: 30 * gi})
	g.useClaim(p, "data", name)
	g.feat(FeatVBWFFCProvision)
	return true
}

func (g *gen) tStorageCapacity(p *v1.Pod) bool {
	if !g.storage.lvm {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLVM, size: []int64{1 * gi, 10 * gi, 60 * gi, 300 * gi}[g.r.IntN(4)]})
	g.useClaim(p, "scratch", name)
	g.feat(FeatVBStorageCapacity)
	return true
}

func (g *gen) tMissingPV(p *v1.Pod) bool {
	class := ""
	if g.storage.ebs {
		class = scGP3
	}
	g.seq++
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: class, size: 10 * gi, volume: fmt.Sprintf("pv-deleted-%d", g.seq)})
	g.useClaim(p, "data", name)
	g.feat(FeatVBMissingPV)
	return true
}

func (g *gen) tMissingSC(p *v1.Pod) bool {
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: "fast-nvme", size: 10 * gi})
	g.useClaim(p, "data", name)
	g.feat(FeatVBMissingSC)
	return true
}

func (g *gen) tMissingPVC(p *v1.Pod) bool {
	if !g.chance(0.5) {
		return false
	}
	g.useClaim(p, "data", "claim-that-does-not-exist")
	g.feat(FeatVBMissingPVC)
	return true
}

// tVolumeZone binds a claim to a CSI PV that carries zone labels but no node
// affinity (as labelled by the retired PersistentVolumeLabel admission), so
// VolumeZone, not VolumeBinding, decides.
func (g *gen) tVolumeZone(p *v1.Pod) bool {
	if !g.storage.ebs || len(g.zones) == 0 {
		return false
	}
	z := pick(g, g.zones)
	region := z[:len(z)-1]
	labels := map[string]string{labelZone: z, labelRegion: region}
	switch g.weighted(60, 25, 15) {
	case 1:
		labels = map[string]string{labelBetaZone: z, labelBetaRegion: region}
		g.feat(FeatVolumeZoneBeta)
	case 2:
		other := pick(g, g.zones)
		if other != z {
			labels[labelZone] = z + "__" + other
			g.feat(FeatVolumeZoneMulti)
		}
	}
	g.pvSeq++
	pv := g.addPV(pvSpec{name: fmt.Sprintf("pv-%03d", g.pvSeq), class: scGP3, size: 20 * gi, driver: drvEBS, dynamic: true, labels: labels})
	claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scGP3, size: 20 * gi, volume: pv.Name})
	g.useClaim(p, "zonal", claim.Name)
	g.feat(FeatVolumeZone)
	return true
}
