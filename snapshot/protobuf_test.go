package snapshot_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

var upstreamProtobuf = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// TestProtobufIsTheAPIServerEncoding decodes a written protobuf snapshot
// with the API server's own protobuf serializer: a v1 List whose items,
// after the header, are the objects in the same encoding.
func TestProtobufIsTheAPIServerEncoding(t *testing.T) {
	c, r, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	if err != nil || r.HasErrors() {
		t.Fatal(err, r)
	}
	var buf bytes.Buffer
	n, err := snapshot.Write(&buf, c, snapshot.Header{Context: "demo"}, snapshot.OutputFormat{Protobuf: true})
	if err != nil {
		t.Fatal(err)
	}
	if !snapshot.IsProtobuf(buf.Bytes()) {
		t.Fatalf("no protobuf envelope: %q", buf.Bytes()[:16])
	}
	var list v1.List
	if _, _, err := upstreamProtobuf.Decode(buf.Bytes(), nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n+1 {
		t.Fatalf("%d items, want the header and %d objects", len(list.Items), n)
	}
	want := c.Objects()
	for i, it := range list.Items[1:] {
		obj, gvk, err := upstreamProtobuf.Decode(it.Raw, nil, nil)
		if err != nil {
			t.Fatalf("item %d: %v", i+1, err)
		}
		wantKind, _ := snapshot.WithKind(want[i])
		if *gvk != wantKind.GetObjectKind().GroupVersionKind() {
			t.Errorf("item %d is %v, want %v", i+1, gvk, wantKind.GetObjectKind().GroupVersionKind())
		}
		if got, wantName := obj.(metav1.Object).GetName(), want[i].(metav1.Object).GetName(); got != wantName {
			t.Errorf("item %d is %s, want %s", i+1, got, wantName)
		}
	}
}

func envelope(t *testing.T, apiVersion, kind string, raw []byte) []byte {
	t.Helper()
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw, ContentType: runtime.ContentTypeProtobuf}
	b, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("k8s\x00"), b...)
}

func encoded(t *testing.T, o runtime.Object) []byte {
	t.Helper()
	if o.GetObjectKind().GroupVersionKind().Empty() {
		var err error
		if o, err = snapshot.WithKind(o); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := upstreamProtobuf.Encode(o, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func protobufList(t *testing.T, items ...[]byte) []byte {
	t.Helper()
	list := &v1.List{}
	for _, it := range items {
		list.Items = append(list.Items, runtime.RawExtension{Raw: it})
	}
	list.SetGroupVersionKind(v1.SchemeGroupVersion.WithKind("List"))
	var b bytes.Buffer
	if err := upstreamProtobuf.Encode(list, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestProtobufProblems: each bad item is reported with the file, the
// object (as far as it could be read) and the field or the item, and
// skipped; the rest loads.
func TestProtobufProblems(t *testing.T) {
	node := func(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	pod := func(name, cpu string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"}, Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "c", Image: "i", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}}}
	}
	good := encoded(t, pod("good", "1"))
	// Cut inside the pod's spec, after its metadata.
	cut := mustMarshal(t, pod("cut", "1"))
	truncated := envelope(t, "v1", "Pod", cut[:len(cut)-10])
	// A field of a later API version: field 99, varint 1 (the tag 99<<3 as a varint: 0x98 0x06), at the end of
	// the object.
	extra := envelope(t, "v1", "Node", append(mustMarshal(t, node("newer")), 0x98, 0x06, 1))
	data := protobufList(t,
		encoded(t, node("n1")),
		good,
		encoded(t, pod("negative", "-1")),
		truncated,
		[]byte(`{"kind":"Pod"}`),
		encoded(t, &v1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "team"}}),
		extra,
		encoded(t, node("n1")),
	)
	c, r, err := snapshot.Load("snap.pb", data)
	if err != nil {
		t.Fatal(err)
	}
	report := r.String()
	for _, want := range []string{
		`snap.pb: Pod team/negative: spec.containers[0].resources.requests.cpu: Invalid value: "-1": must be greater than or equal to 0`,
		`snap.pb: Pod team/cut: items[3]: cannot decode protobuf: `,
		`snap.pb: items[4]: not a protobuf envelope`,
		`snap.pb: warning: kind ConfigMap (apiVersion v1) is not read by schedtui: 1 object skipped`,
		`snap.pb: warning: Node newer: 3 of its `,
		`snap.pb: Node n1: metadata.name: nodes "n1" already exists (first defined at snap.pb)`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("missing %q in\n%s", want, report)
		}
	}
	var names []string
	for _, o := range c.Objects() {
		names = append(names, o.(metav1.Object).GetName())
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "n1") || !strings.Contains(got, "newer") || !strings.Contains(got, "good") ||
		strings.Contains(got, "negative") || strings.Contains(got, "cut") {
		t.Errorf("loaded %s", got)
	}
}

func mustMarshal(t *testing.T, o interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := o.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProtobufFileErrors: a file that starts with the envelope's magic
// but is not a protobuf object is refused as a whole, naming the file.
func TestProtobufFileErrors(t *testing.T) {
	for name, data := range map[string][]byte{
		"garbage":  []byte("k8s\x00\xff\xff\xff"),
		"bad List": envelope(t, "v1", "List", []byte{0x12, 0x40, 1}),
	} {
		_, _, err := snapshot.Load("snap.pb", data)
		if err == nil || !strings.HasPrefix(err.Error(), "snap.pb: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// One object alone is a snapshot of one object.
	c, r, err := snapshot.Load("node.pb", encoded(t, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "alone"}}))
	if err != nil || r.HasErrors() || len(c.Nodes) != 1 || c.Nodes[0].Name != "alone" {
		t.Fatalf("%v %v %+v", err, r, c)
	}
}

// TestProtobufInDirectory: a directory's .pb and .pb.gz files are read,
// detected by the envelope's magic.
func TestProtobufInDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, n := range map[string]string{"a.pb": "node-a", "b.pb.gz": "node-b", "c.json": "node-c"} {
		c := &snapshot.Cluster{Nodes: []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: n}}}}
		if _, err := snapshot.WriteFile(filepath.Join(dir, name), c, snapshot.Header{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("k8s\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := snapshot.Open(dir)
	if err != nil || o.Report.HasErrors() {
		t.Fatal(err, o.Report)
	}
	var names []string
	for _, n := range o.Cluster.Nodes {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, " "); got != "node-a node-b node-c" {
		t.Errorf("nodes %s", got)
	}
}

// TestProtobufCutShort: a protobuf snapshot cut anywhere in its List
// loads the objects before the cut, with an error saying it is cut; a
// file of the magic bytes alone is refused as naming no object.
func TestProtobufCutShort(t *testing.T) {
	c, r, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	if err != nil || r.HasErrors() {
		t.Fatal(err, r)
	}
	var buf bytes.Buffer
	n, err := snapshot.Write(&buf, c, snapshot.Header{}, snapshot.OutputFormat{Protobuf: true})
	if err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	prev := -1
	for _, keep := range []float64{0.1, 0.5, 0.9, 0.999} {
		cut := whole[:int(float64(len(whole))*keep)]
		got, r, err := snapshot.Load("cut.pb", cut)
		if err != nil {
			t.Fatalf("%.0f%% of the file: %v", keep*100, err)
		}
		objects := len(got.Objects()) - len(got.PriorityClasses) // the built-in classes are added anyway
		if objects <= prev && keep > 0.1 || objects >= n {
			t.Errorf("%.0f%% of the file: %d objects of %d (the previous cut: %d)", keep*100, objects, n, prev)
		}
		prev = objects
		if !strings.Contains(r.String(), "cut.pb: the file is cut short (truncated?): the ") {
			t.Errorf("%.0f%% of the file: no cut reported in\n%s", keep*100, r)
		}
	}
	_, _, err = snapshot.Load("magic.pb", []byte("k8s\x00"))
	if err == nil || !strings.Contains(err.Error(), "the envelope names no kind") {
		t.Errorf("the magic bytes alone: %v", err)
	}
}
