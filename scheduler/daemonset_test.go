package scheduler

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

func dsNode(name string, cpu string, mod func(*v1.Node)) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}}}
	n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	if mod != nil {
		mod(n)
	}
	return n
}

func testDaemonSet(mod func(*v1.PodSpec)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: "agent", Resources: v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")}}}}
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	if mod != nil {
		mod(&ds.Spec.Template.Spec)
	}
	return ds
}

func tolKeys(ts []v1.Toleration) []string {
	var out []string
	for _, t := range ts {
		s := t.Key + ":" + string(t.Effect)
		if t.TolerationSeconds != nil {
			s += "(seconds)"
		}
		out = append(out, s)
	}
	return out
}

func TestDaemonSetPod(t *testing.T) {
	secs := int64(300)
	base := []string{
		"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule",
	}
	nameField := v1.NodeSelectorRequirement{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n1"}}
	pinned := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{nameField}}}}
	preferred := []v1.PreferredSchedulingTerm{{Weight: 1, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "x", Operator: v1.NodeSelectorOpExists}}}}}
	tests := []struct {
		name     string
		mod      func(*v1.PodSpec)
		wantTols []string
		wantAff  func(*v1.Affinity) bool
	}{
		{"plain: all six tolerations, affinity pinned", nil, base,
			func(a *v1.Affinity) bool {
				return reflect.DeepEqual(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, pinned)
			}},
		{"hostNetwork adds network-unavailable", func(s *v1.PodSpec) { s.HostNetwork = true },
			append(append([]string(nil), base...), "node.kubernetes.io/network-unavailable:NoSchedule"), nil},
		{"a matching toleration with seconds is replaced in place",
			func(s *v1.PodSpec) {
				s.Tolerations = []v1.Toleration{{Key: "own", Operator: v1.TolerationOpExists},
					{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &secs}}
			},
			append([]string{"own:", "node.kubernetes.io/unreachable:NoExecute"}, append(base[:1:1], base[2:]...)...), nil},
		{"required terms are replaced, preferred and pod affinity kept",
			func(s *v1.PodSpec) {
				s.Affinity = &v1.Affinity{
					NodeAffinity: &v1.NodeAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
							MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}},
						PreferredDuringSchedulingIgnoredDuringExecution: preferred,
					},
					PodAntiAffinity: &v1.PodAntiAffinity{},
				}
			}, base,
			func(a *v1.Affinity) bool {
				return reflect.DeepEqual(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, pinned) &&
					reflect.DeepEqual(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, preferred) && a.PodAntiAffinity != nil
			}},
		{"pod affinity only: node affinity added",
			func(s *v1.PodSpec) { s.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{}} }, base,
			func(a *v1.Affinity) bool {
				return a.PodAffinity != nil && reflect.DeepEqual(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, pinned)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := testDaemonSet(tt.mod)
			before := ds.DeepCopy()
			p := DaemonSetPod(ds, "n1")
			if got := tolKeys(p.Spec.Tolerations); strings.Join(got, " ") != strings.Join(tt.wantTols, " ") {
				t.Errorf("tolerations %v\nwant %v", got, tt.wantTols)
			}
			if tt.wantAff != nil && !tt.wantAff(p.Spec.Affinity) {
				t.Errorf("affinity %+v", p.Spec.Affinity)
			}
			if p.Namespace != "kube-system" || p.Labels["app"] != "agent" || p.Spec.NodeSelector["kubernetes.io/os"] != "linux" ||
				len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != "ds-uid" || p.Spec.SchedulerName != v1.DefaultSchedulerName {
				t.Errorf("pod metadata/spec: %+v", p)
			}
			if !reflect.DeepEqual(ds, before) {
				t.Error("DaemonSetPod modified the DaemonSet")
			}
		})
	}
}

func TestNodeShouldRunDaemonPod(t *testing.T) {
	taint := func(effect v1.TaintEffect) func(*v1.Node) {
		return func(n *v1.Node) { n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: effect}} }
	}
	tests := []struct {
		name      string
		node      *v1.Node
		mod       func(*v1.PodSpec)
		run, cont bool
		whyHas    string
	}{
		{"plain node", dsNode("n", "4", nil), nil, true, true, ""},
		{"nodeName elsewhere", dsNode("n", "4", nil), func(s *v1.PodSpec) { s.NodeName = "other" }, false, false, "spec.nodeName"},
		{"nodeSelector mismatch", dsNode("n", "4", func(n *v1.Node) { n.Labels["kubernetes.io/os"] = "windows" }), nil, false, false, "nodeSelector"},
		{"NoSchedule taint: skipped, existing pod keeps running", dsNode("n", "4", taint(v1.TaintEffectNoSchedule)), nil, false, true, "dedicated=db:NoSchedule"},
		{"NoExecute taint: evicted", dsNode("n", "4", taint(v1.TaintEffectNoExecute)), nil, false, false, "dedicated=db:NoExecute"},
		{"PreferNoSchedule ignored", dsNode("n", "4", taint(v1.TaintEffectPreferNoSchedule)), nil, true, true, ""},
		{"cordoned node tolerated", dsNode("n", "4", func(n *v1.Node) {
			n.Spec.Unschedulable = true
			n.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}}
		}), nil, true, true, ""},
		{"not-ready node tolerated", dsNode("n", "4", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}}
		}), nil, true, true, ""},
		{"network-unavailable only for hostNetwork", dsNode("n", "4", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule}}
		}), nil, false, true, "network-unavailable"},
		{"network-unavailable with hostNetwork", dsNode("n", "4", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule}}
		}), func(s *v1.PodSpec) { s.HostNetwork = true }, true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, cont, why := NodeShouldRunDaemonPod(tt.node, testDaemonSet(tt.mod))
			if run != tt.run || cont != tt.cont || !strings.Contains(why, tt.whyHas) || (tt.whyHas == "" && why != "") {
				t.Errorf("got (%v, %v, %q), want (%v, %v, ...%q...)", run, cont, why, tt.run, tt.cont, tt.whyHas)
			}
		})
	}
}

// TestExplainDaemonSet: a running pod, a pending pod that fits, a node
// too full for the pod the controller would create, a tainted node the
// controller skips, and a node not matching the nodeSelector.
func TestExplainDaemonSet(t *testing.T) {
	ds := testDaemonSet(nil)
	nodes := []*v1.Node{
		dsNode("running", "4", nil),
		dsNode("pending", "4", nil),
		dsNode("full", "1", nil),
		dsNode("tainted", "4", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}
		}),
		dsNode("windows", "4", func(n *v1.Node) { n.Labels["kubernetes.io/os"] = "windows" }),
	}
	mk := func(name, node string, cpu string, owned bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", UID: k8stypes.UID("uid-" + name)}}
		if owned {
			p.Labels = map[string]string{"app": "agent"}
		}
		p.Spec.SchedulerName = v1.DefaultSchedulerName
		p.Spec.NodeName = node
		p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}
		return p
	}
	running := mk("agent-run", "running", "500m", true)
	filler := mk("filler", "full", "800m", false)
	pending := DaemonSetPod(ds, "pending")
	pending.Name, pending.UID = "agent-pend", "uid-agent-pend"
	s, err := New(nodes, []*v1.Pod{running, filler, pending}, nil, Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	var admitted int
	out, err := s.ExplainDaemonSet(ds, func(p *v1.Pod) (*v1.Pod, error) {
		admitted++
		prio := int32(2000001000)
		p.Spec.Priority = &prio
		return p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]DaemonSetNode{}
	for _, n := range out {
		got[n.Node] = n
	}
	if len(out) != 5 {
		t.Fatalf("%d nodes", len(out))
	}
	if n := got["running"]; !n.ShouldRun || len(n.Running) != 1 || n.Verdict != nil {
		t.Errorf("running: %+v", n)
	}
	if n := got["pending"]; !n.ShouldRun || len(n.Pending) != 1 || n.Pod.Name != "agent-pend" || !n.Verdict.Fits() {
		t.Errorf("pending: %+v %+v", n, n.Verdict)
	}
	if n := got["full"]; n.Verdict == nil || n.Verdict.Fits() || n.Verdict.First.Plugin != names.NodeResourcesFit ||
		strings.Join(n.Verdict.First.Reasons, ",") != "Insufficient cpu" || *n.Pod.Spec.Priority != 2000001000 {
		t.Errorf("full: %+v", n.Verdict)
	}
	if n := got["tainted"]; n.ShouldRun || !n.ShouldContinueRunning || n.Verdict != nil || !strings.Contains(n.Why, "dedicated=db:NoSchedule") {
		t.Errorf("tainted: %+v", n)
	}
	if n := got["windows"]; n.ShouldRun || n.ShouldContinueRunning || n.Verdict != nil {
		t.Errorf("windows: %+v", n)
	}
	if admitted != 1 {
		t.Errorf("admitted %d pods, want 1 (only the one to create)", admitted)
	}
	// The pod for "full" is pinned there: on another node NodeAffinity's
	// PreFilter result leaves that node out.
	v, err := s.FilterOnNode(got["full"].Pod, "running")
	if err != nil {
		t.Fatal(err)
	}
	if v.PreFilter == nil || v.PreFilter.Plugin != "NodeAffinity" || !strings.Contains(strings.Join(v.PreFilter.Reasons, ""), "NodeAffinity") {
		t.Errorf("pinned pod on another node: %+v", v)
	}
}
