// Package change holds what a source hands the engine: the cluster changes
// a recording or a live cluster reports, as the scheduler's informers
// deliver them, and the clock a live source runs by. Sources (snapshot,
// snapshot/live) and the engine both use it, so that no source imports the
// engine.
package change

import (
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Kind names a cluster change.
type Kind string

const (
	NodeAdd    Kind = "NodeAdd"
	NodeUpdate Kind = "NodeUpdate"
	NodeDelete Kind = "NodeDelete"
	PodAdd     Kind = "PodAdd"
	PodUpdate  Kind = "PodUpdate"
	PodDelete  Kind = "PodDelete"
	// ObjectAdd, ObjectUpdate and ObjectDelete change any other object the
	// scheduler reads (PersistentVolume, StorageClass, Service, ...; see
	// objects.go).
	ObjectAdd    Kind = "ObjectAdd"
	ObjectUpdate Kind = "ObjectUpdate"
	ObjectDelete Kind = "ObjectDelete"
)

// Change is a change a recording or a live cluster reports, applied
// as the scheduler's informer event handlers apply it.
type Change struct {
	Kind Kind
	// Node is the new node (the deleted one for NodeDelete).
	Node *v1.Node
	// Pod is the new pod (the deleted one for PodDelete).
	Pod *v1.Pod
	// Object is the new object of an ObjectAdd or ObjectUpdate (the
	// deleted one for ObjectDelete): a PersistentVolume, a
	// PersistentVolumeClaim, a StorageClass, a CSINode, a CSIDriver, a
	// CSIStorageCapacity, a VolumeAttachment, a Namespace, a Service, a
	// ReplicationController, a ReplicaSet, a StatefulSet, a
	// PodDisruptionBudget, a PriorityClass, a RuntimeClass or a DaemonSet.
	Object runtime.Object
	// At schedules the change; zero, or a time not after Now, applies it
	// at once.
	At time.Time
}

// Validate checks what Apply can check without an engine: the kind is
// known and names its object.
func (c Change) Validate() error {
	switch c.Kind {
	case NodeAdd, NodeUpdate, NodeDelete:
		if c.Node == nil || c.Node.Name == "" {
			return fmt.Errorf("%s without a named node", c.Kind)
		}
	case PodAdd, PodUpdate, PodDelete:
		if c.Pod == nil || c.Pod.Name == "" {
			return fmt.Errorf("%s without a named pod", c.Kind)
		}
	case ObjectAdd, ObjectUpdate, ObjectDelete:
		return c.validateObject()
	default:
		return fmt.Errorf("unknown change kind %q", c.Kind)
	}
	return nil
}

// ObjectKind says what the scheduler does with one kind of object other
// than nodes and pods.
type ObjectKind struct {
	// Kind is the Kind ("PersistentVolumeClaim").
	Kind string
	// Resource is the event resource upstream's handlers report, "" for
	// kinds no plugin can register events for.
	Resource framework.EventResource
	// Stored: the scheduler reads the kind (the object store keeps it).
	Stored bool
}

// KindOf classifies an object of a kind the scheduler may read; ok is
// false for nil, nodes, pods and kinds schedtui does not read.
func KindOf(obj runtime.Object) (ObjectKind, bool) {
	if obj == nil || reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil() {
		return ObjectKind{}, false
	}
	switch obj.(type) {
	case *v1.PersistentVolume:
		return ObjectKind{"PersistentVolume", framework.PersistentVolume, true}, true
	case *v1.PersistentVolumeClaim:
		return ObjectKind{"PersistentVolumeClaim", framework.PersistentVolumeClaim, true}, true
	case *storagev1.StorageClass:
		return ObjectKind{"StorageClass", framework.StorageClass, true}, true
	case *storagev1.CSINode:
		return ObjectKind{"CSINode", framework.CSINode, true}, true
	case *storagev1.CSIDriver:
		return ObjectKind{"CSIDriver", framework.CSIDriver, true}, true
	case *storagev1.CSIStorageCapacity:
		return ObjectKind{"CSIStorageCapacity", framework.CSIStorageCapacity, true}, true
	case *storagev1.VolumeAttachment:
		return ObjectKind{"VolumeAttachment", framework.VolumeAttachment, true}, true
	case *v1.Namespace:
		return ObjectKind{"Namespace", "", true}, true
	case *v1.Service:
		return ObjectKind{"Service", "", true}, true
	case *v1.ReplicationController:
		return ObjectKind{"ReplicationController", "", true}, true
	case *appsv1.ReplicaSet:
		return ObjectKind{"ReplicaSet", "", true}, true
	case *appsv1.StatefulSet:
		return ObjectKind{"StatefulSet", "", true}, true
	case *policyv1.PodDisruptionBudget:
		return ObjectKind{"PodDisruptionBudget", "", true}, true
	case *resourcev1.ResourceClaim:
		return ObjectKind{"ResourceClaim", framework.ResourceClaim, true}, true
	case *resourcev1.ResourceSlice:
		return ObjectKind{"ResourceSlice", framework.ResourceSlice, true}, true
	case *resourcev1.DeviceClass:
		return ObjectKind{"DeviceClass", framework.DeviceClass, true}, true
	case *resourcev1.ResourceClaimTemplate:
		return ObjectKind{"ResourceClaimTemplate", "", true}, true
	case *schedulingv1beta1.PodGroup:
		return ObjectKind{"PodGroup", framework.PodGroup, true}, true
	case *schedulingv1alpha3.CompositePodGroup:
		return ObjectKind{"CompositePodGroup", framework.CompositePodGroup, true}, true
	case *schedulingv1beta1.Workload:
		// Kept for the views; kube-scheduler does not watch Workloads.
		return ObjectKind{"Workload", "", true}, true
	case *resourcev1.DeviceTaintRule:
		// Upstream's slice tracker reports a rule's change as updates of
		// the slices it selects (see taintRuleChanged).
		return ObjectKind{"DeviceTaintRule", "", true}, true
	case *schedulingv1.PriorityClass:
		return ObjectKind{"PriorityClass", "", false}, true
	case *nodev1.RuntimeClass:
		return ObjectKind{"RuntimeClass", "", false}, true
	case *appsv1.DaemonSet:
		return ObjectKind{"DaemonSet", "", false}, true
	}
	return ObjectKind{}, false
}

// DescribeObject names an object as problems do: "Kind namespace/name",
// or "Kind name" for cluster-scoped kinds.
func DescribeObject(obj runtime.Object) string {
	if obj == nil || reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil() {
		return "<nil>"
	}
	kind := ""
	switch obj.(type) {
	case *v1.Node:
		kind = "Node"
	case *v1.Pod:
		kind = "Pod"
	default:
		if k, ok := KindOf(obj); ok {
			kind = k.Kind
		} else if kind = obj.GetObjectKind().GroupVersionKind().Kind; kind == "" {
			kind = fmt.Sprintf("%T", obj)
		}
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return kind
	}
	name := acc.GetName()
	if name == "" {
		name = "<unnamed>"
	}
	if ns := acc.GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + name
	}
	return kind + " " + name
}

// ObjectName is an object's namespace and name ("" for what has none).
func ObjectName(obj runtime.Object) (namespace, name string) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "", ""
	}
	return acc.GetNamespace(), acc.GetName()
}

// validateObject checks an ObjectAdd, ObjectUpdate or ObjectDelete.
func (c Change) validateObject() error {
	switch o := c.Object.(type) {
	case nil:
		return fmt.Errorf("%s without an object", c.Kind)
	case *v1.Node:
		return fmt.Errorf("%s of %s: node changes are NodeAdd, NodeUpdate and NodeDelete", c.Kind, DescribeObject(o))
	case *v1.Pod:
		return fmt.Errorf("%s of %s: pod changes are PodAdd, PodUpdate and PodDelete", c.Kind, DescribeObject(o))
	}
	if _, ok := KindOf(c.Object); !ok {
		if v := reflect.ValueOf(c.Object); v.Kind() == reflect.Pointer && v.IsNil() {
			return fmt.Errorf("%s without an object", c.Kind)
		}
		return fmt.Errorf("%s of %s: not a kind the scheduler reads", c.Kind, DescribeObject(c.Object))
	}
	if _, name := ObjectName(c.Object); name == "" {
		return fmt.Errorf("%s of %s: the object has no name", c.Kind, DescribeObject(c.Object))
	}
	return nil
}

// For is the change a watch event reports about obj: NodeAdd,
// NodeUpdate or NodeDelete for a *v1.Node, PodAdd, PodUpdate or PodDelete
// for a *v1.Pod, ObjectAdd, ObjectUpdate or ObjectDelete for the other
// kinds the scheduler reads. For a deletion obj is the object's last
// state. The change is validated (Apply's checks that need no engine).
func For(t watch.EventType, obj runtime.Object) (Change, error) {
	var c Change
	var add, update, del Kind
	switch o := obj.(type) {
	case *v1.Node:
		c.Node, add, update, del = o, NodeAdd, NodeUpdate, NodeDelete
	case *v1.Pod:
		c.Pod, add, update, del = o, PodAdd, PodUpdate, PodDelete
	default:
		c.Object, add, update, del = obj, ObjectAdd, ObjectUpdate, ObjectDelete
	}
	switch t {
	case watch.Added:
		c.Kind = add
	case watch.Modified:
		c.Kind = update
	case watch.Deleted:
		c.Kind = del
	default:
		return Change{}, fmt.Errorf("a %q watch event of %s is not a change", t, DescribeObject(obj))
	}
	if err := c.Validate(); err != nil {
		return Change{}, err
	}
	return c, nil
}

// WatchEvent is the watch event a change reports (ChangeFor's inverse):
// its type and object.
func (c Change) WatchEvent() (watch.EventType, runtime.Object) {
	var obj runtime.Object
	switch {
	case c.Node != nil:
		obj = c.Node
	case c.Pod != nil:
		obj = c.Pod
	default:
		obj = c.Object
	}
	switch c.Kind {
	case NodeAdd, PodAdd, ObjectAdd:
		return watch.Added, obj
	case NodeDelete, PodDelete, ObjectDelete:
		return watch.Deleted, obj
	}
	return watch.Modified, obj
}

// Describe names the object a change is about: "Node name", "Pod
// namespace/name", "PersistentVolumeClaim namespace/name".
func (c Change) Describe() string {
	_, obj := c.WatchEvent()
	return DescribeObject(obj)
}

// String is the change and its object: "NodeAdd Node n1", "ObjectUpdate
// StorageClass fast".
func (c Change) String() string { return string(c.Kind) + " " + c.Describe() }

// IsKind reports whether a cluster event's reason is a change kind
// (rather than the engine's own API calls, e.g. "Preempted").
func IsKind(reason string) bool {
	switch Kind(reason) {
	case NodeAdd, NodeUpdate, NodeDelete, PodAdd, PodUpdate, PodDelete, ObjectAdd, ObjectUpdate, ObjectDelete:
		return true
	}
	return false
}
