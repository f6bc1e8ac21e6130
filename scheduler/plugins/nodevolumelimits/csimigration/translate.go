package csimigration

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// IsPVMigratable reports whether the PV's source has a CSI replacement.
func IsPVMigratable(pv *v1.PersistentVolume) bool { return forPV(pv) != nil }

// IsInlineMigratable reports whether the inline volume's source has a CSI
// replacement.
func IsInlineMigratable(vol *v1.Volume) bool { return forInline(vol) != nil }

// IsMigratableIntreePluginByName reports whether name is a known in-tree
// plugin (as a StorageClass provisioner would name it).
func IsMigratableIntreePluginByName(name string) bool {
	for i := range plugins {
		if plugins[i].inTree == name {
			return true
		}
	}
	return false
}

// InTreePluginNameFromPV names the in-tree plugin of a PV's source.
func InTreePluginNameFromPV(pv *v1.PersistentVolume) (string, error) {
	if p := forPV(pv); p != nil {
		return p.inTree, nil
	}
	return "", fmt.Errorf("could not find in-tree plugin name from persistent volume %v", pv)
}

// InTreePluginNameFromVolume names the in-tree plugin of an inline volume.
func InTreePluginNameFromVolume(vol *v1.Volume) (string, error) {
	if vol == nil {
		return "", errors.New("both persistent volume and volume are nil")
	}
	if p := forInline(vol); p != nil {
		return p.inTree, nil
	}
	return "", fmt.Errorf("could not find in-tree plugin name from volume %v", vol)
}

// CSINameFromInTreeName returns the CSI driver replacing an in-tree plugin.
func CSINameFromInTreeName(name string) (string, error) {
	for i := range plugins {
		if plugins[i].inTree == name {
			return plugins[i].driver, nil
		}
	}
	return "", fmt.Errorf("could not find CSI Driver name for plugin %v", name)
}

// TranslateInTreePVToCSI returns a copy of pv with its in-tree source
// replaced by the CSI source (driver and volume handle) and its node
// affinity moved to the driver's topology key, as the library does. pv is
// not modified.
func TranslateInTreePVToCSI(pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	if pv == nil {
		return nil, errors.New("persistent volume was nil")
	}
	p := forPV(pv)
	if p == nil {
		return nil, fmt.Errorf("could not find in-tree plugin translation logic for %#v", pv.Name)
	}
	out := pv.DeepCopy()
	handle, err := p.pvHandle(out)
	if err != nil {
		return nil, err
	}
	out.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{
		CSI: &v1.CSIPersistentVolumeSource{Driver: p.driver, VolumeHandle: handle},
	}
	return out, nil
}

// TranslateInTreeInlineVolumeToCSI returns the CSI source an inline
// in-tree volume translates to.
func TranslateInTreeInlineVolumeToCSI(vol *v1.Volume, podNamespace string) (*v1.CSIPersistentVolumeSource, error) {
	if vol == nil {
		return nil, errors.New("persistent volume was nil")
	}
	p := forInline(vol)
	if p == nil {
		return nil, fmt.Errorf("could not find in-tree plugin translation logic for %#v", vol.Name)
	}
	handle, err := p.inlineHandle(vol, podNamespace)
	if err != nil {
		return nil, err
	}
	return &v1.CSIPersistentVolumeSource{Driver: p.driver, VolumeHandle: handle}, nil
}
