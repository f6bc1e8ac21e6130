package scenario

// Curated DRA scenarios: one behaviour of DynamicResources or the device
// allocator each.

import (
	"fmt"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CuratedDRA returns the curated DRA scenarios.
func CuratedDRA() []*Scenario {
	return append([]*Scenario{
		draPrioritizedFallback(), draTaintRule(), draAdminAccess(), draPartitionable(), draConsumableCapacity(),
		draPostFilterDeallocation(), draMatchAttribute(), draAllModeTaken(), draSharedReserved(), draNotFoundQuirk(),
		draCELSelectorNoMatch(), draBindingFailed(), draBindingTimedOut(), draBindingReady(),
	}, CuratedDRAExtended()...)
}

func newDRAGen(name string) *draGen {
	b := curatedBase(name)
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	return &draGen{b: b, r: rand.New(rand.NewPCG(1, 2))}
}

func (g *draGen) deviceClass(name, expr string) {
	c := &resourcev1.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}}
	c.Name, c.UID = name, g.uid("DeviceClass", name)
	if expr != "" {
		c.Spec.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}
	}
	g.b.c.DeviceClasses = append(g.b.c.DeviceClasses, c)
}

// nodeSlice publishes devices on node.
func (g *draGen) nodeSlice(node string, devices ...resourcev1.Device) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}}
	s.Name, s.UID = node+"-devices", g.uid("ResourceSlice", node)
	n := node
	s.Spec = resourcev1.ResourceSliceSpec{Driver: draDriver, NodeName: &n, Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}, Devices: devices}
	g.b.c.ResourceSlices = append(g.b.c.ResourceSlices, s)
	return s
}

func gpu(name, model string) resourcev1.Device {
	return resourcev1.Device{Name: name, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: &model}}}
}

func exactly(class string, count int64) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}}
}

func claimSpec(reqs ...resourcev1.DeviceRequest) resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: reqs}}
}

// claimPod adds a pending pod with one claim of its own.
func (g *draGen) claimPod(name, prio string, spec resourcev1.ResourceClaimSpec) *v1.Pod {
	c := g.claim(name+"-claim", spec)
	return g.podWithClaims(name, prio, c.Name)
}

func (g *draGen) podWithClaims(name, prio string, claims ...string) *v1.Pod {
	p := newPod("default", name, app(name), ctr("c", nginx, "cpu=100m", "memory=128Mi"))
	p.Spec.PriorityClassName = prio
	for i, c := range claims {
		c := c
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: fmt.Sprintf("c%d", i), ResourceClaimName: &c})
	}
	return g.b.pending(p)
}

func (g *draGen) twoNodes() {
	g.b.addNode(cnode("node-a", "", 4000, 16*gi))
	g.b.addNode(cnode("node-b", "", 4000, 16*gi))
	g.deviceClass("gpu", fmt.Sprintf("device.driver == %q", draDriver))
}

func draPrioritizedFallback() *Scenario {
	g := newDRAGen("dra-prioritized-fallback")
	g.twoNodes()
	g.deviceClass("h100", fmt.Sprintf("device.attributes[%q].model == \"h100\"", draDriver))
	g.deviceClass("l4", fmt.Sprintf("device.attributes[%q].model == \"l4\"", draDriver))
	g.nodeSlice("node-a", gpu("gpu-0", "l4"), gpu("gpu-1", "l4"))
	g.nodeSlice("node-b", gpu("gpu-0", "h100"))
	req := resourcev1.DeviceRequest{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
		{Name: "big", DeviceClassName: "h100", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		{Name: "small", DeviceClassName: "l4", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2},
	}}
	g.claimPod("first", "high", claimSpec(req))
	g.claimPod("second", "high", claimSpec(req))
	return g.b.done("the first pod takes node-b's h100 (score 8 against node-a's 7); the second falls back to two l4 on node-a", "DRA/prioritized-list")
}

func draTaintRule() *Scenario {
	g := newDRAGen("dra-taint-rule")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"))
	g.nodeSlice("node-b", gpu("gpu-0", "a100"))
	pool := "node-b"
	rule := &resourcev1.DeviceTaintRule{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceTaintRule"}}
	rule.Name, rule.UID = "maintenance", g.uid("DeviceTaintRule", "maintenance")
	rule.Spec.DeviceSelector = &resourcev1.DeviceTaintSelector{Pool: &pool}
	rule.Spec.Taint = resourcev1.DeviceTaint{Key: "example.com/maintenance", Effect: resourcev1.DeviceTaintEffectNoSchedule}
	g.b.c.DeviceTaintRules = append(g.b.c.DeviceTaintRules, rule)
	g.claimPod("plain", "high", claimSpec(exactly("gpu", 1)))
	g.claimPod("blocked", "high", claimSpec(exactly("gpu", 1)))
	tol := exactly("gpu", 1)
	tol.Exactly.Tolerations = []resourcev1.DeviceToleration{{Key: "example.com/maintenance", Operator: resourcev1.DeviceTolerationOpExists}}
	g.claimPod("tolerating", "high", claimSpec(tol))
	return g.b.done("a DeviceTaintRule taints node-b's GPU: only the tolerating claim gets it", "DRA/device-taint-rule")
}

func draAdminAccess() *Scenario {
	g := newDRAGen("dra-admin-access")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"))
	g.claimPod("user", "high", claimSpec(exactly("gpu", 1)))
	admin := exactly("gpu", 1)
	t := true
	admin.Exactly.AdminAccess = &t
	g.claimPod("monitor", "high", claimSpec(admin))
	g.claimPod("user-2", "high", claimSpec(exactly("gpu", 1)))
	return g.b.done("an admin-access claim gets a device already in use; a second user claim does not", "DRA/admin-access")
}

func draPartitionable() *Scenario {
	g := newDRAGen("dra-partitionable")
	g.twoNodes()
	// A pool of two slices: the counters, and the partitions using them.
	counters := g.nodeSlice("node-a")
	counters.Name = "node-a-counters"
	counters.Spec.Pool.ResourceSliceCount = 2
	counters.Spec.SharedCounters = []resourcev1.CounterSet{{Name: "gpu-0-mem", Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse("40Gi")}}}}
	s := g.nodeSlice("node-a")
	s.UID = g.uid("ResourceSlice", "node-a-partitions")
	s.Spec.Pool.ResourceSliceCount = 2
	for i, size := range []string{"20Gi", "20Gi", "40Gi"} {
		d := gpu(fmt.Sprintf("part-%d", i), "a100")
		d.ConsumesCounters = []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-0-mem", Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse(size)}}}}
		s.Spec.Devices = append(s.Spec.Devices, d)
	}
	g.claimPod("half-1", "high", claimSpec(exactly("gpu", 1)))
	g.claimPod("half-2", "high", claimSpec(exactly("gpu", 1)))
	g.claimPod("whole", "high", claimSpec(exactly("gpu", 1)))
	return g.b.done("two 20Gi partitions use up the 40Gi counter: the whole-GPU partition no longer fits", "DRA/partitionable")
}

func draConsumableCapacity() *Scenario {
	g := newDRAGen("dra-consumable-capacity")
	g.twoNodes()
	d := gpu("gpu-0", "a100")
	t := true
	d.AllowMultipleAllocations = &t
	d.Capacity = map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}}
	g.nodeSlice("node-a", d)
	for i, size := range []string{"16Gi", "16Gi", "16Gi"} {
		r := exactly("gpu", 1)
		r.Exactly.Capacity = &resourcev1.CapacityRequirements{Requests: map[resourcev1.QualifiedName]resource.Quantity{"memory": resource.MustParse(size)}}
		g.claimPod(fmt.Sprintf("share-%d", i), "high", claimSpec(r))
	}
	return g.b.done("a shareable 40Gi GPU serves two 16Gi claims, not a third", "DRA/consumable-capacity")
}

func draPostFilterDeallocation() *Scenario {
	g := newDRAGen("dra-postfilter-deallocation")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"))
	c := g.claim("stale", claimSpec(exactly("gpu", 1)))
	c.Finalizers = []string{resourcev1.Finalizer}
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: draDriver, Pool: "node-gone", Device: "gpu-0"}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-gone"}}}}}},
	}
	g.podWithClaims("stuck", "high", "stale")
	g.podWithClaims("again", "high", "stale")
	return g.b.done("a claim allocated on a node that is gone is unusable everywhere: PostFilter deallocates it, and the next pod using it allocates it afresh", "DRA/postfilter-deallocation")
}

func draMatchAttribute() *Scenario {
	g := newDRAGen("dra-match-attribute")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"), gpu("gpu-1", "l4"))
	g.nodeSlice("node-b", gpu("gpu-0", "l4"), gpu("gpu-1", "l4"))
	spec := claimSpec(exactly("gpu", 2))
	attr := resourcev1.FullyQualifiedName(draDriver + "/model")
	spec.Devices.Constraints = []resourcev1.DeviceConstraint{{MatchAttribute: &attr}}
	g.claimPod("pair", "high", spec)
	return g.b.done("two GPUs of the same model exist only on node-b", "DRA/constraints")
}

func draAllModeTaken() *Scenario {
	g := newDRAGen("dra-all-mode")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"))
	g.nodeSlice("node-b", gpu("gpu-0", "a100"))
	g.claimPod("one", "high", claimSpec(exactly("gpu", 1)))
	all := exactly("gpu", 0)
	all.Exactly.AllocationMode, all.Exactly.Count = resourcev1.DeviceAllocationModeAll, 0
	g.claimPod("all", "high", claimSpec(all))
	g.claimPod("all-2", "high", claimSpec(all))
	return g.b.done("allocationMode All takes every device of a node, none of which may be in use", "DRA/all")
}

func draSharedReserved() *Scenario {
	g := newDRAGen("dra-shared-reserved")
	g.twoNodes()
	g.nodeSlice("node-b", gpu("gpu-0", "a100"))
	c := g.claim("shared", claimSpec(exactly("gpu", 1)))
	owner := newPod("default", "owner", app("owner"), ctr("c", nginx, "cpu=100m", "memory=128Mi"))
	n := "shared"
	owner.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "c0", ResourceClaimName: &n}}
	g.b.addBound(owner, "node-b", metav1.NewTime(owner.CreationTimestamp.Add(5e9)), false)
	c.Finalizers = []string{resourcev1.Finalizer}
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: draDriver, Pool: "node-b", Device: "gpu-0"}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-b"}}}}}},
	}
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: owner.Name, UID: owner.UID}}
	g.podWithClaims("sharer", "high", "shared")
	g.podWithClaims("sharer-2", "low", "shared")
	return g.b.done("pods sharing an allocated claim follow it to node-b and add their reservations", "DRA/shared-claim")
}

func draNotFoundQuirk() *Scenario {
	g := newDRAGen("dra-not-found-quirk")
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"))
	p := g.claimPod("with-pvc", "high", claimSpec(exactly("gpu", 1)))
	p.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "missing"}}}}
	return g.b.done(`VolumeBinding's PreFilter rejects first: DynamicResources' PreFilter never runs, its PostFilter returns "not found"`, "DRA/not-found-quirk")
}

func draCELSelectorNoMatch() *Scenario {
	g := newDRAGen("dra-cel-no-match")
	g.twoNodes()
	g.deviceClass("a100", fmt.Sprintf("device.attributes[%q].model == \"a100\"", draDriver))
	g.nodeSlice("node-a", gpu("gpu-0", "l4"))
	g.nodeSlice("node-b", gpu("gpu-0", "h100"))
	r := exactly("gpu", 1)
	r.Exactly.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.attributes[%q].model == \"a100\"", draDriver)}}}
	g.claimPod("want-a100", "high", claimSpec(r))
	g.claimPod("want-a100-class", "high", claimSpec(exactly("a100", 1)))
	return g.b.done("no node has the model a selector asks for", "DRA/cel-selector")
}

// draBindingFailed: a claim whose device reports a binding failure
// (DRADeviceBindingConditions) is unusable everywhere; PostFilter
// deallocates it and the next pod allocates it afresh.
func draBindingFailed() *Scenario {
	g := newDRAGen("dra-binding-failed")
	c, allocated := attachingClaim(g)
	c.Status.Devices[0].Conditions = []metav1.Condition{
		{Type: "failed", Status: metav1.ConditionTrue, Reason: "FabricDown", Message: "no fabric", LastTransitionTime: allocated},
		{Type: "attached", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "", LastTransitionTime: allocated}}
	g.podWithClaims("stuck", "high", "attaching")
	g.podWithClaims("again", "high", "attaching")
	return g.b.done("a device's binding failure makes its claim unusable on every node: PostFilter deallocates it, and the next pod using it allocates it afresh", "DRA/binding-failure")
}

// draBindingTimedOut: a claim allocated long ago (the scenario's epoch,
// long before any clock the run has, virtual or wall) whose device's
// binding conditions never came true is past its binding timeout: unusable
// everywhere, PostFilter deallocates it, and the next pod allocates it
// afresh (a device without binding conditions: nothing to wait for).
func draBindingTimedOut() *Scenario {
	g := newDRAGen("dra-binding-timed-out")
	attachingClaim(g)
	g.podWithClaims("stuck", "high", "attaching")
	g.podWithClaims("again", "high", "attaching")
	return g.b.done("a claim whose device's binding conditions stayed unmet past the binding timeout is unusable on every node: PostFilter deallocates it, and the next pod using it allocates it afresh", "DRA/binding-timeout")
}

// draBindingReady: a claim whose device's binding conditions are all True
// (however long ago it was allocated) is usable, and PreBind's first check
// finds it ready: the pod binds without waiting.
func draBindingReady() *Scenario {
	g := newDRAGen("dra-binding-ready")
	c, allocated := attachingClaim(g)
	c.Status.Devices[0].Conditions = []metav1.Condition{
		{Type: "attached", Status: metav1.ConditionTrue, Reason: "Attached", Message: "", LastTransitionTime: allocated}}
	g.podWithClaims("ready", "high", "attaching")
	return g.b.done("a claim whose device reports every binding condition True binds its pod at once", "DRA/binding-ready")
}

// attachingClaim adds two nodes, node-a's slice of two GPUs, and claim
// "attaching", allocated node-a's gpu-0 (a device with binding conditions
// "attached" and failure condition "failed") 5s after the epoch, whose
// device status says "attached" False; it returns the claim and the
// allocation time.
func attachingClaim(g *draGen) (*resourcev1.ResourceClaim, metav1.Time) {
	g.twoNodes()
	g.nodeSlice("node-a", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"))
	c := g.claim("attaching", claimSpec(exactly("gpu", 1)))
	c.Finalizers = []string{resourcev1.Finalizer}
	allocated := at(5 * time.Second)
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: draDriver, Pool: "node-a", Device: "gpu-0",
			BindingConditions: []string{"attached"}, BindingFailureConditions: []string{"failed"}}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-a"}}}}}},
		AllocationTimestamp: &allocated,
	}
	c.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: draDriver, Pool: "node-a", Device: "gpu-0", Conditions: []metav1.Condition{
		{Type: "attached", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "", LastTransitionTime: allocated}}}}
	return c, allocated
}
