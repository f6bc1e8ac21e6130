package snapshot

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func pc(name string, value int32, def bool, policy v1.PreemptionPolicy) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: def, PreemptionPolicy: &policy}
}

func TestResolvePriority(t *testing.T) {
	classes := []*schedulingv1.PriorityClass{
		pc("high-default", 100, true, v1.PreemptLowerPriority),
		pc("low-default", 10, true, v1.PreemptNever),
		pc("gold", 1000, false, v1.PreemptLowerPriority),
	}
	cases := []struct {
		name       string
		classes    []*schedulingv1.PriorityClass
		className  string
		wantName   string
		wantValue  int32
		wantPolicy v1.PreemptionPolicy
		wantErr    string
	}{
		{"lowest-value default wins", classes, "", "low-default", 10, v1.PreemptNever, ""},
		{"named class", classes, "gold", "gold", 1000, v1.PreemptLowerPriority, ""},
		{"no default class", classes[2:], "", "", 0, v1.PreemptLowerPriority, ""},
		{"missing class", classes, "silver", "", 0, "", "no PriorityClass with name silver was found"},
		{"built-in class", apiserver.SystemPriorityClasses(), "system-node-critical", "system-node-critical", 2000001000, v1.PreemptLowerPriority, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name, value, policy, err := apiserver.ResolvePriority(tc.className, tc.classes)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if name != tc.wantName || value != tc.wantValue || policy == nil || *policy != tc.wantPolicy {
				t.Errorf("got %q %d %v", name, value, policy)
			}
		})
	}
}

func TestPriorityAdmission(t *testing.T) {
	c, r := mustLoad(t, "a.yaml", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 50
globalDefault: true
preemptionPolicy: Never
---
`+pod("defaulted", "")+`---
`+pod("critical", "  priorityClassName: system-node-critical\n")+`---
`+pod("given", "  priorityClassName: batch\n  priority: 50\n"))
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	byName := map[string]*v1.Pod{}
	for _, p := range c.Pods {
		byName[p.Name] = p
	}
	d := byName["defaulted"]
	if d.Spec.PriorityClassName != "batch" || *d.Spec.Priority != 50 || *d.Spec.PreemptionPolicy != v1.PreemptNever {
		t.Errorf("defaulted: %q %d %s", d.Spec.PriorityClassName, *d.Spec.Priority, *d.Spec.PreemptionPolicy)
	}
	cr := byName["critical"]
	if *cr.Spec.Priority != 2000001000 || *cr.Spec.PreemptionPolicy != v1.PreemptLowerPriority {
		t.Errorf("critical: %d", *cr.Spec.Priority)
	}
	if *byName["given"].Spec.Priority != 50 {
		t.Errorf("given: %d", *byName["given"].Spec.Priority)
	}
	// built-ins exist exactly once
	n := 0
	for _, pc := range c.PriorityClasses {
		if pc.Name == apiserver.SystemNodeCritical || pc.Name == apiserver.SystemClusterCritical {
			n++
			if pc.PreemptionPolicy == nil || pc.UID == "" {
				t.Errorf("built-in %s not defaulted", pc.Name)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d built-in classes", n)
	}
}

func TestBuiltinClassFromFileNotDuplicated(t *testing.T) {
	c, r := mustLoad(t, "a.yaml", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-cluster-critical, uid: real-uid}
value: 2000000000
description: from the cluster
`)
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	if len(c.PriorityClasses) != 2 || c.PriorityClasses[0].UID != "real-uid" {
		t.Errorf("classes %+v", c.PriorityClasses)
	}
}

func TestRuntimeClassAdmission(t *testing.T) {
	c, r := mustLoad(t, "rc.yaml", `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
scheduling:
  nodeSelector: {runtime: kata}
  tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]
---
`+pod("ok", "  runtimeClassName: kata\n  nodeSelector: {zone: a}\n")+`---
`+pod("missing", "  runtimeClassName: gvisor\n")+`---
`+pod("conflict", "  runtimeClassName: kata\n  nodeSelector: {runtime: runc}\n")+`---
`+pod("overhead", "  overhead: {cpu: 1}\n"))
	ok := c.Pods
	if len(ok) != 1 || ok[0].Name != "ok" {
		t.Fatalf("pods %v\n%s", podNames(c), r)
	}
	p := ok[0]
	if q(t, p.Spec.Overhead, v1.ResourceCPU) != "250m" || p.Spec.NodeSelector["runtime"] != "kata" || p.Spec.NodeSelector["zone"] != "a" {
		t.Errorf("overhead/nodeSelector: %v %v", p.Spec.Overhead, p.Spec.NodeSelector)
	}
	if len(p.Spec.Tolerations) != 3 {
		t.Errorf("tolerations %+v", p.Spec.Tolerations)
	}
	for _, want := range []string{
		`Pod default/missing: spec.runtimeClassName: pods "missing" is forbidden: pod rejected: RuntimeClass "gvisor" not found`,
		`Pod default/conflict: spec.nodeSelector: pods "conflict" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc`,
		`Pod default/overhead: spec.overhead: pods "overhead" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`,
	} {
		if findProblem(r, want) == nil {
			t.Errorf("missing %q in\n%s", want, r)
		}
	}
}

func TestMergeTolerations(t *testing.T) {
	s300, s100 := int64(300), int64(100)
	all := v1.Toleration{Operator: v1.TolerationOpExists}
	a := v1.Toleration{Key: "a", Operator: v1.TolerationOpEqual, Value: "1", Effect: v1.TaintEffectNoSchedule}
	aAny := v1.Toleration{Key: "a", Operator: v1.TolerationOpExists}
	nr300 := v1.Toleration{Key: "nr", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &s300}
	nr100 := v1.Toleration{Key: "nr", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &s100}
	if got := apiserver.MergeTolerations([]v1.Toleration{a}, []v1.Toleration{aAny}); len(got) != 1 || got[0].Operator != v1.TolerationOpExists {
		t.Errorf("a+aAny: %+v", got)
	}
	if got := apiserver.MergeTolerations([]v1.Toleration{a, nr100}, []v1.Toleration{all}); len(got) != 1 {
		t.Errorf("all covers everything: %+v", got)
	}
	if got := apiserver.MergeTolerations([]v1.Toleration{nr100}, []v1.Toleration{nr300}); len(got) != 1 || *got[0].TolerationSeconds != 300 {
		t.Errorf("longer toleration wins: %+v", got)
	}
	if got := apiserver.MergeTolerations([]v1.Toleration{a, a}, nil); len(got) != 1 {
		t.Errorf("duplicates: %+v", got)
	}
}

func TestDefaultStorageClassAdmission(t *testing.T) {
	c, r := mustLoad(t, "sc.yaml", `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: old
  creationTimestamp: "2020-01-01T00:00:00Z"
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: p
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: new
  creationTimestamp: "2024-01-01T00:00:00Z"
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: p
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: plain}
spec: {resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: explicit}
spec: {storageClassName: "", resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: captured, resourceVersion: "3"}
spec: {resources: {requests: {storage: 1Gi}}}
`)
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	got := map[string]*string{}
	for _, pvc := range c.PersistentVolumeClaims {
		got[pvc.Name] = pvc.Spec.StorageClassName
	}
	if got["plain"] == nil || *got["plain"] != "new" {
		t.Errorf("plain: %v", got["plain"])
	}
	if got["explicit"] == nil || *got["explicit"] != "" {
		t.Errorf("explicit: %v", got["explicit"])
	}
	if got["captured"] != nil {
		t.Errorf("captured claim changed")
	}
	if apiserver.DefaultStorageClass([]*storagev1.StorageClass{{}}) != nil {
		t.Errorf("default without annotation")
	}
}

// TestPodGroupPriorityAdmission: the Priority admission plugin resolves a
// PodGroup's and a CompositePodGroup's priorityClassName (or the
// globalDefault class) into spec.priority when their gates are on, and
// rejects, as the API server would refuse to create them, groups naming a
// missing class or giving another priority; a stored group keeps its
// priority with a warning. Workloads are not admitted.
func TestPodGroupPriorityAdmission(t *testing.T) {
	group := func(kind, name, spec string) string {
		version := "v1beta1"
		if kind == "CompositePodGroup" {
			version = "v1alpha3"
		}
		return fmt.Sprintf("apiVersion: scheduling.k8s.io/%s\nkind: %s\nmetadata: {name: %s, namespace: ml%s}\nspec:\n  schedulingPolicy: {basic: {}}\n%s---\n",
			version, kind, name, map[bool]string{true: ", resourceVersion: \"7\""}[strings.HasPrefix(name, "stored")], spec)
	}
	data := `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: spot}
value: 50
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 10
globalDefault: true
---
` + group("PodGroup", "named", "  priorityClassName: spot\n") +
		group("PodGroup", "defaulted", "") +
		group("PodGroup", "given", "  priorityClassName: spot\n  priority: 50\n") +
		group("PodGroup", "missing", "  priorityClassName: silver\n") +
		group("PodGroup", "other", "  priorityClassName: spot\n  priority: 7\n") +
		group("PodGroup", "stored", "  priorityClassName: silver\n  priority: 3\n") +
		group("CompositePodGroup", "composite", "  priorityClassName: spot\n  workloadRef: {workloadName: train, templateName: job}\n")
	gates := func(on bool) features.Features {
		g := features.Default()
		g.EnableGenericWorkload, g.EnableTopologyAwareWorkloadScheduling, g.EnableCompositePodGroup = on, on, on
		return g
	}
	c, r := loadWithGates(t, gates(true), data)
	priorities := map[string]string{}
	for _, pg := range c.PodGroups {
		priorities[pg.Name] = fmt.Sprintf("%s %d", pg.Spec.PriorityClassName, ptrValue(pg.Spec.Priority))
	}
	for _, cpg := range c.CompositePodGroups {
		priorities[cpg.Name] = fmt.Sprintf("%s %d", cpg.Spec.PriorityClassName, ptrValue(cpg.Spec.Priority))
	}
	want := map[string]string{"named": "spot 50", "defaulted": "batch 10", "given": "spot 50", "stored": "silver 3", "composite": "spot 50"}
	if !maps.Equal(priorities, want) {
		t.Errorf("priorities %v, want %v\n%s", priorities, want, r)
	}
	problems := r.String()
	for _, msg := range []string{
		`PodGroup ml/missing: spec.priorityClassName: podgroups.scheduling.k8s.io "missing" is forbidden: no PriorityClass with name silver was found`,
		`PodGroup ml/other: spec.priority: podgroups.scheduling.k8s.io "other" is forbidden: priority set in the pod group (7) must match the priority computed (50) based on the priority class set in the spec`,
		`PodGroup ml/stored: spec.priorityClassName: podgroups.scheduling.k8s.io "stored" is forbidden: no PriorityClass with name silver was found; keeping the stored priority 3`,
	} {
		if !strings.Contains(problems, msg) {
			t.Errorf("problems lack %q:\n%s", msg, problems)
		}
	}
	// The gates off: no admission (and no priority).
	c, _ = loadWithGates(t, gates(false), data)
	for _, pg := range c.PodGroups {
		if pg.Name == "named" && pg.Spec.Priority != nil {
			t.Errorf("GenericWorkload off: named got priority %d", *pg.Spec.Priority)
		}
	}
}

// TestPodGroupPreemptionPolicyAdmission: with PodGroupPreemptionPolicy the
// plugin also sets spec.preemptionPolicy from the class; as upstream's
// API server defaults a new group's policy to PreemptLowerPriority before
// admission, a class whose policy is Never gets the group refused.
func TestPodGroupPreemptionPolicyAdmission(t *testing.T) {
	data := `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: never}
value: 5
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: spot}
value: 50
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: spot, namespace: ml}
spec: {schedulingPolicy: {basic: {}}, priorityClassName: spot}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: never, namespace: ml}
spec: {schedulingPolicy: {basic: {}}, priorityClassName: never}
`
	g := features.Default()
	g.EnableGenericWorkload, g.EnablePodGroupPreemptionPolicy = true, true
	c, r := loadWithGates(t, g, data)
	if len(c.PodGroups) != 1 || c.PodGroups[0].Name != "spot" || ptrValue(c.PodGroups[0].Spec.Priority) != 50 ||
		c.PodGroups[0].Spec.PreemptionPolicy == nil || *c.PodGroups[0].Spec.PreemptionPolicy != schedulingv1beta1.PreemptLowerPriority {
		t.Fatalf("PodGroups %+v\n%s", c.PodGroups, r)
	}
	want := `PodGroup ml/never: spec.preemptionPolicy: podgroups.scheduling.k8s.io "never" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod group spec; priority admission controller computed Never from the given PriorityClass name`
	if !strings.Contains(r.String(), want) {
		t.Errorf("problems lack %q:\n%s", want, r)
	}
}

func loadWithGates(t *testing.T, gates features.Features, data string) (*Cluster, *docread.Report) {
	t.Helper()
	l := NewLoader()
	l.ValidateUnder(gates)
	if err := l.LoadData("groups.yaml", []byte(data)); err != nil {
		t.Fatal(err)
	}
	return l.Finish()
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}
