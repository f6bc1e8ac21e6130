package snapshot

import (
	"strings"
	"testing"
)

// groupClaimsYAML is a PodGroup owning a claim made from a template, and
// two members listing the same entry.
const groupClaimsYAML = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: train}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Pod
metadata: {name: w-1, namespace: ml}
spec:
  schedulingGroup: {podGroupName: train}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: own, resourceClaimTemplateName: one-gpu}
  containers: [{name: c, image: i}]
`

// With DRAWorkloadResourceClaims the loader plays the resourceclaim
// controller for the PodGroup: one claim generated for the group (owned
// by it, named after it, in its status), which both members' entries
// resolve to; a member's own entry still gets a claim of its own.
func TestPodGroupTemplateClaims(t *testing.T) {
	c, r := loadGated(t, true, "group.yaml", groupClaimsYAML)
	if len(r.Problems) != 0 {
		t.Fatalf("problems: %v", r.Problems)
	}
	if len(c.ResourceClaims) != 2 {
		t.Fatalf("%d claims generated, want the group's and w-1's own", len(c.ResourceClaims))
	}
	group := c.ResourceClaims[0]
	if !strings.HasPrefix(group.Name, "train-gpu-") || len(group.Name) != len("train-gpu-")+5 {
		t.Errorf("group claim named %q", group.Name)
	}
	if o := group.OwnerReferences; len(o) != 1 || o[0].Kind != "PodGroup" || o[0].APIVersion != "scheduling.k8s.io/v1beta1" || o[0].Name != "train" || o[0].UID != c.PodGroups[0].UID || o[0].Controller == nil || !*o[0].Controller {
		t.Errorf("group claim owners %+v", o)
	}
	if s := c.PodGroups[0].Status.ResourceClaimStatuses; len(s) != 1 || s[0].Name != "gpu" || *s[0].ResourceClaimName != group.Name {
		t.Errorf("PodGroup status %+v", s)
	}
	for _, p := range c.Pods {
		st := p.Status.ResourceClaimStatuses
		if len(st) == 0 || st[0].Name != "gpu" || *st[0].ResourceClaimName != group.Name {
			t.Errorf("%s: status %+v, want gpu → %s", p.Name, st, group.Name)
		}
		if p.Name == "w-1" && (len(st) != 2 || !strings.HasPrefix(*st[1].ResourceClaimName, "w-1-own-")) {
			t.Errorf("w-1: status %+v, want its own claim too", st)
		}
	}
}

// With the gate off the API server drops the PodGroup's resourceClaims
// (and a Workload template's), which the report says; each member then
// gets a claim of its own, as the controller gives it.
func TestPodGroupClaimsDroppedWithGateOff(t *testing.T) {
	workload := `
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
`
	l := NewLoader()
	g := workloadGates(true)
	g.EnableDRAWorkloadResourceClaims = false
	l.ValidateUnder(g)
	if err := l.LoadData("group.yaml", []byte(groupClaimsYAML+workload)); err != nil {
		t.Fatal(err)
	}
	c, r := l.Finish()
	var warnings []string
	for _, p := range r.Problems {
		warnings = append(warnings, p.String())
	}
	want := []string{
		`group.yaml:11: warning: PodGroup ml/train: spec.resourceClaims: dropped, as the API server drops it from a new PodGroup with feature gate DRAWorkloadResourceClaims off (enable the gate to keep it)`,
		`group.yaml:39: warning: Workload ml/job: spec.podGroupTemplates[0].resourceClaims: dropped, as the API server drops it from a new Workload with feature gate DRAWorkloadResourceClaims off (enable the gate to keep it)`,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("report:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	if len(c.PodGroups[0].Spec.ResourceClaims) != 0 || len(c.Workloads[0].Spec.PodGroupTemplates[0].ResourceClaims) != 0 {
		t.Error("resourceClaims kept with the gate off")
	}
	if len(c.ResourceClaims) != 3 {
		t.Errorf("%d claims generated, want one per member's entry", len(c.ResourceClaims))
	}
}
