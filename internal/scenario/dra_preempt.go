package scenario

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
)

// GenerateDRAPreemption returns the DRA preemption scenario of a seed:
// 2–4 nodes of 2 cpus, each with a slice of 1–3 GPUs, filled by
// low-priority pods that each hold a GPU of their node through a claim of
// their own, a claim generated for them from a template (owned by the
// pod), or a claim shared with the pod next to them; high-priority pods
// that need the cpu of those holders and preempt them; and low-priority
// pods, attempted after, that need one cpu fifth and a GPU, which only the
// victims' released claims can give them. The resourceclaim controller
// releases a victim's claims when it is gone: reservation dropped, the
// claim deallocated if nobody else uses it, deleted if generated for it.
func GenerateDRAPreemption(seed int64) *Scenario {
	g := newGeneratedDRA("dra-preemption", seed, 0x9ee3b7109ee3b710)
	b, r := g.b, g.r
	nNodes := 2 + r.IntN(3)
	for i := range nNodes {
		name := fmt.Sprintf("node-%d", i)
		b.addNode(cnode(name, "", 2000, 16*gi))
		g.slice(name, 1+r.IntN(3))
		g.deviceHolders(name, 1+r.IntN(2))
	}
	for i := range 1 + r.IntN(2) {
		p := newPod("default", fmt.Sprintf("preemptor-%d", i), app("batch"), ctr("c", nginx, "cpu=1", "memory=512Mi"))
		p.Spec.PriorityClassName = "high"
		if r.IntN(4) == 0 {
			g.claimFor(p, "gpu", oneGPU())
		}
		b.pending(p)
		g.generateClaims(p)
	}
	for i := range 1 + r.IntN(4) {
		p := newPod("default", fmt.Sprintf("gpu-pod-%d", i), app("gpu"), ctr("c", nginx, "cpu=200m", "memory=512Mi"))
		p.Spec.PriorityClassName = "low"
		spec := oneGPU()
		if r.IntN(3) == 0 {
			spec = g.claimSpec()
		}
		if r.IntN(2) == 0 {
			tn := g.template(p.Name+"-gpu", spec).Name
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tn}}
		} else {
			g.claimFor(p, "gpu", spec)
		}
		b.pending(p)
		g.generateClaims(p)
	}
	return b.done("generated DRA preemption scenario", "DRA", "DRA/preemption")
}

// claimFor gives pod p a claim of its own, named <pod>-<podClaim>.
func (g *draGen) claimFor(p *v1.Pod, podClaim string, spec resourcev1.ResourceClaimSpec) *resourcev1.ResourceClaim {
	c := g.claim(p.Name+"-"+podClaim, spec)
	name := c.Name
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: podClaim, ResourceClaimName: &name})
	return c
}

// deviceHolders binds n low-priority pods to node, sharing 1.5 cpus, each
// holding a free GPU of the node (while one is left) through its own
// claim, a claim generated from a template, or the previous holder's
// claim, shared.
func (g *draGen) deviceHolders(node string, n int) {
	var prev *resourcev1.ResourceClaim
	for j := range n {
		p := newPod("default", fmt.Sprintf("running-%s-%d", node, j), app("running"), ctr("c", nginx, fmt.Sprintf("cpu=%dm", 1500/n), "memory=512Mi"))
		p.Spec.PriorityClassName = "low"
		// Distinct start times settle which victims preemption picks
		// (the latest started), which otherwise upstream draws at random.
		start := at(time.Hour + time.Duration(g.r.IntN(3600))*time.Second)
		free := g.freeDevices(node)
		kind := g.r.IntN(3)
		switch {
		case kind == 2 && prev != nil:
			name := prev.Name
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}
			g.b.addBound(p, node, start, false)
			prev.Status.ReservedFor = append(prev.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
			g.b.feat("DRA/preemption/shared-victim")
			continue
		case len(free) == 0:
			g.b.addBound(p, node, start, false)
			continue
		}
		var c *resourcev1.ResourceClaim
		if kind == 1 {
			tn := g.template(p.Name+"-gpu", oneGPU()).Name
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tn}}
			g.b.addBound(p, node, start, false)
			g.generateClaims(p)
			c = g.b.c.ResourceClaims[len(g.b.c.ResourceClaims)-1]
			g.b.feat("DRA/preemption/generated-victim")
		} else {
			c = g.claimFor(p, "gpu", oneGPU())
			g.b.addBound(p, node, start, false)
		}
		g.allocate(c, node, free[0].device, p)
		prev = c
	}
}
