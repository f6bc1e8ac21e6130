package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clockSnapshot is a snapshot stamped 2026-11-27 by its header, whose
// newest object is a pod started later that day.
const clockSnapshot = `# A schedtui snapshot (read it with schedtui --snapshot FILE).
# captured-at: "2026-11-27T09:00:00Z"
# schedtui-snapshot: v1
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, creationTimestamp: "2026-03-01T00:00:00Z"}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: old, namespace: default, creationTimestamp: "2026-11-27T08:00:00Z"}
  spec:
    nodeName: n1
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running, startTime: "2026-11-27T09:30:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: new, namespace: default, creationTimestamp: "2026-11-27T08:59:00Z"}
  spec:
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
`

// TestClockStartsAtTheSnapshotsTime: the virtual clock starts at the
// newest time the snapshot records (here a pod's start, after the
// header's capture time), not at schedtui's epoch: run -o json's times
// read as the cluster's.
func TestClockStartsAtTheSnapshotsTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(clockSnapshot), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", path, "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, `"kind":"attempt"`) || !strings.Contains(out, `"time":"2026-11-27T09:30:00Z"`) || strings.Contains(out, "2026-01-01T00:00:00Z") {
		t.Errorf("run -o json should be timed from 2026-11-27T09:30:00Z:\n%s", out)
	}
	// The objects' newest time, not the header's later capture time: a
	// live cluster read once and its snapshot start at the same instant.
	c := strings.Replace(clockSnapshot, `startTime: "2026-11-27T09:30:00Z"`, `startTime: "2026-11-27T07:00:00Z"`, 1)
	if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runCmd(t, newRunCommand, "--snapshot", path, "-o", "wide")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "2026-11-27T08:59:00Z") || strings.Contains(out, "2026-11-27T09:00:00Z") {
		t.Errorf("run -o wide should be timed from the newest object's 2026-11-27T08:59:00Z:\n%s", out)
	}
}
