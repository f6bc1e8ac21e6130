package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// verdictCluster holds the cases: api preempts web-0, whose
// eviction violates default/web-pdb; reports waits on a claim pre-bound to
// pv-reports without the bind-completed annotation; lost names a claim
// that does not exist.
const verdictCluster = `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web-pdb, namespace: default}
  spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 0}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: zonal-ssd}
  provisioner: pd.csi.storage.gke.io
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-reports}
  spec: {capacity: {storage: 10Gi}, accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, csi: {driver: pd.csi.storage.gke.io, volumeHandle: pv-reports}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: reports, namespace: default}
  spec: {accessModes: [ReadWriteOnce], storageClassName: zonal-ssd, volumeName: pv-reports, resources: {requests: {storage: 10Gi}}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}, capacity: {cpu: '2', memory: 8Gi, pods: '110'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-0, namespace: default, labels: {app: web}}
  spec:
    nodeName: node-a
    terminationGracePeriodSeconds: 45
    containers: [{name: c, image: web, resources: {requests: {cpu: 1500m}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: api, namespace: default}
  spec:
    priorityClassName: high
    containers: [{name: c, image: api, resources: {requests: {cpu: '1'}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: reports, namespace: default}
  spec:
    containers: [{name: c, image: r, resources: {requests: {cpu: 100m}}}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: reports}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: lost, namespace: default}
  spec:
    containers: [{name: c, image: r, resources: {requests: {cpu: 100m}}}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: reprots}}]
`

// TestExplainVerdictsSayWhatHappensNext: the preempting pod waits for its
// victims (the PDB named in the verdict, the Preemption section and the
// JSON), the pre-bound claim's verdict names the missing annotation, the
// missing claim is the pod's problem with a fix, and the trailing "not
// found" is explained.
func TestExplainVerdictsSayWhatHappensNext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(verdictCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	checkCmd(t, newExplainCommand, []string{"--snapshot", path, "default/api", "--attempt", "1"}, cmdWant{stdout: []string{
		"Waiting for victims to leave: no node fits now (1 node); preemption nominated the pod to node-a, where it fits once they are gone (see Preemption below).",
		"Victims: default/web-0 (grace 45s, violates PDB default/web-pdb).",
		"★ node-a: 1 PDB violation(s); victims: default/web-0 (priority 0) [violates PDB default/web-pdb]",
		"decided by: single candidate",
	}})
	var api explanation
	explainJSON(t, &api, "--snapshot", path, "default/api", "--attempt", "1")
	if p := api.Preemption; p == nil || p.Node != "node-a" || len(p.Victims) != 1 || !slices.Equal(p.Victims[0].ViolatesPDBs, []string{"default/web-pdb"}) {
		t.Errorf("api's preemption in JSON: %+v", api.Preemption)
	}
	for _, v := range api.Verdict {
		if v == "Stuck: no node fits (1 node)." {
			t.Errorf("the preempting pod is called stuck: %q", api.Verdict)
		}
	}
	const tail = `The message's trailing "not found" is DynamicResources' PostFilter`
	checkCmd(t, newExplainCommand, []string{"--snapshot", path, "default/reports"}, cmdWant{stdout: []string{
		"Stuck: PreFilter VolumeBinding rejected the pod itself, before any node was considered.",
		"claim default/reports names PV pv-reports (spec.volumeName) but lacks the pv.kubernetes.io/bind-completed annotation: upstream treats it as pre-bound",
		tail,
	}})
	checkCmd(t, newExplainCommand, []string{"--snapshot", path, "default/lost"}, cmdWant{stdout: []string{
		"Stuck: PreFilter VolumeRestrictions rejected the pod itself, before any node was considered.",
		`• persistentvolumeclaim "reprots" not found (VolumeRestrictions): claim default/reprots (volume data) does not exist: create it, or correct the volume's claimName.`,
		tail,
	}})
}
