package why

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// owned makes a pod of the test snapshot (pod) a controller's.
func owned(podYAML, kind, name string) string {
	return strings.Replace(podYAML, "}}\n  spec:", "}, ownerReferences: [{apiVersion: apps/v1, kind: "+kind+", name: "+name+", uid: uid-"+name+", controller: true}]}\n  spec:", 1)
}

// hintsOf proves the hints of pod's last attempt, checks each on a fresh
// fork, and returns them.
func hintsOf(t *testing.T, y, podName string, edit func(*Input)) []Hint {
	t.Helper()
	e := run(t, header+y)
	in := stuck(t, e, podName)
	if edit != nil {
		edit(&in)
	}
	before := forkState(in)
	res, err := Hints(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if after := forkState(in); after != before {
		t.Errorf("the fork after proving the hints:\n%s\nwant as before:\n%s", after, before)
	}
	t.Log(strings.Join(res.Lines(), "\n"))
	if len(res.Hints) == 0 {
		t.Fatalf("no hint: %s", res.Note)
	}
	for _, h := range res.Hints {
		verify(t, e, in, h)
	}
	return res.Hints
}

// forkState is the fork's nodes in node-tree order, each with its pods,
// and its pending pods.
func forkState(in Input) string {
	var b strings.Builder
	for _, ni := range in.Sched.Snapshot().List() {
		b.WriteString(ni.Name() + ":")
		for _, pi := range ni.Pods {
			b.WriteString(" " + key(pi.Pod))
		}
		b.WriteString("\n")
	}
	b.WriteString("pending:")
	for _, p := range in.Sched.Objects().Pods() {
		if p.Spec.NodeName == "" {
			b.WriteString(" " + key(p))
		}
	}
	return b.String()
}

// TestHintNodeSelectorTypo is issue 23's typo: disktype=sdd where two
// nodes carry ssd. The first hint fixes the value, not a node's label
// (which would make the typo permanent) nor dropping the selector.
func TestHintNodeSelectorTypo(t *testing.T) {
	y := node("gen-a1", "4", ", disktype: ssd", "", "") + node("gen-a2", "4", ", disktype: ssd", "", "") +
		node("gen-b1", "4", "", "", "") +
		pod("p", "100m", "", "", "    nodeSelector: {disktype: sdd}\n")
	hints := hintsOf(t, y, "default/p", nil)
	h := hints[0]
	if h.Summary != "did you mean nodeSelector disktype=ssd? (no node has disktype=sdd)" || strings.Join(h.FitsOn, ",") != "gen-a1,gen-a2" {
		t.Errorf("first hint %q on %v", h.Summary, h.FitsOn)
	}
	if p, ok := h.Objects[0].(*v1.Pod); !ok || p.Spec.NodeSelector["disktype"] != "ssd" {
		t.Errorf("the hint's pod %+v", h.Objects[0])
	}
	// The same typo in a required node-affinity term.
	y = strings.Replace(y, "    nodeSelector: {disktype: sdd}\n", "    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disktype, operator: In, values: [sdd, nvme]}]}]}}}\n", 1)
	hints = hintsOf(t, y, "default/p", nil)
	if h := hints[0]; h.Summary != "did you mean disktype In [ssd] in the pod's required node affinity? (no node has disktype=sdd)" || strings.Join(h.FitsOn, ",") != "gen-a1,gen-a2" {
		t.Errorf("first hint %q on %v", h.Summary, h.FitsOn)
	}
	for _, tc := range []struct {
		want, got string
		near      bool
	}{{"ssd", "sdd", true}, {"ssd", "sds", true}, {"SSD", "ssd", true}, {"a", "b", false}, {"ssd", "hdd", false}, {"zone-a", "zone-b", true}, {"prod", "staging", false}} {
		if got := nearMiss(tc.want, tc.got); got != tc.near {
			t.Errorf("nearMiss(%q, %q) = %v", tc.want, tc.got, got)
		}
	}
}

// TestHintAntiAffinityRelaxedFirst is issue 23's fourth replica: required
// zone anti-affinity, three zones taken. Making the anti-affinity
// preferred comes before deleting a running replica, and a node added in
// a taken zone is no hint.
func TestHintAntiAffinityRelaxedFirst(t *testing.T) {
	anti := "    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: zk}}}]}}\n"
	var y string
	for i, z := range []string{"z1", "z2", "z3"} {
		n := "node-" + z
		y += node(n, "4", ", topology.kubernetes.io/zone: "+z, "", "")
		y += owned(pod("zk-"+string(rune('0'+i)), "100m", "app: zk", n, anti), "StatefulSet", "zk")
	}
	y += owned(pod("zk-3", "100m", "app: zk", "", anti), "StatefulSet", "zk")
	hints := hintsOf(t, y, "default/zk-3", nil)
	if hints[0].Summary != "make the required pod anti-affinity of statefulset zk preferred (weight 100): the pod and its 3 running replicas" || len(hints[0].FitsOn) != 3 {
		t.Errorf("first hint %q on %v", hints[0].Summary, hints[0].FitsOn)
	}
	if len(hints[0].Objects) != 4 {
		t.Fatalf("objects %d, want the pod and its 3 replicas", len(hints[0].Objects))
	}
	for _, o := range hints[0].Objects {
		p := o.(*v1.Pod)
		if a := p.Spec.Affinity.PodAntiAffinity; len(a.RequiredDuringSchedulingIgnoredDuringExecution) != 0 || len(a.PreferredDuringSchedulingIgnoredDuringExecution) != 1 ||
			a.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey != v1.LabelTopologyZone {
			t.Errorf("%s: relaxed affinity %+v", p.Name, a)
		}
	}
	if !strings.HasPrefix(hints[1].Summary, "remove pod") {
		t.Errorf("second hint %q", hints[1].Summary)
	}
	for _, h := range hints {
		if strings.HasPrefix(h.Summary, "add a node") {
			t.Errorf("hint %q: a node in a taken zone does not take the pod", h.Summary)
		}
	}
}

// TestHintAddNodeLike is issue 23's capacity case: adding a node like one
// of the pool's comes before cutting the request (shown as a
// percentage); the node carries the pool's labels and taints, a new
// hostname, and the DaemonSet pods that would land on it; the hint says
// how many such nodes the pods pending like this one need.
func TestHintAddNodeLike(t *testing.T) {
	const pool = ", cloud.google.com/gke-nodepool: gen-a, topology.kubernetes.io/zone: z1"
	taint := "taints: [{key: team, value: web, effect: NoSchedule}]"
	tol := "    tolerations: [{key: team, operator: Exists}]\n"
	y := ""
	for _, n := range []string{"gen-a1", "gen-a2"} {
		y += node(n, "4", pool, taint, "") +
			owned(pod("agent-"+n, "500m", "app: agent", n, "    tolerations: [{operator: Exists}]\n"), "DaemonSet", "agent") +
			pod("busy-"+n, "3000m", "", n, tol)
	}
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		y += owned(pod(n, "1500m", "app: web", "", tol), "ReplicaSet", "web")
	}
	hints := hintsOf(t, y, "default/web-0", nil)
	h := hints[0]
	want := "add a node like gen-a1 (node pool gen-a, zone z1, empty but for 1 DaemonSet pod); the 3 pods pending like this one need 2 such nodes"
	if h.Summary != want || strings.Join(h.FitsOn, ",") != "gen-a1-new" {
		t.Errorf("first hint %q on %v, want %q", h.Summary, h.FitsOn, want)
	}
	if g := h.NodeGroup; g == nil || g.Like != "gen-a1" || g.Pool != "gen-a" || g.Zone != "z1" || g.Nodes != 2 || g.Pending != 3 || g.Needed != 2 {
		t.Errorf("node group %+v", h.NodeGroup)
	}
	n, ok := h.Objects[0].(*v1.Node)
	if !ok || n.Name != "gen-a1-new" || n.Labels[v1.LabelHostname] != "gen-a1-new" || n.Labels["cloud.google.com/gke-nodepool"] != "gen-a" ||
		len(n.Spec.Taints) != 1 || n.Status.Allocatable.Cpu().String() != "4" {
		t.Errorf("new node %+v", h.Objects[0])
	}
	if len(h.Objects) != 2 {
		t.Fatalf("objects %d, want the node and its DaemonSet pod", len(h.Objects))
	}
	if dp := h.Objects[1].(*v1.Pod); dp.Name != "agent-gen-a1-new" || dp.Spec.NodeName != "gen-a1-new" {
		t.Errorf("DaemonSet pod %s on %q", dp.Name, dp.Spec.NodeName)
	}
	if last := hints[len(hints)-1].Summary; last != "cut the pod's cpu request by 67% to 500m (from 1500m)" {
		t.Errorf("last hint %q, want the request cut", last)
	}

	// With the cluster's DaemonSets, the new node runs the pods they
	// would create there, as the controller would make them.
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "kube-system", UID: "uid-logs"},
		Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logs"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}},
				Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}}}}}}
	hints = hintsOf(t, y, "default/web-0", func(in *Input) { in.DaemonSets = []*appsv1.DaemonSet{ds} })
	h = hints[0]
	if g := h.NodeGroup; g == nil || g.Needed != 3 || len(h.Objects) != 3 {
		t.Fatalf("hint %q (%d objects), node group %+v: want 2 DaemonSet pods and one node per pod", h.Summary, len(h.Objects), h.NodeGroup)
	}
	if dp := h.Objects[1].(*v1.Pod); dp.Name != "logs-gen-a1-new" || dp.Spec.NodeName != "gen-a1-new" || dp.Spec.Affinity.NodeAffinity == nil {
		t.Errorf("the DaemonSet's pod %s on %q", dp.Name, dp.Spec.NodeName)
	}
}

// TestHintMissingClaim is issue 23's missing PVC: VolumeBinding's
// PreFilter rejects the pod, and the claim it meant exists.
func TestHintMissingClaim(t *testing.T) {
	y := node("node-a", "4", "", "", "") + `- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1}
  spec:
    capacity: {storage: 1Gi}
    accessModes: [ReadWriteOnce]
    claimRef: {namespace: default, name: reports-data}
    hostPath: {path: /mnt/1}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: reports-data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: 'yes'}}
  spec:
    accessModes: [ReadWriteOnce]
    storageClassName: ''
    volumeName: pv-1
    resources: {requests: {storage: 1Gi}}
  status: {phase: Bound}
` + pod("p", "100m", "", "", "    volumes: [{name: d, persistentVolumeClaim: {claimName: report-data}}]\n")
	hints := hintsOf(t, y, "default/p", nil)
	if h := hints[0]; h.Summary != "did you mean claimName: reports-data? (volume d; no claim default/report-data)" || strings.Join(h.FitsOn, ",") != "node-a" {
		t.Errorf("hint %q on %v", h.Summary, h.FitsOn)
	}
}
