package e2e

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// gpuResource is the extended resource the GPU nodes advertise, as a
// device plugin would.
const gpuResource v1.ResourceName = "nvidia.com/gpu"

// gangNamespace holds the workloads; ordinary pods go to "web".
const gangNamespace = "train"

// pairLabel marks the one node the pair gang may use.
const pairLabel = "e2e.schedtui.io/pair"

// gangGroup is one Workload with one pod-group template, its PodGroup
// (the runtime instance the scheduler queues) and its members.
type gangGroup struct {
	name string
	// minCount is the gang's; 0 makes the group basic (each member
	// scheduled on its own).
	minCount int32
	// priorityClass is the group's and its members' (kube-scheduler
	// refuses a group whose members' priority is not the group's).
	priorityClass string
	members       []*v1.Pod
}

// gangCluster is the cluster of the gang scenario: 24 nodes in three
// zones, half of them with two GPUs, low-priority jobs filling eight of the
// twelve GPU nodes and some CPU, and the pending workloads:
//
//   - cpu-gang: a gang of 10 CPU pods (minCount 10) that fits;
//   - pair: a gang of 2 (minCount 2) whose members may only use one node
//     (a node selector), which has room for one of them: the group is
//     unschedulable, each member with the group's message;
//   - gpu-gang: a gang of 8 high-priority workers needing a whole GPU
//     node each (2 GPUs), with 4 GPU nodes free: placed only by
//     preempting low-priority jobs (workload-aware preemption), then
//     bound once the victims are gone;
//   - basic: a basic group of 3 (each member scheduled on its own);
//   - two pods of the PodGroup "ghost", which does not exist: never
//     attempted (GangScheduling's PreEnqueue holds them);
//   - ordinary pods, one of which fits nowhere.
type gangCluster struct {
	nodes    []*v1.Node
	bound    []*v1.Pod
	classes  []*schedulingv1.PriorityClass
	groups   []gangGroup
	orphans  []*v1.Pod
	ordinary []*v1.Pod
}

func newGangCluster() *gangCluster {
	c := &gangCluster{classes: []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "gang-high"}, Value: 1000},
		{ObjectMeta: metav1.ObjectMeta{Name: "batch-low"}, Value: -10},
	}}
	for _, zone := range []string{"a", "b", "c"} {
		for i := 1; i <= 4; i++ {
			n := node(fmt.Sprintf("cpu-%s%d", zone, i), "zone-"+zone, "8", "32Gi")
			if zone == "a" && i == 1 {
				// The pair's node: tainted, so that nothing else
				// takes the room the pair is to find.
				n.Labels[pairLabel] = "yes"
				n.Spec.Taints = []v1.Taint{{Key: pairLabel, Value: "yes", Effect: v1.TaintEffectNoSchedule}}
			}
			c.nodes = append(c.nodes, n)
			g := node(fmt.Sprintf("gpu-%s%d", zone, i), "zone-"+zone, "16", "64Gi")
			g.Status.Capacity[gpuResource] = resource.MustParse("2")
			g.Status.Allocatable[gpuResource] = resource.MustParse("2")
			c.nodes = append(c.nodes, g)
			// Low-priority jobs hold the GPUs of the first three GPU
			// nodes of each zone, and some CPU everywhere.
			if i <= 3 {
				c.bound = append(c.bound, pod("batch", "gpu-job-"+zone+fmt.Sprint(i), "4", "16Gi", priority("batch-low"), onNode(g.Name), gpus(2)))
			}
			c.bound = append(c.bound, pod("batch", "cpu-job-"+zone+fmt.Sprint(i), "2", "4Gi", priority("batch-low"), onNode(n.Name)))
		}
	}
	var members []*v1.Pod
	for i := 1; i <= 10; i++ {
		members = append(members, pod(gangNamespace, fmt.Sprintf("cpu-gang-%d", i), "1", "2Gi", app("cpu-gang")))
	}
	c.groups = append(c.groups, gangGroup{name: "cpu-gang", minCount: 10, members: members})
	// cpu-a1 has 6 CPUs free: one member of 5 fits, not two.
	c.groups = append(c.groups, gangGroup{name: "pair", minCount: 2, members: []*v1.Pod{
		pod(gangNamespace, "pair-1", "5", "1Gi", app("pair"), nodeSelector(pairLabel, "yes"), tolerate(pairLabel)),
		pod(gangNamespace, "pair-2", "5", "1Gi", app("pair"), nodeSelector(pairLabel, "yes"), tolerate(pairLabel)),
	}})
	members = nil
	for i := 1; i <= 8; i++ {
		members = append(members, pod(gangNamespace, fmt.Sprintf("gpu-worker-%d", i), "4", "16Gi", app("gpu-gang"), priority("gang-high"), gpus(2)))
	}
	c.groups = append(c.groups, gangGroup{name: "gpu-gang", minCount: 8, priorityClass: "gang-high", members: members})
	members = nil
	for i := 1; i <= 3; i++ {
		members = append(members, pod(gangNamespace, fmt.Sprintf("basic-%d", i), "500m", "1Gi", app("basic")))
	}
	c.groups = append(c.groups, gangGroup{name: "basic", members: members})
	for i := range c.groups {
		for _, p := range c.groups[i].members {
			inGroup(c.groups[i].name)(p)
		}
	}
	c.orphans = []*v1.Pod{
		pod(gangNamespace, "ghost-1", "500m", "1Gi", inGroup("ghost")),
		pod(gangNamespace, "ghost-2", "500m", "1Gi", inGroup("ghost")),
	}
	c.ordinary = []*v1.Pod{
		pod("web", "api-1", "500m", "1Gi", app("api")),
		pod("web", "api-2", "500m", "1Gi", app("api")),
		pod("web", "cache-1", "2", "4Gi", app("cache")),
		pod("web", "huge", "64", "8Gi"),
	}
	return c
}

func gpus(n int64) func(*v1.Pod) {
	return func(p *v1.Pod) {
		q := *resource.NewQuantity(n, resource.DecimalSI)
		c := &p.Spec.Containers[0]
		c.Resources.Requests[gpuResource] = q
		// An extended resource is requested only with an equal limit.
		c.Resources.Limits = v1.ResourceList{gpuResource: q}
	}
}

func nodeSelector(key, value string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{key: value} }
}

func inGroup(podGroup string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &podGroup} }
}

// workload and podGroup are g's objects: a Workload with one template
// ("workers"), and its PodGroup, named as the group.
func (g gangGroup) workload() *schedulingv1beta1.Workload {
	return &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: gangNamespace, Name: g.name},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{
			Name: "workers", SchedulingPolicy: g.policy(), PriorityClassName: g.priorityClass,
		}}},
	}
}

func (g gangGroup) podGroup() *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: gangNamespace, Name: g.name},
		Spec: schedulingv1beta1.PodGroupSpec{
			WorkloadRef:       &schedulingv1beta1.WorkloadReference{WorkloadName: g.name, TemplateName: "workers"},
			SchedulingPolicy:  g.policy(),
			PriorityClassName: g.priorityClass,
		},
	}
}

func (g gangGroup) policy() schedulingv1beta1.PodGroupSchedulingPolicy {
	if g.minCount == 0 {
		return schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
	}
	return schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: g.minCount}}
}

// create makes the cluster's initial state in the API server: namespaces,
// priority classes, nodes, the bound jobs, the Workloads and the
// PodGroups. The pending pods are left to the test (pending).
func (c *gangCluster) create(t *testing.T, k kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range []string{gangNamespace, "batch", "web"} {
		_, err := k.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		must(t, err)
	}
	for _, pc := range c.classes {
		_, err := k.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{})
		must(t, err)
	}
	for _, n := range c.nodes {
		createNode(t, k, n)
	}
	for _, p := range c.bound {
		_, err := k.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		must(t, err)
	}
	for _, g := range c.groups {
		_, err := k.SchedulingV1beta1().Workloads(gangNamespace).Create(ctx, g.workload(), metav1.CreateOptions{})
		must(t, err)
		_, err = k.SchedulingV1beta1().PodGroups(gangNamespace).Create(ctx, g.podGroup(), metav1.CreateOptions{})
		must(t, err)
	}
}

// pending are the pods the scheduler is to decide about, gangs first,
// each gang's members together.
func (c *gangCluster) pending() []*v1.Pod {
	var out []*v1.Pod
	for _, g := range c.groups {
		out = append(out, g.members...)
	}
	out = append(out, c.orphans...)
	return append(out, c.ordinary...)
}
