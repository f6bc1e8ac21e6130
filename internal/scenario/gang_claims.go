package scenario

// Pod groups that own ResourceClaims (DRAWorkloadResourceClaims): a
// PodGroup's spec.resourceClaims names a claim, or a template the
// resourceclaim controller made the group's claim from; its members list
// the same entry in their spec.resourceClaims, and the claim is reserved
// for the PodGroup, not for each pod.

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group-claim scenario features, one per kind GenerateGroupClaimGangs
// makes.
const (
	FeatGroupClaimShared        = "GroupClaims/gang-shares-group-claim"
	FeatGroupClaimFresh         = "GroupClaims/group-claim-allocated-by-its-member"
	FeatGroupClaimUnallocatable = "GroupClaims/group-claim-cannot-be-allocated"
	FeatGroupClaimPlusPodClaims = "GroupClaims/group-claim-and-pod-template-claims"
	FeatGroupClaimPreempted     = "GroupClaims/preempted-group-holds-claim"
)

// groupClaimKinds are the group-claim kinds; a seed's own kind is the
// seed modulo their count.
var groupClaimKinds = []func(g *gangGen, i int){
	(*gangGen).sharedGroupClaim,
	(*gangGen).freshGroupClaim,
	(*gangGen).unallocatableGroupClaim,
	(*gangGen).groupAndPodClaims,
	(*gangGen).preemptedClaimHolder,
}

// GenerateGroupClaimGangs returns a group-claim scenario of a seed: the
// cluster of GenerateGangs (node-0 with a DRA slice of 2–4 GPUs), the
// seed's own kind of group owning a claim (a gang sharing the group's
// claim, allocated and reserved for the group by an earlier run; a
// one-member gang whose member allocates it; a group claim no node can
// allocate; a group claim next to per-pod template claims; a running
// gang holding a group claim, preempted by a high-priority gang), then
// one or two of GenerateGangs' kinds. Every group claim's devices are on
// node-0, so its members go there.
func GenerateGroupClaimGangs(seed int64) *Scenario {
	g := gangCluster(seed)
	b, r := g.b, g.r
	groupClaimKinds[int(seed%int64(len(groupClaimKinds)))](g, 0)
	for i, k := range r.Perm(len(gangKinds))[:1+r.IntN(2)] {
		gangKinds[k](g, i+1)
	}
	s := b.done("generated scenario of pod groups owning ResourceClaims", "GenericWorkload", "DRAWorkloadResourceClaims")
	s.Seed = seed
	s.LatePodGroups = g.late
	return s
}

// groupClaim gives pg the claim "gpu": from the template <pg>-gpu, the
// claim generated for the group as the resourceclaim controller does
// (named <pg>-gpu-x7k2q, the PodGroup its controlling owner, recorded in
// the group's status), or, one time in three, a claim <pg>-gpu made by
// hand and named by the group. spec is the claim's request. The entry
// the members list is returned with the claim.
func (g *gangGen) groupClaim(pg *schedulingv1beta1.PodGroup, spec resourcev1.ResourceClaimSpec) (v1.PodResourceClaim, *resourcev1.ResourceClaim) {
	const entry = "gpu"
	if g.r.IntN(3) == 0 {
		c := g.claim(pg.Name+"-"+entry, spec)
		name := c.Name
		pg.Spec.ResourceClaims = append(pg.Spec.ResourceClaims, schedulingv1beta1.PodGroupResourceClaim{Name: entry, ResourceClaimName: &name})
		return v1.PodResourceClaim{Name: entry, ResourceClaimName: &name}, c
	}
	tn := g.template(pg.Name+"-"+entry, spec).Name
	pg.Spec.ResourceClaims = append(pg.Spec.ResourceClaims, schedulingv1beta1.PodGroupResourceClaim{Name: entry, ResourceClaimTemplateName: &tn})
	c := g.claim(pg.Name+"-"+entry+"-x7k2q", spec)
	isTrue := true
	c.Annotations = map[string]string{resourcev1.PodResourceClaimAnnotation: entry}
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup", Name: pg.Name, UID: pg.UID, Controller: &isTrue}}
	name := c.Name
	pg.Status.ResourceClaimStatuses = append(pg.Status.ResourceClaimStatuses, schedulingv1beta1.PodGroupResourceClaimStatus{Name: entry, ResourceClaimName: &name})
	return v1.PodResourceClaim{Name: entry, ResourceClaimTemplateName: &tn}, c
}

// useGroupClaim lists the group's claim entry in p's spec.resourceClaims
// and, for a template's claim, records the group's claim in p's status
// as the controller does for a member (after admission, which clears a
// new pod's status).
func useGroupClaim(p *v1.Pod, entry v1.PodResourceClaim, c *resourcev1.ResourceClaim) {
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, entry)
	groupClaimStatus(p, entry, c)
}

// groupClaimStatus records, for a template's entry, the group's claim in
// p's status.resourceClaimStatuses.
func groupClaimStatus(p *v1.Pod, entry v1.PodResourceClaim, c *resourcev1.ResourceClaim) {
	if entry.ResourceClaimTemplateName != nil {
		name := c.Name
		p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: entry.Name, ResourceClaimName: &name})
	}
}

// groupMembers adds n low-priority members of group listing the group's
// claim entry and, when own is not nil, an entry of their own after or
// before it (at random), with the claims the controller made for them.
func (g *gangGen) groupMembers(group string, n int, entry v1.PodResourceClaim, c *resourcev1.ResourceClaim, own *v1.PodResourceClaim) {
	ownFirst := own != nil && g.r.IntN(2) == 0
	for _, p := range g.members(group, "low", n, cpuCtr(200), func(p *v1.Pod) {
		if ownFirst {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, *own)
		}
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, entry)
		if own != nil && !ownFirst {
			p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, *own)
		}
	}) {
		groupClaimStatus(p, entry, c)
		if own != nil {
			g.generateClaim(p, *own)
		}
	}
}

// reserveForGroup allocates c a free device of node-0 and reserves it for
// pg, as the scheduler's PreBind of an earlier member left it; false when
// node-0 has no free device.
func (g *gangGen) reserveForGroup(c *resourcev1.ResourceClaim, pg *schedulingv1beta1.PodGroup) bool {
	free := g.freeDevices(g.nodes[0])
	if len(free) == 0 {
		return false
	}
	g.allocate(c, free[0].node, free[0].device)
	c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: pg.Name, UID: pg.UID}}
	return true
}

// sharedGroupClaim: a gang of two or three sharing its group's claim of
// one GPU, allocated on node-0 and reserved for the group by an earlier
// run (a one-member gang allocating it when node-0 has no free GPU).
func (g *gangGen) sharedGroupClaim(i int) {
	n := 2 + g.r.IntN(2)
	name := fmt.Sprintf("claim-gang-%d", i)
	pg := g.podGroup("default", name, "low", gangPolicy(int32(n)), nil)
	entry, c := g.groupClaim(pg, oneGPU())
	if !g.reserveForGroup(c, pg) {
		n = 1
		pg.Spec.SchedulingPolicy = gangPolicy(1)
	}
	g.groupMembers(name, n, entry, c, nil)
	g.b.feat(FeatGroupClaimShared)
}

// freshGroupClaim: a one-member gang whose member allocates its group's
// claim of one GPU and reserves it for the group. (Two members allocating
// it in one cycle would both write it: the second write conflicts on a
// real API server, not on the fake one upstream runs against in this
// suite, so the comparison would not be upstream's.)
func (g *gangGen) freshGroupClaim(i int) {
	name := fmt.Sprintf("claim-gang-%d", i)
	pg := g.podGroup("default", name, "low", gangPolicy(1), nil)
	entry, c := g.groupClaim(pg, oneGPU())
	g.groupMembers(name, 1, entry, c, nil)
	g.b.feat(FeatGroupClaimFresh)
}

// unallocatableGroupClaim: a gang of two whose group claim asks for more
// GPUs than any node has, or for a class that does not exist.
func (g *gangGen) unallocatableGroupClaim(i int) {
	name := fmt.Sprintf("claim-too-big-%d", i)
	pg := g.podGroup("default", name, "low", gangPolicy(2), nil)
	spec := oneGPU()
	if g.r.IntN(2) == 0 {
		spec.Devices.Requests[0].Exactly.Count = 8
	} else {
		spec.Devices.Requests[0].Exactly.DeviceClassName = "tpu"
	}
	entry, c := g.groupClaim(pg, spec)
	g.groupMembers(name, 2, entry, c, nil)
	g.b.feat(FeatGroupClaimUnallocatable)
}

// groupAndPodClaims: a gang of two or three with the group's claim
// (allocated on node-0, reserved for the group) and each member a GPU
// of its own through a template; the group's claim first or last in the
// members' lists. node-0 may lack GPUs for all of them: then the group
// fails and its PodGroupPostFilter unreserves the group's claim.
func (g *gangGen) groupAndPodClaims(i int) {
	n := 2 + g.r.IntN(2)
	name := fmt.Sprintf("claims-gang-%d", i)
	pg := g.podGroup("default", name, "low", gangPolicy(int32(n)), nil)
	entry, c := g.groupClaim(pg, oneGPU())
	g.reserveForGroup(c, pg)
	tn := g.template(name+"-own", oneGPU()).Name
	own := v1.PodResourceClaim{Name: "own", ResourceClaimTemplateName: &tn}
	g.groupMembers(name, n, entry, c, &own)
	g.b.feat(FeatGroupClaimPlusPodClaims)
}

// preemptedClaimHolder: the running gang (victimGroup's) owns a group
// claim allocated on node-0, where one of its members runs, and a
// high-priority gang of one, only for node-0, preempts it; the claim
// stays reserved for the PodGroup, which is not deleted.
func (g *gangGen) preemptedClaimHolder(i int) {
	pg, nodes := g.victimPodGroup()
	if !slices.Contains(nodes, g.nodes[0]) {
		nodes[0] = g.nodes[0]
	}
	entry, c := g.groupClaim(pg, oneGPU())
	g.reserveForGroup(c, pg)
	for j, node := range nodes {
		p := g.running(fmt.Sprintf("trainer-old-%d", j), node, 1000+int64(g.r.IntN(2))*500, 0, pg)
		useGroupClaim(p, entry, c)
	}
	// A high-priority gang of one that needs all of node-0's cpu (its
	// allocatable 3900m): every pod there goes, the group's member among
	// them.
	name := fmt.Sprintf("claim-preemptor-%d", i)
	g.podGroup("default", name, "high", gangPolicy(1), nil)
	g.members(name, "high", 1, cpuCtr(3900), func(p *v1.Pod) {
		p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": g.nodes[0]}
	})
	g.b.feat(FeatGroupClaimPreempted, FeatPreemptLowerVictim)
}
