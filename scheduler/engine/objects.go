package engine

// Changes of the objects other than nodes and pods (ObjectAdd,
// ObjectUpdate, ObjectDelete), applied as upstream's informers and event
// handlers apply them (pkg/scheduler/eventhandlers.go, addAllEventHandlers):
// the informer's store (the object store plugins list from) is updated
// first; then, for the kinds a plugin may register events for (PVs, PVCs,
// StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities,
// VolumeAttachments), buildEvtResHandler's handler moves the waiting pods
// with ClusterEvent{resource, Add|Update|Delete}. Upstream only registers a
// handler for the action types some plugin registered; the queue drops an
// event no plugin registered (isEventOfInterest), which is the same.
// ResourceClaims, ResourceSlices and DeviceClasses move pods too (a
// DeviceTaintRule's change as updates of the slices it selects);
// ResourceClaimTemplates are only read (by the resourceclaim controller,
// not the scheduler) and stored.
// Services, ReplicationControllers, ReplicaSets, StatefulSets,
// PodDisruptionBudgets and Namespaces are only listed by plugins: they are
// stored and move nothing. PriorityClasses, RuntimeClasses and DaemonSets
// are not read by the scheduler at all (admission and controllers read
// them): their changes only appear on the timeline.

import (
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// objectKind says what the engine does with one kind of object.
type objectKind struct {
	// kind is the Kind ("PersistentVolumeClaim").
	kind string
	// resource is the event resource upstream's handlers report, "" for
	// kinds no plugin can register events for.
	resource framework.EventResource
	// stored: the scheduler reads the kind (the object store keeps it).
	stored bool
}

// kindOf classifies an object of a kind the scheduler may read; ok is
// false for nil, nodes, pods and kinds schedtui does not read.
func kindOf(obj runtime.Object) (objectKind, bool) {
	if obj == nil || reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil() {
		return objectKind{}, false
	}
	switch obj.(type) {
	case *v1.PersistentVolume:
		return objectKind{"PersistentVolume", framework.PersistentVolume, true}, true
	case *v1.PersistentVolumeClaim:
		return objectKind{"PersistentVolumeClaim", framework.PersistentVolumeClaim, true}, true
	case *storagev1.StorageClass:
		return objectKind{"StorageClass", framework.StorageClass, true}, true
	case *storagev1.CSINode:
		return objectKind{"CSINode", framework.CSINode, true}, true
	case *storagev1.CSIDriver:
		return objectKind{"CSIDriver", framework.CSIDriver, true}, true
	case *storagev1.CSIStorageCapacity:
		return objectKind{"CSIStorageCapacity", framework.CSIStorageCapacity, true}, true
	case *storagev1.VolumeAttachment:
		return objectKind{"VolumeAttachment", framework.VolumeAttachment, true}, true
	case *v1.Namespace:
		return objectKind{"Namespace", "", true}, true
	case *v1.Service:
		return objectKind{"Service", "", true}, true
	case *v1.ReplicationController:
		return objectKind{"ReplicationController", "", true}, true
	case *appsv1.ReplicaSet:
		return objectKind{"ReplicaSet", "", true}, true
	case *appsv1.StatefulSet:
		return objectKind{"StatefulSet", "", true}, true
	case *policyv1.PodDisruptionBudget:
		return objectKind{"PodDisruptionBudget", "", true}, true
	case *resourcev1.ResourceClaim:
		return objectKind{"ResourceClaim", framework.ResourceClaim, true}, true
	case *resourcev1.ResourceSlice:
		return objectKind{"ResourceSlice", framework.ResourceSlice, true}, true
	case *resourcev1.DeviceClass:
		return objectKind{"DeviceClass", framework.DeviceClass, true}, true
	case *resourcev1.ResourceClaimTemplate:
		return objectKind{"ResourceClaimTemplate", "", true}, true
	case *resourcev1.DeviceTaintRule:
		// Upstream's slice tracker reports a rule's change as updates of
		// the slices it selects (see taintRuleChanged).
		return objectKind{"DeviceTaintRule", "", true}, true
	case *schedulingv1.PriorityClass:
		return objectKind{"PriorityClass", "", false}, true
	case *nodev1.RuntimeClass:
		return objectKind{"RuntimeClass", "", false}, true
	case *appsv1.DaemonSet:
		return objectKind{"DaemonSet", "", false}, true
	}
	return objectKind{}, false
}

// describeObject names an object as problems do: "Kind namespace/name",
// or "Kind name" for cluster-scoped kinds.
func describeObject(obj runtime.Object) string {
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
		if k, ok := kindOf(obj); ok {
			kind = k.kind
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

func objectName(obj runtime.Object) (namespace, name string) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "", ""
	}
	return acc.GetNamespace(), acc.GetName()
}

// validateObject checks an ObjectAdd, ObjectUpdate or ObjectDelete.
func (c ClusterChange) validateObject() error {
	switch o := c.Object.(type) {
	case nil:
		return fmt.Errorf("%s without an object", c.Kind)
	case *v1.Node:
		return fmt.Errorf("%s of %s: node changes are NodeAdd, NodeUpdate and NodeDelete", c.Kind, describeObject(o))
	case *v1.Pod:
		return fmt.Errorf("%s of %s: pod changes are PodAdd, PodUpdate and PodDelete", c.Kind, describeObject(o))
	}
	if _, ok := kindOf(c.Object); !ok {
		if v := reflect.ValueOf(c.Object); v.Kind() == reflect.Pointer && v.IsNil() {
			return fmt.Errorf("%s without an object", c.Kind)
		}
		return fmt.Errorf("%s of %s: not a kind the scheduler reads", c.Kind, describeObject(c.Object))
	}
	if _, name := objectName(c.Object); name == "" {
		return fmt.Errorf("%s of %s: the object has no name", c.Kind, describeObject(c.Object))
	}
	return nil
}

// storedObject returns the object store's object with the same kind,
// namespace and name as obj, or nil.
func (e *Engine) storedObject(obj runtime.Object) runtime.Object {
	objs := e.sched.Objects()
	ns, name := objectName(obj)
	found := func(o runtime.Object, err error) runtime.Object {
		if err != nil || o == nil || reflect.ValueOf(o).IsNil() {
			return nil
		}
		return o
	}
	switch obj.(type) {
	case *v1.PersistentVolume:
		return found(objs.PersistentVolume(name))
	case *v1.PersistentVolumeClaim:
		return found(objs.PersistentVolumeClaim(ns, name))
	case *storagev1.StorageClass:
		return found(objs.StorageClass(name))
	case *storagev1.CSINode:
		return found(objs.CSINode(name))
	case *storagev1.CSIDriver:
		return found(objs.CSIDriver(name))
	case *v1.Namespace:
		return found(objs.Namespace(name))
	case *storagev1.CSIStorageCapacity:
		return findNamed(objs.CSIStorageCapacities(), ns, name)
	case *storagev1.VolumeAttachment:
		return findNamed(objs.VolumeAttachments(), ns, name)
	case *v1.Service:
		return findNamed(objs.Services(ns), ns, name)
	case *v1.ReplicationController:
		return findNamed(objs.ReplicationControllers(ns), ns, name)
	case *appsv1.ReplicaSet:
		return findNamed(objs.ReplicaSets(ns), ns, name)
	case *appsv1.StatefulSet:
		return findNamed(objs.StatefulSets(ns), ns, name)
	case *policyv1.PodDisruptionBudget:
		return findNamed(objs.PodDisruptionBudgets(), ns, name)
	case *resourcev1.ResourceClaim:
		return found(objs.ResourceClaim(ns, name))
	case *resourcev1.ResourceClaimTemplate:
		return found(objs.ResourceClaimTemplate(ns, name))
	case *resourcev1.DeviceClass:
		return found(objs.DeviceClass(name))
	case *resourcev1.ResourceSlice:
		return findNamed(objs.ResourceSlices(), ns, name)
	case *resourcev1.DeviceTaintRule:
		return findNamed(objs.DeviceTaintRules(), ns, name)
	}
	return nil
}

func findNamed[T runtime.Object](list []T, ns, name string) runtime.Object {
	for _, o := range list {
		if ons, oname := objectName(o); ons == ns && oname == name {
			return o
		}
	}
	return nil
}

// applyObject applies an ObjectAdd, ObjectUpdate or ObjectDelete (see the
// top of this file). The object is stored as given and must not be
// mutated afterwards.
func (e *Engine) applyObject(c ClusterChange) error {
	k, _ := kindOf(c.Object)
	if !k.stored {
		// No informer of the scheduler watches the kind.
		e.clusterEvent(c, "")
		return nil
	}
	old := e.storedObject(c.Object)
	switch {
	case c.Kind == ObjectAdd && old != nil:
		return fmt.Errorf("%s already exists", describeObject(c.Object))
	case c.Kind != ObjectAdd && old == nil:
		return fmt.Errorf("%s does not exist", describeObject(c.Object))
	}
	objs := e.sched.Objects()
	e.bump()
	e.clusterEvent(c, "")
	switch c.Kind {
	case ObjectDelete:
		objs.Delete(old)
		if k.resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.resource, ActionType: framework.Delete}, old, nil, nil)
		}
	case ObjectAdd:
		objs.Add(c.Object)
		if k.resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.resource, ActionType: framework.Add}, nil, c.Object, nil)
		}
	case ObjectUpdate:
		var claimed func()
		if cur, ok := c.Object.(*v1.PersistentVolumeClaim); ok {
			claimed = e.shadowClaim(old.(*v1.PersistentVolumeClaim), cur)
		}
		objs.Add(c.Object)
		if k.resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.resource, ActionType: framework.Update}, old, c.Object, nil)
		}
		if claimed != nil {
			claimed()
		}
	}
	if rule, ok := c.Object.(*resourcev1.DeviceTaintRule); ok {
		e.taintRuleChanged(rule, old)
	}
	return nil
}

// taintRuleChanged reports a DeviceTaintRule's add, update or delete as
// upstream's slice tracker does: an Update of every stored ResourceSlice
// the rule selected before or selects now.
func (e *Engine) taintRuleChanged(rule *resourcev1.DeviceTaintRule, old runtime.Object) {
	var oldRule *resourcev1.DeviceTaintRule
	if o, ok := old.(*resourcev1.DeviceTaintRule); ok {
		oldRule = o
	}
	for _, sl := range e.sched.Objects().ResourceSlices() {
		if taintRuleSelects(rule, sl) || oldRule != nil && taintRuleSelects(oldRule, sl) {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Update}, sl, sl, nil)
		}
	}
}

// taintRuleSelects: the rule's selector (driver, pool, device, each
// optional; no selector selects nothing) matches a device of the slice.
func taintRuleSelects(rule *resourcev1.DeviceTaintRule, sl *resourcev1.ResourceSlice) bool {
	sel := rule.Spec.DeviceSelector
	if sel == nil || sel.Driver != nil && *sel.Driver != sl.Spec.Driver || sel.Pool != nil && *sel.Pool != sl.Spec.Pool.Name {
		return false
	}
	if sel.Device == nil {
		return len(sl.Spec.Devices) > 0
	}
	for _, d := range sl.Spec.Devices {
		if d.Name == *sel.Device {
			return true
		}
	}
	return false
}

// ChangeFor is the change a watch event reports about obj: NodeAdd,
// NodeUpdate or NodeDelete for a *v1.Node, PodAdd, PodUpdate or PodDelete
// for a *v1.Pod, ObjectAdd, ObjectUpdate or ObjectDelete for the other
// kinds the scheduler reads. For a deletion obj is the object's last
// state. The change is validated (Apply's checks that need no engine).
func ChangeFor(t watch.EventType, obj runtime.Object) (ClusterChange, error) {
	var c ClusterChange
	var add, update, del ChangeKind
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
		return ClusterChange{}, fmt.Errorf("a %q watch event of %s is not a change", t, describeObject(obj))
	}
	if err := c.validate(); err != nil {
		return ClusterChange{}, err
	}
	return c, nil
}

// WatchEvent is the watch event a change reports (ChangeFor's inverse):
// its type and object.
func (c ClusterChange) WatchEvent() (watch.EventType, runtime.Object) {
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
func (c ClusterChange) Describe() string {
	_, obj := c.WatchEvent()
	return describeObject(obj)
}

// String is the change and its object: "NodeAdd Node n1", "ObjectUpdate
// StorageClass fast".
func (c ClusterChange) String() string { return string(c.Kind) + " " + c.Describe() }

// isChange reports whether a cluster event's reason is a change kind
// (rather than the engine's own API calls, e.g. "Preempted").
func isChange(reason string) bool {
	switch ChangeKind(reason) {
	case NodeAdd, NodeUpdate, NodeDelete, PodAdd, PodUpdate, PodDelete, ObjectAdd, ObjectUpdate, ObjectDelete:
		return true
	}
	return false
}
