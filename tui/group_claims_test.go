package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// groupClaimCluster: a one-member gang whose PodGroup owns a claim of
// one GPU made from a template (the loader generates it as the
// resourceclaim controller does), on a node with one GPU.
const groupClaimCluster = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: default}
spec:
  schedulingGroup: {podGroupName: train}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
`

// TestPodViewGroupClaim: the Pod view of a member bound with its
// PodGroup's claim (DRAWorkloadResourceClaims) shows the devices
// allocated and that the claim is reserved for the group, not the pod.
func TestPodViewGroupClaim(t *testing.T) {
	r, err := features.Resolve("", "", "GenericWorkload=true,DRAWorkloadResourceClaims=true")
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("group-claim", []byte(groupClaimCluster), &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("the scenario does not load cleanly: %v", rep)
	}
	b, err := NewBackend("group-claim", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: New(Options{Backend: b, NoColor: true})}
	hs.send(tea.WindowSizeMsg{Width: 140, Height: 30})
	hs.run(hs.m.Init())
	hs.keys("n", "2")
	hs.contains("default/w-0", "Scheduled → n1", "gpu) allocated gpu →", "gpu.example.com/n1/gpu-0 (reserved for", "PodGroup default/train)")
}
