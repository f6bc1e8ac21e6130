package engine

// Changes of the objects other than nodes and pods (change.ObjectAdd,
// change.ObjectUpdate, change.ObjectDelete), applied as upstream's informers and event
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
// not the scheduler) and stored. PodGroups and CompositePodGroups are
// stored and are cluster events (framework.PodGroup,
// framework.CompositePodGroup); Workloads are stored for the views only
// (kube-scheduler does not watch them).
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
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// storedObject returns the object store's object with the same kind,
// namespace and name as obj, or nil.
func (e *Engine) storedObject(obj runtime.Object) runtime.Object {
	objs := e.sched.Objects()
	ns, name := change.ObjectName(obj)
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
	case *schedulingv1beta1.PodGroup:
		return found(objs.PodGroup(ns, name))
	case *schedulingv1alpha3.CompositePodGroup:
		return found(objs.CompositePodGroup(ns, name))
	case *schedulingv1beta1.Workload:
		return found(objs.Workload(ns, name))
	}
	return nil
}

func findNamed[T runtime.Object](list []T, ns, name string) runtime.Object {
	for _, o := range list {
		if ons, oname := change.ObjectName(o); ons == ns && oname == name {
			return o
		}
	}
	return nil
}

// applyObject applies an change.ObjectAdd, change.ObjectUpdate or change.ObjectDelete (see the
// top of this file). The object is stored as given and must not be
// mutated afterwards.
func (e *Engine) applyObject(c change.Change) error {
	k, _ := change.KindOf(c.Object)
	if !k.Stored {
		// No informer of the scheduler watches the kind.
		e.clusterEvent(c, "")
		return nil
	}
	old := e.storedObject(c.Object)
	switch {
	case c.Kind == change.ObjectAdd && old != nil:
		return fmt.Errorf("%s already exists", change.DescribeObject(c.Object))
	case c.Kind != change.ObjectAdd && old == nil:
		if e.releasedHere(c.Object) {
			e.clusterEvent(c, AlreadyReleased)
			return nil
		}
		return fmt.Errorf("%s does not exist", change.DescribeObject(c.Object))
	}
	objs := e.sched.Objects()
	e.bump()
	e.clusterEvent(c, "")
	if pg, ok := c.Object.(*schedulingv1beta1.PodGroup); ok {
		oldPG, _ := old.(*schedulingv1beta1.PodGroup)
		var judged func()
		switch c.Kind {
		case change.ObjectDelete:
			pg = nil
		case change.ObjectUpdate:
			judged = e.mode.podGroupUpdated(oldPG, pg)
		}
		e.podGroupChanged(c.Kind, oldPG, pg)
		if judged != nil {
			judged()
		}
		if c.Kind == change.ObjectDelete {
			e.releasePodGroupClaims(oldPG)
		}
		return nil
	}
	if cpg, ok := c.Object.(*schedulingv1alpha3.CompositePodGroup); ok {
		oldCPG, _ := old.(*schedulingv1alpha3.CompositePodGroup)
		e.compositePodGroupChanged(c.Kind, oldCPG, cpg)
		return nil
	}
	switch c.Kind {
	case change.ObjectDelete:
		objs.Delete(old)
		if k.Resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.Resource, ActionType: framework.Delete}, old, nil, nil)
		}
	case change.ObjectAdd:
		objs.Add(c.Object)
		if k.Resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.Resource, ActionType: framework.Add}, nil, c.Object, nil)
		}
	case change.ObjectUpdate:
		var claimed func()
		if cur, ok := c.Object.(*v1.PersistentVolumeClaim); ok {
			claimed = e.mode.claimUpdated(old.(*v1.PersistentVolumeClaim), cur)
		}
		objs.Add(c.Object)
		if k.Resource != "" {
			e.q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: k.Resource, ActionType: framework.Update}, old, c.Object, nil)
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
