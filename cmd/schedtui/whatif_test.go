package main

import (
	"os"
	"path/filepath"
	"testing"
)

// zoneCluster: web wants zone c, which no node is in.
const zoneCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: a}}
  status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}, capacity: {cpu: '2', memory: 8Gi, pods: '110'}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: b}}
  status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}, capacity: {cpu: '2', memory: 8Gi, pods: '110'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec:
    nodeSelector: {topology.kubernetes.io/zone: c}
    containers: [{name: c, image: web, resources: {requests: {cpu: 500m}}}]
`

const zoneCNode = `apiVersion: v1
kind: Node
metadata: {name: node-c, labels: {kubernetes.io/hostname: node-c, topology.kubernetes.io/zone: c}}
status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}, capacity: {cpu: '2', memory: 8Gi, pods: '110'}}
`

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExplainWithNodeInAnotherZone: a node added in zone c makes the
// pending pod fit, in text and JSON; the engine's own run is untouched.
func TestExplainWithNodeInAnotherZone(t *testing.T) {
	snap := writeTemp(t, "cluster.yaml", zoneCluster)
	node := writeTemp(t, "node-c.yaml", zoneCNode)
	checkCmd(t, newExplainCommand, []string{"--snapshot", snap, "default/web", "--with", node}, cmdWant{stdout: []string{
		"Outcome:    Unschedulable",
		"What-if (attempt 1 re-run on the cluster as it saw it, edited):",
		"  with:     Node/node-c (added)",
		"  before:   Unschedulable",
		"  after:    Scheduled on node-c",
		"node-c  -       ✓ feasible ★ chosen",
	}})
	var x explanation
	explainJSON(t, &x, "--snapshot", snap, "default/web", "--with", node)
	w := x.WhatIf
	if x.Outcome != "Unschedulable" || w == nil || w.Before.Outcome != "Unschedulable" || w.After.Outcome != "Scheduled" || w.After.Node != "node-c" ||
		w.Changed != 1 || len(w.Nodes) != 1 || w.Nodes[0].Node != "node-c" || w.Nodes[0].Before != "" {
		t.Errorf("what-if JSON: outcome %s, %+v", x.Outcome, w)
	}
	// Without --with there is no whatIf.
	var plain explanation
	explainJSON(t, &plain, "--snapshot", snap, "default/web")
	if plain.WhatIf != nil {
		t.Errorf("whatIf without --with: %+v", plain.WhatIf)
	}
}

// TestExplainWithoutBlockingPod: removing the pod that holds the CPU lets
// api fit where it had to preempt.
func TestExplainWithoutBlockingPod(t *testing.T) {
	snap := writeTemp(t, "cluster.yaml", verdictCluster)
	var x explanation
	explainJSON(t, &x, "--snapshot", snap, "default/api", "--attempt", "1", "--without", "pod/default/web-0")
	w := x.WhatIf
	if w == nil || w.Before.Outcome != "Unschedulable" || w.Before.NominatedNode != "node-a" || w.After.Outcome != "Scheduled" || w.After.Node != "node-a" ||
		len(w.Without) != 1 || w.Without[0] != "Pod/default/web-0" {
		t.Errorf("what-if JSON: %+v", w)
	}
}

// TestExplainWithAnnotatedClaim: the claim pre-bound to its PV, given
// the bind-completed annotation, is bound: the pod fits.
func TestExplainWithAnnotatedClaim(t *testing.T) {
	snap := writeTemp(t, "cluster.yaml", verdictCluster)
	claim := writeTemp(t, "claim.yaml", `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: reports
  namespace: default
  annotations: {pv.kubernetes.io/bind-completed: "yes"}
spec: {accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, volumeName: pv-reports, resources: {requests: {storage: 10Gi}}}
status: {phase: Bound}
`)
	checkCmd(t, newExplainCommand, []string{"--snapshot", snap, "default/reports", "--with", claim}, cmdWant{stdout: []string{
		"  with:     PersistentVolumeClaim/default/reports (replaced)",
		"  before:   Unschedulable",
		"  after:    Scheduled on node-a",
	}})
}

// TestExplainWhatIfErrors: bad edits name the file, object and field, or
// the reference.
func TestExplainWhatIfErrors(t *testing.T) {
	snap := writeTemp(t, "cluster.yaml", zoneCluster)
	bad := writeTemp(t, "bad.yaml", `apiVersion: v1
kind: Node
metadata: {name: node-c}
status: {allocatable: {cpu: 'lots'}}
`)
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"default/web", "--with", bad}, "bad.yaml:1: Node node-c: status.allocatable.cpu"},
		{[]string{"default/web", "--with", filepath.Join(t.TempDir(), "missing.yaml")}, "--with: open"},
		{[]string{"default/web", "--without", "pod/web"}, "a Pod is named Pod/NAMESPACE/NAME"},
		{[]string{"default/web", "--without", "deployment/default/web"}, `kind "deployment" is not one the scheduler reads`},
		{[]string{"default/web", "--without", "node/node-z"}, "Node/node-z: no such node in the cluster"},
		{[]string{"default/web", "--without", "pod/default/web"}, "is the pod being scheduled"},
		{[]string{"-A", "--without", "node/node-a"}, "name the pod"},
	} {
		t.Run(c.err, func(t *testing.T) {
			checkCmd(t, newExplainCommand, append([]string{"--snapshot", snap}, c.args...), cmdWant{errSubstr: c.err})
		})
	}
}
