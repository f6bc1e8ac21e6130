package volumebinding

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/schedtui/schedtui/scheduler/framework"
	storagehelpers "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

// assumeCache overlays objects assumed at Reserve (a PV pre-bound to a
// claim, a claim with a selected node) on the object store, so that later
// cycles see them before the engine writes them back. Like upstream's
// passive assume cache, an assumed object lasts until the stored object
// changes: here, until the store holds a different object (or, when
// resource versions are set, one of a different version).
type assumeCache[T metav1.Object] struct {
	gr      schema.GroupResource
	get     func(key string) (T, error)
	mu      sync.Mutex
	assumed map[string]assumedObject[T]
}

type assumedObject[T metav1.Object] struct {
	obj  T
	base T // the stored object the assumption was made over
}

func newAssumeCache[T metav1.Object](resource string, get func(key string) (T, error)) *assumeCache[T] {
	return &assumeCache[T]{gr: schema.GroupResource{Resource: resource}, get: get, assumed: map[string]assumedObject[T]{}}
}

func sameVersion(stored, base metav1.Object) bool {
	if stored == base {
		return true
	}
	rv := base.GetResourceVersion()
	return rv != "" && stored.GetResourceVersion() == rv
}

// GetAPIObj returns the stored object.
func (c *assumeCache[T]) GetAPIObj(key string) (T, error) {
	obj, err := c.get(key)
	if err != nil {
		var zero T
		if apierrors.IsNotFound(err) {
			return zero, apierrors.NewNotFound(c.gr, key)
		}
		return zero, err
	}
	return obj, nil
}

// Get returns the assumed object while it is current, else the stored one.
func (c *assumeCache[T]) Get(key string) (T, error) {
	obj, err := c.GetAPIObj(key)
	if err != nil {
		return obj, err
	}
	return c.overlay(key, obj), nil
}

func (c *assumeCache[T]) overlay(key string, stored T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.assumed[key]
	if !ok {
		return stored
	}
	if !sameVersion(stored, a.base) {
		delete(c.assumed, key)
		return stored
	}
	return a.obj
}

// Assume records obj, which must derive from the stored version.
func (c *assumeCache[T]) Assume(key string, obj T) error {
	stored, err := c.GetAPIObj(key)
	if err != nil {
		return err
	}
	if stored.GetResourceVersion() != obj.GetResourceVersion() {
		return fmt.Errorf("%q is out of sync (stored: %s, assume: %s)", key, stored.GetResourceVersion(), obj.GetResourceVersion())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.assumed[key] = assumedObject[T]{obj: obj, base: stored}
	return nil
}

// Restore drops the assumption of obj (if it is still the assumed one).
func (c *assumeCache[T]) Restore(key string, obj T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.assumed[key]; ok && a.obj.GetResourceVersion() == obj.GetResourceVersion() {
		delete(c.assumed, key)
	}
}

func pvcKey(pvc *v1.PersistentVolumeClaim) string { return pvc.Namespace + "/" + pvc.Name }

func newPVCache(objs framework.ObjectLister) *assumeCache[*v1.PersistentVolume] {
	return newAssumeCache("persistentvolumes", objs.PersistentVolume)
}

func newPVCCache(objs framework.ObjectLister) *assumeCache[*v1.PersistentVolumeClaim] {
	return newAssumeCache("persistentvolumeclaims", func(key string) (*v1.PersistentVolumeClaim, error) {
		for i := 0; i < len(key); i++ {
			if key[i] == '/' {
				return objs.PersistentVolumeClaim(key[:i], key[i+1:])
			}
		}
		return objs.PersistentVolumeClaim("", key)
	})
}

// listPVs returns the stored PVs of a class (the class of the stored
// object, assumptions never change it) with assumptions applied, in store
// order. Upstream lists from an informer index, whose order is random; it
// only matters between equally sized matching PVs.
func listPVs(objs framework.ObjectLister, cache *assumeCache[*v1.PersistentVolume], class string) []*v1.PersistentVolume {
	out := []*v1.PersistentVolume{}
	for _, pv := range objs.PersistentVolumes() {
		if pv != nil && storagehelpers.GetPersistentVolumeClass(pv) == class {
			out = append(out, cache.overlay(pv.Name, pv))
		}
	}
	return out
}
