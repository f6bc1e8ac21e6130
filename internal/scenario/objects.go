package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/snapshot"
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
