package scenario

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Throughput workloads: the shapes of upstream's scheduler_perf workloads
// of the same names (test/integration/scheduler_perf in k8s.io/kubernetes
// v1.37.1), for the side-by-side throughput benchmark in conformance/.
// Every measured pod fits, so a run schedules all of them.
const (
	// Plain pods (100m cpu, 500Mi) on plain nodes (4 cpu, 32Gi, 110 pods).
	WorkloadBasic = "SchedulingBasic"
	// Required anti-affinity to the pods of the same colour on the same
	// host: every pod, initial or measured, on a node of its own.
	WorkloadPodAntiAffinity = "SchedulingPodAntiAffinity"
	// Required affinity to the pods of the same colour in the same zone;
	// every node is in the one zone.
	WorkloadPodAffinity = "SchedulingPodAffinity"
	// DoNotSchedule spreading (maxSkew 5) over three zones.
	WorkloadTopologySpreading = "TopologySpreading"
	// Preferred affinity (weight 1) to the pods of the same colour on the
	// same host.
	WorkloadPreferredPodAffinity = "SchedulingPreferredPodAffinity"
	// Each pod mounts its own bound claim of a CSI volume; 39 volumes of
	// the driver attach per node (CSINode).
	WorkloadCSIPVs = "SchedulingCSIPVs"
	// Each pod has a claim made from a one-device template (already
	// created, as the resourceclaim controller does) on nodes publishing
	// 10 devices each; the initial claims are allocated without pods.
	WorkloadResourceClaimTemplate = "SchedulingWithResourceClaimTemplate"
)

// ThroughputWorkloads lists the workloads Throughput builds.
var ThroughputWorkloads = []string{
	WorkloadBasic, WorkloadPodAntiAffinity, WorkloadPodAffinity, WorkloadTopologySpreading,
	WorkloadPreferredPodAffinity, WorkloadCSIPVs, WorkloadResourceClaimTemplate,
}

// ThroughputSize is a workload's size: nodes, pods already bound (for the
// DRA workload: claims already allocated), and pending pods to schedule.
type ThroughputSize struct {
	Nodes, InitPods, MeasurePods int
}

// Throughput builds the named workload at size s. Initial pods are bound
// round-robin over the nodes, in namespace sched-0; measured pods are
// pending in sched-1 (scheduler_perf's namespaces for the affinity
// workloads, used by all).
func Throughput(workload string, s ThroughputSize) (*Scenario, error) {
	if s.Nodes <= 0 || s.InitPods < 0 || s.MeasurePods <= 0 {
		return nil, fmt.Errorf("scenario: throughput size %+v: need nodes and measured pods", s)
	}
	b := newBuilder(fmt.Sprintf("throughput/%s/%d-%d-%d", workload, s.Nodes, s.InitPods, s.MeasurePods))
	for _, ns := range []string{"default", "kube-system", throughputInitNS, throughputMeasureNS} {
		b.addNamespace(ns, nil)
	}
	b.addSystemPriorityClasses()

	var zone func(i int) string
	var pod func(ns, name string) *v1.Pod
	initPod := func(ns, name string) *v1.Pod { return pod(ns, name) }
	measurePod := func(ns, name string) *v1.Pod { return pod(ns, name) }
	nodeName := func(i int) string { return fmt.Sprintf("scheduler-perf-%05d", i) }
	switch workload {
	case WorkloadBasic:
		pod = func(ns, name string) *v1.Pod { return perfPod(ns, name, nil) }
	case WorkloadPodAntiAffinity:
		if s.InitPods+s.MeasurePods > s.Nodes {
			return nil, fmt.Errorf("scenario: %s needs a node per pod: %+v", workload, s)
		}
		pod = func(ns, name string) *v1.Pod {
			p := perfPod(ns, name, map[string]string{"color": "green"})
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{perfTerm("green", labelHostname)},
			}}
			return p
		}
	case WorkloadPodAffinity:
		zone = func(int) string { return "zone1" }
		pod = func(ns, name string) *v1.Pod {
			p := perfPod(ns, name, map[string]string{"color": "blue"})
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{perfTerm("blue", labelZone)},
			}}
			return p
		}
	case WorkloadTopologySpreading:
		zone = func(i int) string { return fmt.Sprintf("moon-%d", i%3+1) }
		initPod = func(ns, name string) *v1.Pod { return perfPod(ns, name, nil) }
		measurePod = func(ns, name string) *v1.Pod {
			p := perfPod(ns, name, map[string]string{"color": "blue"})
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
				MaxSkew: 5, TopologyKey: labelZone, WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
			}}
			return p
		}
	case WorkloadPreferredPodAffinity:
		pod = func(ns, name string) *v1.Pod {
			p := perfPod(ns, name, map[string]string{"color": "red"})
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: perfTerm("red", labelHostname)}},
			}}
			return p
		}
	case WorkloadCSIPVs:
		pod = func(ns, name string) *v1.Pod {
			pv := b.addPV(pvSpec{name: "pv-" + name, size: gi, driver: perfCSIDriver,
				modes: []v1.PersistentVolumeAccessMode{v1.ReadOnlyMany}})
			b.addPVC(pvcSpec{ns: ns, name: "pvc-" + name, size: gi, volume: pv.Name,
				modes: []v1.PersistentVolumeAccessMode{v1.ReadOnlyMany}})
			p := perfPod(ns, name, nil)
			p.Spec.Volumes = []v1.Volume{pvcVolume("data", "pvc-"+name)}
			return p
		}
	case WorkloadResourceClaimTemplate:
		nodeName = func(i int) string { return fmt.Sprintf("scheduler-perf-dra-%05d", i) }
		if s.InitPods+s.MeasurePods > s.Nodes*perfDevicesPerNode {
			return nil, fmt.Errorf("scenario: %s has %d devices per node, too few for %+v", workload, perfDevicesPerNode, s)
		}
	default:
		return nil, fmt.Errorf("scenario: unknown throughput workload %q (known: %v)", workload, ThroughputWorkloads)
	}

	for i := range s.Nodes {
		spec := nodeSpec{name: nodeName(i), cpuMilli: 4 * mcp, memBytes: 32 * gi, pods: 110}
		if zone != nil {
			spec.zone = zone(i)
		}
		if workload == WorkloadResourceClaimTemplate {
			spec.labels = map[string]string{"node-with-dra": "true"}
		}
		b.addNode(spec)
		switch workload {
		case WorkloadCSIPVs:
			b.addCSINode(spec.name, csiDriverEntry(perfCSIDriver, spec.name, 39))
		case WorkloadResourceClaimTemplate:
			perfSlice(b, spec.name)
		}
	}

	if workload == WorkloadResourceClaimTemplate {
		perfDRAObjects(b, s)
		return &Scenario{Name: b.name, Cluster: b.c}, nil
	}
	start := at(0)
	for i := range s.InitPods {
		b.addBound(initPod(throughputInitNS, fmt.Sprintf("init-%06d", i)), nodeName(i%s.Nodes), start, false)
	}
	for i := range s.MeasurePods {
		b.addPending(measurePod(throughputMeasureNS, fmt.Sprintf("measure-%06d", i)))
	}
	return &Scenario{Name: b.name, Cluster: b.c}, nil
}

const (
	throughputInitNS    = "sched-0"
	throughputMeasureNS = "sched-1"
	perfCSIDriver       = "ebs.csi.aws.com"
	perfDRADriver       = "test-driver.cdi.k8s.io"
	perfDeviceClass     = "test-class"
	perfDevicesPerNode  = 10
)

// perfPod is scheduler_perf's pod-default: one pause container with an
// 80/TCP port and 100m cpu, 500Mi requested and limited.
func perfPod(ns, name string, labels map[string]string) *v1.Pod {
	c := withLimits(ctr("pause", "registry.k8s.io/pause:3.10.2", "cpu=100m", "memory=500Mi"), "cpu=100m", "memory=500Mi")
	c.Ports = []v1.ContainerPort{{ContainerPort: 80}}
	return newPod(ns, name, labels, c)
}

// perfTerm selects the pods of colour in both namespaces over key.
func perfTerm(colour, key string) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": colour}},
		TopologyKey:   key, Namespaces: []string{throughputMeasureNS, throughputInitNS},
	}
}

// perfSlice publishes scheduler_perf's resourceslice-basic-devices on node:
// 10 devices with an Intel GPU's attributes, over two PCI roots.
func perfSlice(b *builder, node string) {
	s := &resourcev1.ResourceSlice{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"},
		ObjectMeta: b.meta("ResourceSlice", "", "resourceslice-"+node)}
	nodeName := node
	s.Spec.NodeName = &nodeName
	s.Spec.Driver = perfDRADriver
	s.Spec.Pool = resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}
	str := func(v string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: &v} }
	for i := range perfDevicesPerNode {
		root := fmt.Sprint(i % 2)
		bus := fmt.Sprintf("0000:0%d:00.0", i)
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{
			Name: fmt.Sprintf("basic-device-%d", i),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"driver": str("xe"), "driverVersion": {VersionValue: ptrTo("1.2.3")},
				"resource.k8s.io/pciRoot": str(root), "family": str("Arc Pro B-Series"), "health": str("Healthy"),
				"model": str("B60"), "pciAddress": str(bus), "pciId": str("0xe211"), "pciRoot": str("0" + root),
				"resource.kubernetes.io/pciBusID": str(bus), "resource.kubernetes.io/pciRoot": str("pci0000:0" + root),
				"sriov": {BoolValue: ptrTo(true)}, "type": str("gpu"),
			},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
				"memory": {Value: resource.MustParse("24480Mi")}, "millicores": {Value: resource.MustParse("1k")},
			},
		})
	}
	b.c.ResourceSlices = append(b.c.ResourceSlices, s)
}

// perfDRAObjects adds the device class, s.InitPods claims allocated on the
// nodes' first devices without a pod (scheduler_perf's allocResourceClaims),
// the claim template and s.MeasurePods pending pods using it, each with the
// claim the resourceclaim controller would have created for it.
func perfDRAObjects(b *builder, s ThroughputSize) {
	class := &resourcev1.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
		ObjectMeta: b.meta("DeviceClass", "", perfDeviceClass)}
	class.Spec.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", perfDRADriver)}}}
	b.c.DeviceClasses = append(b.c.DeviceClasses, class)

	spec := resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "req-0", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: perfDeviceClass,
			AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
	}}}}
	claim := func(ns, name string) *resourcev1.ResourceClaim {
		c := &resourcev1.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
			ObjectMeta: b.meta("ResourceClaim", ns, name), Spec: *spec.DeepCopy()}
		b.c.ResourceClaims = append(b.c.ResourceClaims, c)
		return c
	}
	for i := range s.InitPods {
		node := b.c.Nodes[i%s.Nodes].Name
		c := claim(throughputInitNS, fmt.Sprintf("test-claim-%d", i))
		c.Status.Allocation = &resourcev1.AllocationResult{
			Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
				Request: "req-0", Driver: perfDRADriver, Pool: node, Device: fmt.Sprintf("basic-device-%d", i/s.Nodes),
			}}},
			NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
				Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node},
			}}}}},
		}
	}

	tmpl := &resourcev1.ResourceClaimTemplate{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: b.meta("ResourceClaimTemplate", throughputMeasureNS, "test-claim-template")}
	tmpl.Spec.Spec = *spec.DeepCopy()
	b.c.ResourceClaimTemplates = append(b.c.ResourceClaimTemplates, tmpl)
	for i := range s.MeasurePods {
		c := ctr("pause", "registry.k8s.io/pause:3.10.1")
		c.Resources.Claims = []v1.ResourceClaim{{Name: "resource"}}
		p := newPod(throughputMeasureNS, fmt.Sprintf("test-dra-%06d", i), nil, c)
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "resource", ResourceClaimTemplateName: ptrTo(tmpl.Name)}}
		b.addPending(p)
		generated := claim(throughputMeasureNS, p.Name+"-resource")
		generated.Annotations = map[string]string{"resource.kubernetes.io/pod-claim-name": "resource"}
		generated.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
			Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}}
		p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "resource", ResourceClaimName: ptrTo(generated.Name)}}
	}
}
