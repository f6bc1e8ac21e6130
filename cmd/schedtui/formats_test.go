package main

import (
	"os"
	"path/filepath"
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
			checkCmd(t, tc.cmd, tc.args, cmdWant{stdout: tc.stdout, stderr: tc.stderr, notStderr: tc.notStderr, errSubstr: tc.errorContains})
		})
	}
}
