package snapshot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// diffClusters returns "" when a and b hold semantically equal objects
// (quantities compared by value) in the same order, else the first
// difference.
func diffClusters(a, b *snapshot.Cluster) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < va.NumField(); i++ {
		name := va.Type().Field(i).Name
		fa, fb := va.Field(i), vb.Field(i)
		if fa.Len() != fb.Len() {
			return fmt.Sprintf("%s: %d objects, then %d", name, fa.Len(), fb.Len())
		}
		for j := 0; j < fa.Len(); j++ {
			oa, ob := fa.Index(j).Interface(), fb.Index(j).Interface()
			if !equality.Semantic.DeepEqual(oa, ob) {
				ja, _ := json.Marshal(oa)
				jb, _ := json.Marshal(ob)
				return fmt.Sprintf("%s[%d] differs:\n%s\n%s", name, j, ja, jb)
			}
		}
	}
	return ""
}

func countObjects(c *snapshot.Cluster) int { return len(c.Objects()) }

// fixtures are snapshots in every layout, the demo, and generated and
// curated scenarios (every kind schedtui reads).
func fixtures(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{
		"directory":         "testdata/dir",
		"cluster-info dump": "testdata/cluster-info-dump",
		"simulator export":  "testdata/simulator-export.json",
	}
	demo := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(demo, testdata.Demo, 0o644); err != nil {
		t.Fatal(err)
	}
	out["demo"] = demo
	scenarios := []*scenario.Scenario{scenario.Generate(7, scenario.Options{MinNodes: 4, MaxNodes: 8})}
	scenarios = append(scenarios, scenario.Generate(8, scenario.Options{MinNodes: 4, MaxNodes: 8, Preemption: true}))
	curated := scenario.Curated()
	if len(curated) > 3 {
		curated = curated[:3]
	}
	scenarios = append(scenarios, curated...)
	for _, s := range scenarios {
		var b bytes.Buffer
		if err := scenario.Dump(&b, s); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, s.Name+".yaml")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out["scenario "+s.Name] = p
	}
	return out
}

// TestWriteRoundTrip loads a fixture, writes it with the capture writer in
// every format, loads it back and compares the clusters deeply.
func TestWriteRoundTrip(t *testing.T) {
	out := t.TempDir()
	for name, path := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			o1, err := snapshot.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if o1.Report.HasErrors() {
				t.Fatalf("fixture has errors:\n%s", o1.Report)
			}
			for _, ext := range []string{".yaml", ".yml", ".json", ".yaml.gz", ".json.gz", ".pb", ".pb.gz"} {
				file := filepath.Join(out, strings.NewReplacer("/", "_", " ", "_").Replace(name)+ext)
				n, err := snapshot.WriteFile(file, o1.Cluster, snapshot.Header{Context: "test"})
				if err != nil {
					t.Fatalf("%s: %v", ext, err)
				}
				if n != countObjects(o1.Cluster) {
					t.Errorf("%s: wrote %d objects, the cluster has %d", ext, n, countObjects(o1.Cluster))
				}
				o2, err := snapshot.Open(file)
				if err != nil {
					t.Fatalf("%s: %v", ext, err)
				}
				if len(o2.Report.Problems) > 0 {
					t.Errorf("%s: reloading reported:\n%s", ext, o2.Report)
				}
				if d := diffClusters(o1.Cluster, o2.Cluster); d != "" {
					t.Fatalf("%s: the cluster changed in the round trip: %s", ext, d)
				}
				if o2.Header == nil || o2.Header.Context != "test" {
					t.Errorf("%s: header %+v", ext, o2.Header)
				}
			}
		})
	}
}

func TestWriteHeaderAndConfig(t *testing.T) {
	o, err := snapshot.Open("testdata/cluster-info-dump")
	if err != nil {
		t.Fatal(err)
	}
	// managedFields are never written.
	o.Cluster.Pods[0].ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	// Comments, blank lines and indentation survive the header.
	cfg := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n# a comment: kept\npercentageOfNodesToScore: 50\n\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n"
	h := snapshot.Header{
		CapturedAt:          time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC),
		Context:             "kind-dev",
		Source:              "https://127.0.0.1:6443",
		ServerVersion:       "v1.37.1",
		SchedtuiVersion:     "v0.4.0",
		SchedulerConfigFile: "sched.yaml",
		SchedulerConfig:     cfg,
	}
	dir := t.TempDir()
	for _, ext := range []string{".yaml", ".json", ".yaml.gz", ".json.gz", ".pb", ".pb.gz"} {
		t.Run(ext, func(t *testing.T) {
			file := filepath.Join(dir, "snap"+ext)
			if _, err := snapshot.WriteFile(file, o.Cluster, h); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(ext, ".gz") {
				text := string(raw)
				if strings.Contains(text, "managedFields") {
					t.Error("managedFields were written")
				}
				if ext == ".yaml" && !strings.HasPrefix(text, "# A schedtui snapshot") {
					t.Errorf("no leading comment:\n%.300s", text)
				}
				if ext == ".pb" && (!strings.HasPrefix(text, "k8s\x00") || !strings.Contains(text, `"server-version":"v1.37.1"`)) {
					t.Errorf("no protobuf envelope with the header item:\n%q", text[:min(len(text), 600)])
				}
				if ext == ".json" && !strings.Contains(text, `"schedtui.dev/server-version": "v1.37.1"`) {
					t.Errorf("no annotation header:\n%.600s", text)
				}
				for _, secret := range []string{`"kind": "Secret"`, "kind: Secret", "ConfigMap"} {
					if strings.Contains(text, secret) {
						t.Errorf("%q written", secret)
					}
				}
			}
			back, err := snapshot.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			if back.Header == nil {
				t.Fatal("no header read back")
			}
			got := *back.Header
			if !got.CapturedAt.Equal(h.CapturedAt) {
				t.Errorf("captured at %v, want %v", got.CapturedAt, h.CapturedAt)
			}
			got.CapturedAt = h.CapturedAt
			if got != h {
				t.Errorf("header\n%+v\nwant\n%+v", got, h)
			}
			if back.Config == nil || back.Config.PercentageOfNodesToScore == nil || *back.Config.PercentageOfNodesToScore != 50 {
				t.Fatalf("recorded configuration not used: %v (%s)", back.Config, back.Report)
			}
			if !strings.Contains(back.ConfigSource, "recorded from sched.yaml") {
				t.Errorf("config source %q", back.ConfigSource)
			}
			for _, p := range back.Cluster.Pods {
				if len(p.ManagedFields) != 0 {
					t.Errorf("pod %s has managedFields", p.Name)
				}
			}
			if d := diffClusters(stripManaged(o.Cluster), back.Cluster); d != "" {
				t.Errorf("cluster changed: %s", d)
			}
		})
	}
}

func stripManaged(c *snapshot.Cluster) *snapshot.Cluster {
	c = c.DeepCopy()
	for _, o := range c.Objects() {
		if a, err := meta.Accessor(o); err == nil {
			a.SetManagedFields(nil)
		}
	}
	return c
}

func TestOutputFormatFor(t *testing.T) {
	for _, tc := range []struct {
		path string
		want snapshot.OutputFormat
		err  bool
	}{
		{"a.yaml", snapshot.OutputFormat{YAML: true}, false},
		{"dir.d/A.YML", snapshot.OutputFormat{YAML: true}, false},
		{"a.json", snapshot.OutputFormat{}, false},
		{"a.json.gz", snapshot.OutputFormat{Gzip: true}, false},
		{"a.yaml.gz", snapshot.OutputFormat{YAML: true, Gzip: true}, false},
		{"a.pb", snapshot.OutputFormat{Protobuf: true}, false},
		{"a.PB.gz", snapshot.OutputFormat{Protobuf: true, Gzip: true}, false},
		{"a.txt", snapshot.OutputFormat{}, true},
		{"a.gz", snapshot.OutputFormat{Gzip: true}, true},
	} {
		got, err := snapshot.OutputFormatFor(tc.path)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("%s: %+v, %v", tc.path, got, err)
		}
	}
}
