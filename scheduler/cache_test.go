package scheduler

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/plugins"
)

// A cache mutation that fails is reported, as upstream logs "scheduler
// cache RemovePod failed", and the scheduler carries on: the pod leaves
// the object store all the same.
func TestCacheErrorReported(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	s, err := New([]*v1.Node{node}, nil, nil, Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	s.SetCacheErrorReporter(func(pod *v1.Pod, err error) { got = append(got, pod.Name+": "+err.Error()) })
	// Bound to n1 but never added: the node has no such pod to remove.
	ghost := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ghost", UID: "u1"}, Spec: v1.PodSpec{NodeName: "n1"}}
	s.objects.Add(ghost)
	s.RemoveAssignedPod(ghost)
	if len(got) != 1 || !strings.HasPrefix(got[0], "ghost: scheduler cache RemovePod failed: ") {
		t.Fatalf("reported %q, want one RemovePod failure for ghost", got)
	}
	if _, err := s.objects.Pod("ns", "ghost"); err == nil {
		t.Error("the pod stayed in the object store")
	}

	// A pod the cache holds is removed without a report.
	got = nil
	real := ghost.DeepCopy()
	real.Name, real.UID = "real", "u2"
	s.AddAssignedPod(real)
	s.RemoveAssignedPod(real)
	if len(got) != 0 {
		t.Errorf("reported %q for a pod the cache holds", got)
	}
}
