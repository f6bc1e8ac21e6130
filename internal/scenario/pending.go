package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trait mutates a pending pod (before admission) to exercise one code path.
// It returns false when it does not apply to this scenario or pod.
type trait struct {
	w  int
	fn func(g *gen, p *v1.Pod) bool
}

var traits = []trait{
	{8, (*gen).tTolerations},
	{5, (*gen).tNodeSelector},
	{7, (*gen).tRequiredNodeAffinity},
	{5, (*gen).tPreferredNodeAffinity},
	{4, (*gen).tHostPort},
	{5, (*gen).tLargeRequest},
	{1, (*gen).tExceedsAllocatable},
	{3, (*gen).tNoRequests},
	{2, (*gen).tEphemeral},
	{1, (*gen).tHugePages},
	{2, (*gen).tGPU},
	{2, (*gen).tInit},
	{2, (*gen).tSidecar},
	{1, (*gen).tOverhead},
	{2, (*gen).tPodLevel},
	{2, (*gen).tRWOPInUse},
	{1, (*gen).tRWOPFree},
	{1, (*gen).tDiskConflict},
	{3, (*gen).tVolumeLimit},
	{2, (*gen).tDriverMissing},
	{3, (*gen).tBoundPVAffinity},
	{2, (*gen).tUnboundImmediate},
	{2, (*gen).tWFFCMatch},
	{1, (*gen).tWFFCNoPV},
	{2, (*gen).tWFFCProvision},
	{2, (*gen).tStorageCapacity},
	{1, (*gen).tMissingPV},
	{1, (*gen).tMissingSC},
	{1, (*gen).tMissingPVC},
	{2, (*gen).tVolumeZone},
	{5, (*gen).tSpreadHard},
	{5, (*gen).tSpreadSoft},
	{4, (*gen).tPodAffinity},
	{4, (*gen).tPodAntiAffinity},
	{3, (*gen).tPreferredPodAffinity},
	{4, (*gen).tImages},
}

func (g *gen) genPending() {
	n := g.between(5, 30)
	extras := g.scenarioLevelPending()
	for len(g.pending)+extras < n {
		p, w := g.pendingBase()
		k := g.weighted(15, 40, 30, 15)
		tried := map[int]bool{}
		for applied := 0; applied < k && len(tried) < len(traits); {
			ws := make([]int, len(traits))
			for i, t := range traits {
				if !tried[i] {
					ws[i] = t.w
				}
			}
			i := g.weighted(ws...)
			tried[i] = true
			if traits[i].fn(g, p) {
				applied++
			}
		}
		if g.opts.Preemption && g.chance(0.5) {
			g.tLargeRequest(p)
		}
		if g.opts.ResourceShapes {
			g.resourceShapes(p)
		}
		g.admitPending(p, w)
	}
	g.addScenarioLevelPending()
	g.nominate()
}

// pendingBase returns a fresh pod: either another replica of an existing
// workload (same labels, owner and template) or a bare pod.
func (g *gen) pendingBase() (*v1.Pod, *workload) {
	var ws []*workload
	for _, w := range g.workloads {
		if w.kind != "DaemonSet" {
			ws = append(ws, w)
		}
	}
	if len(ws) > 0 && g.chance(0.45) {
		w := pick(g, ws)
		p := g.newWorkloadPod(w, g.nextPendingName(), w.replicas+g.pendSeq)
		if g.opts.Preemption {
			p.Spec.PriorityClassName = g.pendingClass()
		}
		return p, w
	}
	app := pick(g, appNames)
	labels := map[string]string{"app": app}
	if g.chance(0.4) {
		labels["tier"] = pick(g, tiers)
	}
	if g.chance(0.3) {
		labels["version"] = pick(g, []string{"v1", "v2"})
	}
	if g.chance(0.15) {
		labels["workload"] = "batch"
	}
	p := newPod(g.pickNS(), g.nextPendingName(), labels)
	p.Spec = g.podSpec(app, g.randomSize())
	p.Spec.PriorityClassName = g.pendingClass()
	return p, nil
}

func (g *gen) pendingClass() string {
	if !g.opts.Preemption {
		if g.never != "" && g.chance(0.05) {
			return g.never
		}
		return g.anyClass()
	}
	switch g.weighted(65, 15, 20) {
	case 0:
		return g.highClass()
	case 1:
		if g.never != "" {
			return g.never
		}
		return g.highClass()
	default:
		return g.anyClass()
	}
}

// admitPending admits p, records per-pod features and queues it.
func (g *gen) admitPending(p *v1.Pod, w *workload) {
	g.admitPod(p)
	g.pending = append(g.pending, p)
	cpu, mem, _, _, _ := podRequests(p)
	if cpu == 0 && mem == 0 {
		g.feat(FeatBalancedBestEffort)
	} else {
		g.feat(FeatBalancedRequests)
	}
	if p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == v1.PreemptNever {
		g.feat(FeatPreemptNever)
	}
	prio := *p.Spec.Priority
	if slices.ContainsFunc(g.bound, func(b *v1.Pod) bool { return *b.Spec.Priority < prio }) {
		maxFree := int64(0)
		for _, ni := range g.ninfos {
			maxFree = max(maxFree, ni.cpu-ni.uCPU)
		}
		if g.opts.Preemption || cpu > maxFree {
			g.feat(FeatPreemptLowerVictim)
		}
		if cpu > maxFree {
			g.feat(FeatHighPriorityNoFit)
		}
	}
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort > 0 && slices.ContainsFunc(g.hostPorts, func(b v1.ContainerPort) bool {
				return b.HostPort == port.HostPort && b.Protocol == port.Protocol
			}) {
				g.feat(FeatHostPortConflict)
			}
		}
	}
}

func mainCtr(p *v1.Pod) *v1.Container { return &p.Spec.Containers[0] }

// setReq sets a container request, keeping limits valid.
func setReq(c *v1.Container, name v1.ResourceName, q resource.Quantity) {
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	c.Resources.Requests[name] = q
	if l, ok := c.Resources.Limits[name]; ok && l.Cmp(q) < 0 {
		c.Resources.Limits[name] = q.DeepCopy()
	}
}

// ---------------------------------------------------------------------------
// TaintToleration / NodeUnschedulable.

func (g *gen) tTolerations(p *v1.Pod) bool {
	add := func(t v1.Toleration) {
		if !slices.ContainsFunc(p.Spec.Tolerations, func(x v1.Toleration) bool { return x.Key == t.Key && x.Effect == t.Effect }) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, t)
		}
	}
	withValue := slices.DeleteFunc(slices.Clone(g.taints), func(t v1.Taint) bool { return t.Value == "" })
	for range g.between(1, 2) {
		switch g.weighted(25, 20, 10, 4, 10, 5, 15, 10) {
		case 0:
			if len(g.taints) == 0 {
				continue
			}
			t := pick(g, g.taints)
			add(v1.Toleration{Key: t.Key, Operator: v1.TolerationOpExists, Effect: t.Effect})
			g.feat(FeatTolExists)
			if t.Key == taintUnschedulable {
				g.feat(FeatTolerateUnschedulable)
			}
			if t.Effect == v1.TaintEffectPreferNoSchedule {
				g.feat(FeatTolPreferNoSchedule)
			}
		case 1:
			if len(withValue) == 0 {
				continue
			}
			t := pick(g, withValue)
			val := t.Value
			if g.chance(0.2) {
				val = "other"
			}
			add(v1.Toleration{Key: t.Key, Operator: v1.TolerationOpEqual, Value: val, Effect: t.Effect})
			g.feat(FeatTolEqual)
		case 2:
			if len(withValue) > 0 && g.chance(0.6) {
				t := pick(g, withValue)
				add(v1.Toleration{Key: t.Key, Operator: v1.TolerationOpEqual, Value: t.Value})
			} else if len(g.taints) > 0 {
				add(v1.Toleration{Key: pick(g, g.taints).Key, Operator: v1.TolerationOpExists})
			} else {
				continue
			}
			g.feat(FeatTolEmptyEffect)
		case 3:
			add(v1.Toleration{Operator: v1.TolerationOpExists})
			g.feat(FeatTolEmptyKey)
		case 4:
			key, val := "maintenance", "scheduled"
			for _, t := range g.taints {
				if t.Effect == v1.TaintEffectNoExecute && t.Key != taintNotReady {
					key, val = t.Key, t.Value
				}
			}
			tol := v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute,
				TolerationSeconds: ptrTo(int64(g.between(1, 60) * 60))}
			if val != "" && g.chance(0.5) {
				tol.Operator, tol.Value = v1.TolerationOpEqual, val
			}
			add(tol)
			g.feat(FeatTolNoExecuteSeconds)
		case 5:
			if len(withValue) == 0 {
				continue
			}
			t := pick(g, withValue)
			add(v1.Toleration{Key: t.Key, Value: t.Value, Effect: t.Effect}) // operator "" means Equal
			g.feat(FeatTolEmptyOperator)
		case 6:
			add(v1.Toleration{Key: taintUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
			g.feat(FeatTolerateUnschedulable)
		case 7:
			key := "example.com/noisy"
			for _, t := range g.taints {
				if t.Effect == v1.TaintEffectPreferNoSchedule {
					key = t.Key
				}
			}
			add(v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule})
			g.feat(FeatTolPreferNoSchedule)
		}
	}
	return len(p.Spec.Tolerations) > 0
}

// ---------------------------------------------------------------------------
// NodeAffinity.

func (g *gen) labelValues(key string) []string {
	var vals []string
	for _, ni := range g.ninfos {
		if v, ok := ni.n.Labels[key]; ok && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

var selectorKeys = []string{labelZone, "disktype", "pool", labelInstance, labelArch, "example.com/rack", labelRegion}

func (g *gen) tNodeSelector(p *v1.Pod) bool {
	if p.Spec.NodeSelector == nil {
		p.Spec.NodeSelector = map[string]string{}
	}
	for range g.between(1, 2) {
		key := pick(g, selectorKeys)
		vals := g.labelValues(key)
		if len(vals) == 0 || g.chance(0.1) {
			p.Spec.NodeSelector[key] = "absent-value"
		} else {
			p.Spec.NodeSelector[key] = pick(g, vals)
		}
	}
	g.feat(FeatNodeSelector)
	return true
}

func (g *gen) requirement() (v1.NodeSelectorRequirement, bool) {
	switch g.weighted(30, 15, 12, 12, 10, 10, 6, 5) {
	case 0, 1:
		key := pick(g, selectorKeys)
		vals := g.labelValues(key)
		if len(vals) == 0 {
			vals = []string{"absent-value"}
		}
		vs := sample(g, vals, g.between(1, min(3, len(vals))))
		if g.chance(0.15) {
			vs = append(vs, "absent-value")
		}
		op := v1.NodeSelectorOpIn
		if g.r.IntN(45) >= 30 {
			op = v1.NodeSelectorOpNotIn
			g.feat(FeatNANotIn)
		} else {
			g.feat(FeatNAIn)
		}
		return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: vs}, true
	case 2:
		g.feat(FeatNAExists)
		return v1.NodeSelectorRequirement{Key: pick(g, []string{"example.com/gpu-model", "example.com/rack", labelCP, "lifecycle", labelZone, "example.com/hugepages"}), Operator: v1.NodeSelectorOpExists}, true
	case 3:
		g.feat(FeatNADoesNotExist)
		return v1.NodeSelectorRequirement{Key: pick(g, []string{"example.com/gpu-model", labelCP, "lifecycle", labelZone, "katacontainers.io/kata-runtime"}), Operator: v1.NodeSelectorOpDoesNotExist}, true
	case 4:
		g.feat(FeatNAGt)
		return v1.NodeSelectorRequirement{Key: "cpu-generation", Operator: v1.NodeSelectorOpGt, Values: []string{strconv.Itoa(g.between(0, 5))}}, true
	case 5:
		g.feat(FeatNALt)
		return v1.NodeSelectorRequirement{Key: "cpu-generation", Operator: v1.NodeSelectorOpLt, Values: []string{strconv.Itoa(g.between(2, 7))}}, true
	case 6:
		g.feat(FeatNAIn)
		return v1.NodeSelectorRequirement{Key: labelHostname, Operator: v1.NodeSelectorOpIn,
			Values: []string{pick(g, g.ninfos).name, pick(g, g.ninfos).name}}, true
	default:
		g.feat(FeatNAGt)
		// a label whose value is not an integer: Gt never matches it
		return v1.NodeSelectorRequirement{Key: "disktype", Operator: v1.NodeSelectorOpGt, Values: []string{"1"}}, true
	}
}

func (g *gen) nodeTerm() v1.NodeSelectorTerm {
	var t v1.NodeSelectorTerm
	for range g.between(1, 3) {
		r, _ := g.requirement()
		t.MatchExpressions = append(t.MatchExpressions, r)
	}
	return t
}

func (g *gen) matchFields(op v1.NodeSelectorOperator) v1.NodeSelectorRequirement {
	name := pick(g, g.ninfos).name
	if g.chance(0.05) {
		name = "node-absent"
	}
	return v1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: op, Values: []string{name}}
}

func (g *gen) tRequiredNodeAffinity(p *v1.Pod) bool {
	ns := &v1.NodeSelector{}
	switch g.weighted(60, 20, 12, 8) {
	case 0:
		ns.NodeSelectorTerms = []v1.NodeSelectorTerm{g.nodeTerm()}
	case 1:
		for range g.between(2, 3) {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, g.nodeTerm())
		}
		g.feat(FeatNAMultiTerm)
	case 2:
		// every term names nodes via matchFields: NodeAffinity PreFilter narrows the node set
		for range g.between(1, 3) {
			t := v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{g.matchFields(v1.NodeSelectorOpIn)}}
			if g.chance(0.3) {
				r, _ := g.requirement()
				t.MatchExpressions = []v1.NodeSelectorRequirement{r}
			}
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, t)
		}
		if len(ns.NodeSelectorTerms) > 1 {
			g.feat(FeatNAMultiTerm)
		}
		g.feat(FeatNAMatchFields)
	default:
		t := g.nodeTerm()
		t.MatchFields = []v1.NodeSelectorRequirement{g.matchFields(v1.NodeSelectorOpNotIn)}
		ns.NodeSelectorTerms = []v1.NodeSelectorTerm{t}
		if g.chance(0.5) {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, v1.NodeSelectorTerm{
				MatchFields: []v1.NodeSelectorRequirement{g.matchFields(v1.NodeSelectorOpIn)}})
			g.feat(FeatNAMatchFields, FeatNAMultiTerm)
		}
		g.feat(FeatNAMatchFieldsNotIn)
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = ns
	return true
}

func (g *gen) tPreferredNodeAffinity(p *v1.Pod) bool {
	var terms []v1.PreferredSchedulingTerm
	for range g.between(1, 3) {
		t := g.nodeTerm()
		if g.chance(0.1) {
			t.MatchFields = []v1.NodeSelectorRequirement{g.matchFields(v1.NodeSelectorOpIn)}
		}
		terms = append(terms, v1.PreferredSchedulingTerm{Weight: int32(g.between(1, 100)), Preference: t})
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = terms
	g.feat(FeatNAPreferred)
	return true
}

// ---------------------------------------------------------------------------
// NodePorts.

func (g *gen) tHostPort(p *v1.Pod) bool {
	port := v1.ContainerPort{Protocol: v1.ProtocolTCP}
	if len(g.hostPorts) > 0 && g.chance(0.6) {
		b := pick(g, g.hostPorts)
		port.HostPort, port.Protocol = b.HostPort, b.Protocol
		if g.chance(0.2) && port.Protocol == v1.ProtocolTCP {
			port.Protocol = v1.ProtocolUDP // same number, other protocol: no conflict
		}
	} else {
		port.HostPort = pick(g, []int32{8080, 8443, 5353, 9000, 30080})
		switch g.weighted(70, 20, 10) {
		case 1:
			port.Protocol = v1.ProtocolUDP
		case 2:
			port.Protocol = v1.ProtocolSCTP
		}
	}
	switch g.weighted(60, 10, 15, 15) {
	case 1:
		port.HostIP = "0.0.0.0"
	case 2:
		port.HostIP = "127.0.0.1"
	case 3:
		port.HostIP = g.nodeIP[pick(g, g.ninfos).name]
	}
	c := mainCtr(p)
	for _, ic := range p.Spec.InitContainers {
		if ic.RestartPolicy != nil && g.chance(0.5) {
			c = &p.Spec.InitContainers[slices.IndexFunc(p.Spec.InitContainers, func(x v1.Container) bool { return x.Name == ic.Name })]
		}
	}
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, x := range cs {
			for _, e := range x.Ports {
				if e.HostPort == port.HostPort && e.Protocol == port.Protocol {
					return false
				}
			}
		}
	}
	*c = hostPort(*c, port.HostPort, port.Protocol, port.HostIP)
	g.feat(FeatHostPort)
	switch port.Protocol {
	case v1.ProtocolUDP:
		g.feat(FeatHostPortUDP)
	case v1.ProtocolSCTP:
		g.feat(FeatHostPortSCTP)
	}
	if port.HostIP != "" {
		g.feat(FeatHostPortHostIP)
	}
	return true
}

// ---------------------------------------------------------------------------
// NodeResourcesFit.

func (g *gen) tLargeRequest(p *v1.Pod) bool {
	ni := pick(g, g.ninfos)
	frac := 0.3 + 0.9*g.r.Float64()
	c := mainCtr(p)
	setReq(c, v1.ResourceCPU, cpuQ(int64(frac*float64(ni.cpu))/100*100+100))
	if g.chance(0.7) {
		frac = 0.3 + 0.9*g.r.Float64()
		setReq(c, v1.ResourceMemory, bytesQ(int64(frac*float64(ni.mem))/mi*mi+mi))
	}
	g.fixPodLevel(p)
	g.feat(FeatFitLarge)
	return true
}

// fixPodLevel re-derives pod-level requests after container requests grew.
func (g *gen) fixPodLevel(p *v1.Pod) {
	if p.Spec.Resources != nil {
		p.Spec.Resources = nil
		g.podLevel(&p.Spec)
	}
}

func (g *gen) tExceedsAllocatable(p *v1.Pod) bool {
	var maxCPU, maxMem int64
	for _, ni := range g.ninfos {
		maxCPU, maxMem = max(maxCPU, ni.cpu), max(maxMem, ni.mem)
	}
	c := mainCtr(p)
	if g.chance(0.5) {
		setReq(c, v1.ResourceCPU, cpuQ(maxCPU+int64(g.between(1, 8))*1000))
	} else {
		setReq(c, v1.ResourceMemory, bytesQ(maxMem+int64(g.between(1, 64))*gi))
	}
	g.fixPodLevel(p)
	g.feat(FeatFitExceedsAlloc)
	return true
}

func (g *gen) tNoRequests(p *v1.Pod) bool {
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			cs[i].Resources = v1.ResourceRequirements{}
		}
	}
	p.Spec.Resources = nil
	p.Spec.RuntimeClassName = nil
	g.feat(FeatFitNoRequests)
	return true
}

func (g *gen) tEphemeral(p *v1.Pod) bool {
	setReq(mainCtr(p), v1.ResourceEphemeralStorage, bytesQ([]int64{1 * gi, 10 * gi, 50 * gi, 200 * gi}[g.weighted(30, 35, 25, 10)]))
	g.feat(FeatFitEphemeral)
	return true
}

func (g *gen) tHugePages(p *v1.Pod) bool {
	c := mainCtr(p)
	q := bytesQ([]int64{128 * mi, 512 * mi, 1 * gi, 4 * gi}[g.weighted(30, 30, 30, 10)])
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	c.Resources.Requests[resHugePages] = q
	c.Resources.Limits[resHugePages] = q.DeepCopy()
	if _, ok := c.Resources.Requests[v1.ResourceMemory]; !ok {
		setReq(c, v1.ResourceMemory, bytesQ(256*mi))
	}
	if p.Spec.Resources != nil {
		p.Spec.Resources = nil // keep hugepages out of pod-level resources
	}
	g.feat(FeatFitHugePages)
	return true
}

func (g *gen) tGPU(p *v1.Pod) bool {
	*mainCtr(p) = withReqLim(*mainCtr(p), fmt.Sprintf("%s=%d", resGPU, g.between(1, 4)))
	if g.chance(0.6) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
	g.feat(FeatFitExtended)
	return true
}

func (g *gen) tInit(p *v1.Pod) bool {
	c := g.container(fmt.Sprintf("init-%d", len(p.Spec.InitContainers)), "docker.io/library/busybox:latest", g.between(2, 4))
	p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	g.fixPodLevel(p)
	g.feat(FeatFitInit)
	return true
}

func (g *gen) tSidecar(p *v1.Pod) bool {
	sc := sidecar(g.container(fmt.Sprintf("sidecar-%d", len(p.Spec.InitContainers)), "ghcr.io/example/proxy:v1.33.0", g.between(1, 3)))
	if g.chance(0.5) {
		p.Spec.InitContainers = append([]v1.Container{sc}, p.Spec.InitContainers...)
	} else {
		p.Spec.InitContainers = append(p.Spec.InitContainers, sc)
	}
	if g.chance(0.3) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, g.container(fmt.Sprintf("init-%d", len(p.Spec.InitContainers)), "docker.io/library/busybox:latest", 2))
	}
	g.fixPodLevel(p)
	g.feat(FeatFitSidecar)
	return true
}

func (g *gen) tOverhead(p *v1.Pod) bool {
	if len(g.rcs) == 0 {
		return false
	}
	name := pick(g, []string{"gvisor", "kata"})
	if _, ok := p.Spec.NodeSelector["katacontainers.io/kata-runtime"]; ok {
		name = "gvisor"
	}
	p.Spec.RuntimeClassName = ptrTo(name)
	g.feat(FeatFitOverhead)
	return true
}

func (g *gen) tPodLevel(p *v1.Pod) bool {
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		for k := range c.Resources.Requests {
			if k == resHugePages {
				return false
			}
		}
	}
	g.podLevel(&p.Spec)
	g.feat(FeatFitPodLevel)
	return true
}

// ---------------------------------------------------------------------------
// Volumes.

func (g *gen) nextClaimName() string {
	g.pvcSeq++
	return fmt.Sprintf("pvc-%03d", g.pvcSeq)
}

func (g *gen) holderPod(ns string, ni *nodeInfo, claim string, vol v1.Volume) {
	p := newPod(ns, g.nextPodName(), map[string]string{"app": "holder"}, ctr("holder", "docker.io/library/busybox:latest", "cpu=50m", "memory=32Mi"))
	p.Spec.PriorityClassName = g.lowClass()
	if claim != "" {
		g.useClaim(p, "data", claim)
	} else {
		p.Spec.Volumes = append(p.Spec.Volumes, vol)
	}
	g.admitPod(p)
	g.commitBound(p, ni, nil)
}

func (g *gen) tRWOPInUse(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	ni := pick(g, g.schedulableNodes())
	claim := g.ebsClaim(p.Namespace, 10*gi, ni, []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod})
	g.holderPod(p.Namespace, ni, claim.Name, v1.Volume{})
	g.useClaim(p, "rwop", claim.Name)
	g.feat(FeatRWOPInUse)
	return true
}

func (g *gen) tRWOPFree(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	claim := g.ebsClaim(p.Namespace, 10*gi, pick(g, g.ninfos), []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod})
	g.useClaim(p, "rwop", claim.Name)
	g.feat(FeatRWOPFree)
	return true
}

func (g *gen) tDiskConflict(p *v1.Pod) bool {
	g.seq++
	vol := v1.Volume{Name: "disk", VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{
		PDName: fmt.Sprintf("shared-disk-%d", g.seq), FSType: "ext4"}}}
	g.holderPod(p.Namespace, pick(g, g.ninfos), "", vol)
	vol.Name = volName(p, vol.Name)
	p.Spec.Volumes = append(p.Spec.Volumes, vol)
	g.feat(FeatDiskConflict)
	return true
}

// tVolumeLimit fills a node with a small EBS attach limit up to the limit and
// gives the pod new EBS volumes.
func (g *gen) tVolumeLimit(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	var limited []*nodeInfo
	for _, ni := range g.ninfos {
		if ni.ebsLimit >= 0 && ni.ebsLimit <= 8 {
			limited = append(limited, ni)
		}
	}
	if len(limited) == 0 {
		return false
	}
	ni := pick(g, limited)
	for ni.ebsUsed < int(ni.ebsLimit) {
		claim := g.ebsClaim(pick(g, g.userNS), 10*gi, nil, nil)
		g.holderPod(claim.Namespace, ni, claim.Name, v1.Volume{})
		ni.ebsUsed++
	}
	for i := range g.between(1, 2) {
		var name string
		if g.chance(0.5) {
			name = g.ebsClaim(p.Namespace, 10*gi, nil, nil).Name
		} else {
			// unbound WaitForFirstConsumer claim: counted through its StorageClass
			name = g.nextClaimName()
			g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scGP3, size: 10 * gi})
			g.feat(FeatVBWFFCProvision)
		}
		g.useClaim(p, fmt.Sprintf("ebs-%d", i), name)
	}
	g.feat(FeatVolLimitCount)
	return true
}

func (g *gen) tDriverMissing(p *v1.Pod) bool {
	if !g.storage.disk {
		return false
	}
	g.pvSeq++
	pv := g.addPV(pvSpec{name: fmt.Sprintf("pv-%03d", g.pvSeq), class: scDisk, size: 50 * gi, driver: drvDisk, dynamic: true})
	claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scDisk, size: 50 * gi, volume: pv.Name})
	g.useClaim(p, "disk", claim.Name)
	g.feat(FeatVolLimitDriverMissing)
	return true
}

func (g *gen) tBoundPVAffinity(p *v1.Pod) bool {
	if g.storage.local && g.chance(0.6) {
		for _, ni := range g.r.Perm(len(g.ninfos)) {
			if pvs := g.storage.localFor(g.ninfos[ni].name, g); len(pvs) > 0 {
				claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scLocal, size: 10 * gi, volume: pvs[0].Name})
				g.useClaim(p, "local", claim.Name)
				g.feat(FeatVBBoundAffinity)
				return true
			}
		}
	}
	if !g.storage.ebs || len(g.zones) == 0 {
		return false
	}
	var zoned []*nodeInfo
	for _, ni := range g.ninfos {
		if ni.zone != "" {
			zoned = append(zoned, ni)
		}
	}
	if len(zoned) == 0 {
		return false
	}
	claim := g.ebsClaim(p.Namespace, 20*gi, pick(g, zoned), nil)
	g.useClaim(p, "data", claim.Name)
	g.feat(FeatVBBoundAffinity)
	return true
}

func (g *gen) tUnboundImmediate(p *v1.Pod) bool {
	if !g.storage.immediate {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scImmediate, size: 10 * gi, pending: true})
	g.useClaim(p, "data", name)
	g.feat(FeatVBUnboundImmediate)
	return true
}

func (g *gen) tWFFCMatch(p *v1.Pod) bool {
	if !g.storage.local {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLocal, size: []int64{5 * gi, 10 * gi, 50 * gi, 100 * gi}[g.r.IntN(4)]})
	g.useClaim(p, "local", name)
	g.feat(FeatVBWFFCMatch)
	return true
}

func (g *gen) tWFFCNoPV(p *v1.Pod) bool {
	if !g.storage.local {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLocal, size: 2 * ti})
	g.useClaim(p, "local", name)
	g.feat(FeatVBWFFCNoPV)
	return true
}

func (g *gen) tWFFCProvision(p *v1.Pod) bool {
	if !g.storage.ebs {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scGP3, size: 30 * gi})
	g.useClaim(p, "data", name)
	g.feat(FeatVBWFFCProvision)
	return true
}

func (g *gen) tStorageCapacity(p *v1.Pod) bool {
	if !g.storage.lvm {
		return false
	}
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: scLVM, size: []int64{1 * gi, 10 * gi, 60 * gi, 300 * gi}[g.r.IntN(4)]})
	g.useClaim(p, "scratch", name)
	g.feat(FeatVBStorageCapacity)
	return true
}

func (g *gen) tMissingPV(p *v1.Pod) bool {
	class := ""
	if g.storage.ebs {
		class = scGP3
	}
	g.seq++
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: class, size: 10 * gi, volume: fmt.Sprintf("pv-deleted-%d", g.seq)})
	g.useClaim(p, "data", name)
	g.feat(FeatVBMissingPV)
	return true
}

func (g *gen) tMissingSC(p *v1.Pod) bool {
	name := g.nextClaimName()
	g.addPVC(pvcSpec{ns: p.Namespace, name: name, class: "fast-nvme", size: 10 * gi})
	g.useClaim(p, "data", name)
	g.feat(FeatVBMissingSC)
	return true
}

func (g *gen) tMissingPVC(p *v1.Pod) bool {
	if !g.chance(0.5) {
		return false
	}
	g.useClaim(p, "data", "claim-that-does-not-exist")
	g.feat(FeatVBMissingPVC)
	return true
}

// tVolumeZone binds a claim to a CSI PV that carries zone labels but no node
// affinity (as labelled by the retired PersistentVolumeLabel admission), so
// VolumeZone, not VolumeBinding, decides.
func (g *gen) tVolumeZone(p *v1.Pod) bool {
	if !g.storage.ebs || len(g.zones) == 0 {
		return false
	}
	z := pick(g, g.zones)
	region := z[:len(z)-1]
	labels := map[string]string{labelZone: z, labelRegion: region}
	switch g.weighted(60, 25, 15) {
	case 1:
		labels = map[string]string{labelBetaZone: z, labelBetaRegion: region}
		g.feat(FeatVolumeZoneBeta)
	case 2:
		other := pick(g, g.zones)
		if other != z {
			labels[labelZone] = z + "__" + other
			g.feat(FeatVolumeZoneMulti)
		}
	}
	g.pvSeq++
	pv := g.addPV(pvSpec{name: fmt.Sprintf("pv-%03d", g.pvSeq), class: scGP3, size: 20 * gi, driver: drvEBS, dynamic: true, labels: labels})
	claim := g.addPVC(pvcSpec{ns: p.Namespace, name: g.nextClaimName(), class: scGP3, size: 20 * gi, volume: pv.Name})
	g.useClaim(p, "zonal", claim.Name)
	g.feat(FeatVolumeZone)
	return true
}

// ---------------------------------------------------------------------------
// PodTopologySpread.

func (g *gen) topologyKey() string {
	switch g.weighted(45, 30, 10, 15) {
	case 0:
		return labelZone
	case 1:
		return labelHostname
	case 2:
		return labelRegion
	default:
		if g.hasRack {
			g.feat(FeatPTSCustomKey)
			return "example.com/rack"
		}
		return labelZone
	}
}

func (g *gen) spreadSelector(p *v1.Pod) *metav1.LabelSelector {
	switch g.weighted(70, 20, 5, 5) {
	case 0:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}
	case 1:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, appNames)}}
	case 2:
		g.feat(FeatPTSEmptySelector)
		return &metav1.LabelSelector{}
	default:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{p.Labels["app"], pick(g, appNames)}}}}
	}
}

func (g *gen) addSpread(p *v1.Pod, c v1.TopologySpreadConstraint) bool {
	for _, x := range p.Spec.TopologySpreadConstraints {
		if x.TopologyKey == c.TopologyKey && x.WhenUnsatisfiable == c.WhenUnsatisfiable {
			return false
		}
	}
	if g.chance(0.15) && c.LabelSelector != nil {
		// matchLabelKeys must name keys absent from the selector
		for _, k := range []string{"pod-template-hash", "version", "tier"} {
			_, inML := c.LabelSelector.MatchLabels[k]
			inME := slices.ContainsFunc(c.LabelSelector.MatchExpressions, func(e metav1.LabelSelectorRequirement) bool { return e.Key == k })
			if !inML && !inME {
				c.MatchLabelKeys = []string{k}
				g.feat(FeatPTSMatchLabelKeys)
				break
			}
		}
	}
	p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	return true
}

func (g *gen) tSpreadHard(p *v1.Pod) bool {
	c := v1.TopologySpreadConstraint{MaxSkew: int32(g.between(1, 2)), TopologyKey: g.topologyKey(),
		WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: g.spreadSelector(p)}
	if g.chance(0.3) {
		c.MinDomains = ptrTo(int32(g.between(2, 6)))
		g.feat(FeatPTSMinDomains)
	}
	if g.chance(0.25) {
		c.NodeAffinityPolicy = ptrTo(pick(g, []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}))
		g.feat(FeatPTSAffinityPolicy)
	}
	if g.chance(0.25) {
		c.NodeTaintsPolicy = ptrTo(pick(g, []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}))
		g.feat(FeatPTSTaintsPolicy)
	}
	if !g.addSpread(p, c) {
		return false
	}
	g.feat(FeatPTSHard)
	return true
}

func (g *gen) tSpreadSoft(p *v1.Pod) bool {
	c := v1.TopologySpreadConstraint{MaxSkew: int32(g.between(1, 5)), TopologyKey: g.topologyKey(),
		WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: g.spreadSelector(p)}
	if g.chance(0.2) {
		c.NodeTaintsPolicy = ptrTo(v1.NodeInclusionPolicyHonor)
		g.feat(FeatPTSTaintsPolicy)
	}
	if !g.addSpread(p, c) {
		return false
	}
	g.feat(FeatPTSSoft)
	return true
}

// ---------------------------------------------------------------------------
// InterPodAffinity.

// boundAppIn returns an app with bound pods in ns, or "".
func (g *gen) boundAppIn(ns string) string {
	var apps []string
	for _, p := range g.bound {
		if p.Namespace == ns && p.Labels["app"] != "" && !slices.Contains(apps, p.Labels["app"]) {
			apps = append(apps, p.Labels["app"])
		}
	}
	if len(apps) == 0 {
		return ""
	}
	return pick(g, apps)
}

func (g *gen) affinityTerm(p *v1.Pod, anti bool) v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{TopologyKey: pick(g, []string{labelHostname, labelZone, labelZone, labelRegion})}
	app := g.boundAppIn(p.Namespace)
	switch {
	case anti && g.chance(0.4):
		app = p.Labels["app"]
	case !anti && g.chance(0.15):
		// a group nobody belongs to yet: the pod may start it only
		// because it matches its own term
		g.seq++
		group := fmt.Sprintf("group-%d", g.seq)
		p.Labels["group"] = group
		t.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"group": group}}
		g.feat(FeatIPAFirstOfGroup)
		return t
	case !anti && app == "":
		app = p.Labels["app"]
	case app == "":
		app = pick(g, appNames)
	}
	t.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	switch g.weighted(70, 12, 10, 8) {
	case 1:
		t.Namespaces = sample(g, g.userNS, g.between(1, len(g.userNS)))
		g.feat(FeatIPANamespaces)
	case 2:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick(g, []string{"a", "b"})}}
		g.feat(FeatIPANamespaceSelector)
		if g.chance(0.4) {
			t.Namespaces = []string{p.Namespace}
			g.feat(FeatIPANamespaces)
		}
	case 3:
		t.NamespaceSelector = &metav1.LabelSelector{}
		g.feat(FeatIPANSSelectorAll)
	}
	if g.chance(0.1) {
		for _, k := range []string{"version", "tier"} {
			if _, ok := p.Labels[k]; ok {
				if anti && g.chance(0.5) {
					t.MismatchLabelKeys = []string{k}
				} else {
					t.MatchLabelKeys = []string{k}
				}
				g.feat(FeatIPAMatchLabelKeys)
				break
			}
		}
	}
	return t
}

func ensureAffinity(p *v1.Pod) *v1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &v1.Affinity{}
	}
	return p.Spec.Affinity
}

func (g *gen) tPodAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(p, false))
	g.feat(FeatIPAReqAffinity)
	return true
}

func (g *gen) tPodAntiAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.affinityTerm(p, true))
	g.feat(FeatIPAReqAnti)
	return true
}

func (g *gen) tPreferredPodAffinity(p *v1.Pod) bool {
	a := ensureAffinity(p)
	for range g.between(1, 2) {
		anti := g.chance(0.5)
		wt := v1.WeightedPodAffinityTerm{Weight: int32(g.between(1, 100)), PodAffinityTerm: g.affinityTerm(p, anti)}
		if anti {
			if a.PodAntiAffinity == nil {
				a.PodAntiAffinity = &v1.PodAntiAffinity{}
			}
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, wt)
			g.feat(FeatIPAPrefAnti)
		} else {
			if a.PodAffinity == nil {
				a.PodAffinity = &v1.PodAffinity{}
			}
			a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, wt)
			g.feat(FeatIPAPrefAffinity)
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// ImageLocality.

func (g *gen) tImages(p *v1.Pod) bool {
	var present []imageDef
	for _, im := range imageCatalog {
		if g.imgNodes[im.ref] > 0 {
			present = append(present, im)
		}
	}
	if len(present) == 0 {
		return false
	}
	c := mainCtr(p)
	im := pick(g, present)
	c.Image = im.ref
	if im.alias != "" && g.chance(0.5) {
		c.Image = im.alias
	}
	if g.chance(0.3) {
		c.Image = "registry.example.com/tools/debug" // no tag: normalised to :latest
		g.feat(FeatImageUntagged)
	}
	if g.chance(0.3) {
		other := pick(g, present)
		extra := v1.Container{Name: fmt.Sprintf("extra-%d", len(p.Spec.Containers)), Image: other.ref}
		p.Spec.Containers = append(p.Spec.Containers, extra)
	}
	if g.chance(0.25) {
		ref := "registry.example.com/ml/model-weights:v7"
		if g.chance(0.3) {
			ref = pick(g, present).ref
		}
		name := volName(p, "weights")
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: ref}}})
		mainCtr(p).VolumeMounts = append(mainCtr(p).VolumeMounts, v1.VolumeMount{Name: name, MountPath: "/" + name, ReadOnly: true})
		g.feat(FeatImageVolume)
	}
	g.feat(FeatImagePresent)
	return true
}

// ---------------------------------------------------------------------------
// Scenario-level pending pods.

// scenarioLevelPending decides which special pods this scenario gets and
// returns how many there will be.
func (g *gen) scenarioLevelPending() int {
	g.special = nil
	if g.chance(0.2) {
		g.special = append(g.special, "gated")
	}
	if g.chance(0.03) {
		g.special = append(g.special, "claims")
	}
	if g.declared && g.chance(0.4) {
		g.special = append(g.special, "declared")
	}
	if g.ds != nil && g.chance(0.5) {
		g.special = append(g.special, "daemon")
	}
	return len(g.special)
}

func (g *gen) addScenarioLevelPending() {
	for _, kind := range g.special {
		switch kind {
		case "gated":
			p, w := g.pendingBase()
			p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/quota-check"}}
			if g.chance(0.3) {
				p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/approval"})
			}
			g.admitPending(p, w)
			g.feat(FeatGated)
		case "claims":
			p, w := g.pendingBase()
			g.seq++
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptrTo(fmt.Sprintf("gpu-claim-%d", g.seq))}}
			mainCtr(p).Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}}
			g.admitPending(p, w)
			g.feat(FeatResourceClaims)
		case "declared":
			p, w := g.pendingBase()
			c := mainCtr(p)
			c.RestartPolicy = ptrTo(v1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
				ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
			g.admitPending(p, w)
			g.feat(FeatDeclaredFeaturePod)
		case "daemon":
			var missing []*nodeInfo
			for _, ni := range g.ninfos {
				if !ni.hasDS {
					missing = append(missing, ni)
				}
			}
			if len(missing) == 0 {
				missing = g.ninfos
			}
			ni := pick(g, missing)
			p := g.newWorkloadPod(g.ds, g.nextPendingName(), 0)
			aff := daemonAffinity(ni.name)
			p.Spec.Affinity = aff
			g.admitPending(p, g.ds)
			g.feat(FeatPendingDaemon, FeatNAMatchFields)
		}
	}
}

// nominate gives some pending pods a status.nominatedNodeName, as a previous
// preemption would have, possibly with the victim still terminating.
func (g *gen) nominate() {
	p := 0.35
	if g.opts.Preemption {
		p = 0.6
	}
	if !g.chance(p) || len(g.pending) < 2 {
		return
	}
	for range g.between(1, 2) {
		pod := pick(g, g.pending)
		if pod.Status.NominatedNodeName != "" || len(pod.Spec.SchedulingGates) > 0 {
			continue
		}
		ni := pick(g, g.ninfos)
		pod.Status.NominatedNodeName = ni.name
		markUnschedulable(pod, metav1.NewTime(pod.CreationTimestamp.Add(2*time.Second)),
			fmt.Sprintf("0/%d nodes are available: preemption: found a potential placement for pod on node %s", len(g.ninfos), ni.name))
		prio := *pod.Spec.Priority
		for _, o := range g.pending {
			if o == pod {
				continue
			}
			if *o.Spec.Priority <= prio {
				g.feat(FeatNominatedHigher)
			} else {
				g.feat(FeatNominatedLower)
			}
		}
		if g.chance(0.5) {
			for _, b := range g.bound {
				if b.Spec.NodeName == ni.name && *b.Spec.Priority < prio && b.DeletionTimestamp == nil {
					terminate(b, metav1.NewTime(pod.CreationTimestamp.Add(time.Second)), true)
					g.feat(FeatNominatedTerminating)
					break
				}
			}
		}
	}
}
