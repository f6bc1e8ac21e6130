// Package csimigration reproduces the parts of k8s.io/csi-translation-lib
// (v0.37) that the scheduler's volume plugins consult: which in-tree volume
// sources have a CSI replacement, the replacing driver's name, the volume
// handle the translated volume gets, and (for PVs) how the node affinity
// is rewritten to the driver's topology key. The library itself is not a
// dependency of this module; the behaviour is ported from its v1.37
// sources for the seven plugins it knows in that release (RBD is gone).
//
// Not ported: storage class translation, CSI-to-in-tree translation,
// access-mode and volume-attribute rewriting. None of them changes a
// scheduling decision.
package csimigration

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// In-tree plugin names and the CSI drivers that replace them.
const (
	AWSEBSInTreePluginName    = "kubernetes.io/aws-ebs"
	AWSEBSDriverName          = "ebs.csi.aws.com"
	GCEPDInTreePluginName     = "kubernetes.io/gce-pd"
	GCEPDDriverName           = "pd.csi.storage.gke.io"
	CinderInTreePluginName    = "kubernetes.io/cinder"
	CinderDriverName          = "cinder.csi.openstack.org"
	AzureDiskInTreePluginName = "kubernetes.io/azure-disk"
	AzureDiskDriverName       = "disk.csi.azure.com"
	AzureFileInTreePluginName = "kubernetes.io/azure-file"
	AzureFileDriverName       = "file.csi.azure.com"
	VSphereInTreePluginName   = "kubernetes.io/vsphere-volume"
	VSphereDriverName         = "csi.vsphere.vmware.com"
	PortworxVolumePluginName  = "kubernetes.io/portworx-volume"
	PortworxDriverName        = "pxd.portworx.com"
)

// Zonal topology keys of the drivers whose PV translation rewrites node
// affinity.
const (
	GCEPDTopologyKey  = "topology.gke.io/zone"
	AWSEBSTopologyKey = "topology." + AWSEBSDriverName + "/zone"
	CinderTopologyKey = "topology.cinder.csi.openstack.org/zone"
)

// plugin is one in-tree volume type with a CSI replacement.
type plugin struct {
	inTree, driver string
	pvSource       func(*v1.PersistentVolume) bool
	inlineSource   func(*v1.Volume) bool
	// pvHandle computes the translated PV's volume handle; it may edit pv
	// (a private copy) the way the library's translation does.
	pvHandle func(pv *v1.PersistentVolume) (string, error)
	// inlineHandle computes the translated inline volume's handle.
	inlineHandle func(vol *v1.Volume, podNamespace string) (string, error)
}

// plugins is the library's table. Every volume has exactly one source, so
// at most one entry matches and the library's map order does not matter.
var plugins = []plugin{
	{
		inTree: GCEPDInTreePluginName, driver: GCEPDDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.GCEPersistentDisk != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.GCEPersistentDisk != nil },
		pvHandle:     gcePVHandle,
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) {
			return fmt.Sprintf(gceVolIDZonalFmt, gceUnspecified, gceUnspecified, vol.GCEPersistentDisk.PDName), nil
		},
	},
	{
		inTree: AWSEBSInTreePluginName, driver: AWSEBSDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.AWSElasticBlockStore != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.AWSElasticBlockStore != nil },
		pvHandle: func(pv *v1.PersistentVolume) (string, error) {
			handle, err := ebsHandle(pv.Spec.AWSElasticBlockStore.VolumeID)
			if err != nil {
				return "", err
			}
			translateTopology(pv, AWSEBSTopologyKey)
			return handle, nil
		},
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) {
			return ebsHandle(vol.AWSElasticBlockStore.VolumeID)
		},
	},
	{
		inTree: CinderInTreePluginName, driver: CinderDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.Cinder != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.Cinder != nil },
		pvHandle: func(pv *v1.PersistentVolume) (string, error) {
			translateTopology(pv, CinderTopologyKey)
			return pv.Spec.Cinder.VolumeID, nil
		},
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) { return vol.Cinder.VolumeID, nil },
	},
	{
		inTree: AzureDiskInTreePluginName, driver: AzureDiskDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.AzureDisk != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.AzureDisk != nil },
		pvHandle:     func(pv *v1.PersistentVolume) (string, error) { return pv.Spec.AzureDisk.DataDiskURI, nil },
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) { return vol.AzureDisk.DataDiskURI, nil },
	},
	{
		inTree: AzureFileInTreePluginName, driver: AzureFileDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.AzureFile != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.AzureFile != nil },
		pvHandle: func(pv *v1.PersistentVolume) (string, error) {
			src := pv.Spec.AzureFile
			return azureFileHandle(pv.Annotations[azureFileResourceGroupAnnotation], src.SecretName, src.ShareName), nil
		},
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) {
			return azureFileHandle("", vol.AzureFile.SecretName, vol.AzureFile.ShareName), nil
		},
	},
	{
		// The library's inline vSphere translation dereferences a nil
		// source when storagePolicyName is set (a panic upstream); here it
		// simply translates.
		inTree: VSphereInTreePluginName, driver: VSphereDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.VsphereVolume != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.VsphereVolume != nil },
		pvHandle:     func(pv *v1.PersistentVolume) (string, error) { return pv.Spec.VsphereVolume.VolumePath, nil },
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) { return vol.VsphereVolume.VolumePath, nil },
	},
	{
		inTree: PortworxVolumePluginName, driver: PortworxDriverName,
		pvSource:     func(pv *v1.PersistentVolume) bool { return pv.Spec.PortworxVolume != nil },
		inlineSource: func(vol *v1.Volume) bool { return vol.PortworxVolume != nil },
		pvHandle:     func(pv *v1.PersistentVolume) (string, error) { return pv.Spec.PortworxVolume.VolumeID, nil },
		inlineHandle: func(vol *v1.Volume, _ string) (string, error) { return vol.PortworxVolume.VolumeID, nil },
	},
}

func forPV(pv *v1.PersistentVolume) *plugin {
	if pv == nil {
		return nil
	}
	for i := range plugins {
		if plugins[i].pvSource(pv) {
			return &plugins[i]
		}
	}
	return nil
}

func forInline(vol *v1.Volume) *plugin {
	if vol == nil {
		return nil
	}
	for i := range plugins {
		if plugins[i].inlineSource(vol) {
			return &plugins[i]
		}
	}
	return nil
}
