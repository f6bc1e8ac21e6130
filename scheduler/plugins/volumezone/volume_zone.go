// Package volumezone is the VolumeZone plugin: a pod's bound PVs labelled
// with zones or regions may only be used on nodes in one of those zones or
// regions.
package volumezone

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	storagehelpers "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name.
	Name = names.VolumeZone

	preFilterStateKey framework.StateKey = "PreFilter" + Name

	// ErrReasonConflict: a PV's zone/region labels exclude the node.
	ErrReasonConflict = "node(s) had no available volume zone"
)

// VolumeZone implements PreFilter and Filter.
type VolumeZone struct {
	objs framework.ObjectLister
}

var (
	_ framework.PreFilterPlugin   = &VolumeZone{}
	_ framework.FilterPlugin      = &VolumeZone{}
	_ framework.EnqueueExtensions = &VolumeZone{}
)

// New builds the plugin; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &VolumeZone{objs: h.Objects()}, nil
}

// Name returns the plugin's name.
func (pl *VolumeZone) Name() string { return Name }

// stateData is never changed after PreFilter, so clones share it.
type stateData struct {
	podPVTopologies []pvTopology
}

func (d *stateData) Clone() framework.StateData { return d }

// PreFilter collects the zone/region constraints of the pod's bound PVs.
// It rejects malformed claims and classes, and skips Filter when no PV
// constrains the pod.
func (pl *VolumeZone) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	topologies, status := pl.getPVbyPod(pod)
	if !status.IsSuccess() {
		return nil, status
	}
	if len(topologies) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, &stateData{podPVTopologies: topologies})
	return nil, nil
}

// getPVbyPod walks the pod's claims in volume order. Unbound claims of a
// WaitForFirstConsumer class are skipped (VolumeBinding handles them); any
// other unbound claim is an error, as is a missing object.
func (pl *VolumeZone) getPVbyPod(pod *v1.Pod) ([]pvTopology, *framework.Status) {
	topologies := make([]pvTopology, 0)
	for _, pvcName := range claimNames(pod) {
		if pvcName == "" {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")
		}
		pvc, err := pl.objs.PersistentVolumeClaim(pod.Namespace, pvcName)
		if s := errorAsStatus(err); s != nil {
			return nil, s
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			scName := storagehelpers.GetPersistentVolumeClaimClass(pvc)
			if scName == "" {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no pv name and storageClass name")
			}
			class, err := pl.objs.StorageClass(scName)
			if s := errorAsStatus(err); s != nil {
				return nil, s
			}
			if class.VolumeBindingMode == nil {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", scName))
			}
			if *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolume had no name")
		}
		pv, err := pl.objs.PersistentVolume(pvName)
		if s := errorAsStatus(err); s != nil {
			return nil, s
		}
		topologies = append(topologies, getPVTopologies(pv)...)
	}
	return topologies, nil
}

// PreFilterExtensions: the state does not depend on other pods.
func (pl *VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter requires every collected PV label to be matched by the node's
// label of the same key (a beta PV label may also match the GA node
// label). A node with no zone or region label at all passes: single-zone
// clusters often leave nodes unlabelled.
func (pl *VolumeZone) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if len(pod.Spec.Volumes) == 0 {
		return nil
	}
	var topologies []pvTopology
	if s, err := getStateData(state); err == nil {
		topologies = s.podPVTopologies
	} else {
		// Without PreFilter's result (e.g. a caller that skipped it),
		// compute it here as upstream does.
		var status *framework.Status
		if topologies, status = pl.getPVbyPod(pod); !status.IsSuccess() {
			return status
		}
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	hasAnyNodeConstraint := false
	for _, key := range topologyLabels {
		if _, ok := node.Labels[key]; ok {
			hasAnyNodeConstraint = true
			break
		}
	}
	if !hasAnyNodeConstraint {
		return nil
	}
	for _, t := range topologies {
		v, ok := node.Labels[t.key]
		if !ok {
			v, ok = node.Labels[translateToGALabel(t.key)]
		}
		if !ok || !t.values.Has(v) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
		}
	}
	return nil
}

func getStateData(state *framework.CycleState) (*stateData, error) {
	if state == nil {
		return nil, framework.ErrNotFound
	}
	s, err := state.Read(preFilterStateKey)
	if err != nil {
		return nil, err
	}
	d, ok := s.(*stateData)
	if !ok {
		return nil, errors.New("unable to convert state into stateData")
	}
	return d, nil
}

// errorAsStatus: a missing object is unresolvable (its message names it);
// anything else is an internal error.
func errorAsStatus(err error) *framework.Status {
	if err == nil {
		return nil
	}
	if apierrors.IsNotFound(err) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	return framework.AsStatus(err)
}

// claimNames lists the claims of the pod's PVC volumes (ephemeral volumes
// are not considered, as upstream).
func claimNames(pod *v1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		if c := pod.Spec.Volumes[i].PersistentVolumeClaim; c != nil {
			out = append(out, c.ClaimName)
		}
	}
	return out
}
