package upstream

import (
	"context"
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// The objects below are "already defaulted" the way the API server and its
// admission plugins would store them (schedulerName, priority,
// preemptionPolicy, UID), which is the contract of snapshot.Cluster.

func node(name, cpu, mem string, taints ...v1.Taint) *v1.Node {
	rl := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(mem),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), Labels: map[string]string{v1.LabelHostname: name}},
		Spec:       v1.NodeSpec{Taints: taints},
		Status:     v1.NodeStatus{Capacity: rl, Allocatable: rl},
	}
}

type podOpt func(*v1.Pod)

func pod(name, cpu, mem string, opts ...podOpt) *v1.Pod {
	req := v1.ResourceList{}
	if cpu != "" {
		req[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[v1.ResourceMemory] = resource.MustParse(mem)
	}
	prio := int32(0)
	policy := v1.PreemptLowerPriority
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{
			SchedulerName:    v1.DefaultSchedulerName,
			Priority:         &prio,
			PreemptionPolicy: &policy,
			Containers: []v1.Container{{
				Name:      "c",
				Image:     "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: req},
			}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) podOpt {
	return func(p *v1.Pod) { p.Spec.NodeName = n; p.Status.Phase = v1.PodRunning }
}

func priority(v int32) podOpt { return func(p *v1.Pod) { p.Spec.Priority = &v } }

func nominated(n string) podOpt { return func(p *v1.Pod) { p.Status.NominatedNodeName = n } }

func startedAt(t metav1.Time) podOpt { return func(p *v1.Pod) { p.Status.StartTime = &t } }

func withPVC(claim string) podOpt {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{
			Name:         claim,
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
		})
	}
}

// pinnedTo sets the required node affinity the DaemonSet controller gives
// its pods: matchFields metadata.name In [name].
func pinnedTo(name string) podOpt {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{name}}},
			}}},
		}}
	}
}

func noSchedule(key string) v1.Taint {
	return v1.Taint{Key: key, Value: "true", Effect: v1.TaintEffectNoSchedule}
}

// pendingOf returns the pods of c without a node, in order.
func pendingOf(c *snapshot.Cluster) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range c.Pods {
		if p.Spec.NodeName == "" {
			out = append(out, p)
		}
	}
	return out
}

func run(t *testing.T, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, pending []*v1.Pod) []record.AttemptJSON {
	t.Helper()
	got, err := Run(context.Background(), c, cfg, pending)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(got) != len(pending) {
		t.Fatalf("Run returned %d attempts for %d pending pods", len(got), len(pending))
	}
	for _, a := range got {
		b, _ := json.Marshal(a)
		t.Logf("%s", b)
	}
	return got
}
