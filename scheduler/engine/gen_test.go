package engine

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// genCluster builds a cluster of identical 4-cpu nodes in three zones,
// each running one priority-0 pod of busyCPU millicores, and pending pods:
// mostly small priority-10 ones that fit anywhere (the Filter search stops
// early, so the rotating start index matters); every bigEvery-th a 2-cpu
// pod that only fits by preempting a busy pod (priority 5, attempted after
// the small ones, or priority 1000 and attempted first, alternately; every
// node ties, so the random candidate offset decides); every nofEvery-th
// one that fits nowhere (a nodeSelector no node matches). Objects are
// built as the API server stores them: the fields the loader would
// default are set.
func genCluster(nodes, pending int, busyCPU int64, bigEvery, nofEvery int) ([]*v1.Node, []*v1.Pod) {
	epoch := metav1.NewTime(time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC))
	var ns []*v1.Node
	var ps []*v1.Pod
	grace := int64(30)
	mkPod := func(name string, prio int32, cpu int64) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: epoch, Labels: map[string]string{"app": name[:3]}}}
		p.Spec.SchedulerName = v1.DefaultSchedulerName
		p.Spec.Priority = &prio
		policy := v1.PreemptLowerPriority
		p.Spec.PreemptionPolicy = &policy
		p.Spec.TerminationGracePeriodSeconds = &grace
		p.Spec.Containers = []v1.Container{{Name: "c", Image: "img", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("64Mi")}}}}
		return p
	}
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}}}
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("16Gi"),
			v1.ResourcePods: resource.MustParse("110")}
		n.Status.Capacity = n.Status.Allocatable
		ns = append(ns, n)
		busy := mkPod(fmt.Sprintf("bsy-%05d", i), 0, busyCPU)
		busy.Spec.NodeName = name
		busy.Status.Phase = v1.PodRunning
		busy.Status.StartTime = &epoch
		ps = append(ps, busy)
	}
	for i := 0; i < pending; i++ {
		switch {
		case i%nofEvery == nofEvery-1:
			p := mkPod(fmt.Sprintf("nof-%05d", i), 5, 100)
			p.Spec.NodeSelector = map[string]string{"disk": "none"}
			ps = append(ps, p)
		case i%bigEvery == bigEvery-1:
			// Alternate priorities: some preempt first, some last.
			prio := int32(5)
			if (i/bigEvery)%2 == 0 {
				prio = 1000
			}
			ps = append(ps, mkPod(fmt.Sprintf("big-%05d", i), prio, 2000))
		default:
			ps = append(ps, mkPod(fmt.Sprintf("sml-%05d", i), 10, 100))
		}
	}
	return ns, ps
}
