package framework

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
)

// DRA-backed extended resources (DRAExtendedResource): a DeviceClass
// stands for the extended resource "deviceclass.resource.kubernetes.io/
// <class>" and, if set, for its spec.extendedResourceName. The mapping is
// kept as upstream's extended-resource cache keeps it, updated by each
// DeviceClass add, update and delete in arrival order, so that its
// history-dependent clash rule gives the same answer.

// IsDRAExtendedResourceName reports an extended resource name or an
// implicit DeviceClass name (deviceclass.resource.kubernetes.io/<class>,
// which the core helpers count as a native, kubernetes.io name).
func IsDRAExtendedResourceName(name v1.ResourceName) bool {
	return IsExtendedResourceName(name) || strings.HasPrefix(string(name), resourcev1.ResourceDeviceClassPrefix)
}

// extendedResourceClasses maps resource names to the DeviceClass backing
// them.
type extendedResourceClasses map[v1.ResourceName]*resourcev1.DeviceClass

// put is a class added (old nil) or updated. Two classes naming the same
// extendedResourceName: the newer creationTimestamp wins, equal times the
// smaller name; a class that loses returns early, so it keeps (or, when
// added, does not get) its implicit name either, as upstream.
func (m extendedResourceClasses) put(class, old *resourcev1.DeviceClass) {
	if n := class.Spec.ExtendedResourceName; n != nil {
		if cur := m[v1.ResourceName(*n)]; cur != nil {
			a, b := class.CreationTimestamp.UnixNano(), cur.CreationTimestamp.UnixNano()
			if a < b || a == b && class.Name >= cur.Name {
				return
			}
		}
	}
	if old != nil {
		delete(m, v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+old.Name))
		if old.Spec.ExtendedResourceName != nil {
			delete(m, v1.ResourceName(*old.Spec.ExtendedResourceName))
		}
	}
	if n := class.Spec.ExtendedResourceName; n != nil {
		m[v1.ResourceName(*n)] = class
	}
	m[v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+class.Name)] = class
}

// remove is a class deleted: both of its names are dropped, even when the
// explicit one maps to another class, as upstream.
func (m extendedResourceClasses) remove(class *resourcev1.DeviceClass) {
	delete(m, v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+class.Name))
	if n := class.Spec.ExtendedResourceName; n != nil {
		delete(m, v1.ResourceName(*n))
	}
}

// DeviceClassForResource is the DeviceClass backing an extended resource,
// nil if none does.
func (o *ObjectStore) DeviceClassForResource(name v1.ResourceName) *resourcev1.DeviceClass {
	return o.extResources[name]
}
