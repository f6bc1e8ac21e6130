package snapshot

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A change's object keeps the parts it did not change of the object it
// replaces, and only those; the replaced object is left as it was, a
// shared slice has no room to append into, nil and empty stay apart, and
// the defaults are applied.
func TestChangePreparerSharesUnchangedParts(t *testing.T) {
	podAt := func(rv string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u1", ResourceVersion: rv,
				Labels: map[string]string{"app": "web"}},
			Spec: v1.PodSpec{
				Containers: append(make([]v1.Container, 0, 4), v1.Container{Name: "c", Image: "x",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}),
				Tolerations: []v1.Toleration{{Key: "a", Operator: v1.TolerationOpExists}},
			},
		}
	}
	p := NewLoader().CheckAhead().Changes()
	prev := podAt("1")
	p.Prepare(prev, nil)
	if prev.Kind != "Pod" || prev.Spec.Containers[0].TerminationMessagePath != v1.TerminationMessagePathDefault {
		t.Fatalf("not typed and defaulted: kind %q, terminationMessagePath %q", prev.Kind, prev.Spec.Containers[0].TerminationMessagePath)
	}
	was := prev.DeepCopy()

	cur := podAt("2")
	cur.Spec.NodeName = "n1"
	cur.Spec.Tolerations = []v1.Toleration{{Key: "b", Operator: v1.TolerationOpExists}}
	cur.Spec.Volumes = []v1.Volume{} // empty, where prev's are nil
	p.Prepare(cur, prev)
	p.Prepare(cur, prev) // again: nothing changes

	if &cur.Spec.Containers[0] != &prev.Spec.Containers[0] || cap(cur.Spec.Containers) != 1 {
		t.Errorf("containers not shared, or shared with room to append (cap %d)", cap(cur.Spec.Containers))
	}
	if reflect.ValueOf(cur.Labels).Pointer() != reflect.ValueOf(prev.Labels).Pointer() {
		t.Error("labels not shared")
	}
	if cur.Spec.Tolerations[0].Key != "b" || cur.Spec.NodeName != "n1" || cur.ResourceVersion != "2" {
		t.Errorf("a changed part was replaced: tolerations %v, node %q, resourceVersion %q", cur.Spec.Tolerations, cur.Spec.NodeName, cur.ResourceVersion)
	}
	if cur.Spec.Volumes == nil {
		t.Error("empty volumes became nil")
	}
	if !reflect.DeepEqual(prev, was) {
		t.Error("the replaced object was changed")
	}
}
