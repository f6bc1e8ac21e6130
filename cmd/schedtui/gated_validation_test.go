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
