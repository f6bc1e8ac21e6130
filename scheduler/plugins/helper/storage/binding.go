package storage

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageClassGetter returns the named StorageClass, or an error for which
// apierrors.IsNotFound holds when there is none. framework.ObjectLister's
// StorageClass method is one.
type StorageClassGetter func(name string) (*storagev1.StorageClass, error)

// IsDelayBindingProvisioning reports whether the scheduler has asked for the
// claim to be provisioned (it carries AnnSelectedNode).
func IsDelayBindingProvisioning(claim *v1.PersistentVolumeClaim) bool {
	_, ok := claim.Annotations[AnnSelectedNode]
	return ok
}

// IsDelayBindingMode reports whether the claim's StorageClass uses
// WaitForFirstConsumer binding. A claim without a class, or whose class
// does not exist, is not delayed; a class without a binding mode is an
// error; any other lookup error is returned as is.
func IsDelayBindingMode(claim *v1.PersistentVolumeClaim, getClass StorageClassGetter) (bool, error) {
	name := GetPersistentVolumeClaimClass(claim)
	if name == "" {
		return false, nil
	}
	class, err := getClass(name)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	case class.VolumeBindingMode == nil:
		return false, fmt.Errorf("VolumeBindingMode not set for StorageClass %q", name)
	}
	return *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer, nil
}

// IsVolumeBoundToClaim reports whether the volume's claimRef names the
// claim (same name and namespace, and same UID when the ref has one).
func IsVolumeBoundToClaim(volume *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) bool {
	ref := volume.Spec.ClaimRef
	if ref == nil || ref.Name != claim.Name || ref.Namespace != claim.Namespace {
		return false
	}
	return ref.UID == "" || ref.UID == claim.UID
}

// GetBindVolumeToClaim returns a copy of volume bound to claim, and whether
// the copy differs from volume. The claimRef is (re)written unless it
// already names the claim by name, namespace and UID; AnnBoundByController
// is added when the volume was not already bound to the claim and lacks it.
// volume itself is never modified. The error is always nil; it is kept for
// signature compatibility with upstream, whose reference lookup could fail.
func GetBindVolumeToClaim(volume *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolume, bool, error) {
	// Decided on the original before anything changes.
	markBoundByController := !IsVolumeBoundToClaim(volume, claim)

	bound := volume.DeepCopy()
	dirty := false

	if ref := volume.Spec.ClaimRef; ref == nil || ref.Name != claim.Name ||
		ref.Namespace != claim.Namespace || ref.UID != claim.UID {
		bound.Spec.ClaimRef = claimReference(claim)
		dirty = true
	}

	if markBoundByController && !metav1.HasAnnotation(bound.ObjectMeta, AnnBoundByController) {
		metav1.SetMetaDataAnnotation(&bound.ObjectMeta, AnnBoundByController, "yes")
		dirty = true
	}
	return bound, dirty, nil
}

// claimReference builds the ObjectReference client-go's
// reference.GetReference(scheme.Scheme, claim) returns: kind and API version
// from the claim's TypeMeta when any of group, version or kind is set there,
// otherwise core/v1 PersistentVolumeClaim as registered in the scheme.
func claimReference(claim *v1.PersistentVolumeClaim) *v1.ObjectReference {
	gvk := claim.GroupVersionKind()
	if gvk.Empty() {
		gvk = v1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")
	}
	return &v1.ObjectReference{
		Kind:            gvk.Kind,
		APIVersion:      gvk.GroupVersion().String(),
		Name:            claim.Name,
		Namespace:       claim.Namespace,
		UID:             claim.UID,
		ResourceVersion: claim.ResourceVersion,
	}
}
