// Package scalegen generates the scale benchmarks' cluster: a snapshot of
// a large production cluster (node pools, deployments, DaemonSets, their
// pods as the API server stores them), as `schedtui snapshot` writes it.
// The loader's (snapshot), the TUI's (tui) and the first screen's
// benchmarks read the same bytes.
package scalegen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// --- the generated cluster ---------------------------------------------------

// scaleGen makes a cluster that looks like a large production one: node
// pools with their labels, taints and images, deployments (ReplicaSets)
// and DaemonSets whose pods carry what the API server stores for them
// (owner references, the projected service-account volume, default
// tolerations, status with conditions and container statuses).
type scaleGen struct {
	namespaces []string
	pools      []nodePool
	apps       []scaleApp // the daemons' first
	daemons    int        // how many of apps are DaemonSets
	created    metav1.Time
	// One app pod in pendingEvery is pending.
	pendingEvery int
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

// baseNodes is the size up to which the cluster has the shape it had
// before it grew past 15,000 nodes (six node pools, twelve teams, three
// daemons, one app pod in 50 pending): the benchmarks' 15,000-node
// snapshot stays byte-identical.
const baseNodes = 15000

var basePools = []nodePool{
	{name: "general", instanceType: "m6i.4xlarge", cpu: 16, memory: 64},
	{name: "general-large", instanceType: "m6i.8xlarge", cpu: 32, memory: 128},
	{name: "memory", instanceType: "r6i.4xlarge", cpu: 16, memory: 128},
	{name: "compute", instanceType: "c6i.8xlarge", cpu: 32, memory: 64},
	{name: "gpu", instanceType: "p4d.24xlarge", cpu: 96, memory: 1152, gpus: 8,
		taint: &v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}},
	{name: "batch", instanceType: "c6i.4xlarge", cpu: 16, memory: 32,
		taint: &v1.Taint{Key: "workload", Value: "batch", Effect: v1.TaintEffectNoSchedule}},
}

// largePools are the pools a cluster past baseNodes adds, one per 10,000
// nodes beyond it, as a managed cluster of 50,000 nodes has more instance
// families (and a tainted pool for inference).
var largePools = []nodePool{
	{name: "general-m7i", instanceType: "m7i.4xlarge", cpu: 16, memory: 64},
	{name: "memory-large", instanceType: "r6i.8xlarge", cpu: 32, memory: 256},
	{name: "compute-large", instanceType: "c6i.16xlarge", cpu: 64, memory: 128},
	{name: "inference", instanceType: "g5.12xlarge", cpu: 48, memory: 192, gpus: 4,
		taint: &v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}},
	{name: "general-xlarge", instanceType: "m6i.16xlarge", cpu: 64, memory: 256},
}

// largeDaemons are the node daemons a cluster past baseNodes adds to
// kube-proxy, calico-node and node-exporter: the CSI driver's node plugin
// and the log shipper.
var largeDaemons = []string{"ebs-csi-node", "fluent-bit"}

func newScaleGen(nodes, pods int) *scaleGen {
	g := &scaleGen{created: metav1.NewTime(time.Date(2025, 11, 3, 9, 12, 44, 0, time.UTC))}
	// Twelve teams, and one more per 1,250 nodes past baseNodes.
	teams := 12
	if nodes > baseNodes {
		teams += (nodes - baseNodes) / 1250
	}
	for i := 0; i < teams; i++ {
		g.namespaces = append(g.namespaces, fmt.Sprintf("team-%02d", i))
	}
	g.namespaces = append(g.namespaces, "kube-system", "monitoring", "ingress")
	g.pools = basePools
	g.pendingEvery = 50
	daemons := []string{"kube-proxy", "calico-node", "node-exporter"}
	if nodes > baseNodes {
		extra := min(len(largePools), (nodes-baseNodes+9999)/10000)
		g.pools = append(slices.Clip(basePools), largePools[:extra]...)
		daemons = append(daemons, largeDaemons...)
		// A cluster this large is mostly settled: about one app pod in
		// a thousand pending.
		g.pendingEvery = 1000
	}
	// Daemons run on every node; the rest of the pods belong to apps of
	// 5 to 200 replicas.
	for _, d := range daemons {
		g.apps = append(g.apps, g.app("kube-system", d, "DaemonSet", len(g.apps)))
	}
	g.daemons = len(daemons)
	perDaemon := nodes
	remaining := pods - perDaemon*len(daemons)
	if remaining < 0 {
		remaining = 0
	}
	for remaining > 0 {
		a := g.app(g.namespaces[len(g.apps)%teams], "", "ReplicaSet", len(g.apps))
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
	sum := uid(kind, ns, name)
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
		Name: name, Namespace: ns, UID: uid(kind, ns, name),
		ResourceVersion:   strconv.Itoa(1000000 + i),
		CreationTimestamp: metav1.NewTime(g.created.Add(time.Duration(i) * time.Second)),
	}
}

func mq(s string) resource.Quantity { return resource.MustParse(s) }

func (g *scaleGen) node(i int) *v1.Node {
	p := g.pools[i%len(g.pools)]
	switch {
	case i%10 < 6: // most nodes are general purpose
		p = g.pools[i%2]
	case len(g.pools) > len(basePools):
		// The four nodes in ten not general purpose take the other pools
		// in turn.
		p = g.pools[2+(i/10*4+i%10-6)%(len(g.pools)-2)]
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
	if i >= 25600 { // 10.100.0.0 to 10.199.255.0 are taken: the shared address space's
		n.Spec.PodCIDR = fmt.Sprintf("100.%d.%d.0/24", 64+(i-25600)/256, i%256)
	}
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
		MachineID: fmt.Sprintf("ec2%029x", i), SystemUUID: fmt.Sprintf("ec2%05x-1b2c-4d3e-8f90-%012x", i, i*31), BootID: string(uid("boot", "", name)),
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
	// The resources a v1.37 kubelet writes with its default gates
	// (InPlacePodVerticalScaling, InPlacePodLevelResourcesVerticalScaling):
	// each container's allocated and actuated resources, and the pod's
	// (the kubelet's sum is component-helpers' PodRequests).
	for _, c := range spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, v1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:" + fmt.Sprintf("%064x", seq), Ready: true, Started: ptrTo(true),
			ContainerID: "containerd://" + fmt.Sprintf("%064x", seq*31+len(c.Name)), RestartCount: int32(seq % 3),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}},
			VolumeMounts: []v1.VolumeMountStatus{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
				ReadOnly: true, RecursiveReadOnly: ptrTo(v1.RecursiveReadOnlyDisabled)}},
			AllocatedResources: c.Resources.Requests.DeepCopy(),
			Resources:          c.Resources.DeepCopy(),
		})
	}
	st.AllocatedResources = resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	st.Resources = &v1.ResourceRequirements{Requests: st.AllocatedResources.DeepCopy()}
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
	// the nodes; one in pendingEvery app pods is pending.
	seq := 0
	for d := 0; d < g.daemons && seq < pods; d++ {
		for i := 0; i < nodes && seq < pods; i++ {
			if err := emit(g.pod(&g.apps[d], i, seq, nodeNames[i])); err != nil {
				return err
			}
			seq++
		}
	}
	for ai, idx := g.daemons, 0; seq < pods; idx++ {
		if ai >= len(g.apps) {
			ai = g.daemons
		}
		a := &g.apps[ai]
		node := nodeNames[seq*7%nodes]
		if seq%g.pendingEvery == 7 {
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

// Snapshot is a generated cluster: its bytes (one indented v1 List, as
// `schedtui snapshot -o x.json` writes it) and the kind of every item.
type Snapshot struct {
	Data  []byte
	Kinds []string
	Nodes int
	Pods  int
}

// Generate is the cluster of nodes nodes and pods pods (see Write) in
// memory.
func Generate(nodes, pods int, annotations map[string]string) (*Snapshot, error) {
	var buf bytes.Buffer
	buf.Grow(pods * 8500)
	kinds, err := Write(&buf, nodes, pods, annotations)
	if err != nil {
		return nil, err
	}
	return &Snapshot{Data: bytes.Clone(buf.Bytes()), Kinds: kinds, Nodes: nodes, Pods: pods}, nil
}

// Write writes a cluster of nodes nodes and pods pods (three DaemonSets'
// on every node, the rest in deployments of 5 to 200 replicas, one in 50
// of those pending; past 15,000 nodes more pools, teams and daemons, and
// one app pod in 1000 pending), with annotations as the List's (a capture header,
// or none), one object at a time so that the typed objects never all
// exist at once, and returns the kind of every item. About 8 KiB of JSON
// a pod.
func Write(w io.Writer, nodes, pods int, annotations map[string]string) ([]string, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"metadata\": {")
	if len(annotations) > 0 {
		ann, err := json.MarshalIndent(annotations, "      ", "  ")
		if err != nil {
			return nil, err
		}
		bw.WriteString("\n    \"annotations\": ")
		bw.Write(ann)
		bw.WriteString("\n  ")
	}
	bw.WriteString("},\n  \"items\": [")
	first := true
	var kinds []string
	// What `schedtui snapshot` writes: the typed object with its
	// apiVersion and kind (the generated objects have no managedFields to
	// strip).
	err := Objects(nodes, pods, func(o k8sruntime.Object) error {
		b, err := json.MarshalIndent(o, "    ", "  ")
		if err != nil {
			return err
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteString("\n    ")
		_, err = bw.Write(b)
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
		return err
	})
	if err != nil {
		return nil, err
	}
	bw.WriteString("\n  ]\n}\n")
	return kinds, bw.Flush()
}

// Objects calls emit with every object of the cluster Write writes, in
// its order, one at a time, each with its apiVersion and kind.
func Objects(nodes, pods int, emit func(o k8sruntime.Object) error) error {
	return newScaleGen(nodes, pods).objects(nodes, pods, func(o k8sruntime.Object) error {
		gvk, ok := kindOf(o)
		if !ok {
			return fmt.Errorf("scalegen: no kind for %T", o)
		}
		o.GetObjectKind().SetGroupVersionKind(gvk)
		return emit(o)
	})
}

// kindOf is the apiVersion and kind of each type the generator makes.
func kindOf(o k8sruntime.Object) (schema.GroupVersionKind, bool) {
	switch o.(type) {
	case *v1.Namespace:
		return v1.SchemeGroupVersion.WithKind("Namespace"), true
	case *v1.Node:
		return v1.SchemeGroupVersion.WithKind("Node"), true
	case *v1.Service:
		return v1.SchemeGroupVersion.WithKind("Service"), true
	case *v1.Pod:
		return v1.SchemeGroupVersion.WithKind("Pod"), true
	case *schedulingv1.PriorityClass:
		return schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"), true
	case *appsv1.DaemonSet:
		return appsv1.SchemeGroupVersion.WithKind("DaemonSet"), true
	case *appsv1.ReplicaSet:
		return appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), true
	case *policyv1.PodDisruptionBudget:
		return policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), true
	}
	return schema.GroupVersionKind{}, false
}

// uid is a stable UUID of an object (version 5, from its kind and name).
func uid(kind, namespace, name string) types.UID {
	return types.UID(uuid.NewSHA1(uuid.NameSpaceOID, []byte(kind+"/"+namespace+"/"+name)).String())
}

func ptrTo[T any](v T) *T { return &v }
