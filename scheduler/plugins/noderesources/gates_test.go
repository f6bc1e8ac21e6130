package noderesources

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// A pod asking 3 cpu at pod level, 1 cpu in its container, on a node with
// 2 cpu: PodLevelResources decides whether Fit sees 3 or 1, and what
// BalancedAllocation scores.
func TestPodLevelResourcesGate(t *testing.T) {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	pod := &v1.Pod{Spec: v1.PodSpec{
		Resources:  &v1.ResourceRequirements{Requests: cpu("3")},
		Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu("1")}}},
	}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("1Gi"), v1.ResourcePods: resource.MustParse("10")}}}
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle([]*v1.Node{node}, nil)
		h.Gates.EnablePodLevelResources = on
		p, err := NewFit(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		fit := p.(*Fit)
		cs := framework.NewCycleState()
		fit.PreFilter(context.Background(), cs, pod, nil)
		ni, _ := h.Snapshot().Get("n")
		if got := fit.Filter(context.Background(), cs, pod, ni).IsSuccess(); got == on {
			t.Errorf("PodLevelResources=%v: Filter success = %v", on, got)
		}
		b, _ := NewBalancedAllocation(nil, h)
		want := map[bool]int64{true: 3000, false: 1000}[on]
		if got := b.(*BalancedAllocation).scorer.podRequests(pod)[0]; got != want {
			t.Errorf("PodLevelResources=%v: BalancedAllocation cpu request %dm, want %dm", on, got, want)
		}
	}
}

// The scale-down events are registered only with InPlacePodVerticalScaling.
func TestInPlacePodVerticalScalingEvents(t *testing.T) {
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle(nil, nil)
		h.Gates.EnableInPlacePodVerticalScaling = on
		p, _ := NewFit(nil, h)
		events, _ := p.(*Fit).EventsToRegister(context.Background())
		scaleDown := 0
		for _, e := range events {
			if e.Event.ActionType == framework.UpdatePodScaleDown {
				scaleDown++
			}
		}
		if want := map[bool]int{true: 2, false: 0}[on]; scaleDown != want {
			t.Errorf("InPlacePodVerticalScaling=%v: %d scale-down registrations, want %d", on, scaleDown, want)
		}
	}
}

// An assigned pod scaled down in status only (spec unchanged) frees cpu
// only when status resources count.
func TestScaleDownHintFollowsStatusResources(t *testing.T) {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	target := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu("1")}}}}}
	running := func(actual string) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{NodeName: "n", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu("1")}}}},
			Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "c", Resources: &v1.ResourceRequirements{Requests: cpu(actual)}}}}}
	}
	for _, tc := range []struct {
		gates framework.ResourceGates
		want  bool
	}{{framework.DefaultResourceGates, true}, {framework.ResourceGates{PodLevelResources: true}, false}} {
		if got := haveEnoughRelevantResourcesDecreased(target, running("3"), running("2"), tc.gates); got != tc.want {
			t.Errorf("%+v: decreased = %v, want %v", tc.gates, got, tc.want)
		}
	}
}
