package dynamicresources

// What the allocator is given: the devices already taken, the slices with
// the DeviceTaintRules applied, the device classes.

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// optionalNodeOperationsFeature is the node's declared feature an
// allocation with skipNodeOperations needs.
const optionalNodeOperationsFeature = draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate

func requiresOptionalNodeOperations(a *resourcev1.AllocationResult) bool {
	for _, r := range a.Devices.Results {
		if len(r.SkipNodeOperations) > 0 {
			return true
		}
	}
	return false
}

// allocatedState is upstream's GatherAllocatedState (DRAConsumableCapacity
// on) or ListAllAllocatedDevices (off): every device the stored claims'
// allocations and the in-flight allocations hold. Admin-access results
// never count; shared results (a shareID) count by share and consumed
// capacity when consumable capacity is on, as whole devices when it is off.
func (pl *DynamicResources) allocatedState() structured.AllocatedState {
	st := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	add := func(c *resourcev1.ResourceClaim) {
		if c.Status.Allocation == nil {
			return
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if pl.fts.EnableDRAConsumableCapacity && r.ShareID != nil {
				st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
				if r.ConsumedCapacity != nil {
					st.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
				}
				continue
			}
			st.AllocatedDevices.Insert(id)
		}
	}
	for _, c := range pl.h.Objects().ResourceClaims() {
		add(c)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, c := range pl.inFlight {
		add(c)
	}
	return st
}

// slicesWithTaintRules are the stored slices, each device carrying the
// taints of the DeviceTaintRules that select it (DRADeviceTaintRules), as
// upstream's slice tracker patches them. A rule without a selector selects
// nothing.
func (pl *DynamicResources) slicesWithTaintRules() []*resourcev1.ResourceSlice {
	slices := pl.h.Objects().ResourceSlices()
	var rules []*resourcev1.DeviceTaintRule
	if pl.fts.EnableDRADeviceTaints && pl.fts.EnableDRADeviceTaintRules {
		rules = pl.h.Objects().DeviceTaintRules()
	}
	if len(rules) == 0 {
		return slices
	}
	out := make([]*resourcev1.ResourceSlice, len(slices))
	for i, s := range slices {
		out[i] = applyTaintRules(s, rules)
	}
	return out
}

func applyTaintRules(slice *resourcev1.ResourceSlice, rules []*resourcev1.DeviceTaintRule) *resourcev1.ResourceSlice {
	patched := slice
	for _, rule := range rules {
		sel := rule.Spec.DeviceSelector
		if sel == nil ||
			sel.Driver != nil && *sel.Driver != slice.Spec.Driver ||
			sel.Pool != nil && *sel.Pool != slice.Spec.Pool.Name {
			continue
		}
		for i, d := range slice.Spec.Devices {
			if sel.Device != nil && *sel.Device != d.Name {
				continue
			}
			if patched == slice {
				patched = slice.DeepCopy()
			}
			patched.Spec.Devices[i].Taints = append(patched.Spec.Devices[i].Taints, rule.Spec.Taint)
		}
	}
	return patched
}

// classLister gives the allocator the stored device classes.
type classLister struct{ objs framework.ObjectLister }

func (l classLister) List() ([]*resourcev1.DeviceClass, error) { return l.objs.DeviceClasses(), nil }

func (l classLister) Get(name string) (*resourcev1.DeviceClass, error) {
	return l.objs.DeviceClass(name)
}
