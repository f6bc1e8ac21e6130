package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestSnapshotLayouts runs run and explain on every snapshot layout
// --snapshot detects.
func TestSnapshotLayouts(t *testing.T) {
	const fixtures = "../../snapshot/testdata/"
	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		cmd           func() *cobra.Command
		args          []string
		stdout        []string
		stderr        []string
		notStderr     []string
		errorContains string
	}{{
		name:   "cluster-info dump",
		cmd:    newRunCommand,
		args:   []string{"--snapshot", fixtures + "cluster-info-dump"},
		stdout: []string{"default/web-2", "Unschedulable", "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint"},
	}, {
		name:      "simulator export with its scheduler configuration",
		cmd:       newRunCommand,
		args:      []string{"--snapshot", fixtures + "simulator-export.json"},
		stdout:    []string{"default/pending-1", "Scheduled", "sim-node-1"},
		stderr:    []string{"note: using the scheduler configuration of the snapshot (" + fixtures + "simulator-export.json:1 (schedulerConfig"},
		notStderr: []string{"replaces"},
	}, {
		name:   "--config replaces the embedded configuration",
		cmd:    newRunCommand,
		args:   []string{"--snapshot", fixtures + "simulator-export.json", "--config", cfg},
		stdout: []string{"Scheduled"},
		stderr: []string{"note: --config " + cfg + " replaces the scheduler configuration of the snapshot"},
	}, {
		name:   "directory",
		cmd:    newExplainCommand,
		args:   []string{"--snapshot", fixtures + "dir", "default/p1"},
		stdout: []string{"Pod:        default/p1", "Priority:   1000", "Outcome:    Scheduled"},
	}, {
		name:          "missing path",
		cmd:           newRunCommand,
		args:          []string{"--snapshot", fixtures + "no-such-dir"},
		errorContains: "no-such-dir: cannot read file",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := tc.cmd()
			var out, errOut bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if tc.errorContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorContains) {
					t.Fatalf("err = %v, want %q", err, tc.errorContains)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			for _, bad := range tc.notStderr {
				if strings.Contains(errOut.String(), bad) {
					t.Errorf("stderr has %q:\n%s", bad, errOut.String())
				}
			}
		})
	}
}
