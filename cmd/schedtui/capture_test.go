package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/snapshot"
)

func TestSnapshotCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sched.yaml")
	cfgText := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 70\n"
	if err := os.WriteFile(cfg, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 170\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type check func(t *testing.T, o *snapshot.Opened)
	for _, tc := range []struct {
		name    string
		args    []string
		kubeenv bool
		out     string // the file written, checked with check
		check   check
		stderr  []string
		err     string
	}{{
		name: "live, YAML, with --config", kubeenv: true,
		args:   []string{"-o", "OUT/snap.yaml", "--config", cfg},
		out:    "OUT/snap.yaml",
		stderr: []string{"listed 1 nodes", "wrote 4 objects (1 nodes, 1 pods) to OUT/snap.yaml"},
		check: func(t *testing.T, o *snapshot.Opened) {
			h := o.Header
			if h == nil || h.Context != "fake-ctx" || h.Source != "https://fake" || h.ServerVersion == "" || h.SchedtuiVersion == "" || h.CapturedAt.IsZero() {
				t.Fatalf("header %+v", h)
			}
			if h.SchedulerConfig != cfgText || h.SchedulerConfigFile != cfg {
				t.Errorf("recorded config %q from %q", h.SchedulerConfig, h.SchedulerConfigFile)
			}
			if o.Config == nil || *o.Config.PercentageOfNodesToScore != 70 {
				t.Errorf("the recorded configuration is not the snapshot's: %v", o.Config)
			}
		},
	}, {
		name: "live, gzipped JSON, --context", args: []string{"--context", "prod", "-o", "OUT/snap.json.gz"},
		out:    "OUT/snap.json.gz",
		stderr: []string{"prod: synced 1 nodes, 1 pods"},
		check: func(t *testing.T, o *snapshot.Opened) {
			if o.Header == nil || o.Header.Context != "prod" || o.Header.SchedulerConfig != "" || o.Config != nil {
				t.Errorf("header %+v, config %v", o.Header, o.Config)
			}
		},
	}, {
		name:   "convert a simulator export: its configuration is recorded",
		args:   []string{"--snapshot", "../../snapshot/testdata/simulator-export.json", "-o", "OUT/export.yaml"},
		out:    "OUT/export.yaml",
		stderr: []string{"recording the scheduler configuration of the snapshot", "wrote"},
		check: func(t *testing.T, o *snapshot.Opened) {
			if o.Config == nil || len(o.Config.Profiles[0].Plugins.Score.Disabled) != 1 {
				t.Errorf("config %v", o.Config)
			}
			if len(o.Cluster.Nodes) != 1 || o.Cluster.Nodes[0].Name != "sim-node-1" {
				t.Errorf("nodes %v", o.Cluster.Nodes)
			}
		},
	}, {
		name:   "convert to protobuf",
		args:   []string{"--snapshot", "../../snapshot/testdata/simulator-export.json", "-o", "OUT/export.pb"},
		out:    "OUT/export.pb",
		stderr: []string{"wrote"},
		check: func(t *testing.T, o *snapshot.Opened) {
			if o.Config == nil || len(o.Config.Profiles[0].Plugins.Score.Disabled) != 1 {
				t.Errorf("config %v", o.Config)
			}
			if len(o.Cluster.Nodes) != 1 || o.Cluster.Nodes[0].Name != "sim-node-1" {
				t.Errorf("nodes %v", o.Cluster.Nodes)
			}
		},
	}, {
		name: "no cluster", args: []string{"-o", "OUT/x.yaml"},
		err: "no cluster to capture",
	}, {
		name: "unknown extension", args: []string{"-o", "OUT/x.txt"}, kubeenv: true,
		err: "cannot tell the format from the name",
	}, {
		name: "invalid --config", args: []string{"-o", "OUT/x.yaml", "--config", bad}, kubeenv: true,
		err: "invalid KubeSchedulerConfiguration",
	}, {
		name: "-o is required", args: []string{}, kubeenv: true,
		err: `required flag(s) "output" not set`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fakeCluster(t)
			if tc.kubeenv {
				existingKubeconfig(t)
			}
			out := t.TempDir()
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.Replace(a, "OUT/", out+"/", 1)
			}
			want := cmdWant{errSubstr: tc.err}
			for _, w := range tc.stderr {
				want.stderr = append(want.stderr, strings.Replace(w, "OUT/", out+"/", 1))
			}
			checkCmd(t, newSnapshotCommand, args, want)
			if tc.err != "" {
				return
			}
			o, err := snapshot.Open(strings.Replace(tc.out, "OUT/", out+"/", 1))
			if err != nil {
				t.Fatal(err)
			}
			if o.Report.HasErrors() {
				t.Errorf("the capture loads with errors:\n%s", o.Report)
			}
			tc.check(t, o)
		})
	}
}

// TestSnapshotToStdout: -o - writes YAML with its header comment.
func TestSnapshotToStdout(t *testing.T) {
	stdout, stderr, err := runCmd(t, newSnapshotCommand, "--snapshot", "../../snapshot/testdata/dir", "-o", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.HasPrefix(stdout, "# A schedtui snapshot") || !strings.Contains(stdout, "kind: List") {
		t.Errorf("stdout:\n%.400s", stdout)
	}
	c, r, err := snapshot.Load("stdout.yaml", []byte(stdout))
	if err != nil || r.HasErrors() || len(c.Pods) != 2 {
		t.Fatalf("reload: %v %v pods %d", err, r, len(c.Pods))
	}
}
