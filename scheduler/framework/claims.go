package framework

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/storage/ephemeral"
)

// AnnSelectedNode is set by the scheduler (VolumeBinding's PreBind) on a
// PVC to be provisioned with delayed binding; the value is the chosen
// node's name. The value k8s.io/component-helpers/storage/volume defines.
const AnnSelectedNode = "volume.kubernetes.io/selected-node"

// PodUsesClaim reports whether pod refers to claim, through a
// persistentVolumeClaim volume or a generic ephemeral volume (whose claim
// is named <pod>-<volume>).
func PodUsesClaim(pod *v1.Pod, claim *v1.PersistentVolumeClaim) bool {
	if claim.Namespace != pod.Namespace {
		return false
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			if vol.PersistentVolumeClaim.ClaimName == claim.Name {
				return true
			}
		case vol.Ephemeral != nil:
			if ephemeral.VolumeClaimName(pod, vol) == claim.Name {
				return true
			}
		}
	}
	return false
}
