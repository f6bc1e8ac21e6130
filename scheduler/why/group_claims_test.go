package why

import (
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
)

// groupClaimYAML: a gang of two whose PodGroup owns a claim of one GPU
// made from a template, on a node with one GPU; each member also lists
// the entry.
const groupClaimYAML = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu, namespace: default}
  spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: train, namespace: default}
  spec:
    schedulingPolicy: {gang: {minCount: 1}}
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
- apiVersion: v1
  kind: Pod
  metadata: {name: w-0, namespace: default}
  spec:
    schedulingGroup: {podGroupName: train}
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
    containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
`

// A member's claim that is its PodGroup's: before scheduling it is the
// group's claim, once bound it is reserved for the group, and explain's
// claim line says so (DRAWorkloadResourceClaims). End to end: the loader
// made the group's claim from its template, the member's PreBind
// allocated it and reserved it for the group.
func TestGroupClaimNotes(t *testing.T) {
	gates, err := features.Resolve("", "", "GenericWorkload=true,DRAWorkloadResourceClaims=true")
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("test.yaml", []byte(groupClaimYAML), &gates.Features)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("snapshot problems: %v", rep.Problems)
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Features: &gates.Features})
	if err != nil {
		t.Fatal(err)
	}
	p := e.Pod("default/w-0")
	pg := MemberPodGroup(e.Scheduler(), p)
	if pg == nil {
		t.Fatal("no PodGroup for the member")
	}
	name := *p.Status.ResourceClaimStatuses[0].ResourceClaimName
	claim, err := e.Scheduler().Objects().ResourceClaim("default", name)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := GroupClaimNote(pg, p, &p.Spec.ResourceClaims[0], claim), "PodGroup default/train's claim"; got != want {
		t.Errorf("before scheduling: %q, want %q", got, want)
	}

	e.RunToQuiescence()
	p = e.Pod("default/w-0")
	if p.Spec.NodeName != "n1" {
		t.Fatalf("w-0 not bound: %q", p.Spec.NodeName)
	}
	claim, _ = e.Scheduler().Objects().ResourceClaim("default", name)
	if got, want := GroupClaimNote(pg, p, &p.Spec.ResourceClaims[0], claim), "reserved for PodGroup default/train"; got != want {
		t.Errorf("bound: %q, want %q", got, want)
	}
	lines := PodClaimAllocations(e.Scheduler(), p)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "default/"+name+": gpu → gpu.example.com/n1/gpu-0") || !strings.HasSuffix(lines[0], " (reserved for PodGroup default/train)") {
		t.Errorf("claim lines %q", lines)
	}
}

// A member stuck because its group's claim cannot be allocated: the
// verdict's DynamicResources group names the claim as the group's.
func TestGroupClaimInVerdict(t *testing.T) {
	gates, err := features.Resolve("", "", "GenericWorkload=true,DRAWorkloadResourceClaims=true")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(groupClaimYAML, "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}",
		"spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 2}}]}}}", 1)
	c, _, err := snapshot.LoadUnder("test.yaml", []byte(yaml), &gates.Features)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Features: &gates.Features})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	v := strings.Join(Verdict(inputFor(t, e, "default/w-0")), "\n")
	if want := "(gpu: 2 × gpu) (PodGroup default/train's claim)"; !strings.Contains(v, want) {
		t.Errorf("verdict lacks %q:\n%s", want, v)
	}
	// explain's Claim line for the member.
	p := e.Pod("default/w-0")
	lines := GroupClaimLines(e.Scheduler(), p)
	want := "gpu: default/" + *p.Status.ResourceClaimStatuses[0].ResourceClaimName + " (PodGroup default/train's claim)"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("claim lines %q, want %q", lines, want)
	}
}
