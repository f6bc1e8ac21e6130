package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/snapshot"
)

func rootCmd() *cobra.Command { return newRootCommand(nil, nil) }

// Every command that builds a scheduler or records its flags takes
// kube-scheduler's version and gate flags, and refuses bad values with
// kube-scheduler's errors before doing anything.
func TestGateFlagsOnEveryCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.yaml")
	commands := []struct {
		name string
		cmd  func() *cobra.Command
		args []string
	}{
		{"schedtui", rootCmd, []string{"--demo"}},
		{"run", newRunCommand, []string{"--demo"}},
		{"explain", newExplainCommand, []string{"--demo", "default/critical-api"}},
		{"snapshot --at", newSnapshotCommand, []string{"--demo", "--at", "default/critical-api", "-o", out}},
		{"snapshot", newSnapshotCommand, []string{"--snapshot", "../../testdata/demo.yaml", "-o", out}},
		{"record", newRecordCommand, []string{"--kubeconfig", "/nonexistent", "-o", out}},
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--feature-gates", "NoSuchGate=true"}, "--feature-gates: unrecognized feature gate: NoSuchGate"},
		{[]string{"--feature-gates", "DynamicResourceAllocation=false"}, "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"},
		{[]string{"--emulated-version", "1.33"}, "emulation version 1.33 is not between [1.34, 1.37.0]"},
		{[]string{"--emulated-version", "kube=1.35.1"}, "patch version not allowed, got: kube=1.35.1"},
		{[]string{"--emulated-version", "1.35", "--min-compatibility-version", "1.36"}, "minCompatibilityVersion version 1.36 is not between [1.34, 1.35]"},
		{[]string{"--emulated-version", "1.35", "--feature-gates", "DRADerivedAttributes=true"}, "feature is PreAlpha at emulated version 1.35"},
		{[]string{"--feature-gates", "InPlacePodVerticalScalingSchedulerPreemption=true"}, "adds the DeferredPodScheduling plugin and schedules deferred resizes, which schedtui does not implement"},
	}
	for _, c := range commands {
		for _, b := range bad {
			t.Run(c.name+" "+strings.Join(b.args, " "), func(t *testing.T) {
				_, _, err := runCmd(t, c.cmd, append(append([]string{}, c.args...), b.args...)...)
				if err == nil || !strings.Contains(err.Error(), b.want) {
					t.Fatalf("err = %v, want %q", err, b.want)
				}
			})
		}
	}
}

// run and explain say what they simulate; --emulated-version changes it
// and the gates not at their default are listed.
func TestGateFlagsShowInHeaders(t *testing.T) {
	checkCmd(t, newRunCommand, []string{"--demo"}, cmdWant{stdout: []string{"scheduler: kube-scheduler 1.37 (gates: GenericWorkload=true)\n"},
		stderr: []string{"simulating kube-scheduler 1.37 (the demo's)", "the demo's kube-scheduler runs with --feature-gates=GenericWorkload=true"}})
	checkCmd(t, newRunCommand, []string{"--demo", "--emulated-version", "1.35", "--feature-gates", "DRAPrioritizedList=false,APIResponseCompression=false"}, cmdWant{
		stdout: []string{"scheduler: kube-scheduler 1.35 (gates: DRAPrioritizedList=false)\n"},
		stderr: []string{
			"simulating kube-scheduler 1.35 (--emulated-version)\n",
			"feature gate APIResponseCompression is accepted as kube-scheduler accepts it, but it does not change scheduling",
		},
	})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/critical-api", "--emulated-version", "kube=1.36"}, cmdWant{stdout: []string{"Simulating: kube-scheduler 1.36 (gates: GenericWorkload=true)\n"}})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/critical-api", "-o", "json", "--feature-gates", "SchedulerPopFromBackoffQ=false"}, cmdWant{
		stdout: []string{`"simulates": "kube-scheduler 1.37"`, `"featureGates": [` + "\n" + `    "SchedulerPopFromBackoffQ=false"` + "\n  ]"},
	})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/critical-api", "-o", "json"}, cmdWant{stdout: []string{`"featureGates": [` + "\n" + `    "GenericWorkload=true"` + "\n  ]"}})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/critical-api", "-o", "json", "--emulated-version", "1.34"}, cmdWant{stdout: []string{`"featureGates": []`}})
}

// The configuration is defaulted and validated under the gates, as
// kube-scheduler does after setting them.
func TestGateFlagsDefaultAndValidateConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "sched.yaml")
	if err := os.WriteFile(cfg, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: VolumeBinding
    args: {shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	checkCmd(t, newRunCommand, []string{"--demo", "--config", cfg}, cmdWant{stdout: []string{"scheduler: kube-scheduler 1.37"}})
	for _, c := range []struct {
		cmd  func() *cobra.Command
		args []string
	}{
		{newRunCommand, []string{"--demo"}},
		{newSnapshotCommand, []string{"--snapshot", "../../testdata/demo.yaml", "-o", filepath.Join(t.TempDir(), "x.yaml")}},
	} {
		_, stderr, err := runCmd(t, c.cmd, append(c.args, "--config", cfg, "--emulated-version", "1.36")...)
		if err == nil || !strings.Contains(stderr+err.Error(), "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring") {
			t.Errorf("%v: err = %v\n%s", c.args, err, stderr)
		}
	}
}

// A capture records the flags in its header; reading it uses them, and
// the user's flags still win.
func TestGateFlagsRecordedInHeader(t *testing.T) {
	dir := t.TempDir()
	capture := filepath.Join(dir, "c.yaml")
	checkCmd(t, newSnapshotCommand, []string{"--snapshot", "../../testdata/demo.yaml", "-o", capture,
		"--emulated-version", "1.35", "--feature-gates", "SchedulerPopFromBackoffQ=false"}, cmdWant{})
	o, err := snapshot.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	if h := o.Header; h == nil || h.EmulatedVersion != "1.35" || h.FeatureGates != "SchedulerPopFromBackoffQ=false" {
		t.Fatalf("header: %+v", o.Header)
	}
	checkCmd(t, newRunCommand, []string{"--snapshot", capture}, cmdWant{
		stdout: []string{"scheduler: kube-scheduler 1.35 (gates: SchedulerPopFromBackoffQ=false)\n"},
		stderr: []string{"simulating kube-scheduler 1.35 (the flags the capture was made with: --emulated-version=1.35 --feature-gates=SchedulerPopFromBackoffQ=false)"},
	})
	checkCmd(t, newRunCommand, []string{"--snapshot", capture, "--emulated-version", "1.36", "--feature-gates", "SchedulerPopFromBackoffQ=true"}, cmdWant{
		stdout: []string{"scheduler: kube-scheduler 1.36\n"},
	})
	// snapshot --at writes the gates the run used, so that a run over the
	// state reproduces the attempt: the user's --feature-gates replace the
	// recorded ones, the recorded version stays.
	at := filepath.Join(dir, "at.yaml")
	checkCmd(t, newSnapshotCommand, []string{"--snapshot", capture, "--at", "default/critical-api", "-o", at, "--feature-gates", "OpportunisticBatching=false"}, cmdWant{})
	if o, err = snapshot.Open(at); err != nil {
		t.Fatal(err)
	}
	if h := o.Header; h.EmulatedVersion != "1.35" || h.FeatureGates != "OpportunisticBatching=false" {
		t.Fatalf("header of the state at the attempt: %+v", h)
	}
}
