package main

import (
	"os"
	"path/filepath"
	"testing"
)

// daemonPreemption: node-agent's pod for node-03 does not fit until it
// preempts the low-priority filler there.
const daemonPreemption = `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: low}
  value: 10
- apiVersion: v1
  kind: Node
  metadata: {name: node-03, labels: {kubernetes.io/hostname: node-03}}
  status:
    allocatable: {cpu: '2', memory: 4Gi, pods: '110'}
    capacity: {cpu: '2', memory: 4Gi, pods: '110'}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: node-agent, namespace: kube-system, uid: ds-uid}
  spec:
    selector: {matchLabels: {app: node-agent}}
    template:
      metadata: {labels: {app: node-agent}}
      spec:
        priorityClassName: system-node-critical
        containers: [{name: a, image: agent, resources: {requests: {cpu: '1'}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: filler, namespace: default, uid: filler-uid}
  spec:
    nodeName: node-03
    priorityClassName: low
    containers: [{name: c, image: x, resources: {requests: {cpu: '1500m'}}}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: node-agent-x1
    namespace: kube-system
    uid: agent-uid
    labels: {app: node-agent}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: node-agent, uid: ds-uid, controller: true}]
  spec:
    priorityClassName: system-node-critical
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-03]}]}]
    containers: [{name: a, image: agent, resources: {requests: {cpu: '1'}}}]
`

// TestExplainDaemonSetAfterPreemption: explain daemonset/... says what
// run did (the daemon pod preempts and then runs on node-03), not that
// node-03 refuses it as the cluster stood before the run.
func TestExplainDaemonSetAfterPreemption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ds.yaml")
	if err := os.WriteFile(path, []byte(daemonPreemption), 0o644); err != nil {
		t.Fatal(err)
	}
	checkCmd(t, newRunCommand, []string{"--snapshot", path}, cmdWant{stdout: []string{
		"preemption: kube-system/node-agent-x1 nominated to node-03, victims: default/filler",
		"kube-system/node-agent-x1                Scheduled     node-03"}})
	checkCmd(t, newExplainCommand, []string{"--snapshot", path, "daemonset/kube-system/node-agent"}, cmdWant{stdout: []string{
		"should run on 1 of 1 nodes; running on 1; the scheduler refuses 0",
		"node-03  yes         kube-system/node-agent-x1  running",
		"1  +0s   UnscheduledPodAdd  Unschedulable  - (nominated node-03)",
		"2  +30s  AssignedPodDelete  Scheduled      node-03"}})
	checkCmd(t, newExplainCommand, []string{"--snapshot", path, "daemonset/kube-system/node-agent", "--until", "10s"}, cmdWant{stdout: []string{
		"pending: attempt 1 was Unschedulable, nominated to node-03"}})
	compareExplainRun(t, "daemon preemption", "--snapshot", path)
}
