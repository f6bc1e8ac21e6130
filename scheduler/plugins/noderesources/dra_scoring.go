package noderesources

// Scoring DRA-backed extended resources (DRAExtendedResource): a scoring
// resource that a DeviceClass backs and that a node lacks as device-plugin
// allocatable is scored on the class's devices on that node, as upstream's
// resource scorer does: its allocatable is the number of matching devices
// the node's slices publish, its allocated amount the number of those that
// some claim holds. PreScore takes the claims and slices once per cycle.

import (
	"context"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// draScoring reads the cluster's DRA objects; nil when DRAExtendedResource
// is off.
type draScoring struct {
	objs framework.ObjectLister
	cel  *cel.Cache
}

func newDRAScoring(h framework.Handle) *draScoring {
	fts := h.Features()
	if !fts.EnableDRAExtendedResource {
		return nil
	}
	return &draScoring{objs: h.Objects(), cel: celCache(fts)}
}

func celCache(fts features.Features) *cel.Cache {
	return cel.NewCache(10, cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	})
}

// draDevices is what PreScore gathered: the devices claims hold (admin
// access aside) and every slice.
type draDevices struct {
	taken  sets.Set[structured.DeviceID]
	slices []*resourcev1.ResourceSlice
}

// preScore gathers the devices when some configured resource is backed
// by a DeviceClass; nil otherwise.
func (d *draScoring) preScore(resources []configv1.ResourceSpec) *draDevices {
	if d == nil {
		return nil
	}
	backed := false
	for _, r := range resources {
		name := v1.ResourceName(r.Name)
		if framework.IsDRAExtendedResourceName(name) && d.objs.DeviceClassForResource(name) != nil {
			backed = true
			break
		}
	}
	if !backed {
		return nil
	}
	taken := sets.New[structured.DeviceID]()
	for _, c := range d.objs.ResourceClaims() {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			taken.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
		}
	}
	return &draDevices{taken: taken, slices: d.objs.ResourceSlices()}
}

// capacity is the node's count of the devices of the class backing name
// and how many of them are taken; (0, 0) when no class backs it, and on
// an error (a selector that does not evaluate), as upstream logs and
// scores it.
func (d *draScoring) capacity(node *v1.Node, name v1.ResourceName, dev *draDevices) (int64, int64) {
	class := d.objs.DeviceClassForResource(name)
	if class == nil {
		return 0, 0
	}
	var total, taken int64
	for _, s := range dev.slices {
		devices, err := devicesOnNode(s, node)
		if err != nil {
			return 0, 0
		}
		for _, device := range devices {
			ok, err := d.matches(device, class, s.Spec.Driver)
			if err != nil {
				return 0, 0
			}
			if !ok {
				continue
			}
			total++
			if dev.taken.Has(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, device.Name)) {
				taken++
			}
		}
	}
	return total, taken
}

// devicesOnNode are the slice's devices the node can reach, decided per
// device with perDeviceNodeSelection, else for the whole slice.
func devicesOnNode(s *resourcev1.ResourceSlice, node *v1.Node) ([]resourcev1.Device, error) {
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	isTrue := func(p *bool) bool { return p != nil && *p }
	if isTrue(s.Spec.PerDeviceNodeSelection) {
		var out []resourcev1.Device
		for _, d := range s.Spec.Devices {
			name, all := deref(d.NodeName), isTrue(d.AllNodes)
			if all || name != "" && name == node.Name {
				out = append(out, d)
				continue
			}
			if d.NodeSelector != nil {
				ok, err := structured.NodeMatches(structured.Features{}, node, name, all, d.NodeSelector)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, d)
				}
			}
		}
		return out, nil
	}
	name, all := deref(s.Spec.NodeName), isTrue(s.Spec.AllNodes)
	switch {
	case !all && name != node.Name && s.Spec.NodeSelector != nil:
		ok, err := structured.NodeMatches(structured.Features{}, node, name, all, s.Spec.NodeSelector)
		if err != nil || !ok {
			return nil, err
		}
	case !all && name != "" && name != node.Name:
		return nil, nil
	}
	return s.Spec.Devices, nil
}

// matches: every CEL selector of the class accepts the device.
func (d *draScoring) matches(device resourcev1.Device, class *resourcev1.DeviceClass, driver string) (bool, error) {
	for _, sel := range class.Spec.Selectors {
		if sel.CEL == nil {
			continue
		}
		res := d.cel.GetOrCompile(sel.CEL.Expression)
		if res.Error != nil {
			return false, res.Error
		}
		ok, _, err := res.DeviceMatches(context.Background(), cel.Device{Driver: driver, Attributes: device.Attributes, Capacity: device.Capacity})
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
