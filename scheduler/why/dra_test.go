package why

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The DynamicResources group names the pod's claim with its request and,
// per node, the devices and the claims (and pods) holding them.
func TestVerdictNamesClaimsAndDeviceHolders(t *testing.T) {
	data, err := os.ReadFile("../../testdata/dra-gpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := run(t, string(data))
	v := strings.Join(Verdict(inputFor(t, e, "default/finetune")), "\n")
	for _, want := range []string{
		"cannot allocate all claims (DynamicResources): claim default/finetune-gpus request gpus (2 × gpu.example.com): gpu-a has 0 free of 2 requested (gpu-0, gpu-1 held by default/batch-gpus (pod default/batch)); a lower-priority holder is never preempted for devices",
		`claim default/finetune-gpus (gpus: 2 × gpu.example.com where device.attributes["gpu.example.com"].model == "a100")`,
		"2 devices, 2 held by default/batch-gpus (pod default/batch) (gpu-a)",
		"1 device, 1 held by default/inference-gpu (pod default/inference) (gpu-b)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
	// The H100 nobody has: the models present are named.
	v = strings.Join(Verdict(inputFor(t, e, "default/trainer")), "\n")
	if want := "no device of class gpu.example.com has model h100; the models present are a100, l4;"; !strings.Contains(v, want) {
		t.Errorf("verdict lacks %q:\n%s", want, v)
	}
}

// BenchmarkDRAVerdict gives the verdict of a pod whose claim asks for a
// GPU model none of 5000 nodes (8 GPUs each) has: the DynamicResources
// group's devices per node, the models present, evaluated per request.
func BenchmarkDRAVerdict(b *testing.B) {
	var y strings.Builder
	y.WriteString(`apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu.example.com}
  spec:
    selectors:
    - cel: {expression: 'device.driver == "gpu.example.com"'}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: want-h100, namespace: default}
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec:
    containers: [{name: c, image: x}]
    resourceClaims: [{name: gpu, resourceClaimName: want-h100}]
`)
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&y, `- apiVersion: v1
  kind: Node
  metadata: {name: n%[1]d, labels: {kubernetes.io/hostname: n%[1]d}}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n%[1]d-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n%[1]d
    pool: {name: n%[1]d, resourceSliceCount: 1}
    devices:
`, i)
		for g := 0; g < 8; g++ {
			fmt.Fprintf(&y, "    - {name: gpu-%d, attributes: {model: {string: a100}}, capacity: {memory: {value: 80Gi}}}\n", g)
		}
	}
	in := inputFor(b, run(b, y.String()), "default/p")
	want := "no device of class gpu.example.com has model h100; the models present are a100"
	b.ResetTimer()
	for b.Loop() {
		if v := strings.Join(Verdict(in), "\n"); !strings.Contains(v, want) {
			b.Fatalf("verdict lacks %q:\n%s", want, v)
		}
	}
}

const extendedYAML = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-a, labels: {kubernetes.io/hostname: gpu-a}}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu.example.com}
  spec:
    extendedResourceName: example.com/gpu
    selectors:
    - cel: {expression: 'device.driver == "gpu.example.com"'}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: gpu-a-gpus}
  spec:
    driver: gpu.example.com
    nodeName: gpu-a
    pool: {name: gpu-a, resourceSliceCount: 1}
    devices:
    - name: gpu-0
    - name: gpu-1
- apiVersion: v1
  kind: Pod
  metadata: {name: first, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec:
    containers:
    - name: c
      image: nginx
      resources:
        limits: {example.com/gpu: "2"}
- apiVersion: v1
  kind: Pod
  metadata: {name: second, namespace: default, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec:
    containers:
    - name: c
      image: nginx
      resources:
        limits: {example.com/gpu: "1"}
`

// A DRA-backed extended resource: the first pod's special claim is created
// in PreBind and named in its status; the second pod's verdict names what
// it asks through the class and the first pod's claim holding the devices.
func TestVerdictNamesExtendedResourceClaims(t *testing.T) {
	e := run(t, extendedYAML)
	first := e.Pod("default/first")
	if first == nil || first.Spec.NodeName != "gpu-a" {
		t.Fatalf("first = %+v, want bound to gpu-a", first)
	}
	st := first.Status.ExtendedResourceClaimStatus
	if st == nil || len(st.RequestMappings) != 1 || st.RequestMappings[0].RequestName != "container-0-request-0" {
		t.Fatalf("first's extendedResourceClaimStatus = %+v", st)
	}
	claim := "default/" + st.ResourceClaimName
	if !strings.HasPrefix(st.ResourceClaimName, "first-extended-resources-") {
		t.Errorf("claim name %q", st.ResourceClaimName)
	}
	v := strings.Join(Verdict(inputFor(t, e, "default/second")), "\n")
	for _, want := range []string{
		"cannot allocate all claims (DynamicResources): example.com/gpu: 1 through class gpu.example.com on nodes without it allocatable",
		"2 devices, 2 held by " + claim + " (pod default/first)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
}
