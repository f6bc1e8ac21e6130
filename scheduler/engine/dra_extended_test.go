package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/record"
)

// draExtendedCluster: one node publishing one GPU, a class standing for
// example.com/gpu, a pod asking for one, and the special claim an earlier
// attempt left for that pod (already with requests).
var draExtendedCluster = listHeader + nodeYAML("n1", "4", "") + `- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec: {extendedResourceName: example.com/gpu}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, resourceSliceCount: 1}
    devices: [{name: gpu-0}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata:
    name: a-extended-resources-old
    namespace: default
    annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
    finalizers: [resource.kubernetes.io/delete-protection]
    ownerReferences: [{apiVersion: v1, kind: Pod, name: a, uid: uid-a, controller: true}]
  spec: {devices: {requests: [{name: container-0-request-1, exactly: {deviceClassName: gpu}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default, uid: uid-a, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: p0
    containers: [{name: c, image: x, resources: {limits: {example.com/gpu: "1"}, requests: {cpu: 100m}}}]
`

// The stale special claim is refused on every node and deleted by
// PostFilter (finalizer dropped, then the delete); the next attempt makes
// a new claim, which PreBind creates and names in the pod's status.
func TestDRAExtendedStaleClaimDeleted(t *testing.T) {
	e := load(t, draExtendedCluster, Options{})
	a, ok := e.Step()
	if !ok || a.Outcome != record.Unschedulable || !strings.Contains(a.Message, "cannot schedule extended resource claim") ||
		!strings.Contains(a.Message, "deletion of ResourceClaim completed") {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	if _, err := e.Scheduler().Objects().ResourceClaim("default", "a-extended-resources-old"); err == nil {
		t.Fatal("the stale claim is still stored")
	}
	// Nothing the pod waits for changed (the claim was not allocated):
	// the leftover flush retries it.
	e.RunUntil(10 * time.Minute)
	pod := e.Pod("default/a")
	if pod.Spec.NodeName != "n1" {
		t.Fatalf("pod not bound after the retry: %+v", pod.Spec)
	}
	st := pod.Status.ExtendedResourceClaimStatus
	if st == nil || !strings.HasPrefix(st.ResourceClaimName, "a-extended-resources-") || st.ResourceClaimName == "a-extended-resources-old" {
		t.Fatalf("pod status: %+v", st)
	}
	c, err := e.Scheduler().Objects().ResourceClaim("default", st.ResourceClaimName)
	if err != nil || c.Status.Allocation == nil || len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].Name != "a" {
		t.Fatalf("created claim: %+v, %v", c, err)
	}
}
