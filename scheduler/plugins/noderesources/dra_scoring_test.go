package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// The class's devices on the node count as allocatable, those a claim
// holds as allocated; another node's slice and other models do not.
func TestDRACapacity(t *testing.T) {
	objs := framework.NewObjectStore()
	gpu := "example.com/gpu"
	objs.Add(&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "a100"}, Spec: resourcev1.DeviceClassSpec{
		ExtendedResourceName: &gpu,
		Selectors:            []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["d"].model == "a100"`}}},
	}})
	model := func(name, m string) resourcev1.Device {
		return resourcev1.Device{Name: name, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: &m}}}
	}
	slice := func(node string, devs ...resourcev1.Device) *resourcev1.ResourceSlice {
		n := node
		return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: node}, Spec: resourcev1.ResourceSliceSpec{
			Driver: "d", NodeName: &n, Pool: resourcev1.ResourcePool{Name: node, ResourceSliceCount: 1}, Devices: devs}}
	}
	objs.Add(slice("node-a", model("g0", "a100"), model("g1", "a100"), model("g2", "l4")))
	objs.Add(slice("node-b", model("g0", "a100")))
	objs.Add(&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default"}, Status: resourcev1.ResourceClaimStatus{
		Allocation: &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
			{Request: "r", Driver: "d", Pool: "node-a", Device: "g1"}}}}}})

	d := &draScoring{objs: objs, cel: celCache(features.Default())}
	dev := d.preScore([]configv1.ResourceSpec{{Name: "cpu"}, {Name: gpu}})
	if dev == nil {
		t.Fatal("preScore found no DRA-backed resource")
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	if total, taken := d.capacity(node, v1.ResourceName(gpu), dev); total != 2 || taken != 1 {
		t.Errorf("capacity on node-a = %d, %d; want 2, 1", total, taken)
	}
	if d.preScore([]configv1.ResourceSpec{{Name: "cpu"}, {Name: "memory"}}) != nil {
		t.Error("preScore gathered devices for cpu and memory")
	}
	var off *draScoring
	if off.preScore([]configv1.ResourceSpec{{Name: gpu}}) != nil {
		t.Error("preScore with DRAExtendedResource off")
	}
}
