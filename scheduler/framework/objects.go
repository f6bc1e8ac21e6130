package framework

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectLister reads the cluster objects plugins consult besides nodes and
// pods. Get methods return the same NotFound errors client-go's listers
// return, because upstream plugins put those errors' text in reasons.
type ObjectLister interface {
	Pod(namespace, name string) (*v1.Pod, error)
	PersistentVolumeClaim(namespace, name string) (*v1.PersistentVolumeClaim, error)
	PersistentVolume(name string) (*v1.PersistentVolume, error)
	PersistentVolumes() []*v1.PersistentVolume
	StorageClass(name string) (*storagev1.StorageClass, error)
	CSINode(name string) (*storagev1.CSINode, error)
	CSIDriver(name string) (*storagev1.CSIDriver, error)
	CSIStorageCapacities() []*storagev1.CSIStorageCapacity
	VolumeAttachments() []*storagev1.VolumeAttachment
	Namespace(name string) (*v1.Namespace, error)
	Namespaces() []*v1.Namespace
	Services(namespace string) []*v1.Service
	ReplicationControllers(namespace string) []*v1.ReplicationController
	ReplicaSets(namespace string) []*appsv1.ReplicaSet
	StatefulSets(namespace string) []*appsv1.StatefulSet
	PodDisruptionBudgets() []*policyv1.PodDisruptionBudget
	// ResourceClaim's NotFound error is the one upstream's claim assume
	// cache returns (`could not find ResourceClaim "ns/name"`), which
	// DynamicResources puts in its reasons.
	ResourceClaim(namespace, name string) (*resourcev1.ResourceClaim, error)
	ResourceClaims() []*resourcev1.ResourceClaim
	ResourceClaimTemplate(namespace, name string) (*resourcev1.ResourceClaimTemplate, error)
	DeviceClass(name string) (*resourcev1.DeviceClass, error)
	DeviceClasses() []*resourcev1.DeviceClass
	ResourceSlices() []*resourcev1.ResourceSlice
	DeviceTaintRules() []*resourcev1.DeviceTaintRule
	// DeviceClassForResource is the DeviceClass backing a DRA extended
	// resource (extended_resources.go), nil if none does.
	DeviceClassForResource(name v1.ResourceName) *resourcev1.DeviceClass
	// Workload-aware scheduling (scheduling.k8s.io): the PodGroups the
	// scheduler queues and the CompositePodGroups above them. Workloads
	// are kept for the views only: kube-scheduler does not watch them (a
	// controller creates the PodGroups from their templates).
	PodGroup(namespace, name string) (*schedulingv1beta1.PodGroup, error)
	PodGroups(namespace string) []*schedulingv1beta1.PodGroup
	CompositePodGroup(namespace, name string) (*schedulingv1alpha3.CompositePodGroup, error)
	CompositePodGroups(namespace string) []*schedulingv1alpha3.CompositePodGroup
	Workload(namespace, name string) (*schedulingv1beta1.Workload, error)
	Workloads(namespace string) []*schedulingv1beta1.Workload
}

// store keeps objects of one kind keyed by namespace and name, in
// insertion order for listing.
type store[T any] struct {
	gr    schema.GroupResource
	items map[objectKey]T
	order []objectKey
	rev   uint64 // objects_revision.go
}

// objectKey is a stored object's namespace ("" for cluster-scoped kinds)
// and name. A pair rather than one "namespace/name" string: the plugins
// look objects up per node (NodeVolumeLimits a claim and its volume for
// every pod on every node it filters), and a pair is hashed without
// building a string first.
type objectKey struct{ namespace, name string }

func newStore[T any](group, resource string) *store[T] {
	return &store[T]{gr: schema.GroupResource{Group: group, Resource: resource}, items: map[objectKey]T{}}
}

func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// reserve makes room for n more objects, so that adding them does not
// grow the table step by step.
func (s *store[T]) reserve(n int) {
	if len(s.items) == 0 {
		s.items = make(map[objectKey]T, n)
	}
	s.order = slices.Grow(s.order, n)
}

func (s *store[T]) put(namespace, name string, obj T) {
	k := objectKey{namespace, name}
	if _, ok := s.items[k]; !ok {
		s.order = append(s.order, k)
	}
	s.items[k] = obj
	s.changed()
}

func (s *store[T]) remove(namespace, name string) {
	k := objectKey{namespace, name}
	if _, ok := s.items[k]; !ok {
		return
	}
	delete(s.items, k)
	s.changed()
	for i, o := range s.order {
		if o == k {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

func (s *store[T]) get(namespace, name string) (T, error) {
	if obj, ok := s.items[objectKey{namespace, name}]; ok {
		return obj, nil
	}
	var zero T
	return zero, apierrors.NewNotFound(s.gr, name)
}

func (s *store[T]) list(namespace string, nsOf func(T) string) []T {
	out := make([]T, 0, len(s.order))
	for _, k := range s.order {
		obj := s.items[k]
		if namespace == "" || nsOf(obj) == namespace {
			out = append(out, obj)
		}
	}
	return out
}

// ObjectStore is the in-memory ObjectLister the engine keeps up to date.
type ObjectStore struct {
	pods         *store[*v1.Pod]
	pvcs         *store[*v1.PersistentVolumeClaim]
	pvs          *store[*v1.PersistentVolume]
	classes      *store[*storagev1.StorageClass]
	csiNodes     *store[*storagev1.CSINode]
	csiDrivers   *store[*storagev1.CSIDriver]
	capacities   *store[*storagev1.CSIStorageCapacity]
	attachments  *store[*storagev1.VolumeAttachment]
	namespaces   *store[*v1.Namespace]
	services     *store[*v1.Service]
	rcs          *store[*v1.ReplicationController]
	replicaSets  *store[*appsv1.ReplicaSet]
	statefulSets *store[*appsv1.StatefulSet]
	pdbs         *store[*policyv1.PodDisruptionBudget]
	claims       *store[*resourcev1.ResourceClaim]
	templates    *store[*resourcev1.ResourceClaimTemplate]
	devClasses   *store[*resourcev1.DeviceClass]
	slices       *store[*resourcev1.ResourceSlice]
	taintRules   *store[*resourcev1.DeviceTaintRule]
	podGroups    *store[*schedulingv1beta1.PodGroup]
	composites   *store[*schedulingv1alpha3.CompositePodGroup]
	workloads    *store[*schedulingv1beta1.Workload]
	// extResources follows the DeviceClasses as they arrive.
	extResources extendedResourceClasses
	// groupMembers indexes the pods naming a PodGroup
	// (spec.schedulingGroup), by group key then pod key.
	groupMembers map[string]map[string]*v1.Pod
}

// NewObjectStore returns an empty store.
func NewObjectStore() *ObjectStore {
	// Group/resource names are the ones client-go's listers use in their
	// NotFound errors (e.g. `persistentvolumeclaim "x" not found`).
	return &ObjectStore{
		pods:         newStore[*v1.Pod]("", "pod"),
		pvcs:         newStore[*v1.PersistentVolumeClaim]("", "persistentvolumeclaim"),
		pvs:          newStore[*v1.PersistentVolume]("", "persistentvolume"),
		classes:      newStore[*storagev1.StorageClass]("storage.k8s.io", "storageclass"),
		csiNodes:     newStore[*storagev1.CSINode]("storage.k8s.io", "csinode"),
		csiDrivers:   newStore[*storagev1.CSIDriver]("storage.k8s.io", "csidriver"),
		capacities:   newStore[*storagev1.CSIStorageCapacity]("storage.k8s.io", "csistoragecapacity"),
		attachments:  newStore[*storagev1.VolumeAttachment]("storage.k8s.io", "volumeattachment"),
		namespaces:   newStore[*v1.Namespace]("", "namespace"),
		services:     newStore[*v1.Service]("", "service"),
		rcs:          newStore[*v1.ReplicationController]("", "replicationcontroller"),
		replicaSets:  newStore[*appsv1.ReplicaSet]("apps", "replicaset"),
		statefulSets: newStore[*appsv1.StatefulSet]("apps", "statefulset"),
		pdbs:         newStore[*policyv1.PodDisruptionBudget]("policy", "poddisruptionbudget"),
		claims:       newStore[*resourcev1.ResourceClaim]("resource.k8s.io", "resourceclaim"),
		templates:    newStore[*resourcev1.ResourceClaimTemplate]("resource.k8s.io", "resourceclaimtemplate"),
		devClasses:   newStore[*resourcev1.DeviceClass]("resource.k8s.io", "deviceclass"),
		slices:       newStore[*resourcev1.ResourceSlice]("resource.k8s.io", "resourceslice"),
		taintRules:   newStore[*resourcev1.DeviceTaintRule]("resource.k8s.io", "devicetaintrule"),
		podGroups:    newStore[*schedulingv1beta1.PodGroup]("scheduling.k8s.io", "podgroup"),
		composites:   newStore[*schedulingv1alpha3.CompositePodGroup]("scheduling.k8s.io", "compositepodgroup"),
		workloads:    newStore[*schedulingv1beta1.Workload]("scheduling.k8s.io", "workload"),
		extResources: extendedResourceClasses{},
		groupMembers: map[string]map[string]*v1.Pod{},
	}
}

// ReservePods makes room for n more pods before they are added one by
// one (a scheduler built over a cluster's pods).
func (o *ObjectStore) ReservePods(n int) { o.pods.reserve(n) }

// Add stores (or replaces) a supported object; it reports whether the kind
// is one the store keeps.
func (o *ObjectStore) Add(obj any) bool {
	switch t := obj.(type) {
	case *v1.Pod:
		if old, ok := o.pods.items[objectKey{t.Namespace, t.Name}]; ok {
			o.unindexMember(old)
		}
		o.pods.put(t.Namespace, t.Name, t)
		o.indexMember(t)
	case *v1.PersistentVolumeClaim:
		o.pvcs.put(t.Namespace, t.Name, t)
	case *v1.PersistentVolume:
		o.pvs.put("", t.Name, t)
	case *storagev1.StorageClass:
		o.classes.put("", t.Name, t)
	case *storagev1.CSINode:
		o.csiNodes.put("", t.Name, t)
	case *storagev1.CSIDriver:
		o.csiDrivers.put("", t.Name, t)
	case *storagev1.CSIStorageCapacity:
		o.capacities.put(t.Namespace, t.Name, t)
	case *storagev1.VolumeAttachment:
		o.attachments.put("", t.Name, t)
	case *v1.Namespace:
		o.namespaces.put("", t.Name, t)
	case *v1.Service:
		o.services.put(t.Namespace, t.Name, t)
	case *v1.ReplicationController:
		o.rcs.put(t.Namespace, t.Name, t)
	case *appsv1.ReplicaSet:
		o.replicaSets.put(t.Namespace, t.Name, t)
	case *appsv1.StatefulSet:
		o.statefulSets.put(t.Namespace, t.Name, t)
	case *policyv1.PodDisruptionBudget:
		o.pdbs.put(t.Namespace, t.Name, t)
	case *resourcev1.ResourceClaim:
		o.claims.put(t.Namespace, t.Name, t)
	case *resourcev1.ResourceClaimTemplate:
		o.templates.put(t.Namespace, t.Name, t)
	case *resourcev1.DeviceClass:
		old := o.devClasses.items[objectKey{name: t.Name}]
		o.devClasses.put("", t.Name, t)
		o.extResources.put(t, old)
	case *resourcev1.ResourceSlice:
		o.slices.put("", t.Name, t)
	case *resourcev1.DeviceTaintRule:
		o.taintRules.put("", t.Name, t)
	case *schedulingv1beta1.PodGroup:
		o.podGroups.put(t.Namespace, t.Name, t)
	case *schedulingv1alpha3.CompositePodGroup:
		o.composites.put(t.Namespace, t.Name, t)
	case *schedulingv1beta1.Workload:
		o.workloads.put(t.Namespace, t.Name, t)
	default:
		return false
	}
	return true
}

// Delete removes a supported object.
func (o *ObjectStore) Delete(obj any) {
	switch t := obj.(type) {
	case *v1.Pod:
		if old, ok := o.pods.items[objectKey{t.Namespace, t.Name}]; ok {
			o.unindexMember(old)
		}
		o.pods.remove(t.Namespace, t.Name)
	case *v1.PersistentVolumeClaim:
		o.pvcs.remove(t.Namespace, t.Name)
	case *v1.PersistentVolume:
		o.pvs.remove("", t.Name)
	case *storagev1.StorageClass:
		o.classes.remove("", t.Name)
	case *storagev1.CSINode:
		o.csiNodes.remove("", t.Name)
	case *storagev1.CSIDriver:
		o.csiDrivers.remove("", t.Name)
	case *storagev1.CSIStorageCapacity:
		o.capacities.remove(t.Namespace, t.Name)
	case *storagev1.VolumeAttachment:
		o.attachments.remove("", t.Name)
	case *v1.Namespace:
		o.namespaces.remove("", t.Name)
	case *v1.Service:
		o.services.remove(t.Namespace, t.Name)
	case *v1.ReplicationController:
		o.rcs.remove(t.Namespace, t.Name)
	case *appsv1.ReplicaSet:
		o.replicaSets.remove(t.Namespace, t.Name)
	case *appsv1.StatefulSet:
		o.statefulSets.remove(t.Namespace, t.Name)
	case *policyv1.PodDisruptionBudget:
		o.pdbs.remove(t.Namespace, t.Name)
	case *resourcev1.ResourceClaim:
		o.claims.remove(t.Namespace, t.Name)
	case *resourcev1.ResourceClaimTemplate:
		o.templates.remove(t.Namespace, t.Name)
	case *resourcev1.DeviceClass:
		o.devClasses.remove("", t.Name)
		o.extResources.remove(t)
	case *resourcev1.ResourceSlice:
		o.slices.remove("", t.Name)
	case *resourcev1.DeviceTaintRule:
		o.taintRules.remove("", t.Name)
	case *schedulingv1beta1.PodGroup:
		o.podGroups.remove(t.Namespace, t.Name)
	case *schedulingv1alpha3.CompositePodGroup:
		o.composites.remove(t.Namespace, t.Name)
	case *schedulingv1beta1.Workload:
		o.workloads.remove(t.Namespace, t.Name)
	}
}

func (o *ObjectStore) Pod(ns, name string) (*v1.Pod, error) { return o.pods.get(ns, name) }
func (o *ObjectStore) PersistentVolumeClaim(ns, name string) (*v1.PersistentVolumeClaim, error) {
	return o.pvcs.get(ns, name)
}
func (o *ObjectStore) PersistentVolumeClaims(ns string) []*v1.PersistentVolumeClaim {
	return o.pvcs.list(ns, func(c *v1.PersistentVolumeClaim) string { return c.Namespace })
}
func (o *ObjectStore) PersistentVolume(name string) (*v1.PersistentVolume, error) {
	return o.pvs.get("", name)
}
func (o *ObjectStore) PersistentVolumes() []*v1.PersistentVolume {
	return o.pvs.list("", nil)
}
func (o *ObjectStore) StorageClass(name string) (*storagev1.StorageClass, error) {
	return o.classes.get("", name)
}
func (o *ObjectStore) CSINode(name string) (*storagev1.CSINode, error) {
	return o.csiNodes.get("", name)
}
func (o *ObjectStore) CSIDriver(name string) (*storagev1.CSIDriver, error) {
	return o.csiDrivers.get("", name)
}
func (o *ObjectStore) CSIStorageCapacities() []*storagev1.CSIStorageCapacity {
	return o.capacities.list("", nil)
}
func (o *ObjectStore) VolumeAttachments() []*storagev1.VolumeAttachment {
	return o.attachments.list("", nil)
}
func (o *ObjectStore) Namespace(name string) (*v1.Namespace, error) {
	return o.namespaces.get("", name)
}
func (o *ObjectStore) Services(ns string) []*v1.Service {
	return o.services.list(ns, func(s *v1.Service) string { return s.Namespace })
}
func (o *ObjectStore) ReplicationControllers(ns string) []*v1.ReplicationController {
	return o.rcs.list(ns, func(s *v1.ReplicationController) string { return s.Namespace })
}
func (o *ObjectStore) ReplicaSets(ns string) []*appsv1.ReplicaSet {
	return o.replicaSets.list(ns, func(s *appsv1.ReplicaSet) string { return s.Namespace })
}
func (o *ObjectStore) StatefulSets(ns string) []*appsv1.StatefulSet {
	return o.statefulSets.list(ns, func(s *appsv1.StatefulSet) string { return s.Namespace })
}
func (o *ObjectStore) PodDisruptionBudgets() []*policyv1.PodDisruptionBudget {
	return o.pdbs.list("", nil)
}

// Namespaces lists the namespaces in the order they were added.
func (o *ObjectStore) Namespaces() []*v1.Namespace {
	return o.namespaces.list("", nil)
}

func (o *ObjectStore) ResourceClaim(ns, name string) (*resourcev1.ResourceClaim, error) {
	if c, ok := o.claims.items[objectKey{ns, name}]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("could not find ResourceClaim %q", key(ns, name))
}
func (o *ObjectStore) ResourceClaims() []*resourcev1.ResourceClaim { return o.claims.list("", nil) }
func (o *ObjectStore) ResourceClaimTemplate(ns, name string) (*resourcev1.ResourceClaimTemplate, error) {
	return o.templates.get(ns, name)
}
func (o *ObjectStore) DeviceClass(name string) (*resourcev1.DeviceClass, error) {
	return o.devClasses.get("", name)
}
func (o *ObjectStore) DeviceClasses() []*resourcev1.DeviceClass    { return o.devClasses.list("", nil) }
func (o *ObjectStore) ResourceSlices() []*resourcev1.ResourceSlice { return o.slices.list("", nil) }
func (o *ObjectStore) DeviceTaintRules() []*resourcev1.DeviceTaintRule {
	return o.taintRules.list("", nil)
}

func (o *ObjectStore) PodGroup(ns, name string) (*schedulingv1beta1.PodGroup, error) {
	return o.podGroups.get(ns, name)
}
func (o *ObjectStore) PodGroups(ns string) []*schedulingv1beta1.PodGroup {
	return o.podGroups.list(ns, func(g *schedulingv1beta1.PodGroup) string { return g.Namespace })
}
func (o *ObjectStore) CompositePodGroup(ns, name string) (*schedulingv1alpha3.CompositePodGroup, error) {
	return o.composites.get(ns, name)
}
func (o *ObjectStore) CompositePodGroups(ns string) []*schedulingv1alpha3.CompositePodGroup {
	return o.composites.list(ns, func(g *schedulingv1alpha3.CompositePodGroup) string { return g.Namespace })
}
func (o *ObjectStore) Workload(ns, name string) (*schedulingv1beta1.Workload, error) {
	return o.workloads.get(ns, name)
}
func (o *ObjectStore) Workloads(ns string) []*schedulingv1beta1.Workload {
	return o.workloads.list(ns, func(w *schedulingv1beta1.Workload) string { return w.Namespace })
}

func (o *ObjectStore) indexMember(p *v1.Pod) {
	g := PodGroupKeyOf(p)
	if g == "" {
		return
	}
	m := o.groupMembers[g]
	if m == nil {
		m = map[string]*v1.Pod{}
		o.groupMembers[g] = m
	}
	m[key(p.Namespace, p.Name)] = p
}

func (o *ObjectStore) unindexMember(p *v1.Pod) {
	g := PodGroupKeyOf(p)
	if g == "" {
		return
	}
	delete(o.groupMembers[g], key(p.Namespace, p.Name))
	if len(o.groupMembers[g]) == 0 {
		delete(o.groupMembers, g)
	}
}

// PodGroupMembers lists the stored pods naming the PodGroup, by name.
func (o *ObjectStore) PodGroupMembers(namespace, name string) []*v1.Pod {
	m := o.groupMembers[PodGroupKey(namespace, name)]
	out := make([]*v1.Pod, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}
