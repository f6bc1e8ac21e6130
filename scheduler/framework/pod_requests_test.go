package framework

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// TestPodRequestsShortcutsAgree checks podRequests against upstream's two
// calls on thousands of pod shapes under every combination of the
// resource gates: containers requesting cpu, memory, both, neither or
// zero, sidecars and init containers, status resources equal to the spec
// or not, allocated resources, resizes deferred and infeasible, pod-level
// requests and overhead. It also checks that both shortcuts were taken
// and that the status made a difference somewhere, so that a comparison
// blind to either would fail.
func TestPodRequestsShortcutsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	paths := map[podRequestsPath]int{}
	statusMattered := 0
	for i := range 3000 {
		pod := randomRequestsPod(rng, i)
		for gi := range 8 {
			g := ResourceGates{StatusResources: gi&1 != 0, PodLevelResources: gi&2 != 0, PodLevelStatusResources: gi&4 != 0}
			wantReq, wantNon0 := podRequestsUpstream(pod, g)
			gotReq, gotNon0, path := podRequestsCounted(pod, g)
			if !sameQuantities(gotReq, wantReq) || !sameQuantities(gotNon0, wantNon0) {
				t.Fatalf("pod %d, gates %+v, path %d:\nrequests %v, upstream %v\nnon-zero %v, upstream %v\n%s", i, g, path, gotReq, wantReq, gotNon0, wantNon0, describePodResources(pod))
			}
			paths[path]++
			if g.StatusResources {
				spec, _ := podRequestsUpstream(pod, ResourceGates{PodLevelResources: g.PodLevelResources})
				if !sameQuantities(spec, wantReq) {
					statusMattered++
				}
			}
		}
	}
	for _, p := range []podRequestsPath{upstreamCalls, specCalls, oneSpecCall} {
		if paths[p] == 0 {
			t.Fatalf("no pod took path %d: %v", p, paths)
		}
	}
	if statusMattered == 0 {
		t.Fatal("the status resources never made a difference: the shapes cannot tell a wrong shortcut")
	}
	t.Logf("paths (upstream, spec twice, spec once): %v; the status mattered %d times", paths, statusMattered)
}

func randomRequestsPod(rng *rand.Rand, i int) *v1.Pod {
	list := func() v1.ResourceList {
		l := v1.ResourceList{}
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			l[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(100*rng.IntN(5)), resource.DecimalSI)
		case 2:
			l[v1.ResourceMemory] = *resource.NewQuantity(int64(rng.IntN(4))<<28, resource.BinarySI)
		default:
			l[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(100*rng.IntN(5)), resource.DecimalSI)
			l[v1.ResourceMemory] = *resource.NewQuantity(int64(rng.IntN(4))<<28, resource.BinarySI)
			if rng.IntN(3) == 0 {
				l[v1.ResourceEphemeralStorage] = *resource.NewQuantity(1<<30, resource.BinarySI)
			}
		}
		return l
	}
	// statusOf is a status list: the spec's, a copy with another cpu, or
	// an empty one.
	statusOf := func(spec v1.ResourceList) v1.ResourceList {
		switch rng.IntN(4) {
		case 0:
			return v1.ResourceList{}
		case 1:
			c := spec.DeepCopy()
			if c == nil {
				c = v1.ResourceList{}
			}
			c[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(50+100*rng.IntN(5)), resource.DecimalSI)
			return c
		default:
			return spec.DeepCopy()
		}
	}
	pod := &v1.Pod{}
	pod.Name = fmt.Sprintf("p%d", i)
	addStatus := func(c v1.Container, init bool) {
		if rng.IntN(3) == 0 {
			return
		}
		st := v1.ContainerStatus{Name: c.Name}
		if rng.IntN(2) == 0 {
			st.Resources = &v1.ResourceRequirements{Requests: statusOf(c.Resources.Requests)}
		}
		if rng.IntN(4) == 0 {
			st.AllocatedResources = statusOf(c.Resources.Requests)
		}
		if init && rng.IntN(2) == 0 {
			pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, st)
		} else {
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
		}
	}
	for j := range 1 + rng.IntN(3) {
		c := v1.Container{Name: fmt.Sprintf("c%d", j), Resources: v1.ResourceRequirements{Requests: list()}}
		pod.Spec.Containers = append(pod.Spec.Containers, c)
		addStatus(c, false)
	}
	for j := range rng.IntN(3) {
		c := v1.Container{Name: fmt.Sprintf("i%d", j), Resources: v1.ResourceRequirements{Requests: list()}}
		if rng.IntN(2) == 0 {
			c.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
		addStatus(c, true)
	}
	switch rng.IntN(8) {
	case 0:
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
	case 1:
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonDeferred}}
	}
	if rng.IntN(6) == 0 {
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: list()}
	}
	if rng.IntN(6) == 0 {
		pod.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m")}
	}
	// Pod-level status resources, as a kubelet with
	// InPlacePodLevelResourcesVerticalScaling writes them: the spec's
	// sums (with the overhead, as the kubelet counts them), lower, higher
	// or unrelated.
	podLevel := func() v1.ResourceList {
		sums := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: true})
		switch rng.IntN(5) {
		case 0:
			return list()
		case 1:
			sums[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(rng.IntN(3000)), resource.DecimalSI)
		case 2:
			delete(sums, v1.ResourceMemory)
		}
		return sums
	}
	if rng.IntN(3) != 0 {
		pod.Status.AllocatedResources = podLevel()
	}
	if rng.IntN(3) != 0 {
		pod.Status.Resources = &v1.ResourceRequirements{Requests: podLevel()}
	}
	return pod
}

func describePodResources(pod *v1.Pod) string {
	s := ""
	for _, c := range pod.Spec.Containers {
		s += fmt.Sprintf("container %s: %v\n", c.Name, c.Resources.Requests)
	}
	for _, c := range pod.Spec.InitContainers {
		s += fmt.Sprintf("init container %s (restart %v): %v\n", c.Name, c.RestartPolicy != nil, c.Resources.Requests)
	}
	for _, st := range append(pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses...) {
		s += fmt.Sprintf("status %s: resources %v, allocated %v\n", st.Name, st.Resources, st.AllocatedResources)
	}
	return s + fmt.Sprintf("pod level %v, status %v / %v, overhead %v, conditions %v", pod.Spec.Resources, pod.Status.Resources, pod.Status.AllocatedResources, pod.Spec.Overhead, pod.Status.Conditions)
}
