package queue_test

import (
	"testing"
	"time"

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

// Without SchedulerPopFromBackoffQ an empty activeQ pops nothing from
// backoffQ, and expirations are not aligned to ordering windows.
func TestPopFromBackoffQGateOff(t *testing.T) {
	g := features.Default()
	g.EnableSchedulerPopFromBackoffQ = false
	e := newEnvWithGates(t, g)
	p := pod("p", 0, "")
	e.at(300 * time.Millisecond)
	e.q.Add(p)
	pi := e.fail(p, "NodeResourcesFit")
	e.q.MoveAllToActiveOrBackoffQueue(queue.EventNodeAdd, nil, node("n", "4"), nil)
	if e.where(p) != queue.Backoff {
		t.Fatalf("setup: %s", e.where(p))
	}
	if got, ok := popPod(e.q); ok || e.q.Poppable() {
		t.Errorf("popped %v from backoffQ with the gate off", got)
	}
	if exp, want := e.q.BackoffExpiration(pi), start.Add(1300*time.Millisecond); !exp.Equal(want) {
		t.Errorf("expiration %v, want %v (not window-aligned)", exp, want)
	}
	rel, _ := e.q.NextBackoffRelease()
	if want := start.Add(1300*time.Millisecond + time.Nanosecond); !rel.Equal(want) {
		t.Errorf("release %v, want just after the expiration %v", rel, want)
	}
}
