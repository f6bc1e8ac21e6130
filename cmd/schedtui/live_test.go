package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/snapshot/live"
)

// TestMain keeps the tests off any real cluster: no kubeconfig, not in a
// cluster, so the default source is the demo.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedtui-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("KUBECONFIG", filepath.Join(dir, "no-kubeconfig"))
	os.Unsetenv("KUBERNETES_SERVICE_HOST")
	os.Unsetenv("KUBERNETES_SERVICE_PORT")
	code := m.Run()
	os.RemoveAll(dir)
	if tuiBin != "" {
		os.RemoveAll(filepath.Dir(tuiBin))
	}
	os.Exit(code)
}

// existingKubeconfig points $KUBECONFIG at a file, so that a live cluster
// is "available".
func existingKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: fake-ctx\n  context:\n    cluster: c\n    user: u\ncurrent-context: fake-ctx\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", p)
	return p
}

func TestSourceKind(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flags     sourceFlags
		available bool
		want      sourceKind
		err       string
	}{
		{"nothing, no kubeconfig: none (the debugger alone opens the demo)", sourceFlags{}, false, sourceNone, ""},
		{"nothing, a kubeconfig: live", sourceFlags{}, true, sourceLive, ""},
		{"--demo with a kubeconfig", sourceFlags{demo: true}, true, sourceDemo, ""},
		{"--snapshot with a kubeconfig", sourceFlags{snapshot: "x.yaml"}, true, sourceSnapshot, ""},
		{"--kubeconfig", sourceFlags{kubeconfig: "k"}, false, sourceLive, ""},
		{"--context", sourceFlags{context: "c"}, false, sourceLive, ""},
		{"--bind with a kubeconfig: live", sourceFlags{bind: true}, true, sourceLive, ""},
		{"--bind without one", sourceFlags{bind: true}, false, 0, "--bind needs a live cluster"},
		{"--bind on a snapshot", sourceFlags{bind: true, snapshot: "x.yaml"}, false, 0, "cannot be combined with --snapshot or --demo"},
		{"--bind on the demo", sourceFlags{bind: true, demo: true}, true, 0, "cannot be combined with --snapshot or --demo"},
		{"--snapshot and --context", sourceFlags{snapshot: "x.yaml", context: "c"}, false, 0, "give one or the other"},
		{"--demo and --kubeconfig", sourceFlags{demo: true, kubeconfig: "k"}, false, 0, "--demo cannot be combined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.available {
				existingKubeconfig(t)
			}
			got, err := tc.flags.sourceKind()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("mode %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

func fakeCluster(t *testing.T) *fake.Clientset {
	t.Helper()
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("4Gi"), v1.ResourcePods: resource.MustParse("110")}
	prio := int32(0)
	c := fake.NewClientset(
		&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "live-node", UID: "u-node", ResourceVersion: "1"}, Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}},
		&v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "live-pod", UID: "u-pod", ResourceVersion: "1",
				CreationTimestamp: metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &prio,
				Containers: []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}},
			Status: v1.PodStatus{Phase: v1.PodPending},
		},
	)
	old := connectLive
	connectLive = func(o live.Options) (*live.Cluster, error) {
		name := o.Context
		if name == "" {
			name = "fake-ctx"
		}
		if name == "unreachable" {
			return nil, errors.New(`context "unreachable" does not exist`)
		}
		return &live.Cluster{Name: name, Host: "https://fake", Client: c}, nil
	}
	t.Cleanup(func() { connectLive = old })
	return c
}

func TestLiveCommands(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cmd       func() *cobra.Command
		args      []string
		kubeenv   bool // $KUBECONFIG names an existing file
		stdout    []string
		stderr    []string
		errSubstr string
	}{{
		name: "run with $KUBECONFIG reads the live cluster", cmd: newRunCommand, kubeenv: true,
		stdout: []string{"default/live-pod", "Scheduled", "live-node"},
		stderr: []string{"fake-ctx: reading https://fake (read-only)", "listed 1 nodes", "fake-ctx: synced 1 nodes, 1 pods"},
	}, {
		name: "explain with --context", cmd: newExplainCommand, args: []string{"--context", "other", "default/live-pod"},
		stdout: []string{"Pod:        default/live-pod", "Node:       live-node"},
		stderr: []string{"other: synced 1 nodes"},
	}, {
		name: "run without a kubeconfig fails, as the debugger as a plugin does", cmd: newRunCommand,
		errSubstr: "no cluster to read: no $KUBECONFIG, ~/.kube/config or in-cluster service account (give --kubeconfig, --snapshot PATH, or --demo",
	}, {
		name: "explain without a kubeconfig fails", cmd: newExplainCommand, args: []string{"default/web-3"},
		errSubstr: "no cluster to read",
	}, {
		name: "compare without a kubeconfig fails", cmd: newCompareCommand,
		errSubstr: "no cluster to read",
	}, {
		name: "--demo with $KUBECONFIG", cmd: newRunCommand, args: []string{"--demo"}, kubeenv: true,
		stdout: []string{"source: the embedded demo (--demo): made-up nodes and pods, not a cluster's\nscheduler: ", "default/critical-api"},
	}, {
		name: "explain --demo says so", cmd: newExplainCommand, args: []string{"--demo", "default/web-3"},
		stdout: []string{"Source:     the embedded demo (--demo): made-up nodes and pods, not a cluster's\nPod:        default/web-3"},
	}, {
		name: "run --demo -o json says so in its first line", cmd: newRunCommand, args: []string{"--demo", "-o", "json"},
		stdout: []string{`{"kind":"source","demo":true,"source":"the embedded demo (--demo): made-up nodes and pods, not a cluster's"}` + "\n" + `{"kind":"queue"`},
	}, {
		name: "explain --demo -o json says so", cmd: newExplainCommand, args: []string{"--demo", "default/web-3", "-o", "json"},
		stdout: []string{"{\n  \"source\": \"the embedded demo (--demo): made-up nodes and pods, not a cluster's\",\n  \"pod\": \"default/web-3\""},
	}, {
		name: "explain --demo -o yaml says so", cmd: newExplainCommand, args: []string{"--demo", "-n", "default", "-o", "yaml"},
		stdout: []string{"  source: 'the embedded demo (--demo): made-up nodes and pods, not a cluster''s'"},
	}, {
		name: "compare --demo -o json says so", cmd: newCompareCommand, args: []string{"--demo", "--right", "demo-packing", "--until", "1m", "-o", "json"},
		stdout: []string{`{"source":"the embedded demo (--demo): made-up nodes and pods, not a cluster's","left":`},
	}, {
		name: "explain --demo of a DaemonSet says so", cmd: newExplainCommand, args: []string{"--demo", "daemonset/log-agent"},
		stdout: []string{"Source:     the embedded demo (--demo)"},
	}, {
		name: "compare --demo says so", cmd: newCompareCommand, args: []string{"--demo", "--right", "demo-packing"},
		stdout: []string{"source: the embedded demo (--demo): made-up nodes and pods, not a cluster's\nleft:  "},
	}, {
		name: "--bind binds in the live cluster", cmd: newRunCommand, args: []string{"--bind"}, kubeenv: true,
		stdout: []string{"default/live-pod", "Scheduled", "live-node"},
		stderr: []string{"reading https://fake (read-only except pod bindings: --bind)", "--bind: schedtui binds the pods whose schedulerName is default-scheduler"},
	}, {
		name: "--bind with --snapshot", cmd: newRunCommand, args: []string{"--bind", "--snapshot", "x.yaml"},
		errSubstr: "--bind binds pods in a live cluster: it cannot be combined with --snapshot or --demo",
	}, {
		name: "--bind without a cluster", cmd: newRunCommand, args: []string{"--bind"},
		errSubstr: "--bind needs a live cluster",
	}, {
		name: "explain never binds", cmd: newExplainCommand, args: []string{"--bind", "default/live-pod"}, kubeenv: true,
		errSubstr: "unknown flag: --bind",
	}, {
		name: "a kubeconfig that does not work", cmd: newRunCommand, args: []string{"--context", "unreachable"},
		errSubstr: `reading the live cluster: context "unreachable" does not exist (use --snapshot PATH or --demo`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fakeCluster(t)
			if tc.kubeenv {
				existingKubeconfig(t)
			}
			checkCmd(t, tc.cmd, tc.args, cmdWant{stdout: tc.stdout, stderr: tc.stderr, errSubstr: tc.errSubstr})
		})
	}
}

func TestTUISourceNeverBlocks(t *testing.T) {
	s := newTUISource("ctx")
	for i := 0; i < 1000; i++ {
		s.send(live.Status{Connected: true, Message: "event", Synced: i})
	}
	s.send(live.Status{Message: "gone", Warning: true})
	var last string
	n := 0
	for len(s.ch) > 0 {
		st := <-s.ch
		last = st.LastEvent
		n++
	}
	if last != "warning: gone" || n != cap(s.ch) {
		t.Errorf("last %q after %d statuses, want the newest one last and a full buffer", last, n)
	}
	s.close()
	s.send(live.Status{Message: "after close"}) // must not panic
	if _, ok := <-s.Updates(); ok {
		t.Error("Updates is not closed")
	}
	if s.Name() != "ctx" {
		t.Errorf("name %q", s.Name())
	}
}
