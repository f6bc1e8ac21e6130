package snapshot

// The loader at scale (issue 4): a snapshot of 5000 nodes and 150,000 pods
// must load in at most 1.5× the time it takes to decode the same JSON into
// typed objects. BenchmarkLoadScale measures both on the same bytes and
// reports them, and their ratio, as metrics:
//
//	go test -run='^$' -bench=LoadScale -benchtime=1x ./snapshot
//
// SCHEDTUI_BENCH_NODES and SCHEDTUI_BENCH_PODS override the sizes (e.g. 500
// and 15000 for a quick run). At full size the snapshot is 1.2 GiB of JSON
// and the benchmark needs about 6 GiB of memory.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func benchSize(env string, def int) int {
	if s := os.Getenv(env); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// scaleSnapshot is a generated snapshot: its bytes (one v1 List, as
// `schedtui snapshot -o x.json` writes it) and the kind of every item.
type scaleSnapshot struct {
	data  []byte
	kinds []string
	pods  int
	nodes int
}

var (
	scaleOnce sync.Once
	scaleSnap *scaleSnapshot
)

func getScaleSnapshot(b *testing.B) *scaleSnapshot {
	scaleOnce.Do(func() {
		nodes := benchSize("SCHEDTUI_BENCH_NODES", 5000)
		pods := benchSize("SCHEDTUI_BENCH_PODS", 150000)
		start := time.Now()
		s, err := generateScaleSnapshot(nodes, pods)
		if err != nil {
			b.Fatal(err)
		}
		scaleSnap = s
		b.Logf("generated %d nodes, %d pods, %d objects: %.1f MiB of JSON in %v",
			nodes, pods, len(s.kinds), float64(len(s.data))/(1<<20), time.Since(start).Round(time.Millisecond))
	})
	if scaleSnap == nil {
		b.Fatal("no snapshot")
	}
	return scaleSnap
}

// BenchmarkLoadScale reports, per run: typed-decode-s, the baseline (see
// typedDecode); load-s, Load of the same bytes; and ratio = load / typed
// decode (the budget is 1.5).
func BenchmarkLoadScale(b *testing.B) {
	s := getScaleSnapshot(b)
	var typedTotal, loadTotal time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		n, err := typedDecode(s.data, s.kinds)
		typed := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if n != len(s.kinds) {
			b.Fatalf("typed decode: %d objects, want %d", n, len(s.kinds))
		}

		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		t0 = time.Now()
		c, r, err := Load("scale.json", s.data)
		load := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(c.Nodes) != s.nodes || len(c.Pods) != s.pods || r.HasErrors() {
			b.Fatalf("loaded %d nodes, %d pods (want %d, %d); problems:\n%s", len(c.Nodes), len(c.Pods), s.nodes, s.pods, firstLines(r.String(), 20))
		}
		c, r = nil, nil
		b.StartTimer()

		typedTotal += typed
		loadTotal += load
		b.Logf("%d nodes, %d pods, %.0f MiB: typed decode %.3fs, load %.3fs, ratio %.2f (budget 1.5)",
			s.nodes, s.pods, float64(len(s.data))/(1<<20), typed.Seconds(), load.Seconds(), load.Seconds()/typed.Seconds())
	}
	b.ReportMetric(typedTotal.Seconds()/float64(b.N), "typed-decode-s")
	b.ReportMetric(loadTotal.Seconds()/float64(b.N), "load-s")
	b.ReportMetric(loadTotal.Seconds()/typedTotal.Seconds(), "ratio")
}

func firstLines(s string, lines int) string {
	for i, n := 0, 0; i < len(s); i++ {
		if s[i] == '\n' {
			if n++; n == lines {
				return s[:i+1] + "...\n"
			}
		}
	}
	return s
}

// typedDecode is the baseline: what it costs to turn the bytes into typed
// objects and nothing else, the plain way. It splits the List into its
// items with one encoding/json pass (json.RawMessage items, as a
// corev1.List's RawExtensions would hold them), then decodes every item
// into a new object of its Go type with sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, the non-strict decode apimachinery's
// JSON serializer does (about as fast as encoding/json; Load decodes
// strictly, which costs about the same).
//
// To keep the baseline a lower bound it is told each item's kind (the
// generator knows them) instead of reading apiVersion and kind from the
// item as any real decoder must, and it keeps nothing but the objects: no
// defaulting, validation, de-duplication, line tracking or admission.
// It runs on one goroutine, as a plain decode does; Load decodes a List's
// items on GOMAXPROCS goroutines. Run the benchmark with GOMAXPROCS=1 to
// compare the two on one core. About a third of the baseline is the
// encoding/json split, which Load does with its own scanner.
func typedDecode(data []byte, kinds []string) (int, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return 0, err
	}
	if len(list.Items) != len(kinds) {
		return 0, fmt.Errorf("%d items, want %d", len(list.Items), len(kinds))
	}
	objs := make([]k8sruntime.Object, len(list.Items))
	for i, it := range list.Items {
		ki := supportedKinds[kinds[i]]
		obj := ki.newObj()
		if err := kjson.UnmarshalCaseSensitivePreserveInts(it, obj); err != nil {
			return 0, fmt.Errorf("item %d (%s): %w", i, kinds[i], err)
		}
		objs[i] = obj
	}
	runtime.KeepAlive(objs)
	return len(objs), nil
}

// --- the generated cluster ---------------------------------------------------

// scaleGen makes a cluster that looks like a large production one: node
// pools with their labels, taints and images, deployments (ReplicaSets)
// and DaemonSets whose pods carry what the API server stores for them
// (owner references, the projected service-account volume, default
// tolerations, status with conditions and container statuses).
type scaleGen struct {
	namespaces []string
	pools      []nodePool
	apps       []scaleApp
	created    metav1.Time
}

type nodePool struct {
	name, instanceType string
	cpu, memory, gpus  int64
	taint              *v1.Taint
}

type scaleApp struct {
	ns, name, hash string
	rsUID          types.UID
	kind           string // "ReplicaSet" or "DaemonSet"
	priorityClass  string
	priority       int32
	cpu, mem       string
	limits         bool
	sidecar        bool
	spread         bool
	antiAffinity   bool
	nodeAffinity   bool
	tolerateGPU    bool
	ports          []int32
}

var scaleImages = []string{
	"registry.k8s.io/kube-proxy:v1.37.1", "registry.k8s.io/pause:3.10", "docker.io/calico/node:v3.29.1",
	"docker.io/calico/cni:v3.29.1", "quay.io/prometheus/node-exporter:v1.9.0", "registry.k8s.io/coredns/coredns:v1.12.0",
	"docker.io/library/nginx:1.27.3", "docker.io/library/redis:7.4.1", "gcr.io/example/api-server:2026.01.14-3f2a9c1",
	"gcr.io/example/frontend:2026.01.12-a81c0de", "gcr.io/example/worker:2026.01.15-77b2f10", "docker.io/envoyproxy/envoy:v1.32.2",
	"docker.io/fluent/fluent-bit:3.2.4", "registry.k8s.io/metrics-server/metrics-server:v0.7.2", "docker.io/library/postgres:17.2",
	"quay.io/jetstack/cert-manager-controller:v1.16.2", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "docker.io/istio/proxyv2:1.24.2",
	"gcr.io/example/batch-runner:2026.01.10-0c3e4a2", "docker.io/grafana/promtail:3.3.2", "ghcr.io/example/search-indexer:v4.2.0",
	"docker.io/library/busybox:1.37", "docker.io/bitnami/kafka:3.9.0", "gcr.io/example/ml-inference:2026.01.02-cuda12",
}

func newScaleGen(nodes, pods int) *scaleGen {
	g := &scaleGen{created: metav1.NewTime(time.Date(2025, 11, 3, 9, 12, 44, 0, time.UTC))}
	for i := 0; i < 12; i++ {
		g.namespaces = append(g.namespaces, fmt.Sprintf("team-%02d", i))
	}
	g.namespaces = append(g.namespaces, "kube-system", "monitoring", "ingress")
	g.pools = []nodePool{
		{name: "general", instanceType: "m6i.4xlarge", cpu: 16, memory: 64},
		{name: "general-large", instanceType: "m6i.8xlarge", cpu: 32, memory: 128},
		{name: "memory", instanceType: "r6i.4xlarge", cpu: 16, memory: 128},
		{name: "compute", instanceType: "c6i.8xlarge", cpu: 32, memory: 64},
		{name: "gpu", instanceType: "p4d.24xlarge", cpu: 96, memory: 1152, gpus: 8,
			taint: &v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}},
		{name: "batch", instanceType: "c6i.4xlarge", cpu: 16, memory: 32,
			taint: &v1.Taint{Key: "workload", Value: "batch", Effect: v1.TaintEffectNoSchedule}},
	}
	// Daemons run on every node; the rest of the pods belong to apps of
	// 5 to 200 replicas.
	daemons := []string{"kube-proxy", "calico-node", "node-exporter"}
	for _, d := range daemons {
		g.apps = append(g.apps, g.app("kube-system", d, "DaemonSet", len(g.apps)))
	}
	perDaemon := nodes
	remaining := pods - perDaemon*len(daemons)
	if remaining < 0 {
		remaining = 0
	}
	for remaining > 0 {
		a := g.app(g.namespaces[len(g.apps)%12], "", "ReplicaSet", len(g.apps))
		g.apps = append(g.apps, a)
		remaining -= 5 + len(g.apps)*37%196
	}
	return g
}

var scaleAppNames = []string{"api", "frontend", "worker", "cache", "search", "checkout", "payments", "auth", "gateway", "indexer", "ml-serving", "batch"}

func (g *scaleGen) app(ns, name, kind string, i int) scaleApp {
	if name == "" {
		name = fmt.Sprintf("%s-%d", scaleAppNames[i%len(scaleAppNames)], i)
	}
	sum := deriveUID(kind, ns, name)
	a := scaleApp{ns: ns, name: name, kind: kind, rsUID: sum, hash: string(sum)[:8] + string(sum)[9:11]}
	a.cpu = []string{"100m", "250m", "500m", "1", "2"}[i%5]
	a.mem = []string{"128Mi", "256Mi", "512Mi", "1Gi", "4Gi"}[i*3%5]
	a.limits = i%3 != 0
	a.sidecar = i%4 == 1
	a.spread = i%5 == 2
	a.antiAffinity = i%7 == 3
	a.nodeAffinity = i%6 == 4
	a.tolerateGPU = i%11 == 5
	a.ports = []int32{8080}
	if i%2 == 0 {
		a.ports = append(a.ports, 9090)
	}
	switch {
	case kind == "DaemonSet":
		a.priorityClass, a.priority = "system-node-critical", apiserver.SystemCriticalPriority+1000
		a.cpu, a.mem, a.limits, a.ports = "100m", "128Mi", false, nil
	case i%4 == 0:
		a.priorityClass, a.priority = "high", 100000
	case i%4 == 1:
		a.priorityClass, a.priority = "low", 1000
	default:
		a.priorityClass, a.priority = "standard", 10000 // the global default
	}
	return a
}

func (g *scaleGen) meta(kind, ns, name string, i int) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: ns, UID: deriveUID(kind, ns, name),
		ResourceVersion:   strconv.Itoa(1000000 + i),
		CreationTimestamp: metav1.NewTime(g.created.Add(time.Duration(i) * time.Second)),
	}
}

func mq(s string) resource.Quantity { return resource.MustParse(s) }

func (g *scaleGen) node(i int) *v1.Node {
	p := g.pools[i%len(g.pools)]
	if i%10 < 6 { // most nodes are general purpose
		p = g.pools[i%2]
	}
	zone := []string{"a", "b", "c"}[i%3]
	name := fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", i/65536%256, i/256%256, i%256)
	n := &v1.Node{ObjectMeta: g.meta("Node", "", name, i)}
	n.Labels = map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
		"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
		"node.kubernetes.io/instance-type": p.instanceType, "beta.kubernetes.io/instance-type": p.instanceType,
		"topology.kubernetes.io/region": "eu-west-1", "topology.kubernetes.io/zone": "eu-west-1" + zone,
		"failure-domain.beta.kubernetes.io/region": "eu-west-1", "failure-domain.beta.kubernetes.io/zone": "eu-west-1" + zone,
		"example.com/nodepool": p.name, "example.com/capacity-type": []string{"on-demand", "spot"}[i%2],
		"topology.ebs.csi.aws.com/zone": "eu-west-1" + zone,
	}
	n.Annotations = map[string]string{
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
		"csi.volume.kubernetes.io/nodeid":                        `{"ebs.csi.aws.com":"i-0` + fmt.Sprintf("%016x", i*7919) + `"}`,
	}
	n.Spec.PodCIDR = fmt.Sprintf("10.%d.%d.0/24", 100+i/256%100, i%256)
	n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	n.Spec.ProviderID = fmt.Sprintf("aws:///eu-west-1%s/i-0%016x", zone, i*7919)
	if p.taint != nil {
		n.Spec.Taints = []v1.Taint{*p.taint}
	}
	if i%97 == 13 {
		n.Spec.Unschedulable = true
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule, TimeAdded: &g.created})
	}
	n.Status.Capacity = v1.ResourceList{
		v1.ResourceCPU: *resource.NewQuantity(p.cpu, resource.DecimalSI), v1.ResourceMemory: mq(fmt.Sprintf("%dKi", p.memory*1024*1024-1000)),
		v1.ResourceEphemeralStorage: mq("209702892Ki"), v1.ResourcePods: mq("110"),
		"hugepages-1Gi": mq("0"), "hugepages-2Mi": mq("0"), "attachable-volumes-aws-ebs": mq("25"),
	}
	n.Status.Allocatable = v1.ResourceList{
		v1.ResourceCPU: *resource.NewMilliQuantity(p.cpu*1000-90-p.cpu*6, resource.DecimalSI), v1.ResourceMemory: mq(fmt.Sprintf("%dKi", p.memory*1024*1024-1000-1800000)),
		v1.ResourceEphemeralStorage: mq("192188443124"), v1.ResourcePods: mq("110"),
		"hugepages-1Gi": mq("0"), "hugepages-2Mi": mq("0"), "attachable-volumes-aws-ebs": mq("25"),
	}
	if p.gpus > 0 {
		n.Status.Capacity["nvidia.com/gpu"] = *resource.NewQuantity(p.gpus, resource.DecimalSI)
		n.Status.Allocatable["nvidia.com/gpu"] = *resource.NewQuantity(p.gpus, resource.DecimalSI)
	}
	hb := metav1.NewTime(g.created.Add(40 * 24 * time.Hour))
	for _, c := range []struct {
		t               v1.NodeConditionType
		s               v1.ConditionStatus
		reason, reason2 string
	}{
		{v1.NodeMemoryPressure, v1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
		{v1.NodeDiskPressure, v1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
		{v1.NodePIDPressure, v1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
		{v1.NodeReady, v1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"},
	} {
		n.Status.Conditions = append(n.Status.Conditions, v1.NodeCondition{Type: c.t, Status: c.s, Reason: c.reason, Message: c.reason2,
			LastHeartbeatTime: hb, LastTransitionTime: g.created})
	}
	ip := fmt.Sprintf("10.%d.%d.%d", i/65536%256, i/256%256, i%256)
	n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}, {Type: v1.NodeInternalDNS, Address: name}, {Type: v1.NodeHostName, Address: name}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = 10250
	n.Status.NodeInfo = v1.NodeSystemInfo{
		MachineID: fmt.Sprintf("ec2%029x", i), SystemUUID: fmt.Sprintf("ec2%05x-1b2c-4d3e-8f90-%012x", i, i*31), BootID: string(deriveUID("boot", "", name)),
		KernelVersion: "6.1.119-129.201.amzn2023.x86_64", OSImage: "Amazon Linux 2023.6.20250107", ContainerRuntimeVersion: "containerd://1.7.25",
		KubeletVersion: "v1.37.1", KubeProxyVersion: "v1.37.1", OperatingSystem: "linux", Architecture: "amd64",
	}
	for j := 0; j < 18; j++ {
		img := scaleImages[(i+j*5)%len(scaleImages)]
		digest := fmt.Sprintf("sha256:%064x", (i*131+j*7)%4096+j*100000)
		repo := img[:bytes.LastIndexByte([]byte(img), ':')]
		n.Status.Images = append(n.Status.Images, v1.ContainerImage{Names: []string{repo + "@" + digest, img}, SizeBytes: int64(20000000 + j*13456789)})
	}
	return n
}

func (g *scaleGen) pod(a *scaleApp, idx, seq int, node string) *v1.Pod {
	// A unique 5-character suffix from the API server's alphabet.
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var suffix [5]byte
	for i, n := 0, idx*7919+seq; i < len(suffix); i, n = i+1, n/len(alphabet) {
		suffix[i] = alphabet[n%len(alphabet)]
	}
	name := fmt.Sprintf("%s-%s-%s", a.name, a.hash, suffix[:])
	if a.kind == "DaemonSet" {
		name = fmt.Sprintf("%s-%s", a.name, suffix[:])
	}
	p := &v1.Pod{ObjectMeta: g.meta("Pod", a.ns, name, 10000+seq)}
	p.GenerateName = name[:len(name)-5]
	p.Labels = map[string]string{"app.kubernetes.io/name": a.name, "app.kubernetes.io/part-of": "shop", "pod-template-hash": a.hash}
	if a.kind == "DaemonSet" {
		p.Labels = map[string]string{"k8s-app": a.name, "controller-revision-hash": a.hash, "pod-template-generation": "3"}
	}
	p.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2025-12-01T10:00:00Z"}
	owner := a.name + "-" + a.hash
	if a.kind == "DaemonSet" {
		owner = a.name
	}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: a.kind, Name: owner, UID: a.rsUID,
		Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}}
	ctr := func(name, image, cpu, mem string, ports []int32) v1.Container {
		c := v1.Container{Name: name, Image: image, ImagePullPolicy: v1.PullIfNotPresent,
			TerminationMessagePath: v1.TerminationMessagePathDefault, TerminationMessagePolicy: v1.TerminationMessageReadFile,
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: mq(cpu), v1.ResourceMemory: mq(mem)}},
			Env: []v1.EnvVar{{Name: "POD_NAME", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
				{Name: "LOG_LEVEL", Value: "info"}},
			VolumeMounts: []v1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
		}
		if a.limits {
			c.Resources.Limits = v1.ResourceList{v1.ResourceMemory: mq(mem)}
		}
		for _, port := range ports {
			c.Ports = append(c.Ports, v1.ContainerPort{Name: "p" + strconv.Itoa(int(port)), ContainerPort: port, Protocol: v1.ProtocolTCP})
		}
		if len(ports) > 0 {
			probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(ports[0]), Scheme: v1.URISchemeHTTP}},
				PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
			c.ReadinessProbe, c.LivenessProbe = probe, probe
		}
		return c
	}
	spec := &p.Spec
	spec.Containers = []v1.Container{ctr(a.name, scaleImages[seq%len(scaleImages)], a.cpu, a.mem, a.ports)}
	if a.sidecar {
		spec.Containers = append(spec.Containers, ctr("envoy", "docker.io/envoyproxy/envoy:v1.32.2", "50m", "64Mi", []int32{15090}))
	}
	spec.Volumes = []v1.Volume{{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
		DefaultMode: ptrTo[int32](420),
		Sources: []v1.VolumeProjection{
			{ServiceAccountToken: &v1.ServiceAccountTokenProjection{ExpirationSeconds: ptrTo[int64](3607), Path: "token"}},
			{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []v1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &v1.DownwardAPIProjection{Items: []v1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}}}
	spec.RestartPolicy, spec.DNSPolicy, spec.SchedulerName = v1.RestartPolicyAlways, v1.DNSClusterFirst, v1.DefaultSchedulerName
	spec.TerminationGracePeriodSeconds = ptrTo[int64](30)
	spec.ServiceAccountName, spec.DeprecatedServiceAccount = "default", "default"
	spec.SecurityContext = &v1.PodSecurityContext{}
	spec.EnableServiceLinks = ptrTo(true)
	spec.PriorityClassName, spec.Priority = a.priorityClass, ptrTo(a.priority)
	spec.PreemptionPolicy = ptrTo(v1.PreemptLowerPriority)
	spec.NodeName = node
	spec.Tolerations = []v1.Toleration{
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
	}
	if a.kind == "DaemonSet" {
		spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
		spec.HostNetwork = true
	}
	if a.tolerateGPU {
		spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": a.name}}
	if a.spread {
		spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel},
			{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel},
		}
	}
	if a.antiAffinity || a.nodeAffinity {
		spec.Affinity = &v1.Affinity{}
	}
	if a.antiAffinity {
		spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
			{Weight: 100, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: "kubernetes.io/hostname"}}}}
	}
	if a.nodeAffinity {
		spec.Affinity.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "example.com/nodepool", Operator: v1.NodeSelectorOpIn, Values: []string{"general", "general-large", "compute"}}}}}}}
	}
	if seq%3 == 0 {
		spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	}

	st := &p.Status
	if node == "" {
		st.Phase = v1.PodPending
		st.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
			Message:            "0/5000 nodes are available: 1667 Insufficient cpu, 3333 node(s) didn't match Pod's node affinity/selector. preemption: 0/5000 nodes are available: 5000 No preemption victims found for incoming pod.",
			LastTransitionTime: g.created}}
		st.QOSClass = v1.PodQOSBurstable
		return p
	}
	started := metav1.NewTime(g.created.Add(time.Duration(seq) * time.Second))
	st.Phase = v1.PodRunning
	for _, t := range []v1.PodConditionType{"PodReadyToStartContainers", v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled} {
		st.Conditions = append(st.Conditions, v1.PodCondition{Type: t, Status: v1.ConditionTrue, LastTransitionTime: started})
	}
	st.HostIP = fmt.Sprintf("10.0.%d.%d", seq/256%256, seq%256)
	st.HostIPs = []v1.HostIP{{IP: st.HostIP}}
	st.PodIP = fmt.Sprintf("10.%d.%d.%d", 100+seq/65536%100, seq/256%256, seq%256)
	st.PodIPs = []v1.PodIP{{IP: st.PodIP}}
	st.StartTime = &started
	st.QOSClass = v1.PodQOSBurstable
	for _, c := range spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, v1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:" + fmt.Sprintf("%064x", seq), Ready: true, Started: ptrTo(true),
			ContainerID: "containerd://" + fmt.Sprintf("%064x", seq*31+len(c.Name)), RestartCount: int32(seq % 3),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}},
			VolumeMounts: []v1.VolumeMountStatus{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
				ReadOnly: true, RecursiveReadOnly: ptrTo(v1.RecursiveReadOnlyDisabled)}},
		})
	}
	return p
}

// objects returns every object of the cluster, in Write's order.
func (g *scaleGen) objects(nodes, pods int, emit func(o k8sruntime.Object) error) error {
	for i, ns := range g.namespaces {
		o := &v1.Namespace{ObjectMeta: g.meta("Namespace", "", ns, i)}
		o.Labels = map[string]string{v1.LabelMetadataName: ns}
		o.Status.Phase = v1.NamespaceActive
		if err := emit(o); err != nil {
			return err
		}
	}
	for i, pc := range []struct {
		name  string
		value int32
		def   bool
	}{{"high", 100000, false}, {"standard", 10000, true}, {"low", 1000, false}} {
		o := &schedulingv1.PriorityClass{ObjectMeta: g.meta("PriorityClass", "", pc.name, i), Value: pc.value, GlobalDefault: pc.def,
			PreemptionPolicy: ptrTo(v1.PreemptLowerPriority), Description: "priority " + pc.name}
		if err := emit(o); err != nil {
			return err
		}
	}
	nodeNames := make([]string, nodes)
	for i := 0; i < nodes; i++ {
		n := g.node(i)
		nodeNames[i] = n.Name
		if err := emit(n); err != nil {
			return err
		}
	}
	for i := range g.apps {
		a := &g.apps[i]
		if a.kind == "DaemonSet" {
			continue
		}
		svc := &v1.Service{ObjectMeta: g.meta("Service", a.ns, a.name, i)}
		svc.Spec = v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, ClusterIP: fmt.Sprintf("172.20.%d.%d", i/256%256, i%256),
			Selector:        map[string]string{"app.kubernetes.io/name": a.name},
			SessionAffinity: v1.ServiceAffinityNone, InternalTrafficPolicy: ptrTo(v1.ServiceInternalTrafficPolicyCluster),
			Ports: []v1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: v1.ProtocolTCP}}}
		if err := emit(svc); err != nil {
			return err
		}
	}
	for i := range g.apps {
		a := &g.apps[i]
		labels := map[string]string{"app.kubernetes.io/name": a.name}
		tmpl := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: v1.PodSpec{
			Containers: []v1.Container{{Name: a.name, Image: scaleImages[i%len(scaleImages)],
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: mq(a.cpu), v1.ResourceMemory: mq(a.mem)}}}},
			PriorityClassName: a.priorityClass}}
		if a.kind == "DaemonSet" {
			ds := &appsv1.DaemonSet{ObjectMeta: g.meta("DaemonSet", a.ns, a.name, i)}
			ds.UID = a.rsUID
			ds.Spec = appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}
			if err := emit(ds); err != nil {
				return err
			}
			continue
		}
		rs := &appsv1.ReplicaSet{ObjectMeta: g.meta("ReplicaSet", a.ns, a.name+"-"+a.hash, i)}
		rs.UID = a.rsUID
		rs.Spec = appsv1.ReplicaSetSpec{Replicas: ptrTo[int32](10), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}
		if err := emit(rs); err != nil {
			return err
		}
	}
	for i := range g.apps {
		a := &g.apps[i]
		if a.kind == "DaemonSet" || i%3 != 0 {
			continue
		}
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: g.meta("PodDisruptionBudget", a.ns, a.name, i)}
		pdb.Spec = policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptrTo(intstr.FromString("10%")),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": a.name}}}
		if err := emit(pdb); err != nil {
			return err
		}
	}
	// Pods: the daemons' on every node, then the apps' round robin over
	// the nodes; one in 50 app pods is pending.
	seq := 0
	for d := 0; d < 3 && seq < pods; d++ {
		for i := 0; i < nodes && seq < pods; i++ {
			if err := emit(g.pod(&g.apps[d], i, seq, nodeNames[i])); err != nil {
				return err
			}
			seq++
		}
	}
	for ai, idx := 3, 0; seq < pods; idx++ {
		if ai >= len(g.apps) {
			ai = 3
		}
		a := &g.apps[ai]
		node := nodeNames[seq*7%nodes]
		if seq%50 == 7 {
			node = ""
		}
		if err := emit(g.pod(a, idx, seq, node)); err != nil {
			return err
		}
		seq++
		if idx%(5+ai*37%196) == 0 {
			ai++
		}
	}
	return nil
}

// generateScaleSnapshot writes the cluster as `schedtui snapshot` does (one
// indented v1 List with the capture header as annotations), one object at
// a time so that the typed objects never all exist at once.
func generateScaleSnapshot(nodes, pods int) (*scaleSnapshot, error) {
	g := newScaleGen(nodes, pods)
	s := &scaleSnapshot{nodes: nodes, pods: pods}
	var buf bytes.Buffer
	buf.Grow(pods * 8500)
	ann, _ := json.MarshalIndent(Header{CapturedAt: g.created.Time, Context: "prod-eu-west-1", Source: "https://api.prod.example.com",
		ServerVersion: "v1.37.1", SchedtuiVersion: "dev"}.annotations(), "      ", "  ")
	buf.WriteString("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"metadata\": {\n    \"annotations\": ")
	buf.Write(ann)
	buf.WriteString("\n  },\n  \"items\": [")
	first := true
	err := g.objects(nodes, pods, func(o k8sruntime.Object) error {
		// What encodeObject writes, without its copy: the generated
		// objects are not shared and have no managedFields.
		ki := kindsByType[reflect.TypeOf(o)]
		o.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
		b, err := json.MarshalIndent(o, "    ", "  ")
		if err != nil {
			return err
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.WriteString("\n    ")
		buf.Write(b)
		s.kinds = append(s.kinds, ki.kind)
		return nil
	})
	if err != nil {
		return nil, err
	}
	buf.WriteString("\n  ]\n}\n")
	s.data = bytes.Clone(buf.Bytes())
	return s, nil
}

// TestLoadParallelItems checks that decoding a large List's items on
// several goroutines changes nothing: the same objects and the same
// problems, in the same order, as one goroutine.
func TestLoadParallelItems(t *testing.T) {
	var items []string
	for i := 0; i < 300; i++ {
		switch i % 15 {
		case 0:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"5x"}}}]}}`, i))
		case 1:
			items = append(items, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup"},"spec":{"containers":[{"name":"c","image":"i"}]},"bogus":1}`)
		case 2:
			items = append(items, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)
		case 3:
			items = append(items, `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"gen-"},"spec":{"containers":[{"name":"c","image":"i"}]}}`)
		case 4:
			items = append(items, `null`, `7`, `{"kind":"Node"}`, `{"apiVersion":"v2","kind":"Node","metadata":{"name":"x"}}`)
		case 5:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"ln%d"}},{"metadata":{"name":"ln%d","namespace":"x"},"status":{"capacity":{"cpu":"-1"}}}]}`, i, i+1))
		case 6:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","Kind":"Pod","kind":"Pod","metadata":{"name":"k%d"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, i))
		case 7:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n%d"},"spec":{"nodeName":"missing","priorityClassName":"nope","containers":[{"name":"c","image":"i"}]}}`, i))
		case 8:
			items = append(items, fmt.Sprintf(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc%d"},"value":%d,"globalDefault":true}`, i, i))
		default:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d","labels":{"a":"b"}},
  "status":{"capacity":{"cpu":"4","memory":"8Gi"}}}`, i))
		}
	}
	data := []byte("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n" + strings.Join(items, ",\n") + "\n]}\n")
	load := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c, r, err := Load("big.json", data)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(r.String())
		for _, o := range c.Objects() {
			j, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		return b.String()
	}
	serial, parallel := load(1), load(4)
	if serial != parallel {
		t.Fatalf("parallel decoding changed the result:\n--- one goroutine\n%s\n--- several\n%s", serial, parallel)
	}
	for _, want := range []string{
		"big.json:2: Pod default/p0: spec.containers[0].resources.requests.cpu:",
		"big.json:27: Pod default/dup: metadata.name: pods \"dup\" already exists (first defined at big.json:3)",
		"big.json:3: warning: Pod default/dup: bogus: unknown field (ignored)",
		"big.json:10: warning: Node x/ln6: metadata.namespace: Node is cluster-scoped",
		"kind ConfigMap (apiVersion v1) is not read by schedtui: 20 objects skipped",
		"big.json:6: document is not an object",
	} {
		if !strings.Contains(serial, want) {
			t.Errorf("missing %q in\n%s", want, firstLines(serial, 40))
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
