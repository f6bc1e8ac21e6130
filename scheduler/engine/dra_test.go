package engine

import (
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/record"
)

// gpuClassYAML is the DeviceClass gpu, as a List item.
const gpuClassYAML = `- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
`

// gpuClaimYAML is the ResourceClaim NAME-gpu in default for one GPU, and
// gpuClaimPodYAML pod NAME using it (1 cpu), as List items.
func gpuClaimYAML(name string) string {
	return `- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: ` + name + `-gpu, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
`
}

func gpuClaimPodYAML(name string) string {
	return podYAML(name, "1", 0, "    resourceClaims: [{name: gpu, resourceClaimName: "+name+"-gpu}]\n")
}

// draCluster: one node, a GPU class, and two pods each with its own claim
// for one GPU; no ResourceSlice yet.
var draCluster = listHeader + nodeYAML("n1", "4", "") + gpuClassYAML + gpuClaimYAML("a") + gpuClaimYAML("b") +
	gpuClaimPodYAML("a") + gpuClaimPodYAML("b")

func gpuSlice() *resourcev1.ResourceSlice {
	n := "n1"
	return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus", UID: "uid-slice"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &n,
			Pool:    resourcev1.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}}}}
}

// A slice published later moves the pods DynamicResources rejected; the
// first binds and its claim is written (allocation, reservation), which
// leaves the second without a device; deallocating that claim (its pod
// deleted, the claim's status cleared by the cluster) moves the second.
func TestDRASliceAddedAndClaimWrites(t *testing.T) {
	e := load(t, draCluster, Options{})
	for range 2 {
		a, ok := e.Step()
		if !ok || a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "cannot allocate all claims") {
			t.Fatalf("attempt before the slice: %v %+v", ok, a)
		}
	}
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: gpuSlice()}); err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled || a.Node != "n1" {
		t.Fatalf("after the slice: %v %+v", ok, a)
	}
	winner := strings.TrimPrefix(a.Pod, "default/")
	claim, err := e.Scheduler().Objects().ResourceClaim("default", winner+"-gpu")
	if err != nil || claim.Status.Allocation == nil || len(claim.Status.ReservedFor) != 1 || claim.Status.ReservedFor[0].Name != winner ||
		claim.Status.Allocation.Devices.Results[0].Device != "gpu-0" {
		t.Fatalf("winner's claim after binding: %+v, %v", claim, err)
	}
	a, ok = e.Step()
	if !ok || a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "cannot allocate all claims") {
		t.Fatalf("loser: %v %+v", ok, a)
	}
	// The claim's own update (unrelated to the waiting pod, allocation
	// kept) does not move it.
	if _, ok := e.Step(); ok {
		t.Fatal("the loser was attempted again without a change")
	}
	freed := claim.DeepCopy()
	freed.Status = resourcev1.ResourceClaimStatus{}
	if err := e.Apply(change.Change{Kind: change.ObjectUpdate, Object: freed}); err != nil {
		t.Fatal(err)
	}
	a, ok = e.Step()
	if !ok || a.Outcome != record.Scheduled {
		t.Fatalf("after the deallocation: %v %+v", ok, a)
	}
}

// A pod whose claim does not exist yet is gated at PreEnqueue; the claim's
// creation lets it in, and it schedules.
func TestDRAGatedUntilClaimCreated(t *testing.T) {
	e := load(t, listHeader+nodeYAML("n1", "4", "")+`- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
`+podYAML("a", "1", 0, "    resourceClaims: [{name: gpu, resourceClaimName: a-gpu}]\n"), Options{})
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: gpuSlice()}); err != nil {
		t.Fatal(err)
	}
	q := e.Queue()
	if len(q.Gated) != 1 || q.Gated[0].GatingPlugin != "DynamicResources" || q.Gated[0].GatingMessage != `could not find ResourceClaim "default/a-gpu"` {
		t.Fatalf("not gated by DynamicResources: %+v", q)
	}
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "a-gpu", Namespace: "default", UID: "uid-a-gpu"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}}}
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: c}); err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled {
		t.Fatalf("after the claim was created: %v %+v", ok, a)
	}
}
