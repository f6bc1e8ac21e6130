package snapshot

import (
	"strings"
	"testing"
)

// TestPodGroupStatusValidation: a group's status is checked as the API
// server checks the scheduler's status update (the conditions, the
// resource claim statuses), on a new group and on one read back from an
// API server alike; each finding names the file and line, the object and
// the field, in apimachinery's words. A well-formed status passes.
func TestPodGroupStatusValidation(t *testing.T) {
	const groups = `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: ok, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  resourceClaims: [{name: gpus, resourceClaimTemplateName: gpu-template}]
status:
  conditions:
  - {type: PodGroupInitiallyScheduled, status: "False", reason: Unschedulable, message: "minCount (2) cannot be satisfied", lastTransitionTime: "2026-01-01T00:00:00Z"}
  resourceClaimStatuses: [{name: gpus, resourceClaimName: ok-gpus-x7k2p}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: bad-conditions, namespace: ml}
spec:
  schedulingPolicy: {basic: {}}
status:
  conditions:
  - {type: PodGroupInitiallyScheduled, status: Maybe, reason: "not a reason", lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: PodGroupInitiallyScheduled, status: "True", reason: Scheduled}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: bad-claims, namespace: ml}
spec:
  schedulingPolicy: {basic: {}}
  resourceClaims: [{name: gpus, resourceClaimTemplateName: gpu-template}]
status:
  resourceClaimStatuses:
  - {name: gpus, resourceClaimName: Not_A_Name}
  - {name: gpus}
  - {name: nics}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: too-many-claims, namespace: ml}
spec:
  schedulingPolicy: {basic: {}}
status:
  resourceClaimStatuses: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}]
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job, namespace: ml}
spec:
  workloadRef: {workloadName: train, templateName: job}
  schedulingPolicy: {gang: {minGroupCount: 1}}
status:
  conditions:
  - {type: "", status: "True", reason: Scheduled, lastTransitionTime: "2026-01-01T00:00:00Z"}
`
	want := []string{
		`groups.yaml:12: PodGroup ml/bad-conditions: status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
		`groups.yaml:12: PodGroup ml/bad-conditions: status.conditions[0].reason: Invalid value: "not a reason": a condition reason must start with alphabetic character`,
		`groups.yaml:12: PodGroup ml/bad-conditions: status.conditions[1]: Duplicate value: "PodGroupInitiallyScheduled"`,
		`groups.yaml:12: PodGroup ml/bad-conditions: status.conditions[1].lastTransitionTime: Required value`,
		`groups.yaml:22: PodGroup ml/bad-claims: status.resourceClaimStatuses[2].name: Invalid value: "nics": must match the name of an entry in ` + "`spec.resourceClaims`",
		`groups.yaml:22: PodGroup ml/bad-claims: status.resourceClaimStatuses[1]: Duplicate value: {"name":"gpus"}`,
		`groups.yaml:22: PodGroup ml/bad-claims: status.resourceClaimStatuses[0].resourceClaimName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain`,
		`groups.yaml:34: PodGroup ml/too-many-claims: status.resourceClaimStatuses[0].name: Invalid value: "a": must match the name of an entry in ` + "`spec.resourceClaims`",
		`groups.yaml:34: PodGroup ml/too-many-claims: status.resourceClaimStatuses: Too many: 5: must have at most 4 items`,
		`groups.yaml:42: CompositePodGroup ml/job: status.conditions[0].type: Required value: is required`,
	}
	_, r := loadGated(t, true, "groups.yaml", groups)
	// too-many-claims names no spec claim: each of its five statuses is
	// refused for that; only the first is listed above.
	var kept []string
	for _, p := range r.Problems {
		if s := p.String(); !strings.Contains(s, "too-many-claims: status.resourceClaimStatuses[") || strings.Contains(s, "[0]") {
			kept = append(kept, s)
		}
	}
	if len(kept) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(kept), len(want), strings.Join(kept, "\n"))
	}
	for i := range want {
		if !strings.Contains(kept[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant it to contain %s", i, kept[i], want[i])
		}
	}

	// Read back from an API server: the same checks.
	stored := strings.ReplaceAll(groups, "namespace: ml}", `namespace: ml, resourceVersion: "9"}`)
	c, r := loadGated(t, true, "stored.yaml", stored)
	if len(c.PodGroups) != 1 || c.PodGroups[0].Name != "ok" || len(c.CompositePodGroups) != 0 {
		t.Errorf("stored: kept %d PodGroups, %d CompositePodGroups, want only ok:\n%s", len(c.PodGroups), len(c.CompositePodGroups), r)
	}
}
