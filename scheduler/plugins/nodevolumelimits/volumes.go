package nodevolumelimits

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/component-helpers/storage/ephemeral"

	storagehelpers "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

// filterAttachableVolumes adds the pod's CSI volumes to result as
// "driver/handle" -> driver. For the pod being scheduled a missing claim
// is an error; for pods already on the node it is ignored, since nothing
// says the volume is attached.
func (pl *CSILimits) filterAttachableVolumes(pod *v1.Pod, csiNode *storagev1.CSINode, newPod bool, result map[string]string) error {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var pvcName string
		isEphemeral := false
		switch {
		case vol.PersistentVolumeClaim != nil:
			pvcName = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			pvcName = ephemeral.VolumeClaimName(pod, vol)
			isEphemeral = true
		default:
			if err := pl.checkAttachableInlineVolume(vol, csiNode, pod, result); err != nil {
				return err
			}
			continue
		}
		if pvcName == "" {
			return errors.New("PersistentVolumeClaim had no name")
		}
		pvc, err := pl.objs.PersistentVolumeClaim(pod.Namespace, pvcName)
		if err != nil {
			if newPod {
				return fmt.Errorf("looking up PVC %s/%s: %w", pod.Namespace, pvcName, err)
			}
			continue
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return err
			}
		}
		driver, handle := pl.getCSIDriverInfo(csiNode, pvc)
		if driver == "" || handle == "" {
			continue
		}
		result[uniqueName(driver, handle)] = driver
	}
	return nil
}

// checkAttachableInlineVolume counts an inline in-tree volume whose plugin
// migrates to CSI on this node.
func (pl *CSILimits) checkAttachableInlineVolume(vol *v1.Volume, csiNode *storagev1.CSINode, pod *v1.Pod, result map[string]string) error {
	if !csimigration.IsInlineMigratable(vol) {
		return nil
	}
	inTree, err := csimigration.InTreePluginNameFromVolume(vol)
	if err != nil {
		return fmt.Errorf("looking up provisioner name for volume %s: %w", vol.Name, err)
	}
	if !isCSIMigrationOn(csiNode, inTree) {
		return nil
	}
	src, err := csimigration.TranslateInTreeInlineVolumeToCSI(vol, pod.Namespace)
	if err != nil || src == nil {
		return fmt.Errorf("converting volume(%s) from inline to csi: %w", vol.Name, err)
	}
	driver, err := csimigration.CSINameFromInTreeName(inTree)
	if err != nil {
		return fmt.Errorf("looking up CSI driver name for provisioner %s: %w", inTree, err)
	}
	result[uniqueName(driver, src.VolumeHandle)] = driver
	return nil
}

// getCSIDriverInfo returns the driver and handle of a claim's volume: the
// bound PV's CSI source (or its migrated translation), else, for an
// unbound claim or a missing PV, the claim's StorageClass.
func (pl *CSILimits) getCSIDriverInfo(csiNode *storagev1.CSINode, pvc *v1.PersistentVolumeClaim) (string, string) {
	if pvc.Spec.VolumeName == "" {
		return pl.getCSIDriverInfoFromSC(csiNode, pvc)
	}
	pv, err := pl.objs.PersistentVolume(pvc.Spec.VolumeName)
	if err != nil {
		// Deleted, or the claim is pre-bound to a PV not created yet.
		return pl.getCSIDriverInfoFromSC(csiNode, pvc)
	}
	src := pv.Spec.CSI
	if src == nil {
		if !csimigration.IsPVMigratable(pv) {
			return "", ""
		}
		inTree, err := csimigration.InTreePluginNameFromPV(pv)
		if err != nil || !isCSIMigrationOn(csiNode, inTree) {
			return "", ""
		}
		translated, err := csimigration.TranslateInTreePVToCSI(pv)
		if err != nil || translated.Spec.CSI == nil {
			return "", ""
		}
		src = translated.Spec.CSI
	}
	return src.Driver, src.VolumeHandle
}

// getCSIDriverInfoFromSC attributes an unbound claim to its class's
// provisioner (or the CSI driver replacing an in-tree provisioner), with a
// made-up handle unique to the claim. A claim without a usable class must
// bind immediately and so is not counted.
func (pl *CSILimits) getCSIDriverInfoFromSC(csiNode *storagev1.CSINode, pvc *v1.PersistentVolumeClaim) (string, string) {
	scName := storagehelpers.GetPersistentVolumeClaimClass(pvc)
	if scName == "" {
		return "", ""
	}
	class, err := pl.objs.StorageClass(scName)
	if err != nil {
		return "", ""
	}
	handle := fmt.Sprintf("%s-%s/%s", unboundVolumePrefix, pvc.Namespace, pvc.Name)
	provisioner := class.Provisioner
	if csimigration.IsMigratableIntreePluginByName(provisioner) {
		if !isCSIMigrationOn(csiNode, provisioner) {
			return "", ""
		}
		driver, err := csimigration.CSINameFromInTreeName(provisioner)
		if err != nil {
			return "", ""
		}
		return driver, handle
	}
	return provisioner, handle
}

// isCSIMigrationOn: in 1.37 migration is complete for these five plugins,
// and the scheduler only requires the node to have a CSINode object.
// Azure File and vSphere translate but are never counted here.
func isCSIMigrationOn(csiNode *storagev1.CSINode, inTree string) bool {
	if csiNode == nil || inTree == "" {
		return false
	}
	switch inTree {
	case csimigration.AWSEBSInTreePluginName, csimigration.PortworxVolumePluginName, csimigration.GCEPDInTreePluginName,
		csimigration.AzureDiskInTreePluginName, csimigration.CinderInTreePluginName:
		return true
	}
	return false
}
