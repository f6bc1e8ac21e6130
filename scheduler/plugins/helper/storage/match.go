package storage

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// FindMatchingVolume picks the volume to bind claim to among volumes, with
// upstream's rules (shared by the PV controller and the scheduler):
//
//   - volumes named in excludedVolumes, bound to another claim, smaller than
//     the request, of another volume mode, with a mismatching
//     VolumeAttributesClass, or being deleted are never considered;
//   - a volume pre-bound to the claim wins at once, unless node is set and
//     the volume's node affinity rejects it, in which case there is no match
//     at all;
//   - otherwise, unless node is nil and delayBinding is set (the PV
//     controller leaves those claims to the scheduler), the smallest
//     Available volume of the claim's class whose labels match the claim's
//     selector is chosen, where, when node is set, the volume's node
//     affinity must accept the node and the volume must offer all the
//     claim's access modes. The first of equally small volumes wins.
//
// vacEnabled is the VolumeAttributesClass feature gate: when off, a claim
// naming a class is an error and volumes naming one are skipped.
// (nil, nil) means no match.
func FindMatchingVolume(
	claim *v1.PersistentVolumeClaim,
	volumes []*v1.PersistentVolume,
	node *v1.Node,
	excludedVolumes map[string]*v1.PersistentVolume,
	delayBinding bool,
	vacEnabled bool) (*v1.PersistentVolume, error) {

	claimVAC := stringValue(claim.Spec.VolumeAttributesClassName)
	if !vacEnabled && claimVAC != "" {
		return nil, fmt.Errorf("unsupported volumeAttributesClassName is set on claim %s when the feature-gate VolumeAttributesClass is disabled", claimKey(claim))
	}

	var selector labels.Selector
	if claim.Spec.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(claim.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("error creating internal label selector for claim: %v: %v", claimKey(claim), err)
		}
		selector = s
	}

	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	class := GetPersistentVolumeClaimClass(claim)

	var best *v1.PersistentVolume
	var bestSize resource.Quantity
	for _, pv := range volumes {
		if _, excluded := excludedVolumes[pv.Name]; excluded {
			continue
		}
		boundToClaim := IsVolumeBoundToClaim(pv, claim)
		if pv.Spec.ClaimRef != nil && !boundToClaim {
			continue
		}
		size := pv.Spec.Capacity[v1.ResourceStorage]
		if size.Cmp(requested) < 0 {
			continue
		}
		if CheckVolumeModeMismatches(&claim.Spec, &pv.Spec) {
			continue
		}
		pvVAC := stringValue(pv.Spec.VolumeAttributesClassName)
		if vacEnabled && pvVAC != claimVAC {
			continue
		}
		if !vacEnabled && pvVAC != "" {
			continue
		}
		if pv.DeletionTimestamp != nil {
			continue
		}

		// Scheduler path only: the node must satisfy the PV's affinity.
		affinityOK := node == nil || CheckNodeAffinity(pv, node.Labels) == nil

		if boundToClaim {
			if !affinityOK {
				return nil, nil
			}
			return pv, nil
		}
		if node == nil && delayBinding {
			continue
		}
		if pv.Status.Phase != v1.VolumeAvailable {
			continue
		}
		if selector != nil && !selector.Matches(labels.Set(pv.Labels)) {
			continue
		}
		if GetPersistentVolumeClass(pv) != class || !affinityOK {
			continue
		}
		if node != nil && !CheckAccessModes(claim, pv) {
			continue
		}
		if best == nil || bestSize.Cmp(size) > 0 {
			best, bestSize = pv, size
		}
	}
	return best, nil
}

// CheckVolumeModeMismatches reports whether the claim and volume specs ask
// for different volume modes, an unset mode meaning Filesystem.
func CheckVolumeModeMismatches(pvcSpec *v1.PersistentVolumeClaimSpec, pvSpec *v1.PersistentVolumeSpec) bool {
	return volumeModeOrDefault(pvcSpec.VolumeMode) != volumeModeOrDefault(pvSpec.VolumeMode)
}

// CheckAccessModes reports whether the volume offers every access mode the
// claim requests.
func CheckAccessModes(claim *v1.PersistentVolumeClaim, volume *v1.PersistentVolume) bool {
	offered := make(map[v1.PersistentVolumeAccessMode]struct{}, len(volume.Spec.AccessModes))
	for _, m := range volume.Spec.AccessModes {
		offered[m] = struct{}{}
	}
	for _, m := range claim.Spec.AccessModes {
		if _, ok := offered[m]; !ok {
			return false
		}
	}
	return true
}

func volumeModeOrDefault(mode *v1.PersistentVolumeMode) v1.PersistentVolumeMode {
	if mode == nil {
		return v1.PersistentVolumeFilesystem
	}
	return *mode
}

func stringValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func claimKey(claim *v1.PersistentVolumeClaim) string {
	return claim.Namespace + "/" + claim.Name
}
