package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// Well-known label keys, annotations and values used throughout the package.
const (
	defaultScheduler = v1.DefaultSchedulerName

	labelHostname   = v1.LabelHostname
	labelZone       = v1.LabelTopologyZone
	labelRegion     = v1.LabelTopologyRegion
	labelBetaZone   = v1.LabelFailureDomainBetaZone
	labelBetaRegion = v1.LabelFailureDomainBetaRegion
	labelOS         = v1.LabelOSStable
	labelArch       = v1.LabelArchStable
	labelInstance   = v1.LabelInstanceTypeStable
	labelCP         = "node-role.kubernetes.io/control-plane"

	annBindCompleted     = "pv.kubernetes.io/bind-completed"
	annBoundByController = "pv.kubernetes.io/bound-by-controller"
	annProvisionedBy     = "pv.kubernetes.io/provisioned-by"
	annStorageProv       = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProv   = "volume.beta.kubernetes.io/storage-provisioner"
	annDefaultClass      = "storageclass.kubernetes.io/is-default-class"
	annMigratedPlugins   = "storage.alpha.kubernetes.io/migrated-plugins"

	taintUnschedulable = v1.TaintNodeUnschedulable
	taintNotReady      = v1.TaintNodeNotReady
	taintUnreachable   = v1.TaintNodeUnreachable

	resGPU       = v1.ResourceName("example.com/gpu")
	resHugePages = v1.ResourceName("hugepages-2Mi")
	resHuge1Gi   = v1.ResourceName("hugepages-1Gi")

	kubeletVersion = "v1.37.1"
)

// migratedPlugins is what a v1.37 kubelet writes into the CSINode annotation
// storage.alpha.kubernetes.io/migrated-plugins.
const migratedPlugins = "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume"

// epoch is the fixed instant every timestamp of every scenario is derived
// from. Nothing in this package reads the wall clock.
var epoch = time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)

const (
	ki  = int64(1024)
	mi  = 1024 * ki
	gi  = 1024 * mi
	ti  = 1024 * gi
	mcp = int64(1000) // millicores per core
)

func cpuQ(milli int64) resource.Quantity {
	return *resource.NewMilliQuantity(milli, resource.DecimalSI)
}

func bytesQ(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.BinarySI) }

func countQ(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.DecimalSI) }

// rl builds a ResourceList from "name=quantity" pairs, e.g. rl("cpu=500m", "memory=1Gi").
func rl(pairs ...string) v1.ResourceList {
	if len(pairs) == 0 {
		return nil
	}
	out := v1.ResourceList{}
	for _, p := range pairs {
		k, val, ok := strings.Cut(p, "=")
		if !ok {
			panic("scenario: bad resource pair " + p)
		}
		out[v1.ResourceName(k)] = resource.MustParse(val)
	}
	return out
}

// mergeRL returns a copy of a with every entry of b added (b wins).
func mergeRL(a, b v1.ResourceList) v1.ResourceList {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := v1.ResourceList{}
	for k, q := range a {
		out[k] = q.DeepCopy()
	}
	for k, q := range b {
		out[k] = q.DeepCopy()
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// builder owns a Cluster under construction and knows how to turn a
// hand-written object into what the API server would have stored: it applies
// the v1.37 defaulting functions, the default mutating admission plugins
// (Priority, DefaultTolerationSeconds, RuntimeClass, ServiceAccount) and the
// registry's PrepareForCreate, assigns deterministic UIDs and timestamps.
type builder struct {
	name    string
	c       *snapshot.Cluster
	clock   int64
	feats   map[string]bool
	pcs     map[string]*schedulingv1.PriorityClass
	rcs     map[string]*nodev1.RuntimeClass
	nodes   map[string]*v1.Node
	nodeIP  map[string]string
	nodeNum map[string]int
	podIPs  map[string]int
	pvcs    map[string]*v1.PersistentVolumeClaim
	pvs     map[string]*v1.PersistentVolume
	scs     map[string]*storagev1.StorageClass
	svcIP   int
}

func newBuilder(name string) *builder {
	return &builder{
		name:    name,
		c:       &snapshot.Cluster{},
		feats:   map[string]bool{},
		pcs:     map[string]*schedulingv1.PriorityClass{},
		rcs:     map[string]*nodev1.RuntimeClass{},
		nodes:   map[string]*v1.Node{},
		nodeIP:  map[string]string{},
		nodeNum: map[string]int{},
		podIPs:  map[string]int{},
		pvcs:    map[string]*v1.PersistentVolumeClaim{},
		pvs:     map[string]*v1.PersistentVolume{},
		scs:     map[string]*storagev1.StorageClass{},
	}
}

// feat records that the scenario exercises the named features.
func (b *builder) feat(names ...string) {
	for _, n := range names {
		b.feats[n] = true
	}
}

func (b *builder) features() []string {
	out := make([]string, 0, len(b.feats))
	for f := range b.feats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// now returns the next creation timestamp: one second after the previous one.
func (b *builder) now() metav1.Time {
	b.clock++
	return metav1.NewTime(epoch.Add(time.Duration(b.clock) * time.Second))
}

// at returns epoch + d, for timestamps that are not creation timestamps.
func at(d time.Duration) metav1.Time { return metav1.NewTime(epoch.Add(d)) }

// uid derives a stable RFC 4122 (version 4 layout) UID from the scenario name
// and the object's identity.
func (b *builder) uid(kind, ns, name string) types.UID {
	h := sha256.Sum256([]byte(b.name + "\x00" + kind + "\x00" + ns + "\x00" + name))
	h[6] = (h[6] & 0x0f) | 0x40
	h[8] = (h[8] & 0x3f) | 0x80
	x := hex.EncodeToString(h[:16])
	return types.UID(x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32])
}

func hashHex(s string, n int) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:n]
}

func (b *builder) meta(kind, ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:              name,
		Namespace:         ns,
		UID:               b.uid(kind, ns, name),
		CreationTimestamp: b.now(),
	}
}

// ---------------------------------------------------------------------------
// Cluster-scoped bookkeeping objects.

func (b *builder) addNamespace(name string, labels map[string]string) *v1.Namespace {
	ns := &v1.Namespace{ObjectMeta: b.meta("Namespace", "", name)}
	ns.Labels = map[string]string{v1.LabelMetadataName: name}
	for k, v := range labels {
		ns.Labels[k] = v
	}
	ns.Spec.Finalizers = []v1.FinalizerName{v1.FinalizerKubernetes}
	ns.Status.Phase = v1.NamespaceActive
	b.c.Namespaces = append(b.c.Namespaces, ns)
	return ns
}

func (b *builder) addPriorityClass(name string, value int32, globalDefault bool, policy v1.PreemptionPolicy, desc string) *schedulingv1.PriorityClass {
	if policy == "" {
		policy = v1.PreemptLowerPriority
	}
	pc := &schedulingv1.PriorityClass{
		ObjectMeta:       b.meta("PriorityClass", "", name),
		Value:            value,
		GlobalDefault:    globalDefault,
		Description:      desc,
		PreemptionPolicy: ptrTo(policy),
	}
	b.pcs[name] = pc
	b.c.PriorityClasses = append(b.c.PriorityClasses, pc)
	return pc
}

// addSystemPriorityClasses adds the two classes every API server creates.
func (b *builder) addSystemPriorityClasses() {
	b.addPriorityClass("system-cluster-critical", 2000000000, false, "", "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.")
	b.addPriorityClass("system-node-critical", 2000001000, false, "", "Used for system critical pods that must not be moved from their current node.")
}

func (b *builder) addRuntimeClass(name, handler string, overhead v1.ResourceList, nodeSelector map[string]string) *nodev1.RuntimeClass {
	rc := &nodev1.RuntimeClass{ObjectMeta: b.meta("RuntimeClass", "", name), Handler: handler}
	if overhead != nil {
		rc.Overhead = &nodev1.Overhead{PodFixed: overhead}
	}
	if nodeSelector != nil {
		rc.Scheduling = &nodev1.Scheduling{NodeSelector: nodeSelector}
	}
	b.rcs[name] = rc
	b.c.RuntimeClasses = append(b.c.RuntimeClasses, rc)
	return rc
}

// ---------------------------------------------------------------------------
// Nodes.

// nodeSpec describes a node. Allocatable values are given directly; capacity
// is allocatable plus the reserved amounts.
type nodeSpec struct {
	name         string
	region, zone string // topology.kubernetes.io labels; "" = absent
	betaLabels   bool   // also set failure-domain.beta.kubernetes.io/{region,zone}
	betaOnly     bool   // set only the beta labels (legacy node)
	arch         string // default amd64
	instanceType string

	cpuMilli    int64 // allocatable
	memBytes    int64
	pods        int64 // default 110
	ephBytes    int64 // default 90Gi
	hugeBytes   int64 // hugepages-2Mi
	gpus        int64
	reserveCPU  int64
	reserveMem  int64
	labels      map[string]string
	taints      []v1.Taint
	cordoned    bool
	notReady    bool // Ready=False (with the matching taints added by the caller)
	images      []v1.ContainerImage
	declared    []string
	annotations map[string]string
}

func (b *builder) addNode(s nodeSpec) *v1.Node {
	n := &v1.Node{ObjectMeta: b.meta("Node", "", s.name)}
	idx := len(b.c.Nodes)
	b.nodeNum[s.name] = idx
	arch := s.arch
	if arch == "" {
		arch = "amd64"
	}
	n.Labels = map[string]string{
		"beta.kubernetes.io/arch": arch,
		"beta.kubernetes.io/os":   "linux",
		labelArch:                 arch,
		labelHostname:             s.name,
		labelOS:                   "linux",
	}
	if s.instanceType != "" {
		n.Labels[labelInstance] = s.instanceType
		n.Labels["beta.kubernetes.io/instance-type"] = s.instanceType
	}
	if !s.betaOnly {
		if s.region != "" {
			n.Labels[labelRegion] = s.region
		}
		if s.zone != "" {
			n.Labels[labelZone] = s.zone
		}
	}
	if s.betaLabels || s.betaOnly {
		if s.region != "" {
			n.Labels[labelBetaRegion] = s.region
		}
		if s.zone != "" {
			n.Labels[labelBetaZone] = s.zone
		}
	}
	for k, v := range s.labels {
		n.Labels[k] = v
	}
	n.Annotations = map[string]string{
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
	}
	for k, v := range s.annotations {
		n.Annotations[k] = v
	}
	cidr := fmt.Sprintf("10.%d.%d.0/24", 64+idx/256, idx%256)
	n.Spec.PodCIDR = cidr
	n.Spec.PodCIDRs = []string{cidr}
	n.Spec.Unschedulable = s.cordoned
	n.Spec.Taints = s.taints

	pods := s.pods
	if pods == 0 {
		pods = 110
	}
	eph := s.ephBytes
	if eph == 0 {
		eph = 90 * gi
	}
	alloc := v1.ResourceList{
		v1.ResourceCPU:              cpuQ(s.cpuMilli),
		v1.ResourceMemory:           bytesQ(s.memBytes),
		v1.ResourcePods:             countQ(pods),
		v1.ResourceEphemeralStorage: bytesQ(eph),
		resHuge1Gi:                  countQ(0),
		resHugePages:                bytesQ(s.hugeBytes),
	}
	capacity := v1.ResourceList{
		v1.ResourceCPU:              cpuQ(s.cpuMilli + s.reserveCPU),
		v1.ResourceMemory:           bytesQ(s.memBytes + s.reserveMem + s.hugeBytes),
		v1.ResourcePods:             countQ(pods),
		v1.ResourceEphemeralStorage: bytesQ(eph + eph/10),
		resHuge1Gi:                  countQ(0),
		resHugePages:                bytesQ(s.hugeBytes),
	}
	if s.gpus > 0 {
		alloc[resGPU] = countQ(s.gpus)
		capacity[resGPU] = countQ(s.gpus)
	}
	n.Status.Allocatable = alloc
	n.Status.Capacity = capacity

	t := n.CreationTimestamp
	ready := v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: t, LastTransitionTime: t,
		Reason: "KubeletReady", Message: "kubelet is posting ready status"}
	if s.notReady {
		ready.Status = v1.ConditionFalse
		ready.Reason = "KubeletNotReady"
		ready.Message = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
	}
	n.Status.Conditions = []v1.NodeCondition{
		{Type: v1.NodeMemoryPressure, Status: v1.ConditionFalse, LastHeartbeatTime: t, LastTransitionTime: t,
			Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: v1.NodeDiskPressure, Status: v1.ConditionFalse, LastHeartbeatTime: t, LastTransitionTime: t,
			Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: v1.NodePIDPressure, Status: v1.ConditionFalse, LastHeartbeatTime: t, LastTransitionTime: t,
			Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		ready,
	}
	ip := fmt.Sprintf("10.0.%d.%d", idx/250, idx%250+2)
	b.nodeIP[s.name] = ip
	n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}, {Type: v1.NodeHostName, Address: s.name}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = 10250
	id := strings.ReplaceAll(string(n.UID), "-", "")
	n.Status.NodeInfo = v1.NodeSystemInfo{
		MachineID:               id,
		SystemUUID:              string(n.UID),
		BootID:                  string(b.uid("boot", "", s.name)),
		KernelVersion:           "6.12.12-cloud-" + arch,
		OSImage:                 "Debian GNU/Linux 13 (trixie)",
		ContainerRuntimeVersion: "containerd://2.1.4",
		KubeletVersion:          kubeletVersion,
		OperatingSystem:         "linux",
		Architecture:            arch,
	}
	n.Status.Images = s.images
	if len(s.declared) > 0 {
		d := slices.Clone(s.declared)
		sort.Strings(d)
		n.Status.DeclaredFeatures = slices.Compact(d)
	}
	b.nodes[s.name] = n
	b.c.Nodes = append(b.c.Nodes, n)
	return n
}

// image returns a node image entry named by digest and by tag, as containerd
// reports it; extra names are appended verbatim.
func image(ref string, size int64, extra ...string) v1.ContainerImage {
	repo := ref
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo = ref[:i]
	}
	names := []string{repo + "@sha256:" + hashHex(ref, 64), ref}
	names = append(names, extra...)
	return v1.ContainerImage{Names: names, SizeBytes: size}
}

// ---------------------------------------------------------------------------
// Pods.

func ctr(name, img string, requests ...string) v1.Container {
	c := v1.Container{Name: name, Image: img}
	if len(requests) > 0 {
		c.Resources.Requests = rl(requests...)
	}
	return c
}

// withLimits sets container limits.
func withLimits(c v1.Container, limits ...string) v1.Container {
	c.Resources.Limits = rl(limits...)
	return c
}

// withReqLim sets a request and an equal limit (extended resources and
// hugepages must have requests == limits).
func withReqLim(c v1.Container, pairs ...string) v1.Container {
	r := rl(pairs...)
	c.Resources.Requests = mergeRL(c.Resources.Requests, r)
	c.Resources.Limits = mergeRL(c.Resources.Limits, r)
	return c
}

func sidecar(c v1.Container) v1.Container {
	c.RestartPolicy = ptrTo(v1.ContainerRestartPolicyAlways)
	return c
}

func hostPort(c v1.Container, port int32, proto v1.Protocol, hostIP string) v1.Container {
	c.Ports = append(c.Ports, v1.ContainerPort{
		Name:          fmt.Sprintf("hp-%d-%s", port, strings.ToLower(string(proto))),
		ContainerPort: port,
		HostPort:      port,
		Protocol:      proto,
		HostIP:        hostIP,
	})
	return c
}

// newPod returns a bare pod that still has to go through admitPod.
func newPod(ns, name string, labels map[string]string, ctrs ...v1.Container) *v1.Pod {
	p := &v1.Pod{}
	p.Namespace = ns
	p.Name = name
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for k, v := range labels {
			p.Labels[k] = v
		}
	}
	p.Spec.Containers = ctrs
	return p
}

// admitPod turns a hand-built pod into its stored form as an API server
// creates it: snapshot/apiserver's defaulting (with the volume fields a
// loaded snapshot keeps as written), its admission (Priority,
// DefaultTolerationSeconds, RuntimeClass) and PrepareForCreate, plus what
// apiserver does not emulate because a loaded pod keeps it as written:
// ServiceAccount admission (no token volume: automount is switched off
// explicitly), the generation, the reset status and its QoS class.
func (b *builder) admitPod(p *v1.Pod) {
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	p.UID = b.uid("Pod", p.Namespace, p.Name)
	p.CreationTimestamp = b.now()

	apiserver.Default(p)
	apiserver.DefaultVolumeFields(&p.Spec)
	if _, rejected := apiserver.AdmitPod(p, p.Name, b.c.PriorityClasses, b.rcs); rejected != nil {
		panic("scenario: pod " + p.Name + ": " + rejected.Field + ": " + rejected.Message)
	}
	if p.Spec.ServiceAccountName == "" {
		p.Spec.ServiceAccountName = "default"
		p.Spec.DeprecatedServiceAccount = "default"
	}
	if p.Spec.AutomountServiceAccountToken == nil {
		p.Spec.AutomountServiceAccountToken = ptrTo(false)
	}

	p.Generation = 1
	p.Status = v1.PodStatus{}
	apiserver.PrepareForCreate(p)
	for i := range p.Status.Conditions {
		// The scenarios stamp the scheduling-gated condition with the
		// creation time (the API server leaves it unset; nothing the
		// scheduler reads depends on it).
		if c := &p.Status.Conditions[i]; c.Reason == v1.PodReasonSchedulingGated {
			c.LastTransitionTime = p.CreationTimestamp
		}
	}
	p.Status.QOSClass = podQOS(p)
}

// podQOS mirrors qos.ComputePodQOS with PodLevelResources and
// PodLevelResourcesFixKubeletQOSClass enabled.
func podQOS(p *v1.Pod) v1.PodQOSClass {
	if r := p.Spec.Resources; r != nil {
		set := false
		for k := range r.Requests {
			set = set || resourcehelper.IsSupportedPodLevelResource(k)
		}
		for k := range r.Limits {
			set = set || resourcehelper.IsSupportedPodLevelResource(k)
		}
		if set {
			return requirementsQOS(r)
		}
	}
	var q v1.PodQOSClass
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			cq := requirementsQOS(&cs[i].Resources)
			switch {
			case cq == v1.PodQOSBurstable:
				return cq
			case q == "":
				q = cq
			case q != cq:
				return v1.PodQOSBurstable
			}
		}
	}
	if q == "" {
		q = v1.PodQOSBestEffort
	}
	return q
}

func requirementsQOS(r *v1.ResourceRequirements) v1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return v1.PodQOSBestEffort
	}
	var q v1.PodQOSClass
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		var rq v1.PodQOSClass
		switch {
		case !req.Equal(lim):
			rq = v1.PodQOSBurstable
		case req.IsZero():
			rq = v1.PodQOSBestEffort
		default:
			rq = v1.PodQOSGuaranteed
		}
		if rq == v1.PodQOSBurstable {
			return rq
		}
		if q == "" {
			q = rq
		} else if q != rq {
			return v1.PodQOSBurstable
		}
	}
	return q
}

// addPending admits p as a pending (unscheduled) pod.
func (b *builder) addPending(p *v1.Pod) *v1.Pod {
	b.admitPod(p)
	b.c.Pods = append(b.c.Pods, p)
	return p
}

// addBound admits p and binds it to node, with the status a kubelet reports
// for a running pod that started at start.
func (b *builder) addBound(p *v1.Pod, node string, start metav1.Time, ctrStatuses bool) *v1.Pod {
	b.admitPod(p)
	b.bindPod(p, node, start, ctrStatuses)
	b.c.Pods = append(b.c.Pods, p)
	return p
}

func (b *builder) bindPod(p *v1.Pod, node string, start metav1.Time, ctrStatuses bool) {
	p.Spec.NodeName = node
	p.Status.Phase = v1.PodRunning
	p.Status.ObservedGeneration = 1
	p.Status.Conditions = nil
	for _, ct := range []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled} {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: ct, Status: v1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: start})
	}
	hostIP := b.nodeIP[node]
	if hostIP == "" {
		hostIP = "10.255.255.1"
	}
	p.Status.HostIP = hostIP
	p.Status.HostIPs = []v1.HostIP{{IP: hostIP}}
	if p.Spec.HostNetwork {
		p.Status.PodIP = hostIP
	} else {
		b.podIPs[node]++
		idx := b.nodeNum[node]
		p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", 64+idx/256, idx%256, 1+b.podIPs[node]%254)
	}
	p.Status.PodIPs = []v1.PodIP{{IP: p.Status.PodIP}}
	p.Status.StartTime = ptrTo(start)
	if ctrStatuses {
		status := func(c v1.Container, init bool) v1.ContainerStatus {
			cs := v1.ContainerStatus{
				Name:        c.Name,
				Image:       c.Image,
				ImageID:     "sha256:" + hashHex(c.Image, 64),
				ContainerID: "containerd://" + hashHex(string(p.UID)+c.Name, 64),
				Ready:       true,
				Started:     ptrTo(true),
				State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: start}},
			}
			if init && (c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways) {
				cs.Started = ptrTo(false)
				cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
					StartedAt: start, FinishedAt: start, ContainerID: cs.ContainerID}}
			}
			if len(c.Resources.Requests) > 0 {
				cs.AllocatedResources = mergeRL(nil, c.Resources.Requests)
			}
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				cs.Resources = &v1.ResourceRequirements{Requests: mergeRL(nil, c.Resources.Requests), Limits: mergeRL(nil, c.Resources.Limits)}
			}
			return cs
		}
		p.Status.ContainerStatuses = nil
		p.Status.InitContainerStatuses = nil
		for _, c := range p.Spec.InitContainers {
			p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, status(c, true))
		}
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, status(c, false))
		}
	}
}

// terminate marks a stored pod as being gracefully deleted at t.
func terminate(p *v1.Pod, t metav1.Time, byPreemption bool) {
	p.DeletionTimestamp = ptrTo(t)
	p.DeletionGracePeriodSeconds = ptrTo(*p.Spec.TerminationGracePeriodSeconds)
	if byPreemption {
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
			Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
			Message:            defaultScheduler + ": preempting to accommodate a higher priority pod",
			LastTransitionTime: t, ObservedGeneration: 1,
		})
	}
}

// markUnschedulable gives a pending pod the PodScheduled=False condition a
// previous failed attempt leaves behind.
func markUnschedulable(p *v1.Pod, t metav1.Time, msg string) {
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
		Message: msg, LastTransitionTime: t, LastProbeTime: metav1.Time{}, ObservedGeneration: 1,
	})
}

func ownerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid,
		Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}
}

// ---------------------------------------------------------------------------
// Storage.

func (b *builder) addStorageClass(name, provisioner string, mode storagev1.VolumeBindingMode, isDefault bool, topo []v1.TopologySelectorTerm) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: b.meta("StorageClass", "", name)}
	sc.Provisioner = provisioner
	sc.ReclaimPolicy = ptrTo(v1.PersistentVolumeReclaimDelete)
	if provisioner == "kubernetes.io/no-provisioner" {
		sc.ReclaimPolicy = ptrTo(v1.PersistentVolumeReclaimRetain)
	}
	sc.VolumeBindingMode = ptrTo(mode)
	sc.AllowedTopologies = topo
	if isDefault {
		sc.Annotations = map[string]string{annDefaultClass: "true"}
	}
	if provisioner != "kubernetes.io/no-provisioner" {
		sc.AllowVolumeExpansion = ptrTo(true)
	}
	b.scs[name] = sc
	b.c.StorageClasses = append(b.c.StorageClasses, sc)
	return sc
}

func (b *builder) addCSIDriver(name string, attach, storageCapacity, preventIfMissing bool) *storagev1.CSIDriver {
	d := &storagev1.CSIDriver{ObjectMeta: b.meta("CSIDriver", "", name)}
	d.Spec = storagev1.CSIDriverSpec{
		AttachRequired:                ptrTo(attach),
		PodInfoOnMount:                ptrTo(false),
		StorageCapacity:               ptrTo(storageCapacity),
		FSGroupPolicy:                 ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy),
		VolumeLifecycleModes:          []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent},
		RequiresRepublish:             ptrTo(false),
		SELinuxMount:                  ptrTo(false),
		PreventPodSchedulingIfMissing: ptrTo(preventIfMissing),
	}
	b.c.CSIDrivers = append(b.c.CSIDrivers, d)
	return d
}

func csiDriverEntry(name, node string, count int32, topologyKeys ...string) storagev1.CSINodeDriver {
	d := storagev1.CSINodeDriver{Name: name, NodeID: node, TopologyKeys: topologyKeys}
	if count >= 0 {
		d.Allocatable = &storagev1.VolumeNodeResources{Count: ptrTo(count)}
	}
	return d
}

func (b *builder) addCSINode(node string, drivers ...storagev1.CSINodeDriver) *storagev1.CSINode {
	cn := &storagev1.CSINode{ObjectMeta: b.meta("CSINode", "", node)}
	cn.Annotations = map[string]string{annMigratedPlugins: migratedPlugins}
	if n := b.nodes[node]; n != nil {
		cn.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID}}
	}
	cn.Spec.Drivers = drivers
	if cn.Spec.Drivers == nil {
		cn.Spec.Drivers = []storagev1.CSINodeDriver{}
	}
	b.c.CSINodes = append(b.c.CSINodes, cn)
	return cn
}

// pvSpec describes a PersistentVolume.
type pvSpec struct {
	name     string
	size     int64
	class    string
	modes    []v1.PersistentVolumeAccessMode
	driver   string // CSI driver; "" with local != "" → local volume
	local    string // local path
	gcePD    string // in-tree GCE PD name
	affinity *v1.VolumeNodeAffinity
	labels   map[string]string
	dynamic  bool // provisioned by driver (annotation)
}

func (b *builder) addPV(s pvSpec) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{ObjectMeta: b.meta("PersistentVolume", "", s.name)}
	if len(s.labels) > 0 {
		pv.Labels = s.labels
	}
	pv.Finalizers = []string{"kubernetes.io/pv-protection"}
	modes := s.modes
	if modes == nil {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	pv.Spec.AccessModes = modes
	pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: bytesQ(s.size)}
	pv.Spec.StorageClassName = s.class
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	pv.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	pv.Spec.NodeAffinity = s.affinity
	switch {
	case s.driver != "":
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: s.driver, VolumeHandle: "vol-" + hashHex(b.name+s.name, 17), FSType: "ext4",
			VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1740992400000-8081-" + s.driver}}
	case s.gcePD != "":
		pv.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: s.gcePD, FSType: "ext4"}
	default:
		path := s.local
		if path == "" {
			path = "/mnt/disks/" + s.name
		}
		pv.Spec.Local = &v1.LocalVolumeSource{Path: path}
	}
	if s.dynamic {
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
		pv.Annotations = map[string]string{annProvisionedBy: s.driver}
		if s.driver != "" {
			pv.Finalizers = append(pv.Finalizers, "external-provisioner.volume.kubernetes.io/finalizer")
		}
	}
	pv.Status.Phase = v1.VolumeAvailable
	pv.Status.LastPhaseTransitionTime = ptrTo(pv.CreationTimestamp)
	b.pvs[s.name] = pv
	b.c.PersistentVolumes = append(b.c.PersistentVolumes, pv)
	return pv
}

// pvcSpec describes a PersistentVolumeClaim.
type pvcSpec struct {
	ns, name string
	size     int64
	class    string // "" = explicitly no class
	modes    []v1.PersistentVolumeAccessMode
	pending  bool   // PV controller is provisioning (Immediate): add provisioner annotations
	volume   string // bound to this PV name (bind-completed) even if the PV does not exist
}

func (b *builder) addPVC(s pvcSpec) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: b.meta("PersistentVolumeClaim", s.ns, s.name)}
	pvc.Finalizers = []string{"kubernetes.io/pvc-protection"}
	modes := s.modes
	if modes == nil {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	pvc.Spec.AccessModes = modes
	pvc.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: bytesQ(s.size)}
	pvc.Spec.StorageClassName = ptrTo(s.class)
	pvc.Spec.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
	pvc.Status.Phase = v1.ClaimPending
	if s.pending {
		if sc := b.scs[s.class]; sc != nil && sc.Provisioner != "kubernetes.io/no-provisioner" {
			pvc.Annotations = map[string]string{annStorageProv: sc.Provisioner, annBetaStorageProv: sc.Provisioner}
		}
	}
	b.pvcs[s.ns+"/"+s.name] = pvc
	b.c.PersistentVolumeClaims = append(b.c.PersistentVolumeClaims, pvc)
	if s.volume != "" {
		b.bindClaim(pvc, s.volume)
	}
	return pvc
}

// bindClaim marks pvc as fully bound to the PV named pv (which need not
// exist); if it exists the PV is marked bound to the claim.
func (b *builder) bindClaim(pvc *v1.PersistentVolumeClaim, pvName string) {
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations[annBindCompleted] = "yes"
	pvc.Annotations[annBoundByController] = "yes"
	pvc.Spec.VolumeName = pvName
	pvc.Status.Phase = v1.ClaimBound
	pvc.Status.AccessModes = slices.Clone(pvc.Spec.AccessModes)
	size := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	pv := b.pvs[pvName]
	if pv != nil {
		size = pv.Spec.Capacity[v1.ResourceStorage]
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name,
			UID: pvc.UID, APIVersion: "v1"}
		pv.Status.Phase = v1.VolumeBound
		if pv.Annotations == nil {
			pv.Annotations = map[string]string{}
		}
		if _, dyn := pv.Annotations[annProvisionedBy]; !dyn {
			pv.Annotations[annBoundByController] = "yes"
		}
		if sc := b.scs[pv.Spec.StorageClassName]; sc != nil && pv.Spec.CSI != nil {
			pvc.Annotations[annStorageProv] = sc.Provisioner
			pvc.Annotations[annBetaStorageProv] = sc.Provisioner
		}
	}
	pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: size.DeepCopy()}
}

func (b *builder) addStorageCapacity(ns, name, class string, capacity, maxVol int64, topology *metav1.LabelSelector) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: b.meta("CSIStorageCapacity", ns, name)}
	c.StorageClassName = class
	c.NodeTopology = topology
	c.Capacity = ptrTo(bytesQ(capacity))
	if maxVol > 0 {
		c.MaximumVolumeSize = ptrTo(bytesQ(maxVol))
	}
	b.c.CSIStorageCapacities = append(b.c.CSIStorageCapacities, c)
	return c
}

func (b *builder) addVolumeAttachment(driver, node, pvName string) *storagev1.VolumeAttachment {
	name := "csi-" + hashHex(pvName+driver+node, 64)
	va := &storagev1.VolumeAttachment{ObjectMeta: b.meta("VolumeAttachment", "", name)}
	va.Finalizers = []string{"external-attacher/" + strings.ReplaceAll(driver, "/", "-")}
	va.Spec = storagev1.VolumeAttachmentSpec{Attacher: driver, NodeName: node,
		Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptrTo(pvName)}}
	va.Status.Attached = true
	b.c.VolumeAttachments = append(b.c.VolumeAttachments, va)
	return va
}

func pvcVolume(name, claim string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func nodeAffinityHostname(node string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: labelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}}
}

func nodeAffinityLabel(key string, values ...string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}}
}

// ---------------------------------------------------------------------------
// Workload objects.

func (b *builder) addService(ns, name string, selector map[string]string, headless bool) *v1.Service {
	s := &v1.Service{ObjectMeta: b.meta("Service", ns, name)}
	s.Spec.Selector = selector
	s.Spec.Type = v1.ServiceTypeClusterIP
	s.Spec.SessionAffinity = v1.ServiceAffinityNone
	s.Spec.InternalTrafficPolicy = ptrTo(v1.ServiceInternalTrafficPolicyCluster)
	s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
	s.Spec.IPFamilyPolicy = ptrTo(v1.IPFamilyPolicySingleStack)
	s.Spec.Ports = []v1.ServicePort{{Name: "http", Port: 80, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}
	if headless {
		s.Spec.ClusterIP = v1.ClusterIPNone
		s.Spec.ClusterIPs = []string{v1.ClusterIPNone}
	} else {
		b.svcIP++
		ip := fmt.Sprintf("10.96.%d.%d", b.svcIP/250, b.svcIP%250+10)
		s.Spec.ClusterIP = ip
		s.Spec.ClusterIPs = []string{ip}
	}
	b.c.Services = append(b.c.Services, s)
	return s
}

// addExternalNameService adds a selector-less service (matches no pod).
func (b *builder) addExternalNameService(ns, name, host string) *v1.Service {
	s := &v1.Service{ObjectMeta: b.meta("Service", ns, name)}
	s.Spec.Type = v1.ServiceTypeExternalName
	s.Spec.ExternalName = host
	s.Spec.SessionAffinity = v1.ServiceAffinityNone
	b.c.Services = append(b.c.Services, s)
	return s
}

func podTemplate(labels map[string]string, spec v1.PodSpec) v1.PodTemplateSpec {
	t := v1.PodTemplateSpec{Spec: *spec.DeepCopy()}
	t.Labels = labels
	apiserver.DefaultPodSpec(&t.Spec)
	apiserver.DefaultVolumeFields(&t.Spec)
	return t
}

func (b *builder) addReplicaSet(ns, name string, replicas int32, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: b.meta("ReplicaSet", ns, name)}
	rs.Generation = 1
	rs.Labels = labels
	deploy := strings.TrimSuffix(name, "-"+labels["pod-template-hash"])
	rs.Annotations = map[string]string{"deployment.kubernetes.io/desired-replicas": fmt.Sprint(replicas),
		"deployment.kubernetes.io/max-replicas": fmt.Sprint(replicas + 1), "deployment.kubernetes.io/revision": "1"}
	rs.OwnerReferences = []metav1.OwnerReference{ownerRef("apps/v1", "Deployment", deploy, b.uid("Deployment", ns, deploy))}
	rs.Spec.Replicas = ptrTo(replicas)
	rs.Spec.Selector = sel
	rs.Spec.Template = podTemplate(labels, spec)
	rs.Status = appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
		AvailableReplicas: replicas, ObservedGeneration: 1}
	b.c.ReplicaSets = append(b.c.ReplicaSets, rs)
	return rs
}

func (b *builder) addStatefulSet(ns, name, svc string, replicas int32, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec) *appsv1.StatefulSet {
	ss := &appsv1.StatefulSet{ObjectMeta: b.meta("StatefulSet", ns, name)}
	ss.Generation = 1
	ss.Spec.Replicas = ptrTo(replicas)
	ss.Spec.Selector = sel
	ss.Spec.ServiceName = svc
	ss.Spec.Template = podTemplate(labels, spec)
	ss.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptrTo(int32(0)), MaxUnavailable: ptrTo(intstr.FromInt32(1))}}
	ss.Spec.RevisionHistoryLimit = ptrTo(int32(10))
	ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	ss.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: replicas, CurrentReplicas: replicas,
		UpdatedReplicas: replicas, AvailableReplicas: replicas, CurrentRevision: labels[appsv1.ControllerRevisionHashLabelKey],
		UpdateRevision: labels[appsv1.ControllerRevisionHashLabelKey], CollisionCount: ptrTo(int32(0))}
	b.c.StatefulSets = append(b.c.StatefulSets, ss)
	return ss
}

func (b *builder) addReplicationController(ns, name string, replicas int32, sel, labels map[string]string, spec v1.PodSpec) *v1.ReplicationController {
	rc := &v1.ReplicationController{ObjectMeta: b.meta("ReplicationController", ns, name)}
	rc.Generation = 1
	rc.Labels = labels
	rc.Spec.Replicas = ptrTo(replicas)
	rc.Spec.Selector = sel
	t := podTemplate(labels, spec)
	rc.Spec.Template = &t
	rc.Status = v1.ReplicationControllerStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas,
		AvailableReplicas: replicas, ObservedGeneration: 1}
	b.c.ReplicationControllers = append(b.c.ReplicationControllers, rc)
	return rc
}

func (b *builder) addDaemonSet(ns, name string, sel *metav1.LabelSelector, labels map[string]string, spec v1.PodSpec, scheduled int32) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: b.meta("DaemonSet", ns, name)}
	ds.Generation = 1
	ds.Annotations = map[string]string{"deprecated.daemonset.template.generation": "1"}
	ds.Spec.Selector = sel
	ds.Spec.Template = podTemplate(labels, spec)
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptrTo(intstr.FromInt32(1)), MaxSurge: ptrTo(intstr.FromInt32(0))}}
	ds.Spec.RevisionHistoryLimit = ptrTo(int32(10))
	ds.Status = appsv1.DaemonSetStatus{CurrentNumberScheduled: scheduled, DesiredNumberScheduled: scheduled, NumberReady: scheduled,
		NumberAvailable: scheduled, UpdatedNumberScheduled: scheduled, ObservedGeneration: 1}
	b.c.DaemonSets = append(b.c.DaemonSets, ds)
	return ds
}

// daemonTolerations is AddOrUpdateDaemonPodTolerations for a pod without hostNetwork.
func daemonTolerations() []v1.Toleration {
	return []v1.Toleration{
		{Key: taintNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: taintUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		{Key: taintUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	}
}

// daemonAffinity is ReplaceDaemonSetPodNodeNameNodeAffinity's result.
func daemonAffinity(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
			Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

func (b *builder) addPDB(ns, name string, sel *metav1.LabelSelector, minAvailable, maxUnavailable *intstr.IntOrString,
	allowed, healthy, desired, expected int32, disrupted map[string]metav1.Time) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: b.meta("PodDisruptionBudget", ns, name)}
	pdb.Generation = 1
	pdb.Spec.Selector = sel
	pdb.Spec.MinAvailable = minAvailable
	pdb.Spec.MaxUnavailable = maxUnavailable
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue,
		Reason: policyv1.SufficientPodsReason, ObservedGeneration: 1, LastTransitionTime: pdb.CreationTimestamp}
	if allowed <= 0 {
		cond.Status = metav1.ConditionFalse
		cond.Reason = policyv1.InsufficientPodsReason
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptedPods: disrupted, DisruptionsAllowed: allowed,
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, Conditions: []metav1.Condition{cond}}
	b.c.PodDisruptionBudgets = append(b.c.PodDisruptionBudgets, pdb)
	return pdb
}
