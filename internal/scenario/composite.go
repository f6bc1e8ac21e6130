package scenario

// Composite pod group scenarios (CompositePodGroup, with GenericWorkload
// and TopologyAwareWorkloadScheduling): hierarchies of
// CompositePodGroups over gang PodGroups, each made from a Workload's
// nested compositePodGroupTemplates, as a job controller would make them.

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Composite scenario features, one per kind of hierarchy
// GenerateCompositeGangs makes.
const (
	FeatCompositeTwoLevel   = "CompositePodGroup/two-level"
	FeatCompositeThreeLevel = "CompositePodGroup/three-level"
	FeatCompositeChildFails = "CompositePodGroup/child-cannot-fit"
	FeatCompositeTopology   = "CompositePodGroup/zone-constraint-at-parent"
	FeatCompositeBasic      = "CompositePodGroup/basic-root"
	FeatCompositeLate       = "CompositePodGroup/root-created-after-pods"
	FeatCompositePreempt    = "CompositePodGroup/preempts-lower-priority"
	FeatCompositeVictimAll  = "CompositePodGroup/victim-hierarchy-disruption-all"
	FeatCompositeVictimOne  = "CompositePodGroup/victim-hierarchy-disruption-single"
)

// compositeKinds are the kinds of hierarchy GenerateCompositeGangs draws
// from; the seed's own kind always comes first, so the seeds
// 0..len(compositeKinds)-1 between them have every kind.
var compositeKinds = []func(g *gangGen, i int){
	(*gangGen).compositeTwoLevel,
	(*gangGen).compositeThreeLevel,
	(*gangGen).compositeChildFails,
	(*gangGen).compositeTopology,
	(*gangGen).compositeBasicRoot,
	(*gangGen).compositeLateRoot,
	(*gangGen).compositePreempt,
}

// GenerateCompositeGangs returns the composite pod group scenario of a
// seed: 6–9 nodes of 4 cpus in three zones, low-priority pods running on
// them, and two or three pending hierarchies, each of its own Workload: a
// composite gang of two or three gang PodGroups (its minGroupCount all of
// them or one less), a three-level one (a composite of composites), one
// with a child whose member fits no node, one whose root asks for a
// single zone (schedulingConstraints.topology), one whose root is basic;
// and sometimes an ordinary gang or pod between them. Every pod of a
// hierarchy has its root's priority, as kube-scheduler requires.
func GenerateCompositeGangs(seed int64) *Scenario {
	d := newGeneratedDRA("composite", seed, 0x636f6d706f736974)
	g := &gangGen{draGen: d, start: time.Hour}
	b, r := d.b, d.r

	nodes := 6 + r.IntN(4)
	for i := range nodes {
		zone := gangZones[i%len(gangZones)]
		name := fmt.Sprintf("node-%d", i)
		b.addNode(cnode(name, zone, 4000, 16*gi))
		g.nodes = append(g.nodes, name)
		g.gpus = append(g.gpus, 0)
	}
	for _, n := range g.nodes {
		for j := range r.IntN(3) {
			g.running(fmt.Sprintf("running-%s-%d", n, j), n, 500+int64(r.IntN(3))*500, 0, nil)
		}
	}
	if r.IntN(2) == 0 {
		g.runningHierarchy()
	}
	kinds := []int{int(seed % int64(len(compositeKinds)))}
	for _, k := range r.Perm(len(compositeKinds)) {
		if len(kinds) < 2+r.IntN(2) && k != kinds[0] {
			kinds = append(kinds, k)
		}
	}
	for i, k := range kinds {
		compositeKinds[k](g, i)
		switch r.IntN(3) {
		case 0:
			g.ordinary(fmt.Sprintf("web-%d", i))
		case 1:
			g.gangFits(len(kinds) + i)
		}
	}
	s := b.done("generated composite pod group scenario", "GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup")
	s.Seed = seed
	s.LateCompositePodGroups = g.lateComposites
	return s
}

// hierarchy is a composite pod group's tree as a generator describes it:
// a composite node (children set) or a gang PodGroup of members pods
// asking for cpu millicores each (the last one asks for lastCPU when it
// is not 0).
type hierarchy struct {
	name string
	// class is the priority class of the whole hierarchy ("low" when
	// empty); disruptionAll makes a composite's disruptionMode all;
	// running binds the members (low priority) instead of leaving them
	// pending.
	class         string
	disruptionAll bool
	running       bool
	minGroupCount int32 // composite; 0 for a basic composite
	topology      bool  // composite: one zone
	children      []*hierarchy
	members       int
	minCount      int32
	cpu, lastCPU  int64
}

// composite adds the hierarchy h of the Workload h.name: the Workload
// with its nested templates, each CompositePodGroup and PodGroup made of
// them (parents first, as a controller creates them), and the members
// of each PodGroup, pending, all of class "low".
func (g *gangGen) composite(h *hierarchy) {
	b := g.b
	class := h.class
	if class == "" {
		class = "low"
	}
	prio := b.pcs[class].Value
	w := &schedulingv1beta1.Workload{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"}, ObjectMeta: b.meta("Workload", "default", h.name)}
	w.Generation = 1
	w.Spec.ControllerRef = &schedulingv1beta1.TypedLocalObjectReference{APIGroup: "batch", Kind: "JobSet", Name: h.name}
	w.Spec.CompositePodGroupTemplates = []schedulingv1beta1.CompositePodGroupTemplate{g.compositeTemplate(h, class, h.disruptionAll)}
	b.c.Workloads = append(b.c.Workloads, w)

	var add func(n *hierarchy, parent *string)
	add = func(n *hierarchy, parent *string) {
		if n.children == nil {
			pg := &schedulingv1beta1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"}, ObjectMeta: b.meta("PodGroup", "default", n.name)}
			pg.Generation = 1
			pg.Spec.ParentCompositePodGroupName = parent
			pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: h.name, TemplateName: n.name}
			pg.Spec.SchedulingPolicy = gangPolicy(n.minCount)
			pg.Spec.PriorityClassName = class
			pg.Spec.Priority = ptrTo(prio)
			b.c.PodGroups = append(b.c.PodGroups, pg)
			if h.running {
				pg.Status.Conditions = []metav1.Condition{{
					Type: "PodGroupInitiallyScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled",
					ObservedGeneration: 1, LastTransitionTime: at(30 * time.Minute),
				}}
				for i, node := range sample(&gen{r: g.r}, g.nodes, n.members) {
					g.running(fmt.Sprintf("%s-%d", n.name, i), node, n.cpu, 0, pg)
				}
				return
			}
			g.members(n.name, class, n.members, func(i int) v1.Container {
				if i == n.members-1 && n.lastCPU > 0 {
					return cpuCtr(n.lastCPU)(i)
				}
				return cpuCtr(n.cpu)(i)
			}, nil)
			return
		}
		cpg := &schedulingv1alpha3.CompositePodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha3", Kind: "CompositePodGroup"}, ObjectMeta: b.meta("CompositePodGroup", "default", n.name)}
		cpg.Generation = 1
		cpg.Spec.ParentCompositePodGroupName = parent
		cpg.Spec.WorkloadRef = &schedulingv1alpha3.WorkloadReference{WorkloadName: h.name, TemplateName: n.name}
		if n.minGroupCount > 0 {
			cpg.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: n.minGroupCount}
		} else {
			cpg.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
		}
		if n.topology {
			cpg.Spec.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: labelZone}}}
		}
		if h.disruptionAll {
			cpg.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
		}
		cpg.Spec.PriorityClassName = class
		cpg.Spec.Priority = ptrTo(prio)
		b.c.CompositePodGroups = append(b.c.CompositePodGroups, cpg)
		for _, c := range n.children {
			add(c, ptrTo(n.name))
		}
	}
	add(h, nil)
}

// compositeTemplate is h's template in its Workload.
func (g *gangGen) compositeTemplate(h *hierarchy, class string, disruptionAll bool) schedulingv1beta1.CompositePodGroupTemplate {
	t := schedulingv1beta1.CompositePodGroupTemplate{Name: h.name, PriorityClassName: class}
	if disruptionAll {
		t.DisruptionMode = &schedulingv1beta1.CompositeDisruptionMode{All: &schedulingv1beta1.AllCompositeDisruptionMode{}}
	}
	if h.minGroupCount > 0 {
		t.SchedulingPolicy.Gang = &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: h.minGroupCount}
	} else {
		t.SchedulingPolicy.Basic = &schedulingv1beta1.CompositeBasicSchedulingPolicy{}
	}
	if h.topology {
		t.SchedulingConstraints = &schedulingv1beta1.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: labelZone}}}
	}
	for _, c := range h.children {
		if c.children != nil {
			t.CompositePodGroupTemplates = append(t.CompositePodGroupTemplates, g.compositeTemplate(c, class, false))
			continue
		}
		t.PodGroupTemplates = append(t.PodGroupTemplates, schedulingv1beta1.PodGroupTemplate{Name: c.name, SchedulingPolicy: gangPolicy(c.minCount), PriorityClassName: class})
	}
	return t
}

// gangChild is a gang PodGroup of 2–3 small members, its minCount all of
// them.
func (g *gangGen) gangChild(name string) *hierarchy {
	n := 2 + g.r.IntN(2)
	return &hierarchy{name: name, members: n, minCount: int32(n), cpu: 200 + int64(g.r.IntN(4))*100}
}

// compositeTwoLevel: a composite gang of two or three gang PodGroups, its
// minGroupCount all of them or one less.
func (g *gangGen) compositeTwoLevel(i int) {
	root := &hierarchy{name: fmt.Sprintf("jobset-%d", i)}
	for j := range 2 + g.r.IntN(2) {
		root.children = append(root.children, g.gangChild(fmt.Sprintf("jobset-%d-part-%d", i, j)))
	}
	root.minGroupCount = int32(len(root.children) - g.r.IntN(2))
	g.composite(root)
	g.b.feat(FeatCompositeTwoLevel)
}

// compositeThreeLevel: a composite of two composites, each over one or
// two gang PodGroups.
func (g *gangGen) compositeThreeLevel(i int) {
	root := &hierarchy{name: fmt.Sprintf("pipeline-%d", i), minGroupCount: 2}
	for j := range 2 {
		mid := &hierarchy{name: fmt.Sprintf("pipeline-%d-stage-%d", i, j)}
		for k := range 1 + g.r.IntN(2) {
			mid.children = append(mid.children, g.gangChild(fmt.Sprintf("pipeline-%d-stage-%d-%d", i, j, k)))
		}
		mid.minGroupCount = int32(len(mid.children))
		root.children = append(root.children, mid)
	}
	g.composite(root)
	g.b.feat(FeatCompositeThreeLevel)
}

// compositeChildFails: a composite gang one of whose children has a
// member no node fits (4.5 cpus); its minGroupCount all children (the
// hierarchy fails) or one less (the others schedule).
func (g *gangGen) compositeChildFails(i int) {
	root := &hierarchy{name: fmt.Sprintf("mixed-%d", i)}
	n := 2 + g.r.IntN(2)
	bad := g.r.IntN(n)
	for j := range n {
		c := g.gangChild(fmt.Sprintf("mixed-%d-part-%d", i, j))
		if j == bad {
			c.lastCPU = 4500
		}
		root.children = append(root.children, c)
	}
	root.minGroupCount = int32(n - g.r.IntN(2))
	g.composite(root)
	g.b.feat(FeatCompositeChildFails)
}

// compositeTopology: a composite gang in one zone, its children big
// enough (members of 1–2 cpus) that a zone may not hold them all.
func (g *gangGen) compositeTopology(i int) {
	root := &hierarchy{name: fmt.Sprintf("zonal-%d", i), topology: true}
	for j := range 2 {
		n := 2 + g.r.IntN(2)
		root.children = append(root.children, &hierarchy{name: fmt.Sprintf("zonal-%d-part-%d", i, j), members: n, minCount: int32(n), cpu: 1000 + int64(g.r.IntN(3))*500})
	}
	root.minGroupCount = 2
	g.composite(root)
	g.b.feat(FeatCompositeTopology, FeatGangTopology)
}

// compositeBasicRoot: a basic composite over two gangs, one of which may
// not fit.
func (g *gangGen) compositeBasicRoot(i int) {
	root := &hierarchy{name: fmt.Sprintf("loose-%d", i)}
	for j := range 2 {
		c := g.gangChild(fmt.Sprintf("loose-%d-part-%d", i, j))
		if j == 1 && g.r.IntN(2) == 0 {
			c.lastCPU = 4500
		}
		root.children = append(root.children, c)
	}
	g.composite(root)
	g.b.feat(FeatCompositeBasic)
}

// compositeLateRoot: a composite gang of two gangs whose root the API
// server gets only after its PodGroups and their pods
// (Scenario.LateCompositePodGroups): the members wait for it.
func (g *gangGen) compositeLateRoot(i int) {
	root := &hierarchy{name: fmt.Sprintf("late-jobset-%d", i)}
	for j := range 2 {
		root.children = append(root.children, g.gangChild(fmt.Sprintf("late-jobset-%d-part-%d", i, j)))
	}
	root.minGroupCount = 2
	n := len(g.b.c.CompositePodGroups)
	g.composite(root)
	g.lateComposites = append(g.lateComposites, g.b.c.CompositePodGroups[n])
	g.b.c.CompositePodGroups = g.b.c.CompositePodGroups[:n]
	g.b.feat(FeatCompositeLate)
}

// compositePreempt: a high-priority composite gang of two gangs whose
// members (2.5–3.5 cpus) fit only by preempting running low-priority pods
// (a running hierarchy's among them).
func (g *gangGen) compositePreempt(i int) {
	root := &hierarchy{name: fmt.Sprintf("urgent-jobset-%d", i), class: "high", minGroupCount: 2}
	for j := range 2 {
		root.children = append(root.children, &hierarchy{name: fmt.Sprintf("urgent-jobset-%d-part-%d", i, j), members: 2, minCount: 2,
			cpu: 2500 + int64(g.r.IntN(3))*500})
	}
	g.composite(root)
	g.b.feat(FeatCompositePreempt, FeatPreemptLowerVictim)
}

// runningHierarchy runs a low-priority composite of two gangs of one or
// two pods each, on distinct nodes; its disruptionMode all (preempting
// one pod takes the whole hierarchy) or single (the default).
func (g *gangGen) runningHierarchy() {
	root := &hierarchy{name: "old-jobset", running: true, disruptionAll: g.r.IntN(2) == 0}
	for j := range 2 {
		root.children = append(root.children, &hierarchy{name: fmt.Sprintf("old-jobset-part-%d", j), members: 1 + g.r.IntN(2),
			minCount: 1, cpu: 1000 + int64(g.r.IntN(2))*500})
	}
	g.composite(root)
	if root.disruptionAll {
		g.b.feat(FeatCompositeVictimAll)
	} else {
		g.b.feat(FeatCompositeVictimOne)
	}
}
