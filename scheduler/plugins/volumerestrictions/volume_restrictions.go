// Package volumerestrictions is the VolumeRestrictions plugin: a pod may
// not share certain in-tree disks read-write with a pod on the same node,
// nor use a ReadWriteOncePod claim some other pod already uses.
package volumerestrictions

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name.
	Name = names.VolumeRestrictions

	preFilterStateKey framework.StateKey = "PreFilter" + Name

	// ErrReasonDiskConflict: an in-tree disk of the pod is already mounted
	// on the node in a conflicting way.
	ErrReasonDiskConflict = "node(s) had no available disk"
	// ErrReasonReadWriteOncePodConflict: a ReadWriteOncePod claim of the pod
	// is already used by a scheduled pod.
	ErrReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

// VolumeRestrictions implements PreFilter (with extensions) and Filter.
type VolumeRestrictions struct {
	handle framework.Handle
}

var (
	_ framework.PreFilterPlugin     = &VolumeRestrictions{}
	_ framework.PreFilterExtensions = &VolumeRestrictions{}
	_ framework.FilterPlugin        = &VolumeRestrictions{}
	_ framework.EnqueueExtensions   = &VolumeRestrictions{}
)

// New builds the plugin; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &VolumeRestrictions{handle: h}, nil
}

// Name returns the plugin's name.
func (pl *VolumeRestrictions) Name() string { return Name }

// preFilterState is the pod's ReadWriteOncePod claims and how many times
// scheduled pods reference them. The count is kept up to date by
// AddPod/RemovePod so that preemption can see a victim free the claim.
type preFilterState struct {
	readWriteOncePodPVCs   sets.Set[string]
	conflictingPVCRefCount int
}

func (s *preFilterState) updateWithPod(pi *framework.PodInfo, multiplier int) {
	if pi == nil || pi.Pod == nil {
		return
	}
	for _, vol := range pi.Pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil && s.readWriteOncePodPVCs.Has(vol.PersistentVolumeClaim.ClaimName) {
			s.conflictingPVCRefCount += multiplier
		}
	}
}

// Clone shares the claim set, which is never modified after PreFilter.
func (s *preFilterState) Clone() framework.StateData {
	if s == nil {
		return nil
	}
	return &preFilterState{readWriteOncePodPVCs: s.readWriteOncePodPVCs, conflictingPVCRefCount: s.conflictingPVCRefCount}
}

// PreFilter counts scheduled pods using the pod's ReadWriteOncePod claims.
// It skips Filter when the pod has no in-tree disk to check and no such
// conflict.
func (pl *VolumeRestrictions) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	needsCheck := false
	for i := range pod.Spec.Volumes {
		if needsRestrictionsCheck(&pod.Spec.Volumes[i]) {
			needsCheck = true
			break
		}
	}
	pvcs, err := pl.readWriteOncePodPVCs(pod)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
		}
		return nil, framework.AsStatus(err)
	}
	s := &preFilterState{readWriteOncePodPVCs: pvcs}
	snap := pl.handle.Snapshot()
	for name := range pvcs {
		// At most one pod can use a ReadWriteOncePod claim, so a used
		// claim counts once.
		if snap != nil && snap.IsPVCUsedByPods(pod.Namespace+"/"+name) {
			s.conflictingPVCRefCount++
		}
	}
	if !needsCheck && s.conflictingPVCRefCount == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// readWriteOncePodPVCs looks up every claim of the pod (a missing one is
// an error) and keeps the names of those with ReadWriteOncePod.
func (pl *VolumeRestrictions) readWriteOncePodPVCs(pod *v1.Pod) (sets.Set[string], error) {
	pvcs := sets.New[string]()
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim == nil {
			continue
		}
		pvc, err := pl.handle.Objects().PersistentVolumeClaim(pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
		if err != nil {
			return nil, err
		}
		for _, mode := range pvc.Spec.AccessModes {
			if mode == v1.ReadWriteOncePod {
				pvcs.Insert(pvc.Name)
				break
			}
		}
	}
	return pvcs, nil
}

// PreFilterExtensions returns the plugin itself.
func (pl *VolumeRestrictions) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts the added pod's uses of the ReadWriteOncePod claims.
func (pl *VolumeRestrictions) AddPod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podInfoToAdd *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podInfoToAdd, 1)
	return nil
}

// RemovePod uncounts the removed pod's uses of the ReadWriteOncePod claims.
func (pl *VolumeRestrictions) RemovePod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podInfoToRemove *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podInfoToRemove, -1)
	return nil
}

func getPreFilterState(state *framework.CycleState) (*preFilterState, error) {
	c, err := state.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q from cycleState", preFilterStateKey)
	}
	s, ok := c.(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("%+v convert to volumerestrictions.state error", c)
	}
	return s, nil
}

// Filter rejects the node on a disk conflict first, then on a
// ReadWriteOncePod conflict anywhere in the cluster.
func (pl *VolumeRestrictions) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !satisfyVolumeConflicts(pod, nodeInfo) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)
	}
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s.conflictingPVCRefCount > 0 {
		return framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	}
	return nil
}
