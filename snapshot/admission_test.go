package snapshot

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
