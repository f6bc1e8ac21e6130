package snapshot

import (
	"bytes"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

var draSnapshot = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: broken
spec:
  selectors:
  - cel:
      expression: device.driver ==
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: n1-gpus
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: nowhere
spec:
  driver: gpu.example.com
  pool: {name: x, resourceSliceCount: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: direct
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad-count
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        count: -1
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tmpl
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata:
  name: rule
spec:
  deviceSelector: {device: gpu-0}
  taint: {key: broken, effect: NoSchedule}
---
` + nodeN1 + `---
` + pod("from-template", `  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: tmpl
`) + `---
` + pod("no-template", `  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: missing
`)

func TestLoadDRAObjects(t *testing.T) {
	c, r, err := Load("dra.yaml", []byte(draSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.DeviceClasses) != 1 || c.DeviceClasses[0].Name != "gpu" {
		t.Errorf("device classes = %v (the broken CEL one must be refused)", c.DeviceClasses)
	}
	if len(c.ResourceSlices) != 1 || len(c.DeviceTaintRules) != 1 || len(c.ResourceClaimTemplates) != 1 {
		t.Errorf("slices %d, taint rules %d, templates %d", len(c.ResourceSlices), len(c.DeviceTaintRules), len(c.ResourceClaimTemplates))
	}
	var direct, generated *resourcev1.ResourceClaim
	for _, cl := range c.ResourceClaims {
		switch {
		case cl.Name == "direct":
			direct = cl
		case strings.HasPrefix(cl.Name, "from-template-gpu-"):
			generated = cl
		}
	}
	if direct == nil || len(c.ResourceClaims) != 2 {
		t.Fatalf("claims = %v", c.ResourceClaims)
	}
	// The API server's defaults.
	if e := direct.Spec.Devices.Requests[0].Exactly; e.AllocationMode != resourcev1.DeviceAllocationModeExactCount || e.Count != 1 {
		t.Errorf("defaults: %+v", e)
	}
	// The resourceclaim controller's claim, recorded in the pod's status.
	if generated == nil || generated.Annotations[resourcev1.PodResourceClaimAnnotation] != "gpu" ||
		len(generated.OwnerReferences) != 1 || generated.OwnerReferences[0].Name != "from-template" {
		t.Fatalf("generated claim = %+v", generated)
	}
	for _, p := range c.Pods {
		st := p.Status.ResourceClaimStatuses
		switch p.Name {
		case "from-template":
			if len(st) != 1 || *st[0].ResourceClaimName != generated.Name || generated.OwnerReferences[0].UID != p.UID {
				t.Errorf("from-template status = %v", st)
			}
		case "no-template":
			if len(st) != 0 {
				t.Errorf("no-template status = %v", st)
			}
		}
	}
	var msgs []string
	for _, p := range r.Problems {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"DeviceClass broken", "spec.selectors[0].cel.expression",
		"ResourceSlice nowhere", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
		"ResourceClaim default/bad-count", "spec.devices.requests[0].exactly.count", "must be greater than zero",
		"ResourceClaimTemplate default/missing not found",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q:\n%s", want, all)
		}
	}
	// DRA-backed extended resources are simulated: a class naming one
	// is no problem.
	if strings.Contains(all, "DeviceClass gpu") {
		t.Errorf("report mentions DeviceClass gpu:\n%s", all)
	}
	errs := 0
	for _, p := range r.Problems {
		if p.Severity == docread.Error {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("%d errors, want 3:\n%s", errs, all)
	}
}

// A written snapshot keeps the DRA objects, and the generated claim is not
// generated again when the written file is loaded.
func TestWriteDRARoundTrip(t *testing.T) {
	c, _, err := Load("dra.yaml", []byte(draSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, c, Header{}, OutputFormat{YAML: true}); err != nil {
		t.Fatal(err)
	}
	again, r, err := Load("written.yaml", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		if p.Severity == docread.Error {
			t.Errorf("reloading: %s", p)
		}
	}
	if len(again.DeviceClasses) != len(c.DeviceClasses) || len(again.ResourceSlices) != len(c.ResourceSlices) ||
		len(again.DeviceTaintRules) != len(c.DeviceTaintRules) || len(again.ResourceClaimTemplates) != len(c.ResourceClaimTemplates) ||
		len(again.ResourceClaims) != len(c.ResourceClaims) {
		t.Errorf("reloaded %d/%d/%d/%d/%d, wrote %d/%d/%d/%d/%d", len(again.DeviceClasses), len(again.ResourceSlices), len(again.DeviceTaintRules),
			len(again.ResourceClaimTemplates), len(again.ResourceClaims), len(c.DeviceClasses), len(c.ResourceSlices), len(c.DeviceTaintRules),
			len(c.ResourceClaimTemplates), len(c.ResourceClaims))
	}
}
