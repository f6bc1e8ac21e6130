package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func cpuList(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }

// A bound pod whose resize is under way: container "c" asks 1 cpu in its
// spec but runs with 2; the pod-level spec asks 1500m but runs with 3.
func resizingPods() (containerLevel, podLevel *v1.Pod) {
	containerLevel = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "c", UID: "c"},
		Spec:       v1.PodSpec{NodeName: "n", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpuList("1")}}}},
		Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "c",
			AllocatedResources: cpuList("2"), Resources: &v1.ResourceRequirements{Requests: cpuList("2")}}}},
	}
	podLevel = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "p"},
		Spec: v1.PodSpec{NodeName: "n", Resources: &v1.ResourceRequirements{Requests: cpuList("1500m")},
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpuList("500m")}}}},
		Status: v1.PodStatus{Resources: &v1.ResourceRequirements{Requests: cpuList("3")}},
	}
	return containerLevel, podLevel
}

// The cache sums what each resource gate says a pod holds.
func TestNodeInfoResourceGates(t *testing.T) {
	containerLevel, podLevel := resizingPods()
	for _, tc := range []struct {
		name  string
		gates ResourceGates
		pod   *v1.Pod
		want  int64
	}{
		{"InPlacePodVerticalScaling on: status resources", DefaultResourceGates, containerLevel, 2000},
		{"InPlacePodVerticalScaling off: spec only", ResourceGates{PodLevelResources: true}, containerLevel, 1000},
		{"pod-level resize on: pod status resources", DefaultResourceGates, podLevel, 3000},
		{"pod-level resize off: pod spec", ResourceGates{StatusResources: true, PodLevelResources: true}, podLevel, 1500},
		{"PodLevelResources off: containers only", ResourceGates{StatusResources: true, PodLevelStatusResources: true}, podLevel, 500},
	} {
		ni := NewNodeInfoWithGates(tc.gates, tc.pod)
		if ni.Requested.MilliCPU != tc.want {
			t.Errorf("%s: requested %dm, want %dm", tc.name, ni.Requested.MilliCPU, tc.want)
		}
		if c := ni.Clone(); c.resourceGates != tc.gates {
			t.Errorf("%s: clone lost the gates", tc.name)
		}
	}
	// A PodInfo counted under other gates is recomputed, not served from
	// its cache.
	pi := NewPodInfo(podLevel)
	if a, b := pi.CalculateResource().Resource.MilliCPU, pi.CalculateResourceWith(ResourceGates{}).Resource.MilliCPU; a != 3000 || b != 500 {
		t.Errorf("defaults then all off: %dm, %dm; want 3000m, 500m", a, b)
	}
}

// New nodes of a rebuilt snapshot sum their pods as the gates say.
func TestSnapshotResourceGates(t *testing.T) {
	containerLevel, _ := resizingPods()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	off := ResourceGates{PodLevelResources: true}
	s := NewSnapshotWithGates([]*v1.Node{node}, []*v1.Pod{containerLevel}, off)
	ni, _ := s.Get("n")
	if ni.Requested.MilliCPU != 1000 {
		t.Errorf("NewSnapshotWithGates: %dm, want 1000m", ni.Requested.MilliCPU)
	}
	r := RebuildSnapshot([]*v1.Node{node}, func(string) *NodeInfo { return nil }, off)
	fresh, _ := r.Get("n")
	fresh.AddPod(containerLevel)
	if fresh.Requested.MilliCPU != 1000 {
		t.Errorf("RebuildSnapshot: %dm, want 1000m", fresh.Requested.MilliCPU)
	}
}
