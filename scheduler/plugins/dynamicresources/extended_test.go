package dynamicresources

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

const extGPU = v1.ResourceName("example.com/gpu")

func extContainer(name string, gpus int64, sidecar bool, other ...v1.ResourceName) v1.Container {
	c := v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: v1.ResourceList{extGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}}}
	for _, o := range other {
		c.Resources.Requests[o] = resource.MustParse("100m")
	}
	if sidecar {
		always := v1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	return c
}

// TestExtendedRequests follows upstream's rules for the special claim's
// requests and the pod's container mappings by hand.
func TestExtendedRequests(t *testing.T) {
	objs := framework.NewObjectStore()
	name := string(extGPU)
	objs.Add(&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: &name}})
	req := func(name string, n int64) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n}}
	}
	m := func(ctr, req string) v1.ContainerExtendedResourceRequest {
		return v1.ContainerExtendedResourceRequest{ContainerName: ctr, ResourceName: name, RequestName: req}
	}
	for _, tc := range []struct {
		name         string
		init, ctrs   []v1.Container
		wantRequests []resourcev1.DeviceRequest
		wantMappings []v1.ContainerExtendedResourceRequest
	}{{
		// init0 is covered by the sidecar after it; init2 only by main
		// (the sidecar is before it), so it asks one more. main's index
		// among its sorted request names is 1 (cpu first).
		name: "init reuses later long-lived requests",
		init: []v1.Container{extContainer("init0", 1, false), extContainer("side", 1, true), extContainer("init2", 2, false)},
		ctrs: []v1.Container{extContainer("main", 1, false, v1.ResourceCPU)},
		wantRequests: []resourcev1.DeviceRequest{
			req("container-1-request-0", 1), req("container-2-request-0", 1), req("container-3-request-1", 1)},
		wantMappings: []v1.ContainerExtendedResourceRequest{
			m("side", "container-1-request-0"), m("main", "container-3-request-1"),
			m("init0", "container-1-request-0"), m("init2", "container-3-request-1"), m("init2", "container-2-request-0")},
	}, {
		// Of the two init containers' own requests only the larger is
		// kept, and the mappings to the other are rewritten to it.
		name: "largest plain init request kept",
		init: []v1.Container{extContainer("a", 2, false), extContainer("b", 3, false)},
		ctrs: []v1.Container{extContainer("main", 1, false)},
		wantRequests: []resourcev1.DeviceRequest{
			req("container-1-request-0", 2), req("container-2-request-0", 1)},
		wantMappings: []v1.ContainerExtendedResourceRequest{
			m("main", "container-2-request-0"),
			m("a", "container-2-request-0"), m("a", "container-1-request-0"),
			m("b", "container-2-request-0"), m("b", "container-1-request-0")},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{InitContainers: tc.init, Containers: tc.ctrs}}
			reqs, mappings := extendedRequests(pod, map[v1.ResourceName]int64{extGPU: 9}, objs)
			if !reflect.DeepEqual(reqs, tc.wantRequests) {
				t.Errorf("requests:\n got %+v\nwant %+v", reqs, tc.wantRequests)
			}
			if !reflect.DeepEqual(mappings, tc.wantMappings) {
				t.Errorf("mappings:\n got %+v\nwant %+v", mappings, tc.wantMappings)
			}
		})
	}
}
