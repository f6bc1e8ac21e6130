package scenario

// DRA-backed extended resources (DRAExtendedResource): DeviceClasses that
// stand for an extended resource, nodes that have it as device-plugin
// allocatable and nodes that only publish devices, pods asking for it in
// regular, init and sidecar containers.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// resFastGPU is the extended resource two classes may both claim.
const resFastGPU = v1.ResourceName("example.com/fast-gpu")

// GenerateDRAExtended returns the DRA extended-resource scenario of a
// seed: 2–5 nodes, some with device-plugin GPUs (example.com/gpu
// allocatable), most with a slice of GPUs; class "gpu" (every GPU) mapped
// to example.com/gpu; sometimes two classes of different models both
// naming example.com/fast-gpu (the newer wins, equal times the smaller
// name); pending pods asking for example.com/gpu, example.com/fast-gpu or
// the implicit deviceclass.resource.kubernetes.io/gpu from regular, plain
// init and sidecar containers, some also with a claim of their own.
func GenerateDRAExtended(seed int64) *Scenario {
	r := rand.New(rand.NewPCG(splitmix64(uint64(seed)), splitmix64(uint64(seed)^0xe47e4de0e47e4de0)))
	b := curatedBase(fmt.Sprintf("dra-ext-%d", seed))
	b.addPriorityClass("low", 100, false, "", "")
	g := &draGen{b: b, r: r}
	g.gpuClass()
	clash := r.IntN(2) == 0
	if clash {
		fast := string(resFastGPU)
		older := b.now()
		newer := older
		if r.IntN(3) > 0 {
			newer = b.now()
			b.feat("DRA/extended-clash-newer")
		} else {
			b.feat("DRA/extended-clash-tie")
		}
		models := r.Perm(len(draModels))
		// Which of the two is created first (and listed first) is random.
		first, second := "fast-a", "fast-b"
		if r.IntN(2) == 0 {
			first, second = second, first
		}
		g.extClass(first, modelExpr(draModels[models[0]]), &fast, older)
		g.extClass(second, modelExpr(draModels[models[1]]), &fast, newer)
	}
	devicePlugin := false
	for i := range 2 + r.IntN(4) {
		name := fmt.Sprintf("node-%d", i)
		s := cnode(name, "", 8000, 32*gi)
		if r.IntN(3) == 0 {
			s.gpus = int64(1 + r.IntN(3))
			devicePlugin = true
			b.feat("DRA/extended-device-plugin")
		}
		b.addNode(s)
		if s.gpus == 0 && r.IntN(5) > 0 {
			g.slice(name, 1+r.IntN(5))
		}
	}
	for i := range 2 + r.IntN(5) {
		p := newPod("default", fmt.Sprintf("ext-pod-%d", i), app("gpu"), ctr("c", nginx, "cpu=500m", "memory=512Mi"))
		p.Spec.PriorityClassName = "low"
		res := resGPU
		switch k := r.IntN(6); {
		case k == 0:
			res = v1.ResourceName(resourcev1.ResourceDeviceClassPrefix + "gpu")
			b.feat("DRA/extended-implicit-name")
		case k == 1 && clash:
			res = resFastGPU
		}
		n := strconv.Itoa(1 + r.IntN(2))
		p.Spec.Containers[0] = withReqLim(p.Spec.Containers[0], string(res)+"="+n)
		if r.IntN(3) == 0 {
			p.Spec.Containers = append(p.Spec.Containers, withReqLim(ctr("second", nginx, "cpu=100m"), string(res)+"=1"))
		}
		if r.IntN(3) == 0 {
			p.Spec.InitContainers = append(p.Spec.InitContainers, withReqLim(ctr("init", nginx, "cpu=100m"), string(res)+"="+strconv.Itoa(1+r.IntN(3))))
			b.feat("DRA/extended-init")
		}
		if r.IntN(4) == 0 {
			p.Spec.InitContainers = append(p.Spec.InitContainers, sidecar(withReqLim(ctr("sidecar", nginx, "cpu=100m"), string(res)+"=1")))
			b.feat("DRA/extended-sidecar")
		}
		// A claim of its own next to the extended resource, only where no
		// node has device-plugin GPUs: upstream's Reserve dereferences a
		// missing per-node claim when the device plugin covers it all
		// beside a user claim.
		if !devicePlugin && r.IntN(4) == 0 {
			c := g.claim(p.Name+"-claim", resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{exactly("gpu", 1)}}})
			cn := c.Name
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "own", ResourceClaimName: &cn}}
			b.feat("DRA/extended-with-claim")
		}
		b.pending(p)
	}
	return b.done("generated DRA extended-resource scenario", "DRA", "DRA/extended")
}

func modelExpr(model string) string {
	return fmt.Sprintf("device.driver == %q && device.attributes[%q].model == %q", draDriver, draDriver, model)
}

// extClass adds a DeviceClass standing for extended (nil: only the
// implicit name), created at t.
func (g *draGen) extClass(name, expr string, extended *string, t metav1.Time) {
	c := &resourcev1.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}}
	c.Name, c.UID, c.CreationTimestamp = name, g.uid("DeviceClass", name), t
	c.Spec.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}
	c.Spec.ExtendedResourceName = extended
	g.b.c.DeviceClasses = append(g.b.c.DeviceClasses, c)
}

// CuratedDRAExtended returns one scenario per rule of DRA-backed extended
// resources.
func CuratedDRAExtended() []*Scenario {
	return []*Scenario{
		draExtClashNewer(), draExtClashTie(), draExtImplicitName(), draExtDevicePluginFirst(),
		draExtStaleClaim(), draExtInitSidecar(), draExtWithUserClaim(),
	}
}

// gpuClass adds class "gpu" (every GPU) standing for example.com/gpu.
func (g *draGen) gpuClass() {
	gpuName := string(resGPU)
	g.extClass("gpu", fmt.Sprintf("device.driver == %q", draDriver), &gpuName, g.b.now())
}

// extPod adds a pending pod whose one container asks for n of res.
func (g *draGen) extPod(name string, res v1.ResourceName, n int) *v1.Pod {
	p := newPod("default", name, app(name), withReqLim(ctr("c", nginx, "cpu=100m", "memory=128Mi"), fmt.Sprintf("%s=%d", res, n)))
	p.Spec.PriorityClassName = "high"
	return g.b.pending(p)
}

// modelNodes adds node-a with two a100 and node-b with two h100.
func (g *draGen) modelNodes() {
	g.b.addNode(cnode("node-a", "", 4000, 16*gi))
	g.b.addNode(cnode("node-b", "", 4000, 16*gi))
	g.nodeSlice("node-a", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"))
	g.nodeSlice("node-b", gpu("gpu-0", "h100"), gpu("gpu-1", "h100"))
}

// draExtClash: two classes of different models name
// example.com/fast-gpu; laterBy sets how much later the first listed one
// was created than the second.
func draExtClash(name string, laterBy time.Duration, first, second, doc, feat string) *Scenario {
	g := newDRAGen(name)
	g.modelNodes()
	fast := string(resFastGPU)
	t := g.b.now()
	g.extClass(first, modelExpr("h100"), &fast, metav1.NewTime(t.Add(laterBy)))
	g.extClass(second, modelExpr("a100"), &fast, t)
	g.extPod("fast", resFastGPU, 2)
	return g.b.done(doc, "DRA/extended", feat)
}

func draExtClashNewer() *Scenario {
	// Listed newer first, so that arrival order is not what decides.
	return draExtClash("dra-ext-clash-newer", time.Hour, "z-new", "a-old",
		"two classes name example.com/fast-gpu: the newer (h100, node-b) backs it, whatever its name", "DRA/extended-clash-newer")
}

func draExtClashTie() *Scenario {
	return draExtClash("dra-ext-clash-tie", 0, "alpha", "zeta",
		"two classes created at the same time name example.com/fast-gpu: the smaller name (alpha, h100, node-b) backs it", "DRA/extended-clash-tie")
}

func draExtImplicitName() *Scenario {
	g := newDRAGen("dra-ext-implicit-name")
	g.b.addNode(cnode("node-a", "", 4000, 16*gi))
	g.b.addNode(cnode("node-b", "", 4000, 16*gi))
	g.nodeSlice("node-a", gpu("gpu-0", "a100"))
	g.nodeSlice("node-b", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"))
	g.extClass("gpu", fmt.Sprintf("device.driver == %q", draDriver), nil, g.b.now())
	g.extPod("two", v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+"gpu"), 2)
	g.extPod("one-more", v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+"gpu"), 1)
	return g.b.done("a class without extendedResourceName still backs deviceclass.resource.kubernetes.io/<class>: two GPUs only on node-b, the last one on node-a", "DRA/extended", "DRA/extended-implicit-name")
}

func draExtDevicePluginFirst() *Scenario {
	g := newDRAGen("dra-ext-device-plugin-first")
	a := cnode("node-a", "", 4000, 16*gi)
	a.gpus = 1
	g.b.addNode(a)
	g.b.addNode(cnode("node-b", "", 4000, 16*gi))
	g.nodeSlice("node-b", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"), gpu("gpu-2", "a100"))
	g.gpuClass()
	g.extPod("two", resGPU, 2)
	g.extPod("one", resGPU, 1)
	return g.b.done("node-a's device plugin has one example.com/gpu: NodeResourcesFit checks it there (Insufficient for two); node-b has none allocatable, so DynamicResources allocates from its slice", "DRA/extended", "DRA/extended-device-plugin")
}

func draExtStaleClaim() *Scenario {
	g := newDRAGen("dra-ext-stale-claim")
	g.modelNodes()
	g.gpuClass()
	p := g.extPod("retry", resGPU, 1)
	c := g.claim("retry-extended-resources-k2x9q", resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "container-0-request-2", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}})
	isTrue := true
	c.Annotations = map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"}
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &isTrue}}
	return g.b.done("a special claim an earlier cycle created for the pod is refused on every node and deleted by PostFilter", "DRA/extended", "DRA/extended-stale-claim")
}

func draExtInitSidecar() *Scenario {
	g := newDRAGen("dra-ext-init-sidecar")
	g.b.addNode(cnode("node-a", "", 4000, 16*gi))
	g.nodeSlice("node-a", gpu("gpu-0", "a100"), gpu("gpu-1", "a100"), gpu("gpu-2", "a100"), gpu("gpu-3", "a100"), gpu("gpu-4", "a100"))
	g.gpuClass()
	p := newPod("default", "mixed", app("mixed"),
		withReqLim(ctr("main", nginx, "cpu=100m"), string(resGPU)+"=1"))
	p.Spec.InitContainers = []v1.Container{
		sidecar(withReqLim(ctr("side", nginx, "cpu=100m"), string(resGPU)+"=1")),
		withReqLim(ctr("setup", nginx, "cpu=100m"), string(resGPU)+"=3"),
	}
	p.Spec.PriorityClassName = "high"
	g.b.pending(p)
	g.extPod("two", resGPU, 2)
	g.extPod("one", resGPU, 1)
	return g.b.done("the init container reuses main's request and asks two more; with the sidecar's, four of five GPUs go, so two more do not fit and one does", "DRA/extended", "DRA/extended-init", "DRA/extended-sidecar")
}

func draExtWithUserClaim() *Scenario {
	g := newDRAGen("dra-ext-with-user-claim")
	g.modelNodes()
	g.deviceClass("h100", modelExpr("h100"))
	g.gpuClass()
	p := g.extPod("both", resGPU, 1)
	c := g.claim("both-claim", claimSpec(exactly("h100", 1)))
	n := c.Name
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "own", ResourceClaimName: &n}}
	g.extPod("after", resGPU, 2)
	return g.b.done("a claim of the pod's own and the special claim are allocated together: one h100 each on node-b, so two more GPUs only fit on node-a", "DRA/extended", "DRA/extended-with-claim")
}
