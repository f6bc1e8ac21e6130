package queue_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// A bound pod whose running resources drop (status only) is a scale-down
// only when status resources count (InPlacePodVerticalScaling).
func TestPodScaleDownFollowsInPlacePodVerticalScaling(t *testing.T) {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	running := func(actual string) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{NodeName: "n", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu("1")}}}},
			Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "c", Resources: &v1.ResourceRequirements{Requests: cpu(actual)}}}}}
	}
	for _, on := range []bool{true, false} {
		g := features.Default()
		g.EnableInPlacePodVerticalScaling = on
		events := queue.PodSchedulingPropertiesChange(running("2"), running("3"), false, g)
		got := len(events) == 1 && events[0].ActionType == framework.UpdatePodScaleDown
		if got != on {
			t.Errorf("InPlacePodVerticalScaling=%v: events %v", on, events)
		}
	}
}

// A change of declared features is an event only with NodeDeclaredFeatures.
func TestNodeFeaturesChangeFollowsNodeDeclaredFeatures(t *testing.T) {
	old := &v1.Node{}
	changed := &v1.Node{Status: v1.NodeStatus{DeclaredFeatures: []string{"X"}}}
	for _, on := range []bool{true, false} {
		g := features.Default()
		g.EnableNodeDeclaredFeatures = on
		events := queue.NodeSchedulingPropertiesChange(changed, old, g)
		if (len(events) == 1 && events[0].ActionType == framework.UpdateNodeDeclaredFeature) != on {
			t.Errorf("NodeDeclaredFeatures=%v: events %v", on, events)
		}
	}
}
