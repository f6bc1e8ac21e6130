package storage

import (
	"errors"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// PersistentVolumeClaimHasClass reports whether the claim names a storage
// class, through the beta annotation (even empty) or spec.storageClassName
// (even "").
func PersistentVolumeClaimHasClass(claim *v1.PersistentVolumeClaim) bool {
	if _, ok := claim.Annotations[v1.BetaStorageClassAnnotation]; ok {
		return true
	}
	return claim.Spec.StorageClassName != nil
}

// GetPersistentVolumeClaimClass returns the claim's storage class name: the
// beta annotation wins over spec.storageClassName; "" when neither is set.
func GetPersistentVolumeClaimClass(claim *v1.PersistentVolumeClaim) string {
	if class, ok := claim.Annotations[v1.BetaStorageClassAnnotation]; ok {
		return class
	}
	if name := claim.Spec.StorageClassName; name != nil {
		return *name
	}
	return ""
}

// GetPersistentVolumeClass returns the volume's storage class name: the
// beta annotation wins over spec.storageClassName.
func GetPersistentVolumeClass(volume *v1.PersistentVolume) string {
	if class, ok := volume.Annotations[v1.BetaStorageClassAnnotation]; ok {
		return class
	}
	return volume.Spec.StorageClassName
}

// CheckNodeAffinity returns nil when the PV's required node affinity (if
// any) is satisfied by a node carrying nodeLabels, the node selector
// matching error if the terms cannot be evaluated, and an error otherwise.
func CheckNodeAffinity(pv *v1.PersistentVolume, nodeLabels map[string]string) error {
	affinity := pv.Spec.NodeAffinity
	if affinity == nil || affinity.Required == nil {
		return nil
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: nodeLabels}}
	matches, err := corev1helpers.MatchNodeSelectorTerms(node, affinity.Required)
	if err != nil {
		return err
	}
	if !matches {
		return errors.New("no matching NodeSelectorTerms")
	}
	return nil
}
