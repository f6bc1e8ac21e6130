package snapshot

import (
	"strings"
	"testing"
)

// hostNetworkTemplate is a workload's template on the node's network with
// a port whose hostPort is unset, as kube-system/aws-node on EKS has.
const hostNetworkTemplate = `  selector: {matchLabels: {k8s-app: aws-node}}
  template:
    metadata: {labels: {k8s-app: aws-node}}
    spec:
      hostNetwork: true
      initContainers:
      - name: init
        image: init
        ports: [{containerPort: 61679, hostPort: 61680}]
      containers:
      - name: aws-node
        image: amazon-k8s-cni
        ports: [{containerPort: 61678, name: metrics}]
`

// TestHostNetworkTemplates checks that workload templates on the host's
// network may leave hostPort unset (the API server fills it in when it
// creates their pods) while a pod's hostPort must still match its
// containerPort.
func TestHostNetworkTemplates(t *testing.T) {
	data := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: aws-node, namespace: kube-system}\nspec:\n" + hostNetworkTemplate +
		"---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: kube-system}\nspec:\n" + hostNetworkTemplate +
		"---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: ss, namespace: kube-system}\nspec:\n" + hostNetworkTemplate +
		"---\napiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc, namespace: kube-system}\nspec:\n" +
		strings.Replace(hostNetworkTemplate, "selector: {matchLabels: {k8s-app: aws-node}}", "selector: {k8s-app: aws-node}", 1) +
		// A template's hostPort, when set, must still match.
		"---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: mismatch}\nspec:\n" +
		strings.Replace(hostNetworkTemplate, "{containerPort: 61678, name: metrics}", "{containerPort: 61678, hostPort: 8080}", 1) +
		// A pod's unset hostPort is defaulted to its containerPort; one set
		// to another port is refused.
		"---\n" + pod("defaulted", "    ports: [{containerPort: 80}]\n  hostNetwork: true\n") +
		"---\n" + pod("mismatch", "    ports: [{containerPort: 80, hostPort: 8080}]\n  hostNetwork: true\n")
	c, r := mustLoad(t, "t.yaml", data)
	if len(c.DaemonSets) != 1 || c.DaemonSets[0].Name != "aws-node" || len(c.ReplicaSets) != 1 || len(c.StatefulSets) != 1 || len(c.ReplicationControllers) != 1 {
		t.Errorf("the templates with an unset hostPort did not all load:\n%s", r)
	}
	if got := podNames(c); len(got) != 1 || got[0] != "default/defaulted" {
		t.Errorf("pods loaded %v, want only default/defaulted", got)
	}
	if len(c.Pods) == 1 && c.Pods[0].Spec.Containers[0].Ports[0].HostPort != 80 {
		t.Errorf("the pod's hostPort is %d, want it defaulted to 80", c.Pods[0].Spec.Containers[0].Ports[0].HostPort)
	}
	want := []string{
		"DaemonSet default/mismatch: spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true",
		"Pod default/mismatch: spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true",
	}
	if len(r.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(r.Problems), len(want), r)
	}
	for i, w := range want {
		if got := r.Problems[i].String(); !strings.Contains(got, w) {
			t.Errorf("problem %d:\n got %s\nwant it to contain %s", i, got, w)
		}
	}
}
