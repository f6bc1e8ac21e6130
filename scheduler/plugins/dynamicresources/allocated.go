package dynamicresources

// What the allocator is given besides allocation_cache.go's: the slices
// with the DeviceTaintRules applied, the device classes.

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"

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

// applyTaintRules gives each device of the slice the taints of the
// DeviceTaintRules that select it (DRADeviceTaintRules), as upstream's
// slice tracker patches them. A rule without a selector selects nothing.
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
