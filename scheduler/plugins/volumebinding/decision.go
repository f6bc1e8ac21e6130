package volumebinding

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

// Decision is how PreBind bound one pod's volumes: the writes upstream's
// PreBind sends to the API server before it waits for the PV controller
// and the external provisioner to finish.
//
// The engine applies a decision after a successful Bind:
//  1. store each Binding.Volume (the PV with spec.claimRef pointing at the
//     claim, annotated pv.kubernetes.io/bound-by-controller) and each
//     Provision (the claim annotated volume.kubernetes.io/selected-node);
//  2. to also play the PV controller, store BoundObjects() instead of the
//     bindings: the PVs and claims as they look once bound. Creating a PV
//     for a Provision is the provisioner's job, left to the engine.
//
// Store new objects rather than mutating stored ones: a new object is what
// tells the plugin that its assumptions (made at Reserve so that the next
// cycles see the PVs as taken) are superseded.
type Decision struct {
	// Node is the node the pod was bound to.
	Node string
	// Bindings pair each claim with the PV pre-bound to it.
	Bindings []Binding
	// Provisions are the claims to provision for Node.
	Provisions []*v1.PersistentVolumeClaim
}

// Binding is a claim and the PV chosen for it (already pre-bound).
type Binding struct {
	Claim  *v1.PersistentVolumeClaim
	Volume *v1.PersistentVolume
}

// DecisionFromState returns the decision PreBind recorded in the cycle
// state: nil when the pod has no claims or all were bound already (PreBind
// skipped), or when PreBind has not run.
func DecisionFromState(state *framework.CycleState) *Decision {
	s, err := getStateData(state)
	if err != nil {
		return nil
	}
	return s.decision
}

var _ framework.VolumeWriterPlugin = &VolumeBinding{}

// VolumeWrites is the plugin's framework.VolumeWriterPlugin: the decision
// PreBind recorded in state, as the PV controller leaves the bound volumes
// and claims (BoundObjects), then the claims to provision.
func (pl *VolumeBinding) VolumeWrites(state *framework.CycleState) framework.VolumeWrites {
	d := DecisionFromState(state)
	if d == nil {
		return framework.VolumeWrites{}
	}
	pvs, pvcs := d.BoundObjects()
	return framework.VolumeWrites{PersistentVolumes: pvs, Claims: append(pvcs, d.Provisions...)}
}

// BoundObjects returns copies of the bindings' PVs and claims as the PV
// controller leaves them: both in phase Bound, the claim naming the PV,
// annotated bind-completed and bound-by-controller, and reporting the PV's
// access modes and capacity.
func (d *Decision) BoundObjects() ([]*v1.PersistentVolume, []*v1.PersistentVolumeClaim) {
	if d == nil {
		return nil, nil
	}
	var pvs []*v1.PersistentVolume
	var pvcs []*v1.PersistentVolumeClaim
	for _, b := range d.Bindings {
		if b.Volume == nil || b.Claim == nil {
			continue
		}
		pv := b.Volume.DeepCopy()
		pv.Status.Phase = v1.VolumeBound
		pvc := b.Claim.DeepCopy()
		pvc.Spec.VolumeName = pv.Name
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volume.AnnBoundByController, "yes")
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volume.AnnBindCompleted, "yes")
		pvc.Status.Phase = v1.ClaimBound
		pvc.Status.AccessModes = append([]v1.PersistentVolumeAccessMode(nil), pv.Spec.AccessModes...)
		pvc.Status.Capacity = pv.Spec.Capacity.DeepCopy()
		pvs = append(pvs, pv)
		pvcs = append(pvcs, pvc)
	}
	return pvs, pvcs
}
