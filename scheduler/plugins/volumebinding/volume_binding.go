// Package volumebinding is the VolumeBinding plugin. It checks that a
// pod's claims can be satisfied on a node: bound PVs' node affinity,
// WaitForFirstConsumer claims matched to available PVs or provisioned
// (with CSIStorageCapacity checks), and it scores nodes by how full the
// chosen storage would be (with the StorageCapacityScoring gate, beta, on
// by default in 1.37). The VolumeAttributesClass gate decides whether a
// claim's class must match a PV's when binding statically.
//
// Binding happens in memory. Reserve assumes the chosen PV bindings and
// provisioning decisions (later cycles see them), PreBind records them in
// the cycle state, and the engine applies them to its object store after
// Bind: see Decision and DecisionFromState.
package volumebinding

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name.
const Name = names.VolumeBinding

// VolumeBinding implements PreFilter, Filter, PreScore, Score, Reserve
// and PreBind.
type VolumeBinding struct {
	objs   framework.ObjectLister
	binder *binder
	scorer volumeCapacityScorer
}

var (
	_ framework.PreFilterPlugin   = &VolumeBinding{}
	_ framework.FilterPlugin      = &VolumeBinding{}
	_ framework.PreScorePlugin    = &VolumeBinding{}
	_ framework.ScorePlugin       = &VolumeBinding{}
	_ framework.ReservePlugin     = &VolumeBinding{}
	_ framework.PreBindPlugin     = &VolumeBinding{}
	_ framework.EnqueueExtensions = &VolumeBinding{}
)

// New builds the plugin from VolumeBindingArgs (nil means the defaults).
// The bind timeout is accepted and validated but unused: binding is done
// in memory and never waits.
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	gates := h.Features()
	a, err := bindingArgs(args, gates)
	if err != nil {
		return nil, err
	}
	pl := &VolumeBinding{objs: h.Objects(), binder: newBinder(h.Objects(), gates.EnableVolumeAttributesClass)}
	// Without StorageCapacityScoring there is no scorer: PreScore Skips,
	// static bindings included.
	if gates.EnableStorageCapacityScoring {
		shape := make([]shapePoint, 0, len(a.Shape))
		for _, p := range a.Shape {
			shape = append(shape, shapePoint{
				utilization: int64(p.Utilization),
				score:       int64(p.Score) * (framework.MaxNodeScore / validation.MaxCustomPriorityScore),
			})
		}
		pl.scorer = buildScorerFunction(shape)
	}
	return pl, nil
}

// Name returns the plugin's name.
func (pl *VolumeBinding) Name() string { return Name }

// podHasPVCs reports whether the pod uses claims, and fails on a claim
// that is missing, lost, being deleted, or (ephemeral) not the pod's.
func (pl *VolumeBinding) podHasPVCs(pod *v1.Pod) (bool, error) {
	hasPVC := false
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
			continue
		}
		hasPVC = true
		pvc, err := pl.objs.PersistentVolumeClaim(pod.Namespace, pvcName)
		if err != nil {
			// A generic ephemeral claim is normally missing for a moment
			// after the pod is created; say so.
			if isEphemeral && apierrors.IsNotFound(err) {
				err = fmt.Errorf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", pvcName)
			}
			return hasPVC, err
		}
		if pvc.Status.Phase == v1.ClaimLost {
			return hasPVC, fmt.Errorf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName)
		}
		if pvc.DeletionTimestamp != nil {
			return hasPVC, fmt.Errorf("persistentvolumeclaim %q is being deleted", pvc.Name)
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return hasPVC, err
			}
		}
	}
	return hasPVC, nil
}

// PreFilter rejects pods with unusable claims or with Immediate claims the
// PV controller has not bound yet, and skips Filter for pods without
// claims (leaving an empty state so that Score gives 0).
func (pl *VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if hasPVC, err := pl.podHasPVCs(pod); err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	} else if !hasPVC {
		state.Write(stateKey, &stateData{claimless: true})
		return nil, framework.NewStatus(framework.Skip)
	}
	claims, err := pl.binder.GetPodVolumeClaims(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(claims.unboundClaimsImmediate) > 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "pod has unbound immediate PersistentVolumeClaims")
	}
	state.Write(stateKey, &stateData{
		podVolumesByNode: map[string]*PodVolumes{},
		podVolumeClaims: &PodVolumeClaims{
			boundClaims:                claims.boundClaims,
			unboundClaimsDelayBinding:  claims.unboundClaimsDelayBinding,
			unboundVolumesDelayBinding: claims.unboundVolumesDelayBinding,
		},
	})
	return nil, nil
}

// PreFilterExtensions: the state does not depend on other pods.
func (pl *VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter finds how the pod's claims would be bound on the node and keeps
// the answer for Score and Reserve. All its rejections are unresolvable:
// evicting pods frees no PV.
func (pl *VolumeBinding) Filter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	state, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	podVolumes, reasons, err := pl.binder.FindPodVolumes(pod, state.podVolumeClaims, node)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(reasons) > 0 {
		status := framework.NewStatus(framework.UnschedulableAndUnresolvable)
		for _, r := range reasons {
			status.AppendReason(string(r))
		}
		return status
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.podVolumesByNode == nil {
		state.podVolumesByNode = map[string]*PodVolumes{}
	}
	state.podVolumesByNode[node.Name] = podVolumes
	state.hasStaticBindings = state.hasStaticBindings || len(podVolumes.StaticBindings) > 0
	return nil
}
