package snapshot

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// protobufNodeList is a protobuf snapshot (no header) of nodes given as
// their encodings.
func protobufNodeList(t *testing.T, nodes ...[]byte) []byte {
	t.Helper()
	var list v1.List
	for _, raw := range nodes {
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Node"}, Raw: raw}
		list.Items = append(list.Items, runtime.RawExtension{Raw: append(bytes.Clone(protobufMagic), mustMarshalProto(t, &u)...)})
	}
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "List"}, Raw: mustMarshalProto(t, &list)}
	return append(bytes.Clone(protobufMagic), mustMarshalProto(t, &u)...)
}

// templateNode is a node of one machine type as an API server stores it,
// with every part share_protobuf_nodes.go shares; its allocatable memory
// is not rounded yet (defaulting rounds it).
func templateNode(name string) *v1.Node {
	q := resource.MustParse
	t := metav1.NewTime(time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC))
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "3",
			Labels:          map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/hostname": name},
			Annotations:     map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Machine", Name: "pool-a", UID: "m"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: "Update", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}}},
		},
		Spec: v1.NodeSpec{PodCIDR: "10.0.0.0/24", Taints: []v1.Taint{{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectNoSchedule}}},
		Status: v1.NodeStatus{
			Capacity:    v1.ResourceList{v1.ResourceCPU: q("4"), v1.ResourceMemory: q("32Gi"), v1.ResourcePods: q("110")},
			Allocatable: v1.ResourceList{v1.ResourceCPU: q("3900m"), v1.ResourceMemory: q("0.0001"), v1.ResourcePods: q("110")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: t, LastTransitionTime: t, Reason: "KubeletReady"}},
			Images:      []v1.ContainerImage{{Names: []string{"registry.k8s.io/pause:3.10"}, SizeBytes: 300000}},
			NodeInfo:    v1.NodeSystemInfo{MachineID: name, KubeletVersion: "v1.37.1"},
		},
	}
}

// TestProtobufSharesNodePartsByBytes loads nodes whose parts are alike in
// every way share_protobuf_nodes.go must tell apart, and checks that each
// node is what it is loaded without any sharing, and that the parts that
// may be shared are.
func TestProtobufSharesNodePartsByBytes(t *testing.T) {
	var nodes [][]byte
	add := func(n *v1.Node) { nodes = append(nodes, mustMarshalProto(t, n)) }
	// Enough to be decoded on several goroutines.
	for i := range parallelMinItems * 2 {
		add(templateNode(fmt.Sprint("node-", i)))
	}
	// Without allocatable resources: they default to the capacity, which
	// is the template's.
	for i := range 2 {
		n := templateNode(fmt.Sprint("no-allocatable-", i))
		n.Status.Allocatable = nil
		add(n)
	}
	// Named by the loader (metadata.generateName): checked as it is
	// added, not ahead.
	generated := templateNode("")
	generated.GenerateName = "node-"
	add(generated)
	// Equal quantities written otherwise are not shared: the node keeps
	// what it was written with.
	nodes = append(nodes, bytes.ReplaceAll(mustMarshalProto(t, templateNode("other-quantity")), []byte("3900m"), []byte("39e-1")))
	// The status in two fields, the capacity in the first; an unknown
	// field in the status: each decodes alike, with the warning about
	// the bytes.
	nodes = append(nodes, splitStatus(t, templateNode("split")), splitStatus(t, templateNode("unknown"), 999))
	// A node that does not decode, after the others' parts.
	bad := mustMarshalProto(t, templateNode("bad"))
	nodes = append(nodes, bad[:len(bad)-3])

	data := protobufNodeList(t, nodes...)
	got, gotReport := loadSharing(t, data, true)
	want, wantReport := loadSharing(t, data, false)
	if len(got.Nodes) != len(want.Nodes) || len(got.Nodes) < 10 {
		t.Fatalf("%d nodes loaded, %d without sharing", len(got.Nodes), len(want.Nodes))
	}
	for i := range want.Nodes {
		if !reflect.DeepEqual(got.Nodes[i], want.Nodes[i]) {
			t.Errorf("node %s differs from the same node loaded without sharing:\n%+v\nwant\n%+v", want.Nodes[i].Name, got.Nodes[i], want.Nodes[i])
		}
	}
	if g, w := fmt.Sprint(gotReport.Problems), fmt.Sprint(wantReport.Problems); g != w {
		t.Errorf("problems differ from those without sharing:\n%s\nwant\n%s", g, w)
	}
	if !gotReport.HasErrors() {
		t.Errorf("the node cut short is not reported")
	}

	byName := map[string]*v1.Node{}
	for _, n := range got.Nodes {
		byName[n.Name] = n
	}
	a, b := byName["node-0"], byName["node-1"]
	for part, shared := range map[string]bool{
		"annotations": sameMap(a.Annotations, b.Annotations), "owner references": sameArray(a.OwnerReferences, b.OwnerReferences),
		"managed fields": sameArray(a.ManagedFields, b.ManagedFields), "taints": sameArray(a.Spec.Taints, b.Spec.Taints),
		"capacity": sameMap(a.Status.Capacity, b.Status.Capacity), "allocatable": sameMap(a.Status.Allocatable, b.Status.Allocatable),
		"conditions": sameArray(a.Status.Conditions, b.Status.Conditions), "images": sameArray(a.Status.Images, b.Status.Images),
		"capacity of a split status":      sameMap(a.Status.Capacity, byName["split"].Status.Capacity),
		"allocatable of an unknown field": sameMap(a.Status.Allocatable, byName["unknown"].Status.Allocatable),
	} {
		if !shared {
			t.Errorf("nodes of one machine type do not share their %s", part)
		}
	}
	if sameMap(a.Labels, b.Labels) {
		t.Errorf("nodes with other hostnames share their labels")
	}
	var named *v1.Node
	for _, n := range got.Nodes {
		if n.GenerateName != "" {
			named = n
		}
	}
	if named == nil || !sameMap(named.Status.Capacity, a.Status.Capacity) {
		t.Errorf("a node named by the loader does not share its capacity")
	}
	if m := a.Status.Allocatable[v1.ResourceMemory]; m.String() != "1m" {
		t.Errorf("the shared allocatable resources are not defaulted: memory %s", m.String())
	}
	na := byName["no-allocatable-1"]
	if !reflect.DeepEqual(na.Status.Allocatable, a.Status.Capacity) || sameMap(na.Status.Allocatable, na.Status.Capacity) {
		t.Errorf("a node without allocatable resources does not get its capacity's copy: %v", na.Status.Allocatable)
	}
	if o := byName["other-quantity"].Status.Allocatable; sameMap(o, a.Status.Allocatable) {
		t.Errorf("allocatable resources with a quantity written otherwise are shared")
	}
	// By their bytes, not encoded again (share.go).
	l := NewLoader()
	if err := l.LoadData("nodes.pb", data); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []partKind{partNodeLabels, partNodeAnnotations, partOwnerReferences, partManagedFields, partTaints, partCapacity, partAllocatable, partNodeConditions, partImages} {
		if len(l.share.raw[kind]) == 0 {
			t.Errorf("nodes' parts of kind %d are not remembered by their bytes", kind)
		}
	}
}

// splitStatus is n's encoding with its status in two fields, the
// capacity in the first and the rest in the second (the generated
// Unmarshal merges them), and a field of each number unknown in the
// second.
func splitStatus(t *testing.T, n *v1.Node, unknown ...protowire.Number) []byte {
	t.Helper()
	status := mustMarshalProto(t, &n.Status)
	var capacity, rest []byte
	for at := 0; at < len(status); {
		num, typ, k := protowire.ConsumeTag(status[at:])
		l := protowire.ConsumeFieldValue(num, typ, status[at+k:])
		if num == nodeStatusCapacity {
			capacity = append(capacity, status[at:at+k+l]...)
		} else {
			rest = append(rest, status[at:at+k+l]...)
		}
		at += k + l
	}
	for _, num := range unknown {
		rest = protowire.AppendTag(rest, num, protowire.VarintType)
		rest = protowire.AppendVarint(rest, 1)
	}
	var out []byte
	for _, f := range []struct {
		num   protowire.Number
		value []byte
	}{{nodeMetadata, mustMarshalProto(t, &n.ObjectMeta)}, {nodeSpec, mustMarshalProto(t, &n.Spec)}, {nodeStatus, capacity}, {nodeStatus, rest}} {
		out = protowire.AppendTag(out, f.num, protowire.BytesType)
		out = protowire.AppendBytes(out, f.value)
	}
	return out
}

// TestProtobufStopsRememberingUniqueNodeParts loads more nodes than
// unsharedNodeParts, each with labels of its own (its hostname) and
// conditions of its own (their heartbeat times) but for the first two:
// the labels stop being remembered, the conditions (met twice) do not,
// and every node is what it is loaded without sharing. The nodes are
// decoded in order, on one goroutine: on several, how many are remembered
// depends on which goroutine gets ahead.
func TestProtobufStopsRememberingUniqueNodeParts(t *testing.T) {
	defer func(n int) { parallelMinItems = n }(parallelMinItems)
	parallelMinItems = 1 << 30
	var nodes [][]byte
	for i := range unsharedNodeParts + 44 {
		n := templateNode(fmt.Sprint("node-", i))
		if i >= 2 {
			at := metav1.NewTime(n.Status.Conditions[0].LastHeartbeatTime.Add(time.Duration(i) * time.Second))
			n.Status.Conditions[0].LastHeartbeatTime = at
		}
		nodes = append(nodes, mustMarshalProto(t, n))
	}
	data := protobufNodeList(t, nodes...)
	l := NewLoader()
	if err := l.LoadData("nodes.pb", data); err != nil {
		t.Fatal(err)
	}
	labels, conditions := len(l.share.raw[partNodeLabels]), len(l.share.raw[partNodeConditions])
	got, _ := l.Finish()
	want, _ := loadSharing(t, data, false)
	if !reflect.DeepEqual(got.Nodes, want.Nodes) {
		t.Errorf("the nodes differ from those loaded without sharing")
	}
	if labels != unsharedNodeParts {
		t.Errorf("%d nodes' labels remembered, all different: want %d", labels, unsharedNodeParts)
	}
	if conditions != len(nodes)-1 {
		t.Errorf("%d nodes' conditions remembered, two of them alike: want %d", conditions, len(nodes)-1)
	}
}
