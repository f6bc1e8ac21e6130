package scheduler_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// benchCluster is a cluster of n nodes in three zones, each running five
// pods of ten services, and pending pods that ask for a little cpu and
// memory, half of them spread across zones by their Service.
func benchCluster(n, pending int) ([]*v1.Node, []*v1.Pod, []any) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	zones := []string{"zone-a", "zone-b", "zone-c"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("node-%05d", i)
		nodes = append(nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				v1.LabelHostname: name, v1.LabelTopologyZone: zones[i%3], v1.LabelTopologyRegion: "r",
			}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("32"), v1.ResourceMemory: resource.MustParse("128Gi"),
				v1.ResourcePods: resource.MustParse("110"),
			}},
		})
		for j := 0; j < 5; j++ {
			pods = append(pods, benchPod(fmt.Sprintf("run-%05d-%d", i, j), name, (i+j)%10))
		}
	}
	for i := 0; i < pending; i++ {
		pods = append(pods, benchPod(fmt.Sprintf("pending-%05d", i), "", i%10))
	}
	var objs []any
	for s := 0; s < 10; s++ {
		objs = append(objs, &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", s), Namespace: "default"},
			Spec:       v1.ServiceSpec{Selector: map[string]string{"app": fmt.Sprintf("svc-%d", s)}},
		})
	}
	return nodes, pods, objs
}

func benchPod(name, node string, svc int) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name),
			Labels: map[string]string{"app": fmt.Sprintf("svc-%d", svc)}},
		Spec: v1.PodSpec{NodeName: node, SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{
			Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("512Mi"),
			}},
		}}},
	}
}

// BenchmarkSchedule measures attempts per second at 500 and 5000 nodes and
// what the attempt records retain per evaluated node (goal: ≤ 32 bytes on
// average at 5000 nodes).
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			const pending = 200
			nodes, pods, objs := benchCluster(n, pending)
			var elapsed time.Duration
			var attempts, retained, evaluated int
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := scheduler.New(nodes, pods, objs, scheduler.Options{Registry: plugins.NewInTreeRegistry()})
				if err != nil {
					b.Fatal(err)
				}
				queue := s.PendingPods(pods)
				b.StartTimer()
				start := time.Now()
				for _, p := range queue {
					a := s.ScheduleOne(p)
					attempts++
					retained += a.RetainedBytes()
					evaluated += a.EvaluatedNodes()
				}
				elapsed += time.Since(start)
			}
			b.ReportMetric(float64(attempts)/elapsed.Seconds(), "pods/s")
			b.ReportMetric(float64(retained)/float64(max(evaluated, 1)), "bytes/evaluated-node")
		})
	}
}

// basicCluster is SchedulingBasic's shape: identical nodes (4 cpu, 32Gi,
// 110 pods), bound pods round-robin over them, and pending pods asking
// for 100m and 500Mi, with no labels, affinity or spreading.
func basicCluster(n, bound, pending int) ([]*v1.Node, []*v1.Pod) {
	var nodes []*v1.Node
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("node-%05d", i)
		nodes = append(nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"),
				v1.ResourcePods: resource.MustParse("110"),
			}},
		})
	}
	pod := func(name, node string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
			Spec: v1.PodSpec{NodeName: node, SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{
				Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi"),
				}},
			}}},
		}
	}
	var pods []*v1.Pod
	for i := 0; i < bound; i++ {
		pods = append(pods, pod(fmt.Sprintf("bound-%05d", i), nodes[i%n].Name))
	}
	for i := 0; i < pending; i++ {
		pods = append(pods, pod(fmt.Sprintf("pending-%05d", i), ""))
	}
	return nodes, pods
}

// BenchmarkScheduleBasic is the scheduling cycle on SchedulingBasic's
// workload (1000 bound pods, 2000 pending) at 5000 and 15,000 nodes,
// every attempt recorded in full. It reports pods per wall second and
// per CPU second of the process (GC included): on a machine shared with
// other work the second is the steadier number.
//
//	go test ./scheduler -run '^$' -bench ScheduleBasic -count 3
func BenchmarkScheduleBasic(b *testing.B) {
	for _, n := range []int{5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes, pods := basicCluster(n, 1000, 2000)
			var wall, cpu time.Duration
			attempts := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := scheduler.New(nodes, pods, nil, scheduler.Options{Registry: plugins.NewInTreeRegistry()})
				if err != nil {
					b.Fatal(err)
				}
				queue := s.PendingPods(pods)
				runtime.GC()
				b.StartTimer()
				start, startCPU := time.Now(), peakmem.CPUTime()
				for _, p := range queue {
					if a := s.ScheduleOne(p); a.Outcome != record.Scheduled {
						b.Fatalf("%s: %v %s", a.Pod, a.Outcome, a.Message)
					}
					attempts++
				}
				wall += time.Since(start)
				cpu += peakmem.CPUTime() - startCPU
			}
			b.ReportMetric(float64(attempts)/wall.Seconds(), "pods/s")
			b.ReportMetric(float64(attempts)/cpu.Seconds(), "pods/cpu-s")
		})
	}
}
