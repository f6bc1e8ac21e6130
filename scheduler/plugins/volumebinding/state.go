package volumebinding

import (
	"errors"
	"sync"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

const stateKey framework.StateKey = Name

// BindingInfo pairs an unbound claim with the PV chosen for it.
type BindingInfo struct {
	pvc *v1.PersistentVolumeClaim
	pv  *v1.PersistentVolume
}

// StorageClassName is the chosen PV's class.
func (b *BindingInfo) StorageClassName() string { return b.pv.Spec.StorageClassName }

// StorageResource is the claim's request against the PV's capacity.
func (b *BindingInfo) StorageResource() *StorageResource {
	requested := b.pvc.Spec.Resources.Requests[v1.ResourceStorage]
	capacity := b.pv.Spec.Capacity[v1.ResourceStorage]
	return &StorageResource{Requested: requested.Value(), Capacity: capacity.Value()}
}

// StorageResource is storage requested against storage available.
type StorageResource struct {
	Requested int64
	Capacity  int64
}

// DynamicProvision is a claim to provision, with the CSIStorageCapacity
// that showed room for it on the node (nil when capacity is not tracked).
type DynamicProvision struct {
	PVC          *v1.PersistentVolumeClaim
	NodeCapacity *storagev1.CSIStorageCapacity
}

// PodVolumes is what binding the pod's unbound claims on one node takes.
type PodVolumes struct {
	// StaticBindings bind claims to existing PVs.
	StaticBindings []*BindingInfo
	// DynamicProvisions are claims to provision.
	DynamicProvisions []*DynamicProvision
}

// PodVolumeClaims sorts the pod's claims by binding state.
type PodVolumeClaims struct {
	boundClaims []*v1.PersistentVolumeClaim
	// unboundClaimsDelayBinding wait for the scheduler (WaitForFirstConsumer).
	unboundClaimsDelayBinding []*v1.PersistentVolumeClaim
	// unboundClaimsImmediate should already be bound (Immediate mode, or
	// pre-bound to a PV by name).
	unboundClaimsImmediate []*v1.PersistentVolumeClaim
	// unboundVolumesDelayBinding are the PVs of the delayed claims'
	// classes, by class.
	unboundVolumesDelayBinding map[string][]*v1.PersistentVolume
}

// stateData lives from PreFilter to PreBind. Clones share it, as upstream:
// Filter fills podVolumesByNode for Score and Reserve to read.
type stateData struct {
	// claimless: the pod has no claims, PreFilter skipped Filter, and
	// Score gives every node 0 without looking (taking mu for each of
	// hundreds of nodes was most of a claimless pod's scoring).
	claimless         bool
	allBound          bool
	podVolumesByNode  map[string]*PodVolumes
	podVolumeClaims   *PodVolumeClaims
	hasStaticBindings bool
	// decision is what PreBind bound, for the engine to apply.
	decision *Decision
	mu       sync.Mutex
}

func (d *stateData) Clone() framework.StateData { return d }

func getStateData(state *framework.CycleState) (*stateData, error) {
	if state == nil {
		return nil, framework.ErrNotFound
	}
	s, err := state.Read(stateKey)
	if err != nil {
		return nil, err
	}
	d, ok := s.(*stateData)
	if !ok {
		return nil, errors.New("unable to convert state into stateData")
	}
	return d, nil
}
