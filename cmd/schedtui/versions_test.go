package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiversion "k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
	"github.com/schedtui/schedtui/tui"
)

// clusterDefaults are the settings of a 1.36 cluster whose kube-scheduler
// pod runs with gates, a minimum compatibility version and a --config.
func clusterDefaults(t *testing.T) snapshot.SchedulerSettings {
	t.Helper()
	c := &snapshot.Cluster{Pods: []*v1.Pod{schedulerPod("--feature-gates=GenericWorkload=true", "--min-compatibility-version=1.35", "--config=/etc/kubernetes/sched.yaml")}}
	return snapshot.DetectSchedulerSettings(c, "v1.36.2", snapshot.FromLiveServer)
}

func schedulerPod(args ...string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler-cp1", UID: "u-sched", ResourceVersion: "1",
			Labels: map[string]string{"component": "kube-scheduler", "tier": "control-plane"}},
		Spec: v1.PodSpec{NodeName: "live-node", Containers: []v1.Container{{Name: "kube-scheduler", Image: "registry.k8s.io/kube-scheduler:v1.36.2",
			Command:   append([]string{"kube-scheduler", "--kubeconfig=/etc/kubernetes/scheduler.conf"}, args...),
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
}

func TestMergeSchedulerFlags(t *testing.T) {
	const (
		pod    = "kube-system/kube-scheduler-cp1"
		config = "the cluster's kube-scheduler (pod " + pod + ") runs with --config=/etc/kubernetes/sched.yaml, a file on its node that schedtui cannot read: "
	)
	for _, tc := range []struct {
		name                  string
		user                  schedulerVersionFlags
		configUsed            string
		emulated, minC, gates string
		lines                 []string
	}{{
		name: "no flags: the cluster's", emulated: "1.36", minC: "1.35", gates: "GenericWorkload=true",
		lines: []string{"simulating kube-scheduler 1.36 (from the server's version)",
			"using the cluster's kube-scheduler flags: --feature-gates=GenericWorkload=true --min-compatibility-version=1.35 (from pod " + pod + ")",
			config + "pass that KubeSchedulerConfiguration with --config, or schedtui uses the default configuration"},
	}, {
		name: "the user's gates differ", user: schedulerVersionFlags{featureGates: "GenericWorkload=false"}, configUsed: "--config mine.yaml",
		emulated: "1.36", minC: "1.35", gates: "GenericWorkload=false",
		lines: []string{"simulating kube-scheduler 1.36 (from the server's version)",
			"using the cluster's kube-scheduler flags: --min-compatibility-version=1.35 (from pod " + pod + ")",
			config + "schedtui uses --config mine.yaml and cannot check that they are the same",
			"your --feature-gates=GenericWorkload=false replaces the cluster's kube-scheduler's --feature-gates=GenericWorkload=true (pod " + pod + ")"},
	}, {
		name: "the user's gates are the cluster's", user: schedulerVersionFlags{featureGates: "GenericWorkload=true", minCompatibilityVersion: "1.35"},
		emulated: "1.36", minC: "1.35", gates: "GenericWorkload=true",
		lines: []string{"simulating kube-scheduler 1.36 (from the server's version)",
			config + "pass that KubeSchedulerConfiguration with --config, or schedtui uses the default configuration"},
	}, {
		name: "the user's version: the cluster's minimum compatibility version goes", user: schedulerVersionFlags{emulatedVersion: "kube=1.34"},
		emulated: "kube=1.34", minC: "", gates: "GenericWorkload=true",
		lines: []string{"simulating kube-scheduler 1.34 (--emulated-version); the cluster's is 1.36 (from the server's version)",
			"using the cluster's kube-scheduler flags: --feature-gates=GenericWorkload=true (from pod " + pod + ")",
			config + "pass that KubeSchedulerConfiguration with --config, or schedtui uses the default configuration",
			"the cluster's kube-scheduler's --min-compatibility-version=1.35 (pod " + pod + ") is left out: kube-scheduler derives it from your --emulated-version"},
	}, {
		name: "the user's version is the cluster's", user: schedulerVersionFlags{emulatedVersion: "1.36", minCompatibilityVersion: "1.34", featureGates: "A=true"},
		configUsed: "--config mine.yaml", emulated: "1.36", minC: "1.34", gates: "A=true",
		lines: []string{"simulating kube-scheduler 1.36 (--emulated-version)",
			config + "schedtui uses --config mine.yaml and cannot check that they are the same",
			"your --feature-gates=A=true replaces the cluster's kube-scheduler's --feature-gates=GenericWorkload=true (pod " + pod + ")",
			"your --min-compatibility-version=1.34 replaces the cluster's kube-scheduler's --min-compatibility-version=1.35 (pod " + pod + ")"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := clusterDefaults(t)
			before := d.Lines()
			s := mergeSchedulerFlags(d, tc.user, tc.configUsed)
			if s.EmulatedVersion != tc.emulated || s.MinCompatibilityVersion != tc.minC || s.FeatureGates != tc.gates {
				t.Errorf("settings %q %q %q, want %q %q %q", s.EmulatedVersion, s.MinCompatibilityVersion, s.FeatureGates, tc.emulated, tc.minC, tc.gates)
			}
			if got := s.Lines(); !reflect.DeepEqual(got, tc.lines) {
				t.Errorf("lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.lines, "\n"))
			}
			if !reflect.DeepEqual(d.Lines(), before) {
				t.Error("merging changed the defaults")
			}
		})
	}
}

// TestVersionMessages: each command that schedules says once, on stderr,
// which kube-scheduler it simulates and why: from a live server's
// version (in range or not), a snapshot's or a recording's header, the
// cluster's kube-scheduler pod.
func TestVersionMessages(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.json")
	c, _, err := snapshot.Load("demo", []byte(`{"apiVersion":"v1","kind":"List","items":[
		{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2","pods":"10"}}},
		{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x"}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(snap, c, snapshot.Header{CapturedAt: time.Unix(0, 0).UTC(), ServerVersion: "v1.34.5"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		server string // "": no live cluster
		pod    *v1.Pod
		args   []string
		want   []string
	}{
		{name: "live, in range", server: "v1.35.1", want: []string{"simulating kube-scheduler 1.35 (from the server's version)"}},
		{name: "live, older", server: "v1.32.9", want: []string{"simulating kube-scheduler 1.34, the oldest it can emulate; the cluster's API server is 1.32"}},
		{name: "live, newer", server: "v1.38.0", want: []string{"simulating kube-scheduler 1.37, the newest it can emulate; the cluster's API server is 1.38, newer"}},
		{name: "live, with the cluster's kube-scheduler", server: "v1.36.2", pod: schedulerPod("--feature-gates", "'SchedulerPopFromBackoffQ=false'", "--config", "/etc/k/s.yaml"),
			want: []string{"simulating kube-scheduler 1.36 (from the server's version)",
				"using the cluster's kube-scheduler flags: --feature-gates=SchedulerPopFromBackoffQ=false (from pod kube-system/kube-scheduler-cp1)",
				"runs with --config=/etc/k/s.yaml, a file on its node that schedtui cannot read: pass that KubeSchedulerConfiguration with --config"}},
		{name: "a snapshot", args: []string{"--snapshot", snap}, want: []string{"simulating kube-scheduler 1.34 (from the snapshot's server version)"}},
		{name: "a recording without a server version", args: []string{"--snapshot", stuckPodRecording},
			want: []string{"simulating kube-scheduler 1.37: the recording records no server version"}},
		{name: "the demo", args: []string{"--demo"}, want: []string{"simulating kube-scheduler 1.37 (the demo's)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.server != "" {
				fc := fakeCluster(t)
				existingKubeconfig(t)
				setServerVersion(fc, tc.server)
				if tc.pod != nil {
					addObject(t, fc, tc.pod)
				}
			}
			for _, cmd := range []struct {
				name string
				args []string
			}{{"run", tc.args}, {"explain", append([]string{"-A"}, tc.args...)}} {
				newCmd := newRunCommand
				if cmd.name == "explain" {
					newCmd = newExplainCommand
				}
				_, errOut, err := runCmd(t, newCmd, cmd.args...)
				if err != nil {
					t.Fatalf("%s: %v\n%s", cmd.name, err, errOut)
				}
				for _, w := range tc.want {
					if !strings.Contains(errOut, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", cmd.name, w, errOut)
					}
				}
				if n := strings.Count(errOut, "simulating kube-scheduler"); n != 1 {
					t.Errorf("%s: the version is said %d times:\n%s", cmd.name, n, errOut)
				}
			}
		})
	}
}

// setServerVersion makes the fake API server answer /version with
// gitVersion.
func setServerVersion(c *fake.Clientset, gitVersion string) {
	c.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &apiversion.Info{GitVersion: gitVersion}
}

func addObject(t *testing.T, c *fake.Clientset, p *v1.Pod) {
	t.Helper()
	if err := c.Tracker().Add(p); err != nil {
		t.Fatal(err)
	}
}

// TestTUIStatusSaysVersion: the debugger's status line opens with the
// version simulated, live and on a snapshot.
func TestTUIStatusSaysVersion(t *testing.T) {
	var notice string
	old := runTUI
	runTUI = func(o tui.Options, _ io.Reader, _ io.Writer) error { notice = o.Notice; return nil }
	t.Cleanup(func() { runTUI = old })

	fc := fakeCluster(t)
	existingKubeconfig(t)
	setServerVersion(fc, "v1.35.0")
	var errOut bytes.Buffer
	if err := openTUI(context.Background(), &sourceFlags{seed: 1}, strings.NewReader(""), io.Discard, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "simulating kube-scheduler 1.35 (from the server's version) · shadow mode: the cluster's scheduler decides"; !strings.HasPrefix(notice, want) {
		t.Errorf("live status line %q, want it to start with %q", notice, want)
	}
	if err := openTUI(context.Background(), &sourceFlags{seed: 1, snapshot: stuckPodRecording}, strings.NewReader(""), io.Discard, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "simulating kube-scheduler 1.37: the recording records no server version · "; !strings.HasPrefix(notice, want) {
		t.Errorf("recording's status line %q, want it to start with %q", notice, want)
	}
}

// TestSnapshotAtKeepsServerVersion: a state written by snapshot --at from
// a snapshot keeps the server version its header recorded, so that a run
// over it simulates the same kube-scheduler.
func TestSnapshotAtKeepsServerVersion(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "at.yaml")
	c, _, err := snapshot.Load("in", testdata.Demo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(in, c, snapshot.Header{CapturedAt: time.Unix(0, 0).UTC(), ServerVersion: "v1.36.1"}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCmd(t, newSnapshotCommand, "--snapshot", in, "--at", "default/critical-api#1", "-o", out); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	o, err := snapshot.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Header == nil || o.Header.ServerVersion != "v1.36.1" || o.SchedulerSettings().Version != "simulating kube-scheduler 1.36 (from the snapshot's server version)" {
		t.Errorf("header %+v, settings %+v", o.Header, o.SchedulerSettings())
	}
}

// TestSessionGates: the settings resolve to the gates the scheduler is
// built with, as kube-scheduler resolves its flags; flags of the cluster's
// kube-scheduler that it would refuse are refused, naming the pod.
func TestSessionGates(t *testing.T) {
	for _, tc := range []struct {
		name, server string
		pod          *v1.Pod
		emulated     string
		check        func(features.Features) bool
		err          string
	}{
		{name: "1.34 from the server", server: "v1.34.2", emulated: "1.34",
			check: func(f features.Features) bool {
				return !f.EnableStorageCapacityScoring && !f.EnableNodeDeclaredFeatures
			}},
		{name: "1.37 from the server", server: "v1.37.0", emulated: "1.37",
			check: func(f features.Features) bool { return f.EnableStorageCapacityScoring && f.EnableNodeDeclaredFeatures }},
		{name: "the cluster's gates", server: "v1.36.0", pod: schedulerPod("--feature-gates=StorageCapacityScoring=true"), emulated: "1.36",
			check: func(f features.Features) bool { return f.EnableStorageCapacityScoring && !f.EnableVolumeLimitScaling }},
		{name: "the cluster's gates, refused as kube-scheduler refuses them", server: "v1.37.0", pod: schedulerPod("--feature-gates=PodLevelResources=false"),
			err: "the cluster's kube-scheduler flags (pod kube-system/kube-scheduler-cp1) cannot be simulated: " +
				"InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: [PodLevelResources]; give --emulated-version"},
		{name: "a gate kube-scheduler 1.37 does not know", server: "v1.36.0", pod: schedulerPod("--feature-gates=NoSuchGate=true"),
			err: "the cluster's kube-scheduler flags (pod kube-system/kube-scheduler-cp1) cannot be simulated: " +
				"unrecognized feature gate: NoSuchGate; give --emulated-version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeCluster(t)
			existingKubeconfig(t)
			setServerVersion(fc, tc.server)
			if tc.pod != nil {
				addObject(t, fc, tc.pod)
			}
			s, err := load(context.Background(), &sourceFlags{seed: 1}, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.gates.EmulatedVersion != tc.emulated || !tc.check(s.gates.Features) {
				t.Errorf("resolved %s: %+v", s.gates.EmulatedVersion, s.gates.Features)
			}
		})
	}
}

// TestEmulatedRangeAgrees pins the range of versions the defaults pick
// from (snapshot) to the one kube-scheduler's flag resolution accepts
// (scheduler/features): a default is never refused.
func TestEmulatedRangeAgrees(t *testing.T) {
	for minor := snapshot.OldestEmulatedMinor - 1; minor <= snapshot.NewestEmulatedMinor+1; minor++ {
		v := fmt.Sprintf("1.%d", minor)
		_, err := features.Resolve(v, "", "")
		inRange := minor >= snapshot.OldestEmulatedMinor && minor <= snapshot.NewestEmulatedMinor
		if inRange != (err == nil) {
			t.Errorf("--emulated-version=%s: in snapshot's range %t, resolves with %v", v, inRange, err)
		}
	}
}
