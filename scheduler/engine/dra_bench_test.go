package engine

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// draWorkload adds to genCluster's nodes a slice of devicesPerNode GPUs
// each, a GPU class, and gives each pending pod a claim for one GPU.
func draWorkload(nodes []*v1.Node, pods []*v1.Pod, devicesPerNode int) ([]*v1.Pod, []any) {
	objs := []any{&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu", UID: "uid-class-gpu"}}}
	for _, n := range nodes {
		name := n.Name
		s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus", UID: types.UID("uid-slice-" + name)},
			Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &name,
				Pool: resourcev1.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}}}
		for i := range devicesPerNode {
			s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i)})
		}
		objs = append(objs, s)
	}
	out := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		if p.Spec.NodeName != "" {
			out[i] = p
			continue
		}
		p = p.DeepCopy()
		claim := p.Name + "-gpu"
		objs = append(objs, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: p.Namespace, UID: types.UID("uid-claim-" + p.Name)},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}}})
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
		out[i] = p
	}
	return out, objs
}

// BenchmarkDRAAttempts compares attempts per CPU second of the same workload (5000
// nodes, 2000 pending pods) with and without a one-GPU claim per pod (8
// GPUs per node); the goal is a ratio of at most 2.
func BenchmarkDRAAttempts(b *testing.B) {
	nodes, pods := genCluster(5000, draBenchPods, 2500, 50, 100)
	claimPods, objs := draWorkload(nodes, pods, 8)
	rate := func(pods []*v1.Pod, objs []any) float64 {
		e, err := New(nodes, pods, objs, Options{Seed: 1, Registry: plugins.NewInTreeRegistry()})
		if err != nil {
			b.Fatal(err)
		}
		start, attempts := peakmem.CPUTime(), 0
		for {
			if _, ok := e.Step(); !ok {
				break
			}
			attempts++
		}
		return float64(attempts) / (peakmem.CPUTime() - start).Seconds()
	}
	for i := 0; i < b.N; i++ {
		plain := rate(pods, nil)
		dra := rate(claimPods, objs)
		b.ReportMetric(plain, "plain-attempts/s")
		b.ReportMetric(dra, "dra-attempts/s")
		b.ReportMetric(plain/dra, "slowdown")
	}
}

// draBenchPods is the number of pending pods (a variable for profiling runs).
var draBenchPods = 2000
