package framework

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func extClass(name string, extended string, created time.Time) *resourcev1.DeviceClass {
	c := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if extended != "" {
		c.Spec.ExtendedResourceName = &extended
	}
	return c
}

// TestDeviceClassForResource: upstream's extended-resource cache rules,
// arrival order included.
func TestDeviceClassForResource(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	implicit := func(class string) v1.ResourceName {
		return v1.ResourceName(resourcev1.ResourceDeviceClassPrefix + class)
	}
	owner := func(o *ObjectStore, name v1.ResourceName) string {
		if c := o.DeviceClassForResource(name); c != nil {
			return c.Name
		}
		return ""
	}
	check := func(o *ObjectStore, name v1.ResourceName, want string) {
		t.Helper()
		if got := owner(o, name); got != want {
			t.Errorf("%s: got class %q, want %q", name, got, want)
		}
	}

	// The older class arriving first keeps its implicit name.
	o := NewObjectStore()
	o.Add(extClass("old", "example.com/gpu", t0))
	o.Add(extClass("new", "example.com/gpu", t0.Add(time.Hour)))
	check(o, "example.com/gpu", "new")
	check(o, implicit("old"), "old")
	check(o, implicit("new"), "new")

	// Arriving second, the older class loses both names.
	o = NewObjectStore()
	o.Add(extClass("new", "example.com/gpu", t0.Add(time.Hour)))
	o.Add(extClass("old", "example.com/gpu", t0))
	check(o, "example.com/gpu", "new")
	check(o, implicit("old"), "")

	// A tie goes to the smaller name.
	o = NewObjectStore()
	o.Add(extClass("zeta", "example.com/gpu", t0))
	o.Add(extClass("alpha", "example.com/gpu", t0))
	check(o, "example.com/gpu", "alpha")

	// An update that renames the extended resource moves it; a delete
	// drops both of the class's names.
	o.Add(extClass("alpha", "example.com/tpu", t0))
	check(o, "example.com/tpu", "alpha")
	check(o, "example.com/gpu", "")
	o.Delete(extClass("alpha", "example.com/tpu", t0))
	check(o, "example.com/tpu", "")
	check(o, implicit("alpha"), "")
	check(o, implicit("zeta"), "zeta")

	// Clones do not share the mapping.
	c := o.Clone()
	c.Delete(extClass("zeta", "", t0))
	check(o, implicit("zeta"), "zeta")
	check(c, implicit("zeta"), "")

	if !IsDRAExtendedResourceName(implicit("x")) || !IsDRAExtendedResourceName("example.com/gpu") || IsDRAExtendedResourceName("cpu") {
		t.Error("IsDRAExtendedResourceName")
	}
}
