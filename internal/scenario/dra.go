package scenario

// Dynamic resource allocation scenarios: nodes with ResourceSlices of GPUs,
// device classes with CEL selectors, claims (direct, from templates, shared,
// already allocated), prioritized lists, device taints, missing classes and
// unsatisfiable requests.

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// draDriver is the driver every generated slice publishes.
const draDriver = "gpu.example.com"

var draModels = []string{"a100", "h100", "l4"}

// GenerateDRA returns the DRA scenario of a seed: 2–5 nodes, most with a
// slice of 0–4 GPUs (model, memory), classes "gpu" (every GPU) and
// "gpu-<model>" (a CEL selector on the model), some GPUs already allocated
// to bound pods' claims, and pending pods asking for GPUs by claim or
// template, ExactCount or All, with selectors, prioritized lists, shared
// claims, tolerations of device taints, and classes that do not exist.
func GenerateDRA(seed int64) *Scenario {
	g := newGeneratedDRA("dra", seed, 0xd7a0d7a0d7a0d7a0)
	b, r := g.b, g.r
	nNodes := 2 + r.IntN(4)
	for i := range nNodes {
		name := fmt.Sprintf("node-%d", i)
		b.addNode(cnode(name, "", 8000, 32*gi))
		if r.IntN(5) > 0 {
			g.slice(name, 1+r.IntN(6))
		}
	}
	for i := range 1 + r.IntN(3) {
		g.boundWithClaim(fmt.Sprintf("running-%d", i))
	}
	var shared *resourcev1.ResourceClaim
	for i := range 2 + r.IntN(5) {
		p := newPod("default", fmt.Sprintf("gpu-pod-%d", i), app("gpu"), ctr("c", nginx, "cpu=500m", "memory=512Mi"))
		p.Spec.PriorityClassName = []string{"low", "high"}[r.IntN(2)]
		for j := range 1 + r.IntN(2) {
			pcName := fmt.Sprintf("gpu-%d", j)
			switch k := r.IntN(10); {
			case k < 3:
				t := g.template(fmt.Sprintf("%s-%s", p.Name, pcName), g.claimSpec())
				tn := t.Name
				p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: pcName, ResourceClaimTemplateName: &tn})
				b.feat("DRA/template")
			case k < 4 && shared != nil && !referencesClaim(p, shared.Name):
				n := shared.Name
				p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: pcName, ResourceClaimName: &n})
				b.feat("DRA/shared-claim")
			default:
				c := g.claim(fmt.Sprintf("%s-%s", p.Name, pcName), g.claimSpec())
				if shared == nil && r.IntN(3) == 0 {
					shared = c
				}
				n := c.Name
				p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: pcName, ResourceClaimName: &n})
			}
		}
		b.pending(p)
		g.generateClaims(p)
	}
	return b.done("generated DRA scenario", "DRA")
}

// newGeneratedDRA starts the generated DRA scenario <kind>-<seed>: its
// random source (seeded from seed and salt), priority classes low and
// high, and the device classes.
func newGeneratedDRA(kind string, seed int64, salt uint64) *draGen {
	r := rand.New(rand.NewPCG(splitmix64(uint64(seed)), splitmix64(uint64(seed)^salt)))
	b := curatedBase(fmt.Sprintf("%s-%d", kind, seed))
	b.addPriorityClass("low", 100, false, "", "")
	b.addPriorityClass("high", 10000, false, "", "")
	g := &draGen{b: b, r: r}
	g.classes()
	return g
}

type draGen struct {
	b    *builder
	r    *rand.Rand
	nUID int
}

func (g *draGen) uid(kind, name string) types.UID {
	g.nUID++
	return types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", g.nUID))
}

func (g *draGen) classes() {
	add := func(name, expr string) {
		c := &resourcev1.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}}
		c.Name = name
		c.UID = g.uid("DeviceClass", name)
		c.Spec.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}
		g.b.c.DeviceClasses = append(g.b.c.DeviceClasses, c)
	}
	add("gpu", fmt.Sprintf("device.driver == %q", draDriver))
	for _, m := range draModels {
		if g.r.IntN(8) > 0 {
			add("gpu-"+m, fmt.Sprintf("device.driver == %q && device.attributes[%q].model == %q", draDriver, draDriver, m))
		}
	}
}

// slice publishes n GPUs on node, a few of them tainted.
func (g *draGen) slice(node string, n int) {
	s := &resourcev1.ResourceSlice{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}}
	s.Name = node + "-gpus"
	s.UID = g.uid("ResourceSlice", s.Name)
	nodeName := node
	s.Spec.NodeName = &nodeName
	s.Spec.Driver = draDriver
	s.Spec.Pool = resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}
	for i := range n {
		model := draModels[g.r.IntN(len(draModels))]
		mem := resource.MustParse([]string{"40Gi", "80Gi"}[g.r.IntN(2)])
		d := resourcev1.Device{
			Name: fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"model": {StringValue: &model},
			},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: mem}},
		}
		if g.r.IntN(8) == 0 {
			d.Taints = []resourcev1.DeviceTaint{{Key: "gpu.example.com/unhealthy", Value: "true", Effect: resourcev1.DeviceTaintEffectNoSchedule}}
			g.b.feat("DRA/device-taint")
		}
		s.Spec.Devices = append(s.Spec.Devices, d)
	}
	g.b.c.ResourceSlices = append(g.b.c.ResourceSlices, s)
}

// claimSpec is a random device request: a class (sometimes one that does
// not exist), ExactCount 1–3 or All, maybe a memory selector, maybe a
// prioritized list, maybe a toleration of the unhealthy taint.
func (g *draGen) claimSpec() resourcev1.ResourceClaimSpec {
	r := g.r
	class := "gpu"
	switch k := r.IntN(10); {
	case k < 3:
		class = "gpu-" + draModels[r.IntN(len(draModels))]
	case k == 3 && r.IntN(3) == 0:
		class = "tpu"
		g.b.feat("DRA/missing-class")
	}
	exact := &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: int64(1 + r.IntN(3)/2)}
	if r.IntN(8) == 0 {
		exact.AllocationMode, exact.Count = resourcev1.DeviceAllocationModeAll, 0
		g.b.feat("DRA/all")
	}
	if r.IntN(4) == 0 {
		exact.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: fmt.Sprintf("device.capacity[%q].memory.compareTo(quantity(%q)) >= 0", draDriver, "80Gi")}}}
		g.b.feat("DRA/cel-selector")
	}
	if r.IntN(6) == 0 {
		exact.Tolerations = []resourcev1.DeviceToleration{{Key: "gpu.example.com/unhealthy", Operator: resourcev1.DeviceTolerationOpExists}}
	}
	req := resourcev1.DeviceRequest{Name: "gpu", Exactly: exact}
	if r.IntN(5) == 0 {
		req.Exactly = nil
		for i, m := range []string{draModels[r.IntN(len(draModels))], draModels[r.IntN(len(draModels))]} {
			req.FirstAvailable = append(req.FirstAvailable, resourcev1.DeviceSubRequest{
				Name: fmt.Sprintf("choice-%d", i), DeviceClassName: "gpu-" + m,
				AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: int64(1 + r.IntN(2)),
			})
		}
		req.FirstAvailable = append(req.FirstAvailable, resourcev1.DeviceSubRequest{
			Name: "any", DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1})
		g.b.feat("DRA/prioritized-list")
	}
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{req}}}
}

func (g *draGen) claim(name string, spec resourcev1.ResourceClaimSpec) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"}}
	c.Namespace, c.Name = "default", name
	c.UID = g.uid("ResourceClaim", name)
	c.Spec = spec
	g.b.c.ResourceClaims = append(g.b.c.ResourceClaims, c)
	return c
}

func (g *draGen) template(name string, spec resourcev1.ResourceClaimSpec) *resourcev1.ResourceClaimTemplate {
	t := &resourcev1.ResourceClaimTemplate{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"}}
	t.Namespace, t.Name = "default", name
	t.UID = g.uid("ResourceClaimTemplate", name)
	t.Spec.Spec = spec
	g.b.c.ResourceClaimTemplates = append(g.b.c.ResourceClaimTemplates, t)
	return t
}

// generateClaims creates the claims of p's templates as the resourceclaim
// controller would, and records them in p's status.
func (g *draGen) generateClaims(p *v1.Pod) {
	for _, pc := range p.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName != nil {
			g.generateClaim(p, pc)
		}
	}
}

// generateClaim is generateClaims for p's template entry pc.
func (g *draGen) generateClaim(p *v1.Pod, pc v1.PodResourceClaim) {
	var tmpl *resourcev1.ResourceClaimTemplate
	for _, t := range g.b.c.ResourceClaimTemplates {
		if t.Name == *pc.ResourceClaimTemplateName {
			tmpl = t
		}
	}
	c := g.claim(p.Name+"-"+pc.Name+"-x7k2q", *tmpl.Spec.Spec.DeepCopy())
	isTrue := true
	c.Annotations = map[string]string{resourcev1.PodResourceClaimAnnotation: pc.Name}
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &isTrue}}
	n := c.Name
	p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &n})
}

// boundWithClaim binds a pod holding a claim allocated to a free GPU of a
// random node's slice (if any GPU is free).
func (g *draGen) boundWithClaim(name string) {
	free := g.freeDevices("")
	if len(free) == 0 {
		return
	}
	pick := free[g.r.IntN(len(free))]
	p := newPod("default", name, app("running"), ctr("c", nginx, "cpu=500m", "memory=512Mi"))
	p.Spec.PriorityClassName = "low"
	c := g.claim(name+"-gpu", oneGPU())
	n := c.Name
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &n}}
	g.b.addBound(p, pick.node, metav1.NewTime(p.CreationTimestamp.Add(5e9)), false)
	g.allocate(c, pick.node, pick.device, p)
	g.b.feat("DRA/allocated-claim")
}

// oneGPU is a request for one device of class gpu.
func oneGPU() resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}}
}

// nodeDevice is a device of a node's slice.
type nodeDevice struct{ node, device string }

// freeDevices are the devices of node's slice (every node's, for "") no
// claim has allocated yet.
func (g *draGen) freeDevices(node string) []nodeDevice {
	taken := map[string]bool{}
	for _, c := range g.b.c.ResourceClaims {
		if a := c.Status.Allocation; a != nil {
			for _, res := range a.Devices.Results {
				taken[res.Pool+"/"+res.Device] = true
			}
		}
	}
	var free []nodeDevice
	for _, s := range g.b.c.ResourceSlices {
		if node != "" && *s.Spec.NodeName != node {
			continue
		}
		for _, d := range s.Spec.Devices {
			if !taken[s.Spec.Pool.Name+"/"+d.Name] {
				free = append(free, nodeDevice{*s.Spec.NodeName, d.Name})
			}
		}
	}
	return free
}

// allocate leaves claim c as the scheduler's PreBind does for the bound
// pods: node's device allocated, delete-protected, reserved for them.
func (g *draGen) allocate(c *resourcev1.ResourceClaim, node, device string, pods ...*v1.Pod) {
	c.Finalizers = []string{resourcev1.Finalizer}
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
			Request: "gpu", Driver: draDriver, Pool: node, Device: device}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
			Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}},
	}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
}

// referencesClaim reports whether p already lists the claim: a pod may list
// a claim twice, but then the second PreBind write conflicts with the first
// on a real API server, which the fake one the differential suite runs
// upstream against does not model.
func referencesClaim(p *v1.Pod, name string) bool {
	for _, pc := range p.Spec.ResourceClaims {
		if pc.ResourceClaimName != nil && *pc.ResourceClaimName == name {
			return true
		}
	}
	return false
}
