package scenario

// Workload-aware scheduling scenarios (GenericWorkload): zoned nodes, some
// with GPUs, Workloads and the PodGroups made from their templates, and
// pods that name their PodGroup in spec.schedulingGroup.

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Gang scenario features, one per kind of group GenerateGangs makes.
const (
	FeatGangFits          = "GangScheduling/gang-fits"
	FeatGangTooBig        = "GangScheduling/gang-too-big"
	FeatGangGPUTooBig     = "GangScheduling/gpu-gang-too-big"
	FeatGangMinCountLower = "GangScheduling/min-count-below-size"
	FeatGangBelowMinCount = "GangScheduling/fewer-pods-than-min-count"
	FeatGangPreempt       = "GangScheduling/preempts-lower-priority"
	FeatGangPreemptNever  = "GangScheduling/preemption-policy-never"
	FeatGangVictimSingle  = "GangScheduling/victim-group-disruption-single"
	FeatGangVictimAll     = "GangScheduling/victim-group-disruption-all"
	FeatGroupBasic        = "GangScheduling/basic-policy"
	FeatGroupMissing      = "GangScheduling/missing-pod-group"
	FeatGroupLate         = "GangScheduling/pod-group-created-after-pods"
	FeatGangDRA           = "GangScheduling/dra-claim-templates"
	FeatGangOrdinaryPods  = "GangScheduling/ordinary-pods-mixed"
	FeatGangTopology      = "TopologyPlacement/zone-constraint"
)

// gangZones are the zones GenerateGangs spreads its nodes over.
var gangZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// gangKinds are the kinds of pending group GenerateGangs draws from; every
// scenario has a few of them, and the seeds 0..len(gangKinds)-1 between them
// have every kind (the seed's own kind always comes first).
var gangKinds = []func(g *gangGen, i int){
	(*gangGen).gangFits,
	(*gangGen).gangTooBig,
	(*gangGen).gangGPUTooBig,
	(*gangGen).gangPreempt,
	(*gangGen).basicGroup,
	(*gangGen).missingGroup,
	(*gangGen).lateGroup,
	(*gangGen).belowMinCount,
	(*gangGen).draGang,
}

// GenerateGangs returns the workload-aware scheduling scenario of a seed:
// 6–9 nodes of 4 cpus in three zones, about half with four GPUs (the
// extended resource example.com/gpu) and one with a DRA slice of GPUs;
// low-priority pods running on them, some of them the members of a
// running gang whose disruptionMode is single or all; and three or four
// pending groups, each of its own Workload: gangs that fit, gangs too big
// for the cluster (by cpu or by GPUs), some of them to be placed in one
// zone (TopologyAwareWorkloadScheduling), high-priority gangs that fit only by
// preempting the running pods, groups of the basic policy, pods whose
// PodGroup does not exist, a PodGroup created after its pods
// (Scenario.LatePodGroups), a gang with fewer pods than its minCount and a
// gang whose members claim GPUs through ResourceClaimTemplates; and a few
// ordinary pods between them. Every pod of a group has the group's
// priority, as kube-scheduler requires.
func GenerateGangs(seed int64) *Scenario {
	g := gangCluster(seed)
	b, r := g.b, g.r
	if r.IntN(3) > 0 {
		g.victimGroup()
	}

	kinds := []int{int(seed % int64(len(gangKinds)))}
	for _, k := range r.Perm(len(gangKinds)) {
		if len(kinds) < 3+r.IntN(2) && k != kinds[0] {
			kinds = append(kinds, k)
		}
	}
	for i, k := range kinds {
		gangKinds[k](g, i)
		if r.IntN(2) == 0 {
			g.ordinary(fmt.Sprintf("web-%d", i))
		}
	}
	s := b.done("generated workload-aware scheduling scenario", "GenericWorkload")
	s.Seed = seed
	s.LatePodGroups = g.late
	return s
}

// gangCluster is the cluster of GenerateGangs' scenarios before their
// groups: the nodes, the DRA slice on node-0, the running pods.
func gangCluster(seed int64) *gangGen {
	d := newGeneratedDRA("gangs", seed, 0x6a616e6767616e67)
	g := &gangGen{draGen: d, start: time.Hour}
	b, r := d.b, d.r
	b.addPriorityClass("mid", 1000, false, "", "")
	b.addPriorityClass("high-never", 10000, false, v1.PreemptNever, "")

	nodes := 6 + r.IntN(4)
	for i := range nodes {
		zone := gangZones[i%len(gangZones)]
		name := fmt.Sprintf("node-%d", i)
		s := cnode(name, zone, 4000, 16*gi)
		if r.IntN(2) == 0 {
			s.gpus = 4
			s.labels = map[string]string{"accelerator": "gpu"}
		}
		b.addNode(s)
		g.nodes = append(g.nodes, name)
		g.gpus = append(g.gpus, s.gpus)
		if i == 0 {
			d.slice(name, 2+r.IntN(3))
		}
	}
	for i, n := range g.nodes {
		for j := range r.IntN(3) {
			gpus := 0
			if g.gpus[i] > 0 && r.IntN(2) == 0 {
				gpus = 1 + r.IntN(2)
			}
			g.running(fmt.Sprintf("running-%s-%d", n, j), n, 500+int64(r.IntN(3))*500, gpus, nil)
		}
	}
	return g
}

// gangGen builds one gang scenario on a DRA generator (which holds the
// builder, the random source, the device classes and the slices).
type gangGen struct {
	*draGen
	nodes []string
	// gpus is each node's count of example.com/gpu.
	gpus []int64
	late []*schedulingv1beta1.PodGroup
	// lateComposites are the CompositePodGroups created late.
	lateComposites []*schedulingv1alpha3.CompositePodGroup
	// start is the next running pod's start time, after epoch: each later
	// than the one before, so that preemption's choice among equal victims
	// (the latest started) is settled, not drawn at random upstream.
	start time.Duration
}

// running binds a low-priority pod asking for cpu millicores and gpus
// GPUs to node, a member of group when it is not nil, with no grace
// period.
func (g *gangGen) running(name, node string, cpu int64, gpus int, group *schedulingv1beta1.PodGroup) *v1.Pod {
	c := ctr("c", nginx, fmt.Sprintf("cpu=%dm", cpu), "memory=512Mi")
	if gpus > 0 {
		c = withReqLim(c, fmt.Sprintf("%s=%d", resGPU, gpus))
	}
	p := newPod("default", name, app("running"), c)
	p.Spec.PriorityClassName = "low"
	// Gone the moment preemption deletes it, as from the conformance
	// suite's fake API server, which has no graceful deletion.
	p.Spec.TerminationGracePeriodSeconds = ptrTo(int64(0))
	if group != nil {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptrTo(group.Name)}
		p.Labels["group"] = group.Name
	}
	g.start += time.Duration(1+g.r.IntN(600)) * time.Second
	return g.b.addBound(p, node, at(g.start), false)
}

// victimGroup runs a gang of two or three low-priority pods on distinct
// nodes, its disruptionMode single or all: preempting one member takes
// one pod or the whole gang.
func (g *gangGen) victimGroup() {
	pg, nodes := g.victimPodGroup()
	for i, node := range nodes {
		g.running(fmt.Sprintf("trainer-old-%d", i), node, 1000+int64(g.r.IntN(2))*500, 0, pg)
	}
}

// victimPodGroup is victimGroup's PodGroup, scheduled, and the nodes its
// members are to run on.
func (g *gangGen) victimPodGroup() (*schedulingv1beta1.PodGroup, []string) {
	mode := &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	feat := FeatGangVictimSingle
	if g.r.IntN(2) == 0 {
		mode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
		feat = FeatGangVictimAll
	}
	n := 2 + g.r.IntN(2)
	pg := g.podGroup("default", "trainer-old", "low", gangPolicy(int32(n)), mode)
	pg.Status.Conditions = []metav1.Condition{{
		Type: "PodGroupInitiallyScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled",
		ObservedGeneration: 1, LastTransitionTime: at(30 * time.Minute),
	}}
	g.b.feat(feat)
	return pg, sample(&gen{r: g.r}, g.nodes, n)
}

// gangPolicy and basicPolicy are a PodGroup's schedulingPolicy.
func gangPolicy(minCount int32) schedulingv1beta1.PodGroupSchedulingPolicy {
	return schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}}
}

func basicPolicy() schedulingv1beta1.PodGroupSchedulingPolicy {
	return schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
}

// podGroup adds the Workload <name> with one PodGroup template, "workers",
// and the PodGroup <name> a controller made of it, stored as the API
// server stores it (its priority resolved from the class by the Priority
// admission plugin).
func (g *gangGen) podGroup(ns, name, class string, policy schedulingv1beta1.PodGroupSchedulingPolicy, mode *schedulingv1beta1.DisruptionMode) *schedulingv1beta1.PodGroup {
	b := g.b
	w := &schedulingv1beta1.Workload{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"}, ObjectMeta: b.meta("Workload", ns, name)}
	w.Generation = 1
	w.Spec.ControllerRef = &schedulingv1beta1.TypedLocalObjectReference{APIGroup: "batch", Kind: "Job", Name: name}
	w.Spec.PodGroupTemplates = []schedulingv1beta1.PodGroupTemplate{{
		Name: "workers", SchedulingPolicy: *policy.DeepCopy(), DisruptionMode: mode.DeepCopy(), PriorityClassName: class,
	}}
	b.c.Workloads = append(b.c.Workloads, w)

	pg := &schedulingv1beta1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"}, ObjectMeta: b.meta("PodGroup", ns, name)}
	pg.Generation = 1
	pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: name, TemplateName: "workers"}
	pg.Spec.SchedulingPolicy = policy
	pg.Spec.DisruptionMode = mode
	pg.Spec.PriorityClassName = class
	pg.Spec.Priority = ptrTo(b.pcs[class].Value)
	b.c.PodGroups = append(b.c.PodGroups, pg)
	return pg
}

// members adds n pending pods of group (named <group>-<i>), each of one
// container ctrs(i), with the group's priority class; more, if not nil,
// finishes each pod before it is admitted.
func (g *gangGen) members(group, class string, n int, ctrs func(i int) v1.Container, more func(*v1.Pod)) []*v1.Pod {
	var out []*v1.Pod
	for i := range n {
		p := newPod("default", fmt.Sprintf("%s-%d", group, i), map[string]string{"app": "training", "group": group}, ctrs(i))
		p.Spec.PriorityClassName = class
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptrTo(group)}
		if more != nil {
			more(p)
		}
		out = append(out, g.b.addPending(p))
	}
	return out
}

func cpuCtr(milli int64) func(int) v1.Container {
	return func(int) v1.Container { return ctr("worker", nginx, fmt.Sprintf("cpu=%dm", milli), "memory=1Gi") }
}

func gpuCtr(milli int64, gpus int) func(int) v1.Container {
	return func(int) v1.Container {
		return withReqLim(ctr("worker", nginx, fmt.Sprintf("cpu=%dm", milli), "memory=1Gi"), fmt.Sprintf("%s=%d", resGPU, gpus))
	}
}

// inOneZone, one time in three, asks for the group's pods in a single
// zone (schedulingConstraints.topology, TopologyAwareWorkloadScheduling),
// on the PodGroup and on its Workload's template.
func (g *gangGen) inOneZone(pg *schedulingv1beta1.PodGroup) {
	if g.r.IntN(3) > 0 {
		return
	}
	zone := &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: labelZone}}}
	pg.Spec.SchedulingConstraints = zone
	for _, w := range g.b.c.Workloads {
		if w.Namespace == pg.Namespace && w.Name == pg.Spec.WorkloadRef.WorkloadName {
			w.Spec.PodGroupTemplates[0].SchedulingConstraints = zone.DeepCopy()
		}
	}
	g.b.feat(FeatGangTopology)
}

// gangFits: a small gang, its minCount the whole gang or one less.
func (g *gangGen) gangFits(i int) {
	n := 2 + g.r.IntN(3)
	min := n - g.r.IntN(2)
	name := fmt.Sprintf("small-gang-%d", i)
	g.inOneZone(g.podGroup("default", name, "low", gangPolicy(int32(min)), nil))
	g.members(name, "low", n, cpuCtr(200+int64(g.r.IntN(4))*100), nil)
	g.b.feat(FeatGangFits)
	if min < n {
		g.b.feat(FeatGangMinCountLower)
	}
}

// gangTooBig: members of 2.5–3.5 cpus, more of them than nodes with that
// much room, at a priority that preempts nobody.
func (g *gangGen) gangTooBig(i int) {
	n := len(g.nodes) - 2 + g.r.IntN(4)
	name := fmt.Sprintf("big-gang-%d", i)
	min := n - g.r.IntN(2)
	g.inOneZone(g.podGroup("default", name, "low", gangPolicy(int32(min)), nil))
	g.members(name, "low", n, cpuCtr(2500+int64(g.r.IntN(3))*500), nil)
	g.b.feat(FeatGangTooBig)
}

// gangGPUTooBig: a training job of eight one-GPU workers; the GPU nodes
// have four each, some of them taken by the members of other gangs.
func (g *gangGen) gangGPUTooBig(i int) {
	name := fmt.Sprintf("train-gpu-%d", i)
	g.inOneZone(g.podGroup("default", name, "low", gangPolicy(8), nil))
	g.members(name, "low", 8, gpuCtr(500, 1), nil)
	g.b.feat(FeatGangGPUTooBig, FeatGPUNodes)
}

// gangPreempt: a high-priority gang whose members need room that only
// preempting the running low-priority pods (the running gang's members
// among them) gives; sometimes of mid priority, preempting only some, or
// of a class whose preemptionPolicy is Never.
func (g *gangGen) gangPreempt(i int) {
	class := "high"
	switch g.r.IntN(6) {
	case 0, 1:
		class = "mid"
	case 2:
		class = "high-never"
		g.b.feat(FeatGangPreemptNever)
	}
	n := 2 + g.r.IntN(3)
	name := fmt.Sprintf("urgent-gang-%d", i)
	pg := g.podGroup("default", name, class, gangPolicy(int32(n-g.r.IntN(2))), nil)
	if class == "high-never" {
		// As the Priority admission plugin resolves it from the class
		// (with PodGroupPreemptionPolicy on; a scheduler with the gate
		// off reads the members' policy instead, also Never).
		pg.Spec.PreemptionPolicy = ptrTo(schedulingv1beta1.PreemptNever)
	}
	g.members(name, class, n, cpuCtr(2500+int64(g.r.IntN(3))*500), nil)
	g.b.feat(FeatGangPreempt, FeatPreemptLowerVictim)
}

// basicGroup: a group of the basic policy, its members scheduled one by
// one; the last may not fit.
func (g *gangGen) basicGroup(i int) {
	n := 2 + g.r.IntN(3)
	name := fmt.Sprintf("basic-group-%d", i)
	g.podGroup("default", name, "low", basicPolicy(), nil)
	g.members(name, "low", n, func(j int) v1.Container {
		if j == n-1 && g.r.IntN(2) == 0 {
			return ctr("worker", nginx, "cpu=4500m", "memory=1Gi")
		}
		return ctr("worker", nginx, fmt.Sprintf("cpu=%dm", 300+g.r.IntN(5)*100), "memory=1Gi")
	}, nil)
	g.b.feat(FeatGroupBasic)
}

// missingGroup: pods that name a PodGroup nobody created.
func (g *gangGen) missingGroup(i int) {
	g.members(fmt.Sprintf("ghost-group-%d", i), "low", 1+g.r.IntN(2), cpuCtr(200), nil)
	g.b.feat(FeatGroupMissing)
}

// lateGroup: a gang whose PodGroup the API server gets only after the
// pods (Scenario.LatePodGroups).
func (g *gangGen) lateGroup(i int) {
	n := 2 + g.r.IntN(2)
	name := fmt.Sprintf("late-gang-%d", i)
	pg := g.podGroup("default", name, "low", gangPolicy(int32(n)), nil)
	g.b.c.PodGroups = g.b.c.PodGroups[:len(g.b.c.PodGroups)-1]
	g.late = append(g.late, pg)
	g.members(name, "low", n, cpuCtr(300), nil)
	g.b.feat(FeatGroupLate)
}

// belowMinCount: a gang with one pod fewer than its minCount.
func (g *gangGen) belowMinCount(i int) {
	n := 1 + g.r.IntN(3)
	name := fmt.Sprintf("partial-gang-%d", i)
	g.podGroup("default", name, "low", gangPolicy(int32(n+1)), nil)
	g.members(name, "low", n, cpuCtr(200), nil)
	g.b.feat(FeatGangBelowMinCount)
}

// draGang: a gang whose members each claim a GPU of the DRA slice through
// a ResourceClaimTemplate (the claims generated as the resourceclaim
// controller would); more members than GPUs at times.
func (g *gangGen) draGang(i int) {
	n := 2 + g.r.IntN(3)
	name := fmt.Sprintf("dra-gang-%d", i)
	g.podGroup("default", name, "low", gangPolicy(int32(n)), nil)
	tn := g.template(name+"-gpu", oneGPU()).Name
	for _, p := range g.members(name, "low", n, cpuCtr(200), func(p *v1.Pod) {
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tn}}
	}) {
		g.generateClaims(p)
	}
	g.b.feat(FeatGangDRA, FeatResourceClaims)
}

// ordinary adds a pod of no group, of low priority.
func (g *gangGen) ordinary(name string) {
	p := newPod("default", name, app("web"), ctr("c", nginx, fmt.Sprintf("cpu=%dm", 200+g.r.IntN(10)*200), "memory=512Mi"))
	p.Spec.PriorityClassName = "low"
	g.b.addPending(p)
	g.b.feat(FeatGangOrdinaryPods)
}
