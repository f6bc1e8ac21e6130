package scenario

// The builder's storage objects: storage classes, CSI drivers and nodes,
// volumes and claims (and their binding), storage capacities, volume
// attachments.

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (b *builder) addStorageClass(name, provisioner string, mode storagev1.VolumeBindingMode, isDefault bool, topo []v1.TopologySelectorTerm) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: b.meta("StorageClass", "", name)}
	sc.Provisioner = provisioner
	sc.ReclaimPolicy = ptrTo(v1.PersistentVolumeReclaimDelete)
	if provisioner == "kubernetes.io/no-provisioner" {
		sc.ReclaimPolicy = ptrTo(v1.PersistentVolumeReclaimRetain)
	}
	sc.VolumeBindingMode = ptrTo(mode)
	sc.AllowedTopologies = topo
	if isDefault {
		sc.Annotations = map[string]string{annDefaultClass: "true"}
	}
	if provisioner != "kubernetes.io/no-provisioner" {
		sc.AllowVolumeExpansion = ptrTo(true)
	}
	b.scs[name] = sc
	b.c.StorageClasses = append(b.c.StorageClasses, sc)
	return sc
}

func (b *builder) addCSIDriver(name string, attach, storageCapacity, preventIfMissing bool) *storagev1.CSIDriver {
	d := &storagev1.CSIDriver{ObjectMeta: b.meta("CSIDriver", "", name)}
	d.Spec = storagev1.CSIDriverSpec{
		AttachRequired:                ptrTo(attach),
		PodInfoOnMount:                ptrTo(false),
		StorageCapacity:               ptrTo(storageCapacity),
		FSGroupPolicy:                 ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy),
		VolumeLifecycleModes:          []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
		RequiresRepublish:             ptrTo(false),
		SELinuxMount:                  ptrTo(false),
		PreventPodSchedulingIfMissing: ptrTo(preventIfMissing),
	}
	b.c.CSIDrivers = append(b.c.CSIDrivers, d)
	return d
}

func csiDriverEntry(name, node string, count int32, topologyKeys ...string) storagev1.CSINodeDriver {
	d := storagev1.CSINodeDriver{Name: name, NodeID: node, TopologyKeys: topologyKeys}
	if count >= 0 {
		d.Allocatable = &storagev1.VolumeNodeResources{Count: ptrTo(count)}
	}
	return d
}

func (b *builder) addCSINode(node string, drivers ...storagev1.CSINodeDriver) *storagev1.CSINode {
	cn := &storagev1.CSINode{ObjectMeta: b.meta("CSINode", "", node)}
	cn.Annotations = map[string]string{annMigratedPlugins: migratedPlugins}
	if n := b.nodes[node]; n != nil {
		cn.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID}}
	}
	cn.Spec.Drivers = drivers
	if cn.Spec.Drivers == nil {
		cn.Spec.Drivers = []storagev1.CSINodeDriver{}
	}
	b.c.CSINodes = append(b.c.CSINodes, cn)
	return cn
}

// pvSpec describes a PersistentVolume.
type pvSpec struct {
	name     string
	size     int64
	class    string
	modes    []v1.PersistentVolumeAccessMode
	driver   string // CSI driver; "" with local != "" → local volume
	local    string // local path
	gcePD    string // in-tree GCE PD name
	affinity *v1.VolumeNodeAffinity
	labels   map[string]string
	dynamic  bool // provisioned by driver (annotation)
}

func (b *builder) addPV(s pvSpec) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{ObjectMeta: b.meta("PersistentVolume", "", s.name)}
	if len(s.labels) > 0 {
		pv.Labels = s.labels
	}
	pv.Finalizers = []string{"kubernetes.io/pv-protection"}
	modes := s.modes
	if modes == nil {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	pv.Spec.AccessModes = modes
	pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: bytesQ(s.size)}
	pv.Spec.StorageClassName = s.class
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	pv.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	pv.Spec.NodeAffinity = s.affinity
	switch {
	case s.driver != "":
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: s.driver, VolumeHandle: "vol-" + hashHex(b.name+s.name, 17), FSType: "ext4",
			VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1740992400000-8081-" + s.driver}}
	case s.gcePD != "":
		pv.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: s.gcePD, FSType: "ext4"}
	default:
		path := s.local
		if path == "" {
			path = "/mnt/disks/" + s.name
		}
		pv.Spec.Local = &v1.LocalVolumeSource{Path: path}
	}
	if s.dynamic {
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
		pv.Annotations = map[string]string{annProvisionedBy: s.driver}
		if s.driver != "" {
			pv.Finalizers = append(pv.Finalizers, "external-provisioner.volume.kubernetes.io/finalizer")
		}
	}
	pv.Status.Phase = v1.VolumeAvailable
	pv.Status.LastPhaseTransitionTime = ptrTo(pv.CreationTimestamp)
	b.pvs[s.name] = pv
	b.c.PersistentVolumes = append(b.c.PersistentVolumes, pv)
	return pv
}

// pvcSpec describes a PersistentVolumeClaim.
type pvcSpec struct {
	ns, name string
	size     int64
	class    string // "" = explicitly no class
	modes    []v1.PersistentVolumeAccessMode
	pending  bool   // PV controller is provisioning (Immediate): add provisioner annotations
	volume   string // bound to this PV name (bind-completed) even if the PV does not exist
}

func (b *builder) addPVC(s pvcSpec) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: b.meta("PersistentVolumeClaim", s.ns, s.name)}
	pvc.Finalizers = []string{"kubernetes.io/pvc-protection"}
	modes := s.modes
	if modes == nil {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	pvc.Spec.AccessModes = modes
	pvc.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: bytesQ(s.size)}
	pvc.Spec.StorageClassName = ptrTo(s.class)
	pvc.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	pvc.Status.Phase = v1.ClaimPending
	if s.pending {
		if sc := b.scs[s.class]; sc != nil && sc.Provisioner != "kubernetes.io/no-provisioner" {
			pvc.Annotations = map[string]string{annStorageProv: sc.Provisioner, annBetaStorageProv: sc.Provisioner}
		}
	}
	b.pvcs[s.ns+"/"+s.name] = pvc
	b.c.PersistentVolumeClaims = append(b.c.PersistentVolumeClaims, pvc)
	if s.volume != "" {
		b.bindClaim(pvc, s.volume)
	}
	return pvc
}

// bindClaim marks pvc as fully bound to the PV named pv (which need not
// exist); if it exists the PV is marked bound to the claim.
func (b *builder) bindClaim(pvc *v1.PersistentVolumeClaim, pvName string) {
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations[annBindCompleted] = "yes"
	pvc.Annotations[annBoundByController] = "yes"
	pvc.Spec.VolumeName = pvName
	pvc.Status.Phase = v1.ClaimBound
	pvc.Status.AccessModes = slices.Clone(pvc.Spec.AccessModes)
	size := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	pv := b.pvs[pvName]
	if pv != nil {
		size = pv.Spec.Capacity[v1.ResourceStorage]
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name,
			UID: pvc.UID, APIVersion: "v1"}
		pv.Status.Phase = v1.VolumeBound
		if pv.Annotations == nil {
			pv.Annotations = map[string]string{}
		}
		if _, dyn := pv.Annotations[annProvisionedBy]; !dyn {
			pv.Annotations[annBoundByController] = "yes"
		}
		if sc := b.scs[pv.Spec.StorageClassName]; sc != nil && pv.Spec.CSI != nil {
			pvc.Annotations[annStorageProv] = sc.Provisioner
			pvc.Annotations[annBetaStorageProv] = sc.Provisioner
		}
	}
	pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: size.DeepCopy()}
}

func (b *builder) addStorageCapacity(ns, name, class string, capacity, maxVol int64, topology *metav1.LabelSelector) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: b.meta("CSIStorageCapacity", ns, name)}
	c.StorageClassName = class
	c.NodeTopology = topology
	c.Capacity = ptrTo(bytesQ(capacity))
	if maxVol > 0 {
		c.MaximumVolumeSize = ptrTo(bytesQ(maxVol))
	}
	b.c.CSIStorageCapacities = append(b.c.CSIStorageCapacities, c)
	return c
}

func (b *builder) addVolumeAttachment(driver, node, pvName string) *storagev1.VolumeAttachment {
	name := "csi-" + hashHex(pvName+driver+node, 64)
	va := &storagev1.VolumeAttachment{ObjectMeta: b.meta("VolumeAttachment", "", name)}
	va.Finalizers = []string{"external-attacher/" + strings.ReplaceAll(driver, "/", "-")}
	va.Spec = storagev1.VolumeAttachmentSpec{Attacher: driver, NodeName: node,
		Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptrTo(pvName)}}
	va.Status.Attached = true
	b.c.VolumeAttachments = append(b.c.VolumeAttachments, va)
	return va
}

func pvcVolume(name, claim string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func nodeAffinityHostname(node string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: labelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}}
}

func nodeAffinityLabel(key string, values ...string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}}
}
