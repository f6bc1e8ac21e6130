package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func priorityClassNames(c *Cluster) []string {
	var out []string
	for _, pc := range c.PriorityClasses {
		out = append(out, pc.Name)
	}
	sort.Strings(out)
	return out
}

// copyTree copies a fixture tree into dir, gzipping the files whose
// relative path is in gzip (their names get ".gz").
func copyTree(t *testing.T, from, to string, gzip map[string]bool) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if gzip[filepath.ToSlash(rel)] {
			data, dst = gz(t, string(data)), dst+".gz"
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLayouts(t *testing.T) {
	tmp := t.TempDir()
	// The same fixtures, some files gzipped.
	gzDir := filepath.Join(tmp, "dir-gz")
	copyTree(t, "testdata/dir", gzDir, map[string]bool{"nested/30-pods.json": true, "10-nodes.yaml": true})
	gzDump := filepath.Join(tmp, "dump-gz")
	copyTree(t, "testdata/cluster-info-dump", gzDump, map[string]bool{"nodes.json": true, "default/pods.json": true})
	export, err := os.ReadFile("testdata/simulator-export.json")
	if err != nil {
		t.Fatal(err)
	}
	gzExport := filepath.Join(tmp, "export.json.gz")
	writeFile(t, gzExport, gz(t, string(export)))

	dirWant := struct {
		nodes, pods, pcs []string
	}{
		[]string{"n1", "n2"},
		[]string{"default/p1", "team/p2"},
		[]string{"high", "system-cluster-critical", "system-node-critical"},
	}
	dumpWant := dirWant
	dumpWant.nodes = []string{"node-a", "node-b"}
	dumpWant.pods = []string{"default/web-1", "default/web-2", "kube-system/coredns-1"}
	dumpWant.pcs = []string{"system-cluster-critical", "system-node-critical"}
	simWant := dirWant
	simWant.nodes = []string{"sim-node-1"}
	simWant.pods = []string{"default/pending-1"}
	simWant.pcs = []string{"batch", "system-cluster-critical", "system-node-critical"}

	for _, tc := range []struct {
		path   string
		format Format
		want   struct{ nodes, pods, pcs []string }
		config bool
	}{
		{"testdata/dir", FormatDirectory, dirWant, false},
		{gzDir, FormatDirectory, dirWant, false},
		{"testdata/cluster-info-dump", FormatClusterInfoDump, dumpWant, false},
		{gzDump, FormatClusterInfoDump, dumpWant, false},
		{"testdata/simulator-export.json", FormatSimulatorExport, simWant, true},
		{gzExport, FormatSimulatorExport, simWant, true},
		{"testdata/dir/10-nodes.yaml", FormatFile, struct{ nodes, pods, pcs []string }{
			[]string{"n1", "n2"}, nil, []string{"system-cluster-critical", "system-node-critical"}}, false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			o, err := Open(tc.path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if o.Format != tc.format {
				t.Errorf("format %q, want %q", o.Format, tc.format)
			}
			if o.Report.HasErrors() {
				t.Errorf("errors:\n%s", o.Report)
			}
			for _, p := range o.Report.Problems {
				// Events, logs and hidden files are never read.
				for _, bad := range []string{"events", "logs.txt", ".hidden", ".git", "README"} {
					if strings.Contains(p.String(), bad) {
						t.Errorf("unexpected problem: %s", p)
					}
				}
			}
			if got := nodeNames(o.Cluster); !reflect.DeepEqual(got, tc.want.nodes) {
				t.Errorf("nodes %v, want %v", got, tc.want.nodes)
			}
			if got := podNames(o.Cluster); !reflect.DeepEqual(got, tc.want.pods) {
				t.Errorf("pods %v, want %v", got, tc.want.pods)
			}
			if got := priorityClassNames(o.Cluster); !reflect.DeepEqual(got, tc.want.pcs) {
				t.Errorf("priority classes %v, want %v", got, tc.want.pcs)
			}
			if (o.Config != nil) != tc.config {
				t.Fatalf("config %v, want %v (source %q)", o.Config != nil, tc.config, o.ConfigSource)
			}
			if o.Config != nil {
				if !strings.Contains(o.ConfigSource, "schedulerConfig") {
					t.Errorf("config source %q", o.ConfigSource)
				}
				p := o.Config.Profiles[0]
				if p.Plugins == nil || len(p.Plugins.Score.Disabled) != 1 || p.Plugins.Score.Disabled[0].Name != "ImageLocality" {
					t.Errorf("the export's profile was not kept: %+v", p.Plugins)
				}
			}
		})
	}
}

// TestOpenClusterInfoDumpContents checks the kinds of a dump's namespace
// Lists arrive typed and the pods keep their stored form.
func TestOpenClusterInfoDumpContents(t *testing.T) {
	o, err := Open("testdata/cluster-info-dump")
	if err != nil {
		t.Fatal(err)
	}
	c := o.Cluster
	if len(c.Services) != 1 || c.Services[0].Name != "web" {
		t.Errorf("services %v", c.Services)
	}
	if len(c.ReplicaSets) != 1 || c.ReplicaSets[0].Name != "web-7d9f" {
		t.Errorf("replicasets %v", c.ReplicaSets)
	}
	if len(c.Nodes[1].Spec.Taints) != 1 {
		t.Errorf("node-b taints %v", c.Nodes[1].Spec.Taints)
	}
	if p := c.Pods[2]; p.Spec.Priority == nil || *p.Spec.Priority != 2000000000 || p.Spec.NodeName != "node-b" {
		t.Errorf("coredns pod: priority %v node %q", p.Spec.Priority, p.Spec.NodeName)
	}
}

func TestOpenProblems(t *testing.T) {
	export, err := os.ReadFile("testdata/simulator-export.json")
	if err != nil {
		t.Fatal(err)
	}
	badConfig := strings.Replace(string(export), `"disabled": [{"name": "ImageLocality"}]`, `"enabled": [{"name": "NoSuchPlugin"}]`, 1)
	badPod := strings.Replace(string(export), `"cpu": "500m"`, `"cpu": "lots"`, 1)
	for _, tc := range []struct {
		name  string
		files map[string]string // relative path → content ("" path: the dir itself)
		open  string            // relative path to open
		err   string            // Open's error, or
		want  []string          // parts of one problem each
		nodes []string
	}{{
		name:  "empty directory",
		files: map[string]string{"notes.txt": "hello"},
		open:  ".",
		err:   "no snapshot files in the directory",
	}, {
		name: "broken file in a directory",
		files: map[string]string{
			"a.yaml": "apiVersion: v1\nkind: Node\nmetadata:\n  name: ok\n",
			"b.json": `{"apiVersion": "v1", "kind": "Node",`,
		},
		open:  ".",
		want:  []string{"b.json:1: JSON syntax error", "the file is skipped"},
		nodes: []string{"ok"},
	}, {
		name:  "invalid embedded scheduler configuration",
		files: map[string]string{"export.json": badConfig},
		open:  "export.json",
		want:  []string{"export.json:1: schedulerConfig of the kube-scheduler-simulator export", "NoSuchPlugin"},
		nodes: []string{"sim-node-1"},
	}, {
		name:  "bad object in an export, with its line",
		files: map[string]string{"export.json": badPod},
		open:  "export.json",
		want:  []string{"export.json:3: Pod default/pending-1: spec.containers[0].resources.requests.cpu"},
		nodes: []string{"sim-node-1"},
	}, {
		name:  "export keys schedtui does not read",
		files: map[string]string{"export.json": `{"nodes": [], "resourceClaims": []}`},
		open:  "export.json",
		want:  []string{"warning: resourceClaims: key of the kube-scheduler-simulator export is not read"},
	}, {
		name:  "export key that is not an array, and nothing else",
		files: map[string]string{"export.json": `{"nodes": {"name": "x"}}`},
		open:  "export.json",
		err:   "export.json: nothing loaded:\n  export.json:1: nodes: must be an array of Node objects",
	}, {
		name: "two embedded configurations",
		files: map[string]string{
			"a.json": `{"nodes": [], "schedulerConfig": {}}`,
			"b.json": `{"pods": [], "schedulerConfig": {"profiles": [{"schedulerName": "other"}]}}`,
		},
		open: ".",
		want: []string{"b.json:1: warning: another scheduler configuration", "only the first one, at a.json:1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, data := range tc.files {
				writeFile(t, filepath.Join(dir, p), []byte(data))
			}
			t.Chdir(dir)
			o, err := Open(tc.open)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if findProblem(o.Report, tc.want...) == nil {
				t.Errorf("no problem with %q in:\n%s", tc.want, o.Report)
			}
			if got := nodeNames(o.Cluster); !reflect.DeepEqual(got, tc.nodes) {
				t.Errorf("nodes %v, want %v", got, tc.nodes)
			}
		})
	}
}

func TestIsSnapshotFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.yaml": true, "a.YML": true, "a.json": true, "a.json.gz": true, "a.yaml.gz": true,
		"logs.txt": false, "a.gz": false, "README.md": false, "yaml": false,
	} {
		if got := IsSnapshotFileName(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
