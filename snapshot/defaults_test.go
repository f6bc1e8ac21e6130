package snapshot

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func q(t *testing.T, rl v1.ResourceList, name v1.ResourceName) string {
	t.Helper()
	v, ok := rl[name]
	if !ok {
		return "<none>"
	}
	return v.String()
}

func TestPodDefaults(t *testing.T) {
	c, r := mustLoad(t, "p.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  hostNetwork: true
  initContainers:
  - name: init
    image: busybox:1.36
    resources:
      limits: {cpu: "2", memory: 1Gi}
      requests: {cpu: 500m}
  containers:
  - name: app
    image: app
    ports:
    - containerPort: 8080
    - containerPort: 9090
      hostPort: 9090
      protocol: UDP
    resources:
      limits: {cpu: 100u, example.com/gpu: "1"}
  - name: side
    image: side@sha256:abcd
  ephemeralContainers:
  - name: debug
    image: debug
  terminationGracePeriodSeconds: -5
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: a}}
`)
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	p := c.Pods[0]
	s := p.Spec
	// requests from limits, init containers included, existing requests kept
	if got := q(t, s.InitContainers[0].Resources.Requests, v1.ResourceCPU); got != "500m" {
		t.Errorf("init cpu request %s", got)
	}
	if got := q(t, s.InitContainers[0].Resources.Requests, v1.ResourceMemory); got != "1Gi" {
		t.Errorf("init memory request %s", got)
	}
	// 100u rounds up to 1m, in limits and in the request copied from it
	if got := q(t, s.Containers[0].Resources.Requests, v1.ResourceCPU); got != "1m" {
		t.Errorf("cpu request %s", got)
	}
	if got := q(t, s.Containers[0].Resources.Limits, v1.ResourceCPU); got != "1m" {
		t.Errorf("cpu limit %s", got)
	}
	if got := q(t, s.Containers[0].Resources.Requests, "example.com/gpu"); got != "1" {
		t.Errorf("gpu request %s", got)
	}
	if s.Containers[1].Resources.Requests != nil {
		t.Errorf("requests invented for a container without limits")
	}
	if s.EphemeralContainers[0].Resources.Requests != nil {
		t.Errorf("ephemeral container got requests")
	}
	// ports
	ports := s.Containers[0].Ports
	if ports[0].Protocol != v1.ProtocolTCP || ports[0].HostPort != 8080 || ports[1].Protocol != v1.ProtocolUDP || ports[1].HostPort != 9090 {
		t.Errorf("ports %+v", ports)
	}
	// pod spec defaults
	if s.SchedulerName != "default-scheduler" || s.RestartPolicy != v1.RestartPolicyAlways || s.DNSPolicy != v1.DNSClusterFirst ||
		s.EnableServiceLinks == nil || !*s.EnableServiceLinks || s.SecurityContext == nil {
		t.Errorf("pod spec defaults missing: %+v", s)
	}
	if s.TerminationGracePeriodSeconds == nil || *s.TerminationGracePeriodSeconds != 1 {
		t.Errorf("negative grace period not raised to 1")
	}
	if s.Containers[0].ImagePullPolicy != v1.PullAlways || s.Containers[1].ImagePullPolicy != v1.PullIfNotPresent ||
		s.InitContainers[0].ImagePullPolicy != v1.PullIfNotPresent || s.EphemeralContainers[0].ImagePullPolicy != v1.PullAlways {
		t.Errorf("pull policies wrong")
	}
	// topology spread constraints: nothing defaulted
	tsc := s.TopologySpreadConstraints[0]
	if tsc.MinDomains != nil || tsc.NodeAffinityPolicy != nil || tsc.NodeTaintsPolicy != nil || len(tsc.MatchLabelKeys) != 0 {
		t.Errorf("topologySpreadConstraints were defaulted: %+v", tsc)
	}
	// namespace, uid, phase, priority
	if p.Namespace != "default" || p.UID == "" || p.Status.Phase != v1.PodPending {
		t.Errorf("namespace %q uid %q phase %q", p.Namespace, p.UID, p.Status.Phase)
	}
	if s.Priority == nil || *s.Priority != 0 || s.PreemptionPolicy == nil || *s.PreemptionPolicy != v1.PreemptLowerPriority || s.PriorityClassName != "" {
		t.Errorf("priority not resolved to 0/PreemptLowerPriority")
	}
}

func TestTerminationGracePeriodDefault(t *testing.T) {
	c, _ := mustLoad(t, "p.yaml", pod("p", ""))
	if g := c.Pods[0].Spec.TerminationGracePeriodSeconds; g == nil || *g != 30 {
		t.Errorf("terminationGracePeriodSeconds %v", g)
	}
}

func TestDeterministicUIDs(t *testing.T) {
	c1, _ := mustLoad(t, "a.yaml", pod("p", "")+"---\n"+nodeN1)
	c2, _ := mustLoad(t, "b.yaml", nodeN1+"---\n"+pod("p", ""))
	if c1.Pods[0].UID != c2.Pods[0].UID || c1.Nodes[0].UID != c2.Nodes[0].UID || c1.Pods[0].UID == c1.Nodes[0].UID {
		t.Errorf("uids not stable: %s %s %s %s", c1.Pods[0].UID, c2.Pods[0].UID, c1.Nodes[0].UID, c2.Nodes[0].UID)
	}
	c3, _ := mustLoad(t, "c.yaml", strings.Replace(pod("p", ""), "name: p", "name: p\n  uid: given", 1))
	if c3.Pods[0].UID != "given" {
		t.Errorf("explicit uid replaced")
	}
}

func TestPodLevelResourcesDefaults(t *testing.T) {
	c, r := mustLoad(t, "p.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources:
    limits: {cpu: "4", hugepages-2Mi: 4Mi}
  initContainers:
  - name: i
    image: i
    resources: {limits: {cpu: "1", memory: 1Gi}}
  containers:
  - name: a
    image: a
    resources: {limits: {cpu: "1", memory: 1Gi}}
  - name: b
    image: b
    resources: {limits: {cpu: "1", memory: 2Gi}}
`)
	if r.HasErrors() {
		t.Fatalf("problems:\n%s", r)
	}
	res := c.Pods[0].Spec.Resources
	// requests: cpu/memory from aggregated container requests (themselves
	// from limits), hugepages from the pod limit.
	if got := q(t, res.Requests, v1.ResourceCPU); got != "2" {
		t.Errorf("pod cpu request %s", got)
	}
	if got := q(t, res.Requests, v1.ResourceMemory); got != "3Gi" {
		t.Errorf("pod memory request %s", got)
	}
	if got := q(t, res.Requests, "hugepages-2Mi"); got != "4Mi" {
		t.Errorf("pod hugepages request %s", got)
	}
	// limits: memory = aggregated container limits, since every container has one.
	if got := q(t, res.Limits, v1.ResourceMemory); got != "3Gi" {
		t.Errorf("pod memory limit %s", got)
	}
	if got := q(t, res.Limits, v1.ResourceCPU); got != "4" {
		t.Errorf("pod cpu limit %s", got)
	}
}

func TestCapturedPodNotMutatedAtCreate(t *testing.T) {
	c, _ := mustLoad(t, "p.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p, resourceVersion: "5", labels: {app: a}}
spec:
  priority: 0
  containers: [{name: c, image: i}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [app]}
status: {phase: Running}
`)
	p := c.Pods[0]
	if len(p.Spec.Tolerations) != 0 {
		t.Errorf("default tolerations added to a captured pod")
	}
	if len(p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchExpressions) != 0 {
		t.Errorf("matchLabelKeys merged into a captured pod")
	}
	if p.Status.Phase != v1.PodRunning {
		t.Errorf("phase %s", p.Status.Phase)
	}
}

func TestCreateTimeMutations(t *testing.T) {
	c, _ := mustLoad(t, "p.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p, labels: {app: a, ver: "2"}}
spec:
  containers: [{name: c, image: i}]
  schedulingGates: [{name: wait}]
  tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [ver, missing]}
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: host, labelSelector: {matchLabels: {app: a}}, mismatchLabelKeys: [ver]}
`)
	p := c.Pods[0]
	exprs := p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchExpressions
	if len(exprs) != 1 || exprs[0].Key != "ver" || exprs[0].Operator != "In" || exprs[0].Values[0] != "2" {
		t.Errorf("spread selector %+v", exprs)
	}
	aexprs := p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchExpressions
	if len(aexprs) != 1 || aexprs[0].Operator != "NotIn" {
		t.Errorf("anti-affinity selector %+v", aexprs)
	}
	// not-ready tolerated already (any effect): only unreachable is added.
	if n := len(p.Spec.Tolerations); n != 2 || p.Spec.Tolerations[1].Key != v1.TaintNodeUnreachable || *p.Spec.Tolerations[1].TolerationSeconds != 300 {
		t.Errorf("tolerations %+v", p.Spec.Tolerations)
	}
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Reason != v1.PodReasonSchedulingGated {
		t.Errorf("conditions %+v", p.Status.Conditions)
	}
	// The registry creates every pod at generation 1 (the scheduler's
	// conditions carry it as their observedGeneration).
	if p.Generation != 1 {
		t.Errorf("generation %d, want 1", p.Generation)
	}
	// Preparing the pod again does not merge the keys again.
	apiserver.PrepareForCreate(p)
	if len(p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchExpressions) != 1 {
		t.Errorf("merge not idempotent")
	}
}

func TestNodeDefaults(t *testing.T) {
	c, r := mustLoad(t, "n.yaml", `apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status:
  capacity: {cpu: "4", memory: 8Gi}
  allocatable: {cpu: 3500m}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
`)
	if r.HasErrors() {
		t.Fatal(r)
	}
	n1, n2, n3 := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	if q(t, n1.Status.Allocatable, v1.ResourceCPU) != "4" || q(t, n1.Status.Allocatable, v1.ResourcePods) != "110" || q(t, n1.Status.Allocatable, v1.ResourceMemory) != "8Gi" {
		t.Errorf("allocatable not defaulted from capacity: %v", n1.Status.Allocatable)
	}
	// a copy, not the same map
	n1.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("1")
	if q(t, n1.Status.Capacity, v1.ResourceCPU) != "4" {
		t.Errorf("allocatable aliases capacity")
	}
	if len(n2.Status.Allocatable) != 1 {
		t.Errorf("present allocatable replaced: %v", n2.Status.Allocatable)
	}
	if n3.Status.Allocatable != nil {
		t.Errorf("allocatable invented without capacity")
	}
}

func TestOtherKindDefaults(t *testing.T) {
	c, r := mustLoad(t, "o.yaml", `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc}
spec: {resources: {requests: {storage: 1Gi}}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
provisioner: example.com/p
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pc}
value: 5
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  selector: {app: x}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss}
spec:
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {}
`)
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	if m := c.PersistentVolumes[0].Spec.VolumeMode; m == nil || *m != v1.PersistentVolumeFilesystem {
		t.Errorf("PV volumeMode %v", m)
	}
	if c.PersistentVolumes[0].Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain || c.PersistentVolumes[0].Status.Phase != v1.VolumePending {
		t.Errorf("PV defaults")
	}
	if m := c.PersistentVolumeClaims[0].Spec.VolumeMode; m == nil || *m != v1.PersistentVolumeFilesystem {
		t.Errorf("PVC volumeMode %v", m)
	}
	sc := c.StorageClasses[0]
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate || sc.ReclaimPolicy == nil || *sc.ReclaimPolicy != v1.PersistentVolumeReclaimDelete {
		t.Errorf("StorageClass defaults")
	}
	var pc = c.PriorityClasses[0]
	if pc.Name != "pc" || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != v1.PreemptLowerPriority {
		t.Errorf("PriorityClass preemptionPolicy")
	}
	rc := c.ReplicationControllers[0]
	if rc.Spec.Selector["app"] != "x" || rc.Labels["app"] != "x" || rc.Spec.Replicas == nil || *rc.Spec.Replicas != 1 {
		t.Errorf("RC selector/labels/replicas: %+v", rc.Spec)
	}
	if rc.Spec.Template.Spec.SchedulerName != v1.DefaultSchedulerName {
		t.Errorf("RC template not defaulted")
	}
	svc := c.Services[0]
	if svc.Spec.Type != v1.ServiceTypeClusterIP || svc.Spec.Ports[0].Protocol != v1.ProtocolTCP || svc.Spec.Ports[0].TargetPort != intstr.FromInt32(80) {
		t.Errorf("Service defaults: %+v", svc.Spec)
	}
	ss := c.StatefulSets[0]
	if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 1 || ss.Spec.PodManagementPolicy != "OrderedReady" {
		t.Errorf("StatefulSet defaults")
	}
	if c.Namespaces[0].Labels[v1.LabelMetadataName] != "team" || c.Namespaces[0].Status.Phase != v1.NamespaceActive {
		t.Errorf("Namespace defaults: %+v", c.Namespaces[0])
	}
	d := c.CSIDrivers[0].Spec
	if d.AttachRequired == nil || !*d.AttachRequired || d.StorageCapacity == nil || *d.StorageCapacity || len(d.VolumeLifecycleModes) != 1 {
		t.Errorf("CSIDriver defaults: %+v", d)
	}
}
