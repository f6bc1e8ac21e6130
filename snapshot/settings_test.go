package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSchedulerSettingsFromServerVersion(t *testing.T) {
	for _, tc := range []struct {
		server   string
		kind     SourceKind
		emulated string
		cluster  string
		line     string
	}{
		{"v1.35.2", FromLiveServer, "1.35", "1.35", "simulating kube-scheduler 1.35 (from the server's version)"},
		{"v1.34.0-gke.1200", FromLiveServer, "1.34", "1.34", "simulating kube-scheduler 1.34 (from the server's version)"},
		{"v1.36.3+k3s1", FromLiveServer, "1.36", "1.36", "simulating kube-scheduler 1.36 (from the server's version)"},
		{"v1.37.1", FromSnapshot, "1.37", "1.37", "simulating kube-scheduler 1.37 (from the snapshot's server version)"},
		{"v1.36.0", FromRecording, "1.36", "1.36", "simulating kube-scheduler 1.36 (from the recording's server version)"},
		{"v1.32.4", FromLiveServer, "1.34", "1.32",
			"simulating kube-scheduler 1.34, the oldest it can emulate; the cluster's API server is 1.32 (from the server's version)"},
		{"v1.38.0-alpha.1", FromLiveServer, "1.37", "1.38",
			"simulating kube-scheduler 1.37, the newest it can emulate; the cluster's API server is 1.38, newer (from the server's version)"},
		{"v1.30.1", FromSnapshot, "1.34", "1.30",
			"simulating kube-scheduler 1.34, the oldest it can emulate; the snapshot's API server was 1.30 (from the snapshot's server version)"},
		{"", FromSnapshot, "1.37", "", "simulating kube-scheduler 1.37: the snapshot records no server version"},
		{"", FromRecording, "1.37", "", "simulating kube-scheduler 1.37: the recording records no server version"},
		{"", FromLiveServer, "1.37", "", "simulating kube-scheduler 1.37: the API server did not say its version"},
		{"v0.0.0-master+$Format:%H$", FromLiveServer, "1.37", "",
			`simulating kube-scheduler 1.37: the server's version "v0.0.0-master+$Format:%H$" is not a Kubernetes 1.x release`},
		{"", FromDemo, "1.37", "", "simulating kube-scheduler 1.37 (the demo's)"},
	} {
		s := DetectSchedulerSettings(&Cluster{}, tc.server, tc.kind)
		if s.EmulatedVersion != tc.emulated || s.ClusterVersion != tc.cluster || s.Version != tc.line {
			t.Errorf("%q (%d): got %q, cluster %q, %q\nwant %q, cluster %q, %q", tc.server, tc.kind, s.EmulatedVersion, s.ClusterVersion, s.Version, tc.emulated, tc.cluster, tc.line)
		}
		if s.FeatureGates != "" || s.MinCompatibilityVersion != "" || len(s.Notes) != 0 || !reflect.DeepEqual(s.Lines(), []string{tc.line}) {
			t.Errorf("%q: settings %+v: want no flags and no notes without a scheduler pod", tc.server, s)
		}
	}
}

func schedPod(name string, labels map[string]string, ctr v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, Labels: labels},
		Spec:       v1.PodSpec{NodeName: "cp1", Containers: []v1.Container{ctr}},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
}

var kubeadmLabels = map[string]string{"component": "kube-scheduler", "tier": "control-plane"}

func TestSchedulerPodFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want SchedulerPod
	}{{
		name: "kubeadm: command with --flag=value",
		pod: schedPod("kube-scheduler-cp1", kubeadmLabels, v1.Container{Name: "kube-scheduler", Image: "registry.k8s.io/kube-scheduler:v1.35.2",
			Command: []string{"kube-scheduler", "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf", "--kubeconfig=/etc/kubernetes/scheduler.conf",
				"--leader-elect=true", "--feature-gates=StorageCapacityScoring=true,GenericWorkload=false", "--emulated-version=1.35"}}),
		want: SchedulerPod{Pod: "kube-system/kube-scheduler-cp1", Image: "registry.k8s.io/kube-scheduler:v1.35.2",
			FeatureGates: "StorageCapacityScoring=true,GenericWorkload=false", EmulatedVersion: "1.35"},
	}, {
		name: "args with --flag value, quoted values, repeated --feature-gates, --config",
		pod: schedPod("kube-scheduler-cp2", nil, v1.Container{Name: "scheduler", Image: "my/sched:latest",
			Command: []string{"/usr/local/bin/kube-scheduler"},
			Args: []string{"--feature-gates", `"DRADeviceTaints=false"`, "--min-compatibility-version", "'1.35'", "--v=2",
				"--feature-gates=kube:PodLevelResources=false", "--config", "/etc/kubernetes/sched-config.yaml"}}),
		want: SchedulerPod{Pod: "kube-system/kube-scheduler-cp2", Image: "my/sched:latest",
			FeatureGates: "DRADeviceTaints=false,kube:PodLevelResources=false", MinCompatibilityVersion: "1.35", ConfigFile: "/etc/kubernetes/sched-config.yaml"},
	}, {
		name: "a shell's -c script, with quotes",
		pod: schedPod("scheduler-x", map[string]string{"component": "kube-scheduler"}, v1.Container{Name: "main", Image: "registry.k8s.io/kube-scheduler:v1.36.0",
			Command: []string{"/bin/sh", "-c"},
			Args:    []string{`exec kube-scheduler --feature-gates "A=true,B=false" --emulated-version='kube=1.36' --config=/cfg\ dir/c.yaml && echo done`}}),
		want: SchedulerPod{Pod: "kube-system/scheduler-x", Image: "registry.k8s.io/kube-scheduler:v1.36.0",
			FeatureGates: "A=true,B=false", EmulatedVersion: "kube=1.36", ConfigFile: "/cfg dir/c.yaml"},
	}, {
		name: "a sidecar first: the container that runs kube-scheduler",
		pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler-cp3"},
			Spec: v1.PodSpec{Containers: []v1.Container{
				{Name: "proxy", Image: "envoy", Args: []string{"--feature-gates=NotThis=true"}},
				{Name: "sched", Image: "registry.k8s.io/kube-scheduler:v1.34.1", Command: []string{"kube-scheduler", "--feature-gates=This=true"}},
			}}},
		want: SchedulerPod{Pod: "kube-system/kube-scheduler-cp3", Image: "registry.k8s.io/kube-scheduler:v1.34.1", FeatureGates: "This=true"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := FindSchedulerPods(&Cluster{Pods: []*v1.Pod{tc.pod}})
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSchedulerPodsFound(t *testing.T) {
	ctr := v1.Container{Name: "kube-scheduler", Command: []string{"kube-scheduler"}}
	deleted := schedPod("kube-scheduler-gone", kubeadmLabels, ctr)
	deleted.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	failed := schedPod("kube-scheduler-failed", kubeadmLabels, ctr)
	failed.Status.Phase = v1.PodFailed
	other := schedPod("kube-scheduler-elsewhere", kubeadmLabels, ctr)
	other.Namespace = "default"
	c := &Cluster{Pods: []*v1.Pod{
		schedPod("kube-scheduler-b", nil, ctr), schedPod("sched-by-label", kubeadmLabels, ctr),
		schedPod("kube-controller-manager-cp1", map[string]string{"component": "kube-controller-manager"}, ctr),
		deleted, failed, other, schedPod("kube-scheduler-a", nil, ctr),
	}}
	var got []string
	for _, p := range FindSchedulerPods(c) {
		got = append(got, p.Pod)
	}
	want := []string{"kube-system/kube-scheduler-a", "kube-system/kube-scheduler-b", "kube-system/sched-by-label"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}

func TestSchedulerSettingsFromPod(t *testing.T) {
	pod := func(name, image string, args ...string) *v1.Pod {
		return schedPod(name, kubeadmLabels, v1.Container{Name: "kube-scheduler", Image: image, Command: append([]string{"kube-scheduler"}, args...)})
	}
	t.Run("flags used, --emulated-version wins over the server's", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{pod("kube-scheduler-cp1", "registry.k8s.io/kube-scheduler:v1.36.1",
			"--feature-gates=StorageCapacityScoring=true", "--emulated-version=kube=1.35", "--min-compatibility-version=kube=1.34", "--config=/etc/kubernetes/kube-scheduler.yaml")}}
		s := DetectSchedulerSettings(c, "v1.36.1", FromLiveServer)
		want := []string{
			"simulating kube-scheduler 1.35 (from the --emulated-version of pod kube-system/kube-scheduler-cp1)",
			"using the cluster's kube-scheduler flags: --feature-gates=StorageCapacityScoring=true --emulated-version=kube=1.35 --min-compatibility-version=kube=1.34 (from pod kube-system/kube-scheduler-cp1)",
			"the cluster's kube-scheduler (pod kube-system/kube-scheduler-cp1) runs with --config=/etc/kubernetes/kube-scheduler.yaml, a file on its node that schedtui cannot read: " +
				"pass that KubeSchedulerConfiguration with --config, or schedtui uses the default configuration",
		}
		if !reflect.DeepEqual(s.Lines(), want) {
			t.Errorf("lines\n%s\nwant\n%s", strings.Join(s.Lines(), "\n"), strings.Join(want, "\n"))
		}
		s.ConfigUsed = "--config mine.yaml"
		if got, want := s.Lines()[2], "the cluster's kube-scheduler (pod kube-system/kube-scheduler-cp1) runs with --config=/etc/kubernetes/kube-scheduler.yaml, "+
			"a file on its node that schedtui cannot read: schedtui uses --config mine.yaml and cannot check that they are the same"; got != want {
			t.Errorf("with a configuration given:\n%s\nwant\n%s", got, want)
		}
		if s.EmulatedVersion != "1.35" || s.MinCompatibilityVersion != "1.34" || s.FeatureGates != "StorageCapacityScoring=true" ||
			s.SchedulerPod != "kube-system/kube-scheduler-cp1" || s.ConfigFile != "/etc/kubernetes/kube-scheduler.yaml" {
			t.Errorf("settings %+v", s)
		}
	})
	t.Run("the image says the scheduler lags the server", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{pod("kube-scheduler-cp1", "registry.k8s.io/kube-scheduler:v1.35.4")}}
		s := DetectSchedulerSettings(c, "v1.36.0", FromSnapshot)
		if s.EmulatedVersion != "1.35" || s.Version != "simulating kube-scheduler 1.35 (from the image of pod kube-system/kube-scheduler-cp1, registry.k8s.io/kube-scheduler:v1.35.4)" {
			t.Errorf("settings %+v", s)
		}
		if len(s.Lines()) != 1 {
			t.Errorf("lines %q: a pod without version or gate flags adds none", s.Lines())
		}
	})
	t.Run("the image agrees with the server: the server's version says it", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{pod("kube-scheduler-cp1", "registry.k8s.io/kube-scheduler:v1.36.2")}}
		if s := DetectSchedulerSettings(c, "v1.36.0", FromLiveServer); s.Version != "simulating kube-scheduler 1.36 (from the server's version)" {
			t.Errorf("version line %q", s.Version)
		}
	})
	t.Run("an image tag that is no version, an --emulated-version that is none", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{pod("kube-scheduler-cp1", "my/scheduler:latest", "--emulated-version=1")}}
		s := DetectSchedulerSettings(c, "v1.35.0", FromLiveServer)
		if s.EmulatedVersion != "1.35" || s.Version != "simulating kube-scheduler 1.35 (from the server's version)" {
			t.Errorf("settings %+v", s)
		}
		if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], `the --emulated-version of pod kube-system/kube-scheduler-cp1 is "1", not a Kubernetes 1.x version: ignored`) {
			t.Errorf("notes %q", s.Notes)
		}
	})
	t.Run("an --emulated-version below the range", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{pod("kube-scheduler-cp1", "", "--emulated-version=1.33")}}
		s := DetectSchedulerSettings(c, "v1.36.0", FromLiveServer)
		want := "simulating kube-scheduler 1.34, the oldest it can emulate; the cluster's kube-scheduler emulates 1.33 (from the --emulated-version of pod kube-system/kube-scheduler-cp1)"
		if s.EmulatedVersion != "1.34" || s.Version != want {
			t.Errorf("settings %+v", s)
		}
	})
	t.Run("control-plane pods that disagree", func(t *testing.T) {
		c := &Cluster{Pods: []*v1.Pod{
			pod("kube-scheduler-cp2", "registry.k8s.io/kube-scheduler:v1.36.0", "--feature-gates=A=false"),
			pod("kube-scheduler-cp1", "registry.k8s.io/kube-scheduler:v1.36.0", "--feature-gates=A=true"),
			pod("kube-scheduler-cp3", "registry.k8s.io/kube-scheduler:v1.36.0", "--feature-gates=A=true"),
		}}
		s := DetectSchedulerSettings(c, "v1.36.0", FromLiveServer)
		if s.FeatureGates != "A=true" || len(s.Notes) != 1 ||
			s.Notes[0] != "warning: pod kube-system/kube-scheduler-cp2 runs kube-scheduler with other flags or image than pod kube-system/kube-scheduler-cp1 "+
				"(--feature-gates=A=false, registry.k8s.io/kube-scheduler:v1.36.0): schedtui follows kube-system/kube-scheduler-cp1" {
			t.Errorf("settings %+v", s)
		}
	})
}

func TestShellWords(t *testing.T) {
	got := shellWords(`a "b c" 'd "e"' f\ g "h\"i" ; rm -rf /`)
	want := []string{"a", "b c", `d "e"`, "f g", `h"i`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSchedulerSettingsRoundTrip: the server version a capture's header
// records is the default when the file is opened again, in YAML and JSON,
// for a snapshot and a recording; the kube-scheduler pod it holds comes
// back with it.
func TestSchedulerSettingsRoundTrip(t *testing.T) {
	c, r, err := Load("initial.yaml", []byte(recInitial))
	if err != nil || r.HasErrors() {
		t.Fatalf("%v %s", err, r)
	}
	c.Pods = append(c.Pods, schedPod("kube-scheduler-cp1", kubeadmLabels, v1.Container{Name: "kube-scheduler", Image: "registry.k8s.io/kube-scheduler:v1.35.0",
		Command: []string{"kube-scheduler", "--feature-gates=StorageCapacityScoring=true"}}))
	dir := t.TempDir()
	for _, name := range []string{"snap.yaml", "snap.json.gz", "rec.yaml", "rec.json"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			h := Header{CapturedAt: recStart, ServerVersion: "v1.35.3", SchedtuiVersion: "test"}
			wantFrom := "the snapshot's server version"
			if strings.HasPrefix(name, "rec") {
				h.RecordingStarted, wantFrom = recStart, "the recording's server version"
				rw, err := CreateRecording(p, c, h)
				if err != nil {
					t.Fatal(err)
				}
				if err := rw.Close(recStart.Add(time.Minute)); err != nil {
					t.Fatal(err)
				}
			} else if _, err := WriteFile(p, c, h); err != nil {
				t.Fatal(err)
			}
			o, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if o.Header == nil || o.Header.ServerVersion != "v1.35.3" {
				t.Fatalf("header %+v", o.Header)
			}
			s := o.SchedulerSettings()
			want := []string{"simulating kube-scheduler 1.35 (from " + wantFrom + ")",
				"using the cluster's kube-scheduler flags: --feature-gates=StorageCapacityScoring=true (from pod kube-system/kube-scheduler-cp1)"}
			if s.EmulatedVersion != "1.35" || s.FeatureGates != "StorageCapacityScoring=true" || !reflect.DeepEqual(s.Lines(), want) {
				t.Errorf("settings %+v", s)
			}
		})
	}
}

// TestSchedulerSettingsOldSnapshots: files written before the server
// version was recorded, and files that are no capture at all, still load
// and default to the newest version, said once.
func TestSchedulerSettingsOldSnapshots(t *testing.T) {
	dir := t.TempDir()
	old := "# A schedtui snapshot (read it with schedtui --snapshot FILE).\n# captured-at: \"2026-01-01T00:00:00Z\"\n# context: prod\n# schedtui-snapshot: v1\n" + recInitial
	files := map[string]string{"old-header.yaml": old, "plain.yaml": recInitial}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		o, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if o.Report.HasErrors() || len(o.Cluster.Nodes) == 0 {
			t.Fatalf("%s: %s, %d nodes", name, o.Report, len(o.Cluster.Nodes))
		}
		if (name == "old-header.yaml") != (o.Header != nil) {
			t.Errorf("%s: header %+v", name, o.Header)
		}
		s := o.SchedulerSettings()
		if s.EmulatedVersion != "1.37" || !reflect.DeepEqual(s.Lines(), []string{"simulating kube-scheduler 1.37: the snapshot records no server version"}) {
			t.Errorf("%s: settings %+v", name, s)
		}
	}
}
