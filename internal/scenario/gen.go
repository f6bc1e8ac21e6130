package scenario

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Generate builds the random scenario for seed. The same seed and options
// always produce the same scenario (byte-identical Dump).
func Generate(seed int64, opts Options) *Scenario {
	opts = opts.withDefaults()
	name := fmt.Sprintf("random-%d", seed)
	if opts.Preemption {
		name = fmt.Sprintf("random-preemption-%d", seed)
	}
	if opts.ResourceShapes {
		name = fmt.Sprintf("random-shapes-%d", seed)
	}
	g := &gen{
		builder:   newBuilder(name),
		r:         rand.New(rand.NewPCG(splitmix64(uint64(seed)), splitmix64(uint64(seed)^0x5c4ed7a1e5c4ed7a))),
		opts:      opts,
		byName:    map[string]*nodeInfo{},
		boundApps: map[string]map[string]int{},
		imgNodes:  map[string]int{},
	}
	g.run()
	return &Scenario{Name: name, Seed: seed, Cluster: g.c, Features: g.features()}
}

// splitmix64 scrambles a seed so that neighbouring seeds give unrelated PCG
// states.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// nodeInfo is the generator's view of a node: allocatable and what bound
// pods already request (as NodeResourcesFit counts it: no defaults).
type nodeInfo struct {
	name, zone, region string
	pool               *pool
	n                  *v1.Node

	cpu, mem, eph, pods, huge, gpu       int64
	uCPU, uMem, uEph, uPods, uHuge, uGPU int64
	target                               float64

	cordoned, notReady bool
	noSchedule         bool // has a NoSchedule/NoExecute taint other than unschedulable
	csiNode            bool
	ebsLimit           int32 // -1 = no limit reported
	ebsUsed            int
	diskDriver         bool
	hasDS              bool
	rack               string
}

func (ni *nodeInfo) fits(cpu, mem, eph, huge, gpu int64, slack float64) bool {
	return ni.uPods+1 <= ni.pods &&
		float64(ni.uCPU+cpu) <= float64(ni.cpu)*slack &&
		float64(ni.uMem+mem) <= float64(ni.mem)*slack &&
		ni.uEph+eph <= ni.eph && ni.uHuge+huge <= ni.huge && ni.uGPU+gpu <= ni.gpu
}

type pool struct {
	name, itype, arch string
	cores, memGi      int64
	pods, gpus        int64
	hugeBytes         int64
	labels            map[string]string
	taints            []v1.Taint
}

type imageDef struct {
	ref     string
	size    int64
	popular float64 // probability a node has it
	alias   string  // extra short name reported by the node
}

var imageCatalog = []imageDef{
	{"registry.k8s.io/pause:3.10", 321 * ki, 1, ""},
	{"docker.io/library/busybox:latest", 2 * mi, 0.5, "busybox:latest"},
	{"docker.io/library/nginx:1.27.4", 72 * mi, 0.45, ""},
	{"docker.io/library/redis:7.4.2", 45 * mi, 0.3, ""},
	{"docker.io/library/postgres:17.4", 158 * mi, 0.2, ""},
	{"docker.io/library/python:3.13-slim", 131 * mi, 0.25, ""},
	{"quay.io/prometheus/prometheus:v3.2.1", 310 * mi, 0.15, ""},
	{"ghcr.io/example/api:v1.8.0", 240 * mi, 0.35, ""},
	{"ghcr.io/example/web:v2.3.1", 95 * mi, 0.4, ""},
	{"ghcr.io/example/worker:latest", 510 * mi, 0.2, "ghcr.io/example/worker"},
	{"nvcr.io/nvidia/pytorch:25.01-py3", 9 * gi, 0.08, ""},
	{"registry.example.com/ml/model-weights:v7", 1800 * mi, 0.1, ""},
	{"registry.example.com/tools/debug", 20 * mi, 0.15, "registry.example.com/tools/debug:latest"},
}

var appNames = []string{"web", "api", "cache", "db", "queue", "worker", "search", "auth", "frontend", "ml", "etl", "gateway"}

type gen struct {
	*builder
	r    *rand.Rand
	opts Options

	width     int
	ninfos    []*nodeInfo
	byName    map[string]*nodeInfo
	zones     []string
	regions   []string
	taints    []v1.Taint
	imgNodes  map[string]int
	hasRack   bool
	declared  bool
	userNS    []string
	classes   []string // user classes, ascending value
	never     string
	workloads []*workload
	boundApps map[string]map[string]int // ns -> app -> bound pods
	ds        *workload

	podSeq, pendSeq, pvSeq, pvcSeq, seq int
	pending                             []*v1.Pod
	bound                               []*v1.Pod
	hostPorts                           []v1.ContainerPort

	storage      storageInfra
	special      []string
	resizeLeft   int
	podLevelRate float64 // share of generated pod specs with pod-level resources
	termRate     float64 // share of bound pods being deleted
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// weighted returns an index chosen with the given weights.
func (g *gen) weighted(ws ...int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	x := g.r.IntN(total)
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	return len(ws) - 1
}

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// sample returns k distinct elements of xs, in xs order.
func sample[T any](g *gen, xs []T, k int) []T {
	if k >= len(xs) {
		return slices.Clone(xs)
	}
	idx := g.r.Perm(len(xs))[:k]
	sort.Ints(idx)
	out := make([]T, 0, k)
	for _, i := range idx {
		out = append(out, xs[i])
	}
	return out
}

func (g *gen) nodeName(i int) string { return fmt.Sprintf("node-%0*d", g.width, i) }

func (g *gen) nextPodName() string {
	g.podSeq++
	return fmt.Sprintf("pod-%03d", g.podSeq)
}

func (g *gen) nextPendingName() string {
	g.pendSeq++
	return fmt.Sprintf("pending-%03d", g.pendSeq)
}

func (g *gen) run() {
	g.genNamespaces()
	g.genPriorityClasses()
	g.genRuntimeClasses()
	g.genNodes()
	g.genStorageInfra()
	g.genWorkloads()
	g.genBoundPods()
	g.genPDBs()
	g.genPending()
	g.finish()
}

// finish appends the pending pods after the bound ones (queue order = slice
// order) and derives the features that depend on the final cluster.
func (g *gen) finish() {
	g.c.Pods = append(g.c.Pods, g.pending...)
	g.deriveFeatures()
}

// ---------------------------------------------------------------------------

func (g *gen) genNamespaces() {
	g.addNamespace("default", nil)
	g.addNamespace("kube-system", nil)
	teams := []struct {
		name   string
		labels map[string]string
	}{
		{"team-a", map[string]string{"team": "a", "env": "prod"}},
		{"team-b", map[string]string{"team": "b", "env": "prod"}},
		{"batch", map[string]string{"team": "b", "env": "dev"}},
		{"monitoring", map[string]string{"env": "prod"}},
	}
	g.userNS = []string{"default"}
	for _, t := range teams {
		if t.name == "monitoring" || g.chance(0.75) {
			g.addNamespace(t.name, t.labels)
			if t.name != "monitoring" {
				g.userNS = append(g.userNS, t.name)
			}
		}
	}
}

func (g *gen) pickNS() string {
	if g.chance(0.45) {
		return "default"
	}
	return pick(g, g.userNS)
}

func (g *gen) genPriorityClasses() {
	g.addSystemPriorityClasses()
	type pc struct {
		name  string
		value int32
	}
	all := []pc{{"best-effort", -100}, {"low", 100}, {"standard", 1000}, {"high", 100000}, {"critical", 1000000}}
	if g.opts.Preemption {
		all = append(all[:1:1], pc{"batch-low", 10}, pc{"low", 100}, pc{"standard", 1000}, pc{"high", 100000}, pc{"critical", 1000000})
	}
	globalDefault := ""
	if g.chance(0.3) {
		globalDefault = pick(g, []string{"low", "standard"})
		g.feat(FeatGlobalDefaultPC)
	}
	for _, c := range all {
		if c.name != globalDefault && c.name != "standard" && c.name != "high" && !g.chance(0.8) {
			continue
		}
		g.addPriorityClass(c.name, c.value, c.name == globalDefault, "", "")
		g.classes = append(g.classes, c.name)
	}
	if g.opts.Preemption || g.chance(0.5) {
		g.never = "high-nonpreempting"
		g.addPriorityClass(g.never, 100000, false, v1.PreemptNever, "High priority without preemption.")
	}
	g.feat(FeatPriorityClasses)
}

// lowClass / highClass pick a user class from the lower or upper half.
func (g *gen) lowClass() string {
	return pick(g, g.classes[:max(1, len(g.classes)/2)])
}

func (g *gen) highClass() string {
	return pick(g, g.classes[len(g.classes)/2:])
}

func (g *gen) anyClass() string {
	switch g.weighted(30, 50, 20) {
	case 0:
		return "" // no class: 0, or the global default
	case 1:
		return g.lowClass()
	default:
		return g.highClass()
	}
}

func (g *gen) genRuntimeClasses() {
	if !g.opts.ResourceShapes && !g.chance(0.35) {
		return
	}
	g.addRuntimeClass("gvisor", "runsc", rl("cpu=100m", "memory=64Mi"), nil)
	g.addRuntimeClass("kata", "kata-qemu", rl("cpu=250m", "memory=160Mi"), map[string]string{"katacontainers.io/kata-runtime": "true"})
	g.feat(FeatRuntimeClass)
}

// ---------------------------------------------------------------------------
// Nodes.

func (g *gen) pools() []*pool {
	general := []*pool{
		{name: "general", itype: "m6i.xlarge", cores: 4, memGi: 16},
		{name: "general", itype: "m6i.2xlarge", cores: 8, memGi: 32},
		{name: "general", itype: "m6i.4xlarge", cores: 16, memGi: 64},
	}
	out := []*pool{pick(g, general)}
	extras := []*pool{
		{name: "highmem", itype: "r6i.2xlarge", cores: 8, memGi: 64},
		{name: "compute", itype: "c6i.8xlarge", cores: 32, memGi: 64},
		{name: "small", itype: "t3.medium", cores: 2, memGi: 4, pods: 17},
		{name: "gpu", itype: "g5.2xlarge", cores: 8, memGi: 32, gpus: 1,
			labels: map[string]string{"example.com/gpu-model": "a10g"}},
		{name: "gpu", itype: "p4d.24xlarge", cores: 96, memGi: 1152, gpus: 8,
			labels: map[string]string{"example.com/gpu-model": "a100"}},
		{name: "arm", itype: "m7g.2xlarge", arch: "arm64", cores: 8, memGi: 32},
		{name: "hugepages", itype: "m6i.4xlarge", cores: 16, memGi: 64, hugeBytes: 2 * gi,
			labels: map[string]string{"example.com/hugepages": "2Mi"}},
		{name: "spot", itype: "m6i.2xlarge", cores: 8, memGi: 32,
			labels: map[string]string{"lifecycle": "spot"},
			taints: []v1.Taint{{Key: "lifecycle", Value: "spot", Effect: v1.TaintEffectPreferNoSchedule}}},
	}
	for _, p := range extras {
		if g.chance(0.3) {
			out = append(out, p)
		}
	}
	for _, p := range out {
		if p.gpus > 0 && g.chance(0.6) {
			p.taints = append(p.taints, v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule})
		}
	}
	return out
}

func (g *gen) genNodes() {
	n := g.between(g.opts.MinNodes, g.opts.MaxNodes)
	g.width = max(3, len(strconv.Itoa(n)))

	regionNames := []string{"us-east-1", "eu-west-1", "ap-south-1", "us-west-2"}
	g.r.Shuffle(len(regionNames), func(i, j int) { regionNames[i], regionNames[j] = regionNames[j], regionNames[i] })
	type zinfo struct {
		region, zone string
		weight       int
	}
	var zs []zinfo
	nReg := 1 + g.weighted(60, 30, 10)
	for _, reg := range regionNames[:nReg] {
		nz := 1 + g.weighted(15, 25, 45, 15)
		for z := range nz {
			zs = append(zs, zinfo{reg, reg + string(rune('a'+z)), g.between(1, 4)})
		}
		g.regions = append(g.regions, reg)
	}
	for _, z := range zs {
		g.zones = append(g.zones, z.zone)
	}
	if len(zs) > 1 {
		g.feat(FeatMultiZone)
	}
	if nReg > 1 {
		g.feat(FeatMultiRegion)
	}
	weights := make([]int, len(zs))
	for i, z := range zs {
		weights[i] = z.weight
	}
	noZone := 0.0
	if g.chance(0.3) {
		noZone = 0.05 + 0.15*g.r.Float64()
	}
	beta, betaOnly := 0.0, 0.0
	if g.chance(0.25) {
		beta = 0.3 + 0.7*g.r.Float64()
	}
	if g.chance(0.1) {
		betaOnly = 0.1 + 0.2*g.r.Float64()
	}
	g.hasRack = g.chance(0.5)
	g.declared = g.chance(0.5)
	pools := g.pools()

	type draft struct {
		zi       int // -1 = no zone labels
		pool     *pool
		beta     bool
		betaOnly bool
	}
	drafts := make([]draft, n)
	for i := range drafts {
		d := draft{zi: g.weighted(weights...), pool: pools[0]}
		if len(pools) > 1 && g.chance(0.45) {
			d.pool = pick(g, pools[1:])
		}
		if g.r.Float64() < noZone {
			d.zi = -1
			g.feat(FeatNodesWithoutZone)
		} else if g.r.Float64() < betaOnly {
			d.betaOnly = true
			g.feat(FeatBetaOnlyZoneLabels)
		} else if g.r.Float64() < beta {
			d.beta = true
			g.feat(FeatBetaZoneLabels)
		}
		drafts[i] = d
	}
	if g.chance(0.35) {
		sort.SliceStable(drafts, func(i, j int) bool { return drafts[i].zi < drafts[j].zi })
		g.feat(FeatNodesGroupedByZone)
	}

	for i, d := range drafts {
		p := d.pool
		name := g.nodeName(i + 1)
		s := nodeSpec{name: name, arch: p.arch, instanceType: p.itype, pods: p.pods, gpus: p.gpus, hugeBytes: p.hugeBytes,
			betaLabels: d.beta, betaOnly: d.betaOnly}
		if d.zi >= 0 {
			s.region, s.zone = zs[d.zi].region, zs[d.zi].zone
		}
		s.reserveCPU = 60 + 10*p.cores
		s.cpuMilli = p.cores*mcp - s.reserveCPU
		s.reserveMem = p.memGi*gi/20 + 100*mi
		s.memBytes = (p.memGi*gi - s.reserveMem - p.hugeBytes) / ki * ki
		s.ephBytes = []int64{20 * gi, 45 * gi, 90 * gi, 180 * gi}[g.weighted(10, 30, 45, 15)]
		s.labels = map[string]string{"pool": p.name, "cpu-generation": strconv.Itoa(g.between(1, 6))}
		s.labels["disktype"] = []string{"ssd", "hdd", "nvme"}[g.weighted(60, 25, 15)]
		for k, v := range p.labels {
			s.labels[k] = v
		}
		if g.hasRack && g.chance(0.9) {
			s.labels["example.com/rack"] = fmt.Sprintf("rack-%d", g.between(1, 6))
		}
		if p.arch == "arm64" {
			g.feat(FeatArm64Nodes)
		}
		if p.gpus > 0 {
			g.feat(FeatGPUNodes)
		}
		if p.hugeBytes > 0 {
			g.feat(FeatHugePagesNodes)
		}
		if rc := g.rcs["kata"]; rc != nil && g.chance(0.4) {
			s.labels["katacontainers.io/kata-runtime"] = "true"
		}
		s.taints = slices.Clone(p.taints)
		if i == 0 && g.chance(0.3) {
			s.labels[labelCP] = ""
			s.labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
			s.taints = append(s.taints, v1.Taint{Key: labelCP, Effect: v1.TaintEffectNoSchedule})
		}
		if g.chance(0.05) {
			s.taints = append(s.taints, v1.Taint{Key: "maintenance", Value: "scheduled", Effect: v1.TaintEffectNoExecute})
		}
		if g.chance(0.06) {
			s.taints = append(s.taints, v1.Taint{Key: "example.com/noisy", Effect: v1.TaintEffectPreferNoSchedule})
		}
		if g.chance(0.04) {
			s.taints = append(s.taints, v1.Taint{Key: "dedicated", Value: pick(g, []string{"infra", "ml"}), Effect: v1.TaintEffectNoSchedule})
		}
		if g.chance(0.015) {
			s.notReady = true
			t := at(30 * time.Second)
			s.taints = append(s.taints,
				v1.Taint{Key: taintNotReady, Effect: v1.TaintEffectNoSchedule},
				v1.Taint{Key: taintNotReady, Effect: v1.TaintEffectNoExecute, TimeAdded: &t})
			g.feat(FeatNotReadyNode)
		}
		if g.chance(0.045) {
			s.cordoned = true
			g.feat(FeatCordonedNode)
			if g.chance(0.8) {
				// the node lifecycle controller's TaintNodesByCondition
				s.taints = append(s.taints, v1.Taint{Key: taintUnschedulable, Effect: v1.TaintEffectNoSchedule})
			}
		}
		s.images = g.nodeImages()
		if g.declared && g.chance(0.6) {
			s.declared = []string{"InPlacePodLevelResourcesVerticalScaling", "RestartAllContainersOnContainerExits"}
			if g.chance(0.5) {
				s.declared = append(s.declared, "ExtendWebSocketsToKubelet")
			}
			g.feat(FeatDeclaredFeatures)
		}
		node := g.addNode(s)
		ni := &nodeInfo{name: name, zone: s.zone, region: s.region, pool: p, n: node,
			cpu: s.cpuMilli, mem: s.memBytes, eph: s.ephBytes, pods: s.pods, huge: s.hugeBytes, gpu: s.gpus,
			cordoned: s.cordoned, notReady: s.notReady, ebsLimit: -1, rack: s.labels["example.com/rack"]}
		if ni.pods == 0 {
			ni.pods = 110
		}
		if d.betaOnly {
			ni.zone, ni.region = "", "" // invisible to topology.kubernetes.io keys
		}
		for _, t := range s.taints {
			switch t.Effect {
			case v1.TaintEffectNoSchedule:
				g.feat(FeatTaintNoSchedule)
			case v1.TaintEffectNoExecute:
				g.feat(FeatTaintNoExecute)
			case v1.TaintEffectPreferNoSchedule:
				g.feat(FeatTaintPreferNo)
			}
			if t.Key != taintUnschedulable && t.Effect != v1.TaintEffectPreferNoSchedule {
				ni.noSchedule = true
			}
			if !slices.ContainsFunc(g.taints, func(x v1.Taint) bool { return x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect }) {
				g.taints = append(g.taints, v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
			}
		}
		g.ninfos = append(g.ninfos, ni)
		g.byName[name] = ni
	}
}

func (g *gen) nodeImages() []v1.ContainerImage {
	var out []v1.ContainerImage
	for _, im := range imageCatalog {
		if g.r.Float64() >= im.popular {
			continue
		}
		size := im.size
		if g.chance(0.05) {
			size += int64(g.between(1, 9)) * mi // same name, slightly different size elsewhere
		}
		var extra []string
		if im.alias != "" {
			extra = append(extra, im.alias)
		}
		out = append(out, image(im.ref, size, extra...))
		g.imgNodes[im.ref]++
	}
	if len(out) > 0 {
		g.feat(FeatNodeImages)
	}
	// kubelet reports images sorted by size, largest first
	sort.SliceStable(out, func(i, j int) bool { return out[i].SizeBytes > out[j].SizeBytes })
	return out
}

// schedulableNodes returns nodes a plain pod could land on (not cordoned, no
// NoSchedule/NoExecute taints).
func (g *gen) schedulableNodes() []*nodeInfo {
	var out []*nodeInfo
	for _, ni := range g.ninfos {
		if !ni.cordoned && !ni.noSchedule {
			out = append(out, ni)
		}
	}
	if len(out) == 0 {
		return g.ninfos
	}
	return out
}

// deriveFeatures computes the features that depend on the final cluster.
func (g *gen) deriveFeatures() {
	for _, ni := range g.ninfos {
		if ni.uPods >= ni.pods {
			g.feat(FeatBoundAtPodLimit)
			if len(g.pending) > 0 {
				g.feat(FeatFitTooManyPods)
			}
		}
		if ni.uCPU > ni.cpu || ni.uMem > ni.mem {
			g.feat(FeatBoundOvercommitted)
		}
	}
	// System default spreading: pending pods without explicit constraints
	// selected by a Service or owned by a RS/SS/RC.
	for _, p := range g.pending {
		if len(p.Spec.TopologySpreadConstraints) > 0 {
			continue
		}
		for _, s := range g.c.Services {
			if s.Namespace == p.Namespace && s.Spec.Selector != nil && selectorMatches(s.Spec.Selector, p.Labels) {
				g.feat(FeatPTSDefaultService)
			}
		}
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			switch ref.Kind {
			case "ReplicaSet":
				g.feat(FeatPTSDefaultRS)
			case "StatefulSet":
				g.feat(FeatPTSDefaultSS)
			case "ReplicationController":
				g.feat(FeatPTSDefaultRC)
			}
		}
	}
	// Existing pods' required anti-affinity matching a pending pod.
	for _, bp := range g.bound {
		a := bp.Spec.Affinity
		if a == nil || a.PodAntiAffinity == nil {
			continue
		}
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			for _, p := range g.pending {
				if g.termMatches(bp, &t, p) {
					g.feat(FeatIPAExistingAnti)
				}
			}
		}
	}
}

func selectorMatches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// termMatches reports whether term (declared by owner) selects pod,
// considering namespaces; only matchLabels/In selectors are evaluated
// (sufficient for feature accounting).
func (g *gen) termMatches(owner *v1.Pod, t *v1.PodAffinityTerm, pod *v1.Pod) bool {
	if t.LabelSelector == nil {
		return false
	}
	nsOK := false
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		nsOK = pod.Namespace == owner.Namespace
	}
	if slices.Contains(t.Namespaces, pod.Namespace) {
		nsOK = true
	}
	if t.NamespaceSelector != nil {
		for _, ns := range g.c.Namespaces {
			if ns.Name == pod.Namespace && selectorMatches(t.NamespaceSelector.MatchLabels, ns.Labels) && len(t.NamespaceSelector.MatchExpressions) == 0 {
				nsOK = true
			}
		}
	}
	if !nsOK {
		return false
	}
	if !selectorMatches(t.LabelSelector.MatchLabels, pod.Labels) {
		return false
	}
	for _, e := range t.LabelSelector.MatchExpressions {
		v, ok := pod.Labels[e.Key]
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			if !ok || !slices.Contains(e.Values, v) {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if ok && slices.Contains(e.Values, v) {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}
