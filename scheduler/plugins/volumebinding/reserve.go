package volumebinding

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

var errNoPodVolumeForNode = errors.New("no pod volume found for node")

// Reserve assumes the node's bindings and provisions in the assume caches
// so the next cycles see the PVs as taken and the claims as headed for
// this node.
func (pl *VolumeBinding) Reserve(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	state, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	podVolumes, ok := state.podVolumesByNode[nodeName]
	if !ok {
		// The pod uses no claims.
		state.allBound = true
		return nil
	}
	allBound, err := pl.binder.AssumePodVolumes(pod, nodeName, podVolumes)
	if err != nil {
		return framework.AsStatus(err)
	}
	state.allBound = allBound
	return nil
}

// Unreserve drops the assumptions Reserve made.
func (pl *VolumeBinding) Unreserve(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeName string) {
	state, err := getStateData(cs)
	if err != nil {
		return
	}
	if podVolumes, ok := state.podVolumesByNode[nodeName]; ok {
		pl.binder.RevertAssumedPodVolumes(podVolumes)
	}
}

// PreBindPreFlight skips PreBind when every claim is already bound.
func (pl *VolumeBinding) PreBindPreFlight(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeName string) *framework.Status {
	state, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if state.allBound {
		return framework.NewStatus(framework.Skip)
	}
	if _, ok := state.podVolumesByNode[nodeName]; !ok {
		return framework.AsStatus(fmt.Errorf("%w %q", errNoPodVolumeForNode, nodeName))
	}
	return nil
}

// PreBind records the API writes upstream's PreBind would make (see
// Decision). It does not wait for a PV controller: there is none.
func (pl *VolumeBinding) PreBind(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	state, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if state.allBound {
		return nil
	}
	podVolumes, ok := state.podVolumesByNode[nodeName]
	if !ok {
		return framework.AsStatus(fmt.Errorf("%w %q", errNoPodVolumeForNode, nodeName))
	}
	podName := pod.Namespace + "/" + pod.Name
	if podVolumes.StaticBindings == nil {
		return framework.AsStatus(fmt.Errorf("failed to get cached bindings for pod %q", podName))
	}
	if podVolumes.DynamicProvisions == nil {
		return framework.AsStatus(fmt.Errorf("failed to get cached claims to provision for pod %q", podName))
	}
	d := &Decision{Node: nodeName}
	for _, b := range podVolumes.StaticBindings {
		d.Bindings = append(d.Bindings, Binding{Claim: b.pvc.DeepCopy(), Volume: b.pv.DeepCopy()})
	}
	for _, p := range podVolumes.DynamicProvisions {
		d.Provisions = append(d.Provisions, p.PVC.DeepCopy())
	}
	state.decision = d
	return nil
}

// AssumePodVolumes pre-binds the chosen PVs and annotates the claims to
// provision with the node, in the assume caches. It reports whether all
// the pod's claims were already bound (then nothing is assumed). On
// success podVolumes holds the assumed objects, as upstream.
func (b *binder) AssumePodVolumes(pod *v1.Pod, nodeName string, podVolumes *PodVolumes) (bool, error) {
	if b.arePodVolumesBound(pod) {
		return true, nil
	}
	newBindings := []*BindingInfo{}
	for _, binding := range podVolumes.StaticBindings {
		newPV, dirty, err := volume.GetBindVolumeToClaim(binding.pv, binding.pvc)
		if err != nil {
			b.revertAssumedPVs(newBindings)
			return false, err
		}
		if dirty {
			if err := b.pvCache.Assume(newPV.Name, newPV); err != nil {
				b.revertAssumedPVs(newBindings)
				return false, err
			}
		}
		newBindings = append(newBindings, &BindingInfo{pv: newPV, pvc: binding.pvc})
	}
	newProvisions := []*DynamicProvision{}
	for _, p := range podVolumes.DynamicProvisions {
		// The claim may be the store's object; never modify it.
		claim := p.PVC.DeepCopy()
		metav1.SetMetaDataAnnotation(&claim.ObjectMeta, volume.AnnSelectedNode, nodeName)
		if err := b.pvcCache.Assume(pvcKey(claim), claim); err != nil {
			b.revertAssumedPVs(newBindings)
			b.revertAssumedPVCs(newProvisions)
			return false, err
		}
		newProvisions = append(newProvisions, &DynamicProvision{PVC: claim})
	}
	podVolumes.StaticBindings = newBindings
	podVolumes.DynamicProvisions = newProvisions
	return false, nil
}

// RevertAssumedPodVolumes undoes AssumePodVolumes.
func (b *binder) RevertAssumedPodVolumes(podVolumes *PodVolumes) {
	b.revertAssumedPVs(podVolumes.StaticBindings)
	b.revertAssumedPVCs(podVolumes.DynamicProvisions)
}

func (b *binder) revertAssumedPVs(bindings []*BindingInfo) {
	for _, binding := range bindings {
		b.pvCache.Restore(binding.pv.Name, binding.pv)
	}
}

func (b *binder) revertAssumedPVCs(provisions []*DynamicProvision) {
	for _, p := range provisions {
		b.pvcCache.Restore(pvcKey(p.PVC), p.PVC)
	}
}
