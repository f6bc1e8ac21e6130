package engine

import (
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// claimReleaseCluster: node n1 (2 cpu, one GPU) full with a low-priority
// victim whose claim, generated from a template and owned by it, holds
// the GPU (allocated, reserved, delete-protected); a high-priority
// preemptor needing 1 cpu and no device; a GPU pod of the victim's
// priority (so it cannot preempt) needing 1 cpu and the GPU.
var claimReleaseCluster = listHeader + nodeYAML("n1", "2", "") + gpuClassYAML + `- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus, uid: uid-slice}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu, namespace: default}
  spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata:
    name: victim-gpu-x7k2q
    namespace: default
    uid: uid-victim-gpu
    finalizers: [resource.kubernetes.io/delete-protection]
    annotations: {resource.kubernetes.io/pod-claim-name: gpu}
    ownerReferences: [{apiVersion: v1, kind: Pod, name: victim, uid: uid-victim, controller: true}]
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  status:
    allocation:
      devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
      nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}
    reservedFor: [{resource: pods, name: victim, uid: uid-victim}]
` + podYAML("victim", "2", 0, `    nodeName: n1
    terminationGracePeriodSeconds: 60
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  status:
    phase: Running
    startTime: '2025-12-31T00:00:00Z'
    resourceClaimStatuses: [{name: gpu, resourceClaimName: victim-gpu-x7k2q}]
`) + podYAML("preemptor", "1", 100, "") + gpuClaimYAML("later") + podYAML("later", "1", 0, "    resourceClaims: [{name: gpu, resourceClaimName: later-gpu}]\n")

// TestVictimClaimReleased: when the victim leaves at the end of its grace
// period, the simulated resourceclaim controller deallocates its claim and
// drops the finalizer, the garbage collector deletes it (its owner is
// gone), and the GPU pod, moved by the claim's deallocation, gets the
// device next to the preemptor, as upstream would place them. A rewind
// replays the release with the eviction.
func TestVictimClaimReleased(t *testing.T) {
	e := load(t, claimReleaseCluster, Options{})
	a, ok := e.Step()
	if !ok || a.Pod != "default/preemptor" || a.Nominated != "n1" || len(a.Victims) != 1 {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	a, ok = e.Step()
	if !ok || a.Pod != "default/later" || a.Outcome != record.Unschedulable {
		t.Fatalf("GPU pod before the victim left: %v %+v", ok, a)
	}
	e.RunUntil(time.Minute)
	if _, err := e.Scheduler().Objects().ResourceClaim("default", "victim-gpu-x7k2q"); err == nil {
		t.Error("the victim's generated claim outlived it")
	}
	var claimChanges []string
	for _, ev := range e.Timeline().All() {
		if ev.Kind == history.EventCluster && ev.Object == "ResourceClaim default/victim-gpu-x7k2q" {
			claimChanges = append(claimChanges, ev.Reason+"@"+ev.Time.Sub(scheduler.Epoch).String())
		}
	}
	want := []string{"ObjectUpdate@1m0s", "ObjectUpdate@1m0s", "ObjectDelete@1m0s"}
	if len(claimChanges) != len(want) || claimChanges[0] != want[0] || claimChanges[1] != want[1] || claimChanges[2] != want[2] {
		t.Errorf("claim changes %v, want %v (deallocation, finalizer removed, deletion)", claimChanges, want)
	}
	placed := map[string]string{}
	for i, a := range e.Attempts().All() {
		if i >= 2 && a.Outcome == record.Scheduled {
			placed[a.Pod] = a.Node
		}
	}
	if placed["default/preemptor"] != "n1" || placed["default/later"] != "n1" {
		t.Fatalf("after the victim left: placed %v, attempts %d", placed, e.Attempts().Len())
	}
	later, err := e.Scheduler().Objects().ResourceClaim("default", "later-gpu")
	if err != nil || later.Status.Allocation == nil || later.Status.Allocation.Devices.Results[0].Device != "gpu-0" {
		t.Fatalf("the GPU pod's claim: %+v %v", later, err)
	}

	n := e.Attempts().Len()
	before := timelineJSON(t, e)
	if err := e.Rewind(n - 1); err != nil {
		t.Fatal(err)
	}
	e.RunUntil(time.Minute)
	if after := timelineJSON(t, e); after != before {
		t.Errorf("the replay differs:\n%s\nfirst run:\n%s", after, before)
	}

	// The cluster's own controller deleting it too (a recording, a live
	// cluster) is noted, not refused.
	gone := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "victim-gpu-x7k2q", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "victim", UID: "uid-victim"}}}}
	if err := e.Apply(change.Change{Kind: change.ObjectDelete, Object: gone}); err != nil {
		t.Errorf("the cluster's deletion of the released claim: %v", err)
	}
	var last history.Event
	for _, ev := range e.Timeline().All() {
		last = ev
	}
	if last.Message != AlreadyReleased {
		t.Errorf("last event %+v, want the change noted %q", last, AlreadyReleased)
	}
}

// TestDeletedPodClaimReleased: a pod deleted by a change (not evicted)
// releases its shared claim: still reserved for its other consumer, the
// claim keeps its allocation; once that one is deleted too, the claim,
// owned by nobody, is deallocated and stays.
func TestDeletedPodClaimReleased(t *testing.T) {
	shared := `- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared, namespace: default, uid: uid-shared, finalizers: [resource.kubernetes.io/delete-protection]}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  status:
    allocation:
      devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
    reservedFor: [{resource: pods, name: a, uid: uid-a}, {resource: pods, name: b, uid: uid-b}]
`
	bound := func(name string) string {
		return podYAML(name, "1", 0, "    nodeName: n1\n    resourceClaims: [{name: gpu, resourceClaimName: shared}]\n")
	}
	e := load(t, listHeader+nodeYAML("n1", "4", "")+gpuClassYAML+shared+bound("a")+bound("b"), Options{})
	del := func(name string) {
		t.Helper()
		if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod("default/" + name)}); err != nil {
			t.Fatal(err)
		}
	}
	del("a")
	c, err := e.Scheduler().Objects().ResourceClaim("default", "shared")
	if err != nil || c.Status.Allocation == nil || len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].Name != "b" || len(c.Finalizers) != 1 {
		t.Fatalf("after a left: %+v %v", c, err)
	}
	del("b")
	c, err = e.Scheduler().Objects().ResourceClaim("default", "shared")
	if err != nil || c.Status.Allocation != nil || len(c.Status.ReservedFor) != 0 || len(c.Finalizers) != 0 {
		t.Fatalf("after b left: %+v %v", c, err)
	}
}

// TestShadowKeepsClaims: in shadow mode the cluster's controller releases
// the claims; its updates are the truth, and a deletion writes nothing.
func TestShadowKeepsClaims(t *testing.T) {
	e := load(t, claimReleaseCluster, Options{Shadow: true})
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod("default/victim")}); err != nil {
		t.Fatal(err)
	}
	if c, err := e.Scheduler().Objects().ResourceClaim("default", "victim-gpu-x7k2q"); err != nil || c.Status.Allocation == nil {
		t.Fatalf("shadow mode released the claim: %+v %v", c, err)
	}
}

// TestDeletedPodGroupClaimReleased: with DRAWorkloadResourceClaims, a
// PodGroup deleted releases the claim generated for it (reserved for the
// group): the simulated controller deallocates it and the garbage
// collector deletes it, its owner gone; a later report of it is ignored.
func TestDeletedPodGroupClaimReleased(t *testing.T) {
	gates, err := features.Resolve("", "", "GenericWorkload=true,DRAWorkloadResourceClaims=true")
	if err != nil {
		t.Fatal(err)
	}
	yaml := listHeader + nodeYAML("n1", "4", "") + gpuClassYAML + `- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: train, namespace: default, uid: uid-train}
  spec:
    schedulingPolicy: {gang: {minCount: 1}}
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  status:
    resourceClaimStatuses: [{name: gpu, resourceClaimName: train-gpu-x7k2q}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata:
    name: train-gpu-x7k2q
    namespace: default
    uid: uid-train-gpu
    finalizers: [resource.kubernetes.io/delete-protection]
    ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, name: train, uid: uid-train, controller: true}]
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  status:
    allocation:
      devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
    reservedFor: [{apiGroup: scheduling.k8s.io, resource: podgroups, name: train, uid: uid-train}]
`
	c, rep, err := snapshot.LoadUnder("test.yaml", []byte(yaml), &gates.Features)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Logf("loader: %s", p.String())
	}
	e := build(t, c, Options{Features: &gates.Features})
	pg, err := e.Scheduler().Objects().PodGroup("default", "train")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(change.Change{Kind: change.ObjectDelete, Object: pg}); err != nil {
		t.Fatal(err)
	}
	if c, err := e.Scheduler().Objects().ResourceClaim("default", "train-gpu-x7k2q"); err == nil {
		t.Fatalf("the group's claim is still stored: %+v", c.Status)
	}
	claim := c.ResourceClaims[0]
	if err := e.Apply(change.Change{Kind: change.ObjectUpdate, Object: claim}); err != nil {
		t.Fatalf("a later report of the claim: %v", err)
	}
}
