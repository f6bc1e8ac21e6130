package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunComparisonTolerationsFollowGate: a pod with a Gt toleration
// loads and schedules with --feature-gates
// TaintTolerationComparisonOperators=true, and is refused at load with
// the API server's message without it.
func TestRunComparisonTolerationsFollowGate(t *testing.T) {
	snap := writeGtTolerationSnapshot(t)
	refused := `Pod default/p: spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"`
	stdout, stderr, err := runCmd(t, newRunCommand, "--snapshot", snap, "--feature-gates", "TaintTolerationComparisonOperators=true")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, refused) || !strings.Contains(stdout, "default/p") || !strings.Contains(stdout, "Scheduled     n1") {
		t.Errorf("with the gate on:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	stdout, stderr, err = runCmd(t, newRunCommand, "--snapshot", snap)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, refused) || strings.Contains(stdout, "default/p") {
		t.Errorf("with the gate off:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// TestRecordedGatesValidate: a snapshot whose capture header records
// TaintTolerationComparisonOperators on (snapshot -o made under the flag)
// is validated under it without the flag: its pod with a Gt toleration
// (hand-written, so validated as on create) loads and schedules, and the
// loader's report printed is the second load's.
func TestRecordedGatesValidate(t *testing.T) {
	capture := filepath.Join(t.TempDir(), "capture.yaml")
	checkCmd(t, newSnapshotCommand, []string{"--snapshot", writeGtTolerationSnapshot(t), "-o", capture,
		"--feature-gates", "TaintTolerationComparisonOperators=true"}, cmdWant{})
	stdout, stderr, err := runCmd(t, newRunCommand, "--snapshot", capture)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "Unsupported value") || !strings.Contains(stdout, "Scheduled     n1") ||
		!strings.Contains(stderr, "note: "+capture+" read again to validate its objects as an API server with the gates simulated would: "+
			"kube-scheduler 1.37 (gates: TaintTolerationComparisonOperators=true)\n") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// The user's flags still win over the header's.
	stdout, stderr, err = runCmd(t, newRunCommand, "--snapshot", capture, "--feature-gates", "TaintTolerationComparisonOperators=false")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, `spec.tolerations[0].operator: Unsupported value: "Gt"`) || strings.Contains(stdout, "default/p") ||
		strings.Contains(stderr, "read again") {
		t.Errorf("with the gate off:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// writeGtTolerationSnapshot writes a hand-written snapshot: a tainted
// node and a pod tolerating the taint with Gt.
func writeGtTolerationSnapshot(t *testing.T) string {
	t.Helper()
	snap := filepath.Join(t.TempDir(), "gt.yaml")
	if err := os.WriteFile(snap, []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
spec:
  taints: [{key: tier, value: "3", effect: NoSchedule}]
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: img}]
  tolerations: [{key: tier, operator: Gt, value: "2", effect: NoSchedule}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return snap
}
