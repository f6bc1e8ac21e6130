package why

import (
	"fmt"
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// Edits is a change to the cluster as an attempt saw it: Objects are
// added, or replace the stored object of the same kind, namespace and
// name (Nodes, Pods, and every kind the scheduler's object store keeps);
// Remove deletes objects. A what-if (the TUI's, explain --with/--without)
// and a hint's proof apply one with Apply.
type Edits struct {
	Objects []any
	Remove  []Ref
}

// Empty reports whether the edits change nothing.
func (e Edits) Empty() bool { return len(e.Objects) == 0 && len(e.Remove) == 0 }

// KindOf is an object's kind: its Go type's name, which is the API kind
// for every type the scheduler reads (the stored objects carry no
// TypeMeta).
func KindOf(obj any) string {
	t := reflect.TypeOf(obj)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// RefOf names an object as Edits.Remove does.
func RefOf(obj any) Ref {
	r := Ref{Kind: KindOf(obj)}
	if m, ok := obj.(metav1.Object); ok {
		r.Namespace, r.Name = m.GetNamespace(), m.GetName()
	}
	return r
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Apply applies e to s, a fork the caller owns: nodes first (replaced in
// place in the node order, new ones appended, removed ones dropped), then
// pods (a bound pod onto its node, a pending one into the store; a pod
// whose nodeName changed moves), then the other objects. pod is the
// attempt's pod; cur is the pod as s now stores it (the edited one when e
// replaces it), to schedule. undo restores s as it was. Nothing is
// applied when err is not nil; the error names the object.
func Apply(s *scheduler.Scheduler, pod *v1.Pod, e Edits) (cur *v1.Pod, undo func(), err error) {
	store := s.Objects()
	var nodes0 []*v1.Node
	nodeAt := map[string]int{}
	for i, ni := range s.Snapshot().List() {
		nodes0 = append(nodes0, ni.Node())
		nodeAt[ni.Node().Name] = i
	}
	type podChange struct{ old, new *v1.Pod }
	var pods []podChange
	var others []any
	editedNodes := map[string]*v1.Node{}
	var addedNodes []*v1.Node
	removedNodes := map[string]bool{}
	for _, obj := range e.Objects {
		switch o := obj.(type) {
		case *v1.Node:
			if _, ok := nodeAt[o.Name]; ok {
				editedNodes[o.Name] = o
			} else {
				addedNodes = append(addedNodes, o)
			}
		case *v1.Pod:
			if o.Namespace == pod.Namespace && o.Name == pod.Name && o.Spec.NodeName != "" {
				return nil, nil, fmt.Errorf("%s: is the pod being scheduled: its spec.nodeName must stay empty", RefOf(o))
			}
			old, _ := store.Pod(o.Namespace, o.Name)
			pods = append(pods, podChange{old, o})
		default:
			if !storable(obj) {
				return nil, nil, fmt.Errorf("%s: kind %s is not read by the scheduler", RefOf(obj), KindOf(obj))
			}
			others = append(others, obj)
		}
	}
	var removedOthers []any
	for _, r := range e.Remove {
		switch r.Kind {
		case "Node":
			if _, ok := nodeAt[r.Name]; !ok || r.Namespace != "" {
				return nil, nil, fmt.Errorf("%s: no such node in the cluster", r)
			}
			removedNodes[r.Name] = true
		case "Pod":
			old, err := store.Pod(r.Namespace, r.Name)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: no such pod in the cluster", r)
			}
			if old.Namespace == pod.Namespace && old.Name == pod.Name {
				return nil, nil, fmt.Errorf("%s: is the pod being scheduled: it cannot be removed", r)
			}
			pods = append(pods, podChange{old, nil})
		default:
			obj := storedObject(s, r)
			if obj == nil {
				return nil, nil, fmt.Errorf("%s: no such object in the cluster", r)
			}
			removedOthers = append(removedOthers, obj)
		}
	}

	var saved = store
	if len(others)+len(removedOthers) > 0 {
		saved = store.Clone()
	}
	nodesChanged := len(editedNodes)+len(addedNodes)+len(removedNodes) > 0
	if nodesChanged {
		var nodes []*v1.Node
		for _, n := range nodes0 {
			switch {
			case removedNodes[n.Name]:
			case editedNodes[n.Name] != nil:
				nodes = append(nodes, editedNodes[n.Name])
			default:
				nodes = append(nodes, n)
			}
		}
		s.SetNodes(append(nodes, addedNodes...))
	}
	place := func(old, new *v1.Pod) {
		switch {
		case old != nil && old.Spec.NodeName != "" && new != nil && new.Spec.NodeName != "":
			s.UpdateAssignedPod(old, new)
		case old != nil && old.Spec.NodeName != "":
			s.RemoveAssignedPod(old)
		case old != nil && new == nil:
			s.DeletePendingPod(old)
		}
		switch {
		case new == nil:
		case new.Spec.NodeName != "" && (old == nil || old.Spec.NodeName == ""):
			s.AddAssignedPod(new)
		case new.Spec.NodeName == "":
			s.SetPendingPod(new)
		}
	}
	for _, c := range pods {
		place(c.old, c.new)
	}
	for _, obj := range removedOthers {
		store.Delete(obj)
	}
	for _, obj := range others {
		store.Add(obj)
	}
	cur = pod
	if p, err := store.Pod(pod.Namespace, pod.Name); err == nil {
		cur = p
	}
	undo = func() {
		for i := len(pods) - 1; i >= 0; i-- {
			place(pods[i].new, pods[i].old)
		}
		if nodesChanged {
			s.SetNodes(nodes0)
		}
		if saved != store {
			store.CopyFrom(saved)
		}
	}
	return cur, undo, nil
}

// storable reports whether the scheduler's object store keeps obj's kind
// (tried on an empty store: Add says).
func storable(obj any) bool {
	return framework.NewObjectStore().Add(obj)
}

// storedObject is the object r names in s's store, or nil.
func storedObject(s *scheduler.Scheduler, r Ref) any {
	for _, obj := range s.Objects().All() {
		if RefOf(obj) == r {
			return obj
		}
	}
	return nil
}

// kinds are the kinds an edit can name, with their apiVersion and
// whether they are namespaced: nodes, pods and what the scheduler's
// object store keeps.
var kinds = map[string]struct {
	apiVersion string
	namespaced bool
}{
	"Node": {"v1", false}, "Pod": {"v1", true},
	"PersistentVolumeClaim": {"v1", true}, "PersistentVolume": {"v1", false},
	"StorageClass": {"storage.k8s.io/v1", false}, "CSINode": {"storage.k8s.io/v1", false},
	"CSIDriver": {"storage.k8s.io/v1", false}, "CSIStorageCapacity": {"storage.k8s.io/v1", true},
	"VolumeAttachment": {"storage.k8s.io/v1", false}, "Namespace": {"v1", false}, "Service": {"v1", true},
	"ReplicationController": {"v1", true}, "ReplicaSet": {"apps/v1", true}, "StatefulSet": {"apps/v1", true},
	"PodDisruptionBudget": {"policy/v1", true},
	"ResourceClaim":       {"resource.k8s.io/v1", true}, "ResourceClaimTemplate": {"resource.k8s.io/v1", true},
	"DeviceClass": {"resource.k8s.io/v1", false}, "ResourceSlice": {"resource.k8s.io/v1", false},
	"DeviceTaintRule": {"resource.k8s.io/v1", false},
	"PodGroup":        {"scheduling.k8s.io/v1beta1", true}, "Workload": {"scheduling.k8s.io/v1beta1", true},
	"CompositePodGroup": {"scheduling.k8s.io/v1alpha3", true},
}

// APIObject is a copy of obj as the API would give it: with its
// apiVersion and kind, without managed fields (for a what-if's editor).
func APIObject(obj any) any {
	ro, ok := obj.(runtime.Object)
	k, known := kinds[KindOf(obj)]
	if !ok || !known {
		return obj
	}
	out := ro.DeepCopyObject()
	out.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(k.apiVersion, KindOf(obj)))
	if m, ok := out.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return out
}

// ParseRef reads KIND/NAMESPACE/NAME (KIND/NAME for a cluster-scoped
// kind); the kind is matched without case.
func ParseRef(s string) (Ref, error) {
	parts := strings.Split(s, "/")
	var r Ref
	for k := range kinds {
		if strings.EqualFold(k, parts[0]) {
			r.Kind = k
		}
	}
	if r.Kind == "" {
		return r, fmt.Errorf("%q: kind %q is not one the scheduler reads (%s)", s, parts[0], strings.Join(sortedKeys(kinds), ", "))
	}
	switch namespaced := kinds[r.Kind].namespaced; {
	case namespaced && len(parts) == 3:
		r.Namespace, r.Name = parts[1], parts[2]
	case !namespaced && len(parts) == 2:
		r.Name = parts[1]
	case namespaced:
		return r, fmt.Errorf("%q: a %s is named %s/NAMESPACE/NAME", s, r.Kind, r.Kind)
	default:
		return r, fmt.Errorf("%q: a %s is cluster-scoped: name it %s/NAME", s, r.Kind, r.Kind)
	}
	if r.Name == "" || kinds[r.Kind].namespaced && r.Namespace == "" {
		return r, fmt.Errorf("%q: the namespace or the name is empty", s)
	}
	return r, nil
}

// Lookup is the object r names on s (a node, a pod, or a stored object),
// or nil.
func Lookup(s *scheduler.Scheduler, r Ref) any {
	switch r.Kind {
	case "Node":
		if ni, err := s.Snapshot().Get(r.Name); err == nil {
			return ni.Node()
		}
		return nil
	case "Pod":
		if p, err := s.Objects().Pod(r.Namespace, r.Name); err == nil {
			return p
		}
		return nil
	}
	return storedObject(s, r)
}

// Describe lists the edits as a what-if shows them, each object with
// whether it is added or replaces one of s (call it before Apply).
func (e Edits) Describe(s *scheduler.Scheduler) (with, without []string) {
	for _, obj := range e.Objects {
		r := RefOf(obj)
		what := " (added)"
		if Lookup(s, r) != nil {
			what = " (replaced)"
		}
		with = append(with, r.String()+what)
	}
	for _, r := range e.Remove {
		without = append(without, r.String())
	}
	return with, without
}
