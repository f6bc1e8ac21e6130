package scheduler_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
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
