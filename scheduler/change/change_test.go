package change

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// TestFor: watch events convert to changes and back.
func TestFor(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}
	for _, tc := range []struct {
		typ  watch.EventType
		c    Change
		kind Kind
	}{
		{watch.Added, Change{Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}}, NodeAdd},
		{watch.Modified, Change{Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}}, NodeUpdate},
		{watch.Deleted, Change{Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "d"}}}, PodDelete},
		{watch.Added, Change{Object: pv}, ObjectAdd},
		{watch.Modified, Change{Object: pv}, ObjectUpdate},
		{watch.Deleted, Change{Object: pv}, ObjectDelete},
	} {
		_, obj := tc.c.WatchEvent()
		c, err := For(tc.typ, obj)
		if err != nil || c.Kind != tc.kind {
			t.Errorf("For(%s, %s) = %s, %v; want %s", tc.typ, DescribeObject(obj), c.Kind, err, tc.kind)
			continue
		}
		if typ, back := c.WatchEvent(); typ != tc.typ || back != obj {
			t.Errorf("%s: WatchEvent() = %s %v", c, typ, back)
		}
	}
	if c := (Change{Kind: ObjectAdd, Object: pv}); c.String() != "ObjectAdd PersistentVolume pv" {
		t.Errorf("String() = %q", c.String())
	}
	for _, bad := range []struct {
		typ watch.EventType
		obj runtime.Object
	}{{watch.Bookmark, pv}, {watch.Added, &v1.ConfigMap{}}, {watch.Added, nil}, {watch.Deleted, &v1.Node{}}} {
		if c, err := For(bad.typ, bad.obj); err == nil {
			t.Errorf("For(%s, %T) = %s", bad.typ, bad.obj, c)
		}
	}
}
