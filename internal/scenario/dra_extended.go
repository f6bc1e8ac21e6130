package scenario

// DRA-backed extended resources (DRAExtendedResource): DeviceClasses that
// stand for an extended resource, nodes that have it as device-plugin
// allocatable and nodes that only publish devices, pods asking for it in
// regular, init and sidecar containers.

import (
	"fmt"
	"math/rand/v2"
	"strconv"

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
	gpuName := string(resGPU)
	g.extClass("gpu", fmt.Sprintf("device.driver == %q", draDriver), &gpuName, b.now())
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
