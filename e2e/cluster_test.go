package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// node is a worker with the labels and status a kubelet would report.
func node(name, zone string, cpu, mem string, taints ...v1.Taint) *v1.Node {
	rl := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(mem),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname":        name,
			"kubernetes.io/os":              "linux",
			"topology.kubernetes.io/zone":   zone,
			"topology.kubernetes.io/region": "e2e",
		}},
		Spec: v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Capacity: rl, Allocatable: rl,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// pod is a one-container pod; opts adjust it.
func pod(ns, name, cpu, mem string, opts ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "main", Image: "registry.k8s.io/pause:3.10",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem),
			}},
		}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) func(*v1.Pod)        { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func app(a string) func(*v1.Pod)           { return func(p *v1.Pod) { p.Labels["app"] = a } }
func priority(pc string) func(*v1.Pod)     { return func(p *v1.Pod) { p.Spec.PriorityClassName = pc } }
func schedulerName(s string) func(*v1.Pod) { return func(p *v1.Pod) { p.Spec.SchedulerName = s } }
func tolerate(key string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
}
func antiAffinity(a string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": a}},
				TopologyKey:   "kubernetes.io/hostname",
			}},
		}}
	}
}
func spread(a string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": a}},
		}}
	}
}

// populate creates a small cluster with a story: bound workloads, and
// pending pods that schedule, fail on resources, a taint, anti-affinity
// and topology spread, and one that preempts.
func populate(t *testing.T, c kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range []string{"shop", "batch"} {
		_, err := c.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		must(t, err)
	}
	never := v1.PreemptNever
	for _, pc := range []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "critical"}, Value: 100000},
		{ObjectMeta: metav1.ObjectMeta{Name: "batch-low"}, Value: -10},
		{ObjectMeta: metav1.ObjectMeta{Name: "polite"}, Value: 100000, PreemptionPolicy: &never},
	} {
		_, err := c.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{})
		must(t, err)
	}
	gpuTaint := v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}
	for _, n := range []*v1.Node{
		node("node-a1", "zone-a", "4", "8Gi"),
		node("node-a2", "zone-a", "4", "8Gi"),
		node("node-b1", "zone-b", "2", "4Gi"),
		node("node-b2", "zone-b", "8", "16Gi"),
		node("node-gpu", "zone-b", "16", "64Gi", gpuTaint),
	} {
		createNode(t, c, n)
	}
	minAvailable := intstr.FromInt32(2)
	_, err := c.PolicyV1().PodDisruptionBudgets("shop").Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}, metav1.CreateOptions{})
	must(t, err)
	for _, p := range []*v1.Pod{
		// Running workloads.
		pod("shop", "web-1", "1500m", "2Gi", app("web"), onNode("node-a1")),
		pod("shop", "web-2", "1500m", "2Gi", app("web"), onNode("node-a2")),
		pod("shop", "web-3", "1500m", "2Gi", app("web"), onNode("node-b2")),
		pod("batch", "job-1", "1800m", "3Gi", priority("batch-low"), onNode("node-b1")),
		pod("batch", "job-2", "6", "8Gi", priority("batch-low"), onNode("node-b2")),
		// Pending.
		pod("shop", "api-1", "500m", "512Mi"),
		pod("shop", "cache-1", "1", "1Gi", app("cache"), antiAffinity("web")),
		pod("shop", "spread-1", "250m", "256Mi", app("spread"), spread("spread")),
		pod("shop", "spread-2", "250m", "256Mi", app("spread"), spread("spread")),
		pod("batch", "huge", "12", "20Gi"),
		pod("batch", "train", "8", "32Gi", tolerate("nvidia.com/gpu")),
		pod("shop", "checkout", "3", "4Gi", priority("critical")),
		pod("shop", "report", "3", "4Gi", priority("polite")),
	} {
		_, err := c.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		must(t, err)
	}
}

// createNode creates a node and then its status (the API server drops the
// status of a create).
func createNode(t testing.TB, c kubernetes.Interface, n *v1.Node) {
	t.Helper()
	ctx := context.Background()
	created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	must(t, err)
	created.Status = n.Status
	created, err = c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	must(t, err)
	// The TaintNodesByCondition admission plugin taints a new node
	// not-ready; the node lifecycle controller lifts the taint once the
	// node reports Ready. There is no controller here: lift it.
	var taints []v1.Taint
	for _, tn := range created.Spec.Taints {
		if tn.Key != v1.TaintNodeNotReady {
			taints = append(taints, tn)
		}
	}
	created.Spec.Taints = taints
	_, err = c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{})
	must(t, err)
}

// waitFor polls cond for up to d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, d, true, func(context.Context) (bool, error) {
		return cond()
	})
	if err != nil {
		t.Fatalf("waiting %s for %s: %v", d, what, err)
	}
}

func podKey(p *v1.Pod) string { return fmt.Sprintf("%s/%s", p.Namespace, p.Name) }
