package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/testdata"
)

// wholeList is a snapshot encoded as Write encoded it before it wrote one
// object at a time: every object's encoding kept, then the List encoded
// whole (json.MarshalIndent, yaml.JSONToYAML of that, the protobuf
// serializer's encoding of a v1.List), then gzipped whole.
func wholeList(t *testing.T, c *Cluster, h Header, f OutputFormat) []byte {
	t.Helper()
	h = redactHeader(h)
	dropEnv := h.EnvValues == EnvValuesDropped
	var data []byte
	if f.Protobuf {
		head, err := protobufHeaderItem(h)
		if err != nil {
			t.Fatal(err)
		}
		list := v1.List{Items: []runtime.RawExtension{{Raw: head}}}
		for _, o := range c.Objects() {
			o, err := writable(o, dropEnv)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := protobufSerializer.Encode(o, &buf); err != nil {
				t.Fatal(err)
			}
			list.Items = append(list.Items, runtime.RawExtension{Raw: buf.Bytes()})
		}
		list.SetGroupVersionKind(v1.SchemeGroupVersion.WithKind("List"))
		var buf bytes.Buffer
		if err := protobufSerializer.Encode(&list, &buf); err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
	} else {
		list := jsonList{APIVersion: "v1", Kind: "List", Items: []json.RawMessage{}}
		for _, o := range c.Objects() {
			b, err := encodeObject(o, dropEnv)
			if err != nil {
				t.Fatal(err)
			}
			list.Items = append(list.Items, b)
		}
		if !f.YAML {
			list.Metadata.Annotations = h.annotations()
		}
		var err error
		if data, err = json.MarshalIndent(list, "", "  "); err != nil {
			t.Fatal(err)
		}
		if f.YAML {
			y, err := yaml.JSONToYAML(data)
			if err != nil {
				t.Fatal(err)
			}
			data = append(h.comment(), y...)
		} else {
			data = append(data, '\n')
		}
	}
	if !f.Gzip {
		return data
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// awkwardCluster has what the encoders treat apart: characters JSON
// escapes (<, >, &, U+2028), text past YAML's 80 columns with spaces to
// fold at and over several lines, nested empty objects and lists,
// literal environment variable values to drop, managedFields, and
// quantities.
func awkwardCluster() *Cluster {
	long := strings.Repeat("a word or two, ", 12)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "team <a> & b", Labels: map[string]string{"app": "web"},
			Annotations:   map[string]string{"long": long, "lines": "first line\n  second, indented\nthird\n", "sep": "a\u2028b", "empty": ""},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "registry.example/web:1", Command: []string{"sh", "-c", long},
			Env: []v1.EnvVar{{Name: "PASSWORD", Value: "hunter2"}},
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"),
				v1.ResourceMemory: resource.MustParse("1.5Gi")}}}},
			NodeSelector: map[string]string{}, Tolerations: []v1.Toleration{}},
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{
		Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}}}
	return &Cluster{Nodes: []*v1.Node{node}, Pods: []*v1.Pod{pod}, Namespaces: []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}}
}

// TestWriteIsTheWholeListsEncoding: Write, which encodes and writes one
// object at a time, writes byte for byte what encoding the whole List at
// once wrote, in every format, gzipped or not, with a header or none, its
// secrets and the pods' environment variable values dropped or kept.
func TestWriteIsTheWholeListsEncoding(t *testing.T) {
	clusters := map[string]*Cluster{"empty": {}, "awkward": awkwardCluster()}
	demo, r, err := Load(testdata.DemoName, testdata.Demo)
	if err != nil || r.HasErrors() {
		t.Fatal(err, r)
	}
	clusters["demo"] = demo
	for _, path := range []string{"testdata/dir", "testdata/cluster-info-dump", "testdata/simulator-export.json"} {
		o, err := Open(path)
		if err != nil || o.Report.HasErrors() {
			t.Fatal(path, err, o.Report)
		}
		clusters[path] = o.Cluster
	}
	headers := map[string]Header{
		"no header": {},
		"a header": {Context: "kind-dev", Source: "https://user:secret@127.0.0.1:6443", SchedulerConfigFile: "sched.yaml",
			SchedulerConfig: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n# <&> kept\n",
			EnvValues:       EnvValuesDropped},
		"env values kept": {Context: "kind-dev", EnvValues: EnvValuesKept},
	}
	for cname, c := range clusters {
		for hname, h := range headers {
			for _, f := range []OutputFormat{{}, {YAML: true}, {Protobuf: true}, {Gzip: true}, {YAML: true, Gzip: true}, {Protobuf: true, Gzip: true}} {
				t.Run(fmt.Sprintf("%s/%s/%+v", cname, hname, f), func(t *testing.T) {
					var got bytes.Buffer
					n, err := Write(&got, c, h, f)
					if err != nil {
						t.Fatal(err)
					}
					if n != len(c.Objects()) {
						t.Errorf("wrote %d objects, the cluster has %d", n, len(c.Objects()))
					}
					if want := wholeList(t, c, h, f); !bytes.Equal(got.Bytes(), want) {
						i := 0
						for i < min(got.Len(), len(want)) && got.Bytes()[i] == want[i] {
							i++
						}
						t.Fatalf("%d bytes, the whole List's encoding %d, first difference at byte %d:\n%q\nwant\n%q",
							got.Len(), len(want), i, got.Bytes()[max(0, i-40):min(got.Len(), i+40)], want[max(0, i-40):min(len(want), i+40)])
					}
				})
			}
		}
	}
}

// TestProtobufWriterIsTheWholeListsEncoding: the objects added to a
// ProtobufWriter are written as Write writes the cluster.
func TestProtobufWriterIsTheWholeListsEncoding(t *testing.T) {
	c := awkwardCluster()
	h := Header{Context: "kind-dev", EnvValues: EnvValuesDropped}
	pw, err := NewProtobufWriter(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range c.Objects() {
		if err := pw.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	if err := pw.WriteList(&got); err != nil {
		t.Fatal(err)
	}
	if want := wholeList(t, c, h, OutputFormat{Protobuf: true}); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%d bytes, the whole List's encoding %d", got.Len(), len(want))
	}
}
