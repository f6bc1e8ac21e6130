package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/schedtui/schedtui/snapshot/apiserver"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// workload is a controller (or a group of bare pods) whose pods share labels
// and a template.
type workload struct {
	kind     string // ReplicaSet, StatefulSet, ReplicationController, DaemonSet, Job, bare
	ns, app  string
	name     string
	labels   map[string]string
	owner    *metav1.OwnerReference
	spec     v1.PodSpec
	replicas int
	pvc      bool // each StatefulSet pod gets its own EBS claim
	svc      string
	needGPU  bool
	needHuge bool
}

var appImages = map[string]string{
	"web":      "ghcr.io/example/web:v2.3.1",
	"frontend": "docker.io/library/nginx:1.27.4",
	"api":      "ghcr.io/example/api:v1.8.0",
	"gateway":  "docker.io/library/nginx:1.27.4",
	"cache":    "docker.io/library/redis:7.4.2",
	"db":       "docker.io/library/postgres:17.4",
	"queue":    "ghcr.io/example/worker:latest",
	"worker":   "ghcr.io/example/worker:latest",
	"search":   "docker.io/library/python:3.13-slim",
	"ml":       "nvcr.io/nvidia/pytorch:25.01-py3",
	"etl":      "docker.io/library/python:3.13-slim",
	"auth":     "ghcr.io/example/auth:v0.9.2",
}

var tiers = []string{"frontend", "backend", "data"}

// size classes: 0 none, 1 small, 2 medium, 3 large, 4 xlarge.
func (g *gen) randomSize() int {
	if g.opts.Preemption {
		return g.weighted(5, 25, 40, 22, 8)
	}
	return g.weighted(10, 35, 35, 15, 5)
}

func (g *gen) cpuMem(size int) (int64, int64) {
	switch size {
	case 1:
		return int64(g.between(1, 5)) * 50, int64(g.between(1, 4)) * 64 * mi
	case 2:
		return int64(g.between(3, 10)) * 100, int64(g.between(2, 8)) * 256 * mi
	case 3:
		return int64(g.between(3, 8)) * 500, int64(g.between(3, 12)) * gi
	case 4:
		return int64(g.between(6, 14)) * 1000, int64(g.between(16, 48)) * gi
	}
	return 0, 0
}

// container builds a container with requests of the given size class and a
// random limits policy.
func (g *gen) container(name, img string, size int) v1.Container {
	c := v1.Container{Name: name, Image: img}
	if size == 0 {
		return c
	}
	cpu, mem := g.cpuMem(size)
	req := v1.ResourceList{}
	switch g.weighted(80, 10, 10) {
	case 0:
		req[v1.ResourceCPU], req[v1.ResourceMemory] = cpuQ(cpu), bytesQ(mem)
	case 1:
		req[v1.ResourceCPU] = cpuQ(cpu)
	default:
		req[v1.ResourceMemory] = bytesQ(mem)
	}
	if g.chance(0.12) {
		req[v1.ResourceEphemeralStorage] = bytesQ(int64(g.between(1, 10)) * gi)
	}
	switch g.weighted(50, 25, 15, 10) {
	case 1: // Guaranteed-style
		c.Resources.Limits = mergeRL(nil, req)
	case 2: // burstable with higher limits
		lim := v1.ResourceList{}
		for k, q := range req {
			d := q.DeepCopy()
			d.Add(q)
			lim[k] = d
		}
		c.Resources.Limits = lim
	case 3: // limits only: requests are defaulted from them
		c.Resources.Limits = req
		return c
	}
	c.Resources.Requests = req
	return c
}

func (g *gen) podSpec(app string, size int) v1.PodSpec {
	img, ok := appImages[app]
	if !ok {
		img = "docker.io/library/nginx:1.27.4"
	}
	spec := v1.PodSpec{Containers: []v1.Container{g.container(app, img, size)}}
	if g.chance(0.2) {
		spec.Containers = append(spec.Containers, g.container("log-shipper", "docker.io/library/busybox:latest", min(size, 1)))
	}
	if g.chance(0.15) {
		spec.InitContainers = append(spec.InitContainers, g.container("init", "docker.io/library/busybox:latest", min(size+1, 4)))
	}
	if g.chance(0.12) {
		sc := sidecar(g.container("proxy", "ghcr.io/example/proxy:v1.33.0", min(size, 2)))
		// a sidecar declared before or after a regular init container
		if g.chance(0.5) {
			spec.InitContainers = append([]v1.Container{sc}, spec.InitContainers...)
		} else {
			spec.InitContainers = append(spec.InitContainers, sc)
		}
	}
	if len(g.rcs) > 0 && g.chance(0.06) {
		spec.RuntimeClassName = ptrTo(pick(g, []string{"gvisor", "kata"}))
	}
	if g.chance(g.podLevelRate) && size > 0 {
		g.podLevel(&spec)
	}
	if g.chance(0.2) {
		spec.TerminationGracePeriodSeconds = ptrTo(int64(pick(g, []int{0, 10, 60, 120})))
	}
	return spec
}

// podLevel sets pod-level requests (>= the containers' aggregate, as
// validation requires) and sometimes pod-level limits.
func (g *gen) podLevel(spec *v1.PodSpec) {
	// aggregate as validation will see it: after requests default to limits
	tmp := &v1.Pod{Spec: *spec.DeepCopy()}
	apiserver.Default(tmp)
	agg := resourcehelper.AggregateContainerRequests(tmp, resourcehelper.PodResourcesOptions{})
	cpu := agg[v1.ResourceCPU]
	mem := agg[v1.ResourceMemory]
	cpuM := cpu.MilliValue() + int64(g.between(0, 4))*250
	memB := mem.Value() + int64(g.between(0, 4))*256*mi
	if cpuM == 0 {
		cpuM = 500
	}
	if memB == 0 {
		memB = 512 * mi
	}
	r := &v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: cpuQ(cpuM), v1.ResourceMemory: bytesQ(memB)}}
	if g.chance(0.4) {
		// pod-level limits must be >= every container limit
		lc, lm := cpuM*2, memB*2
		for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
			for _, c := range cs {
				if q, ok := c.Resources.Limits[v1.ResourceCPU]; ok && q.MilliValue() > lc {
					lc = q.MilliValue()
				}
				if q, ok := c.Resources.Limits[v1.ResourceMemory]; ok && q.Value() > lm {
					lm = q.Value()
				}
			}
		}
		r.Limits = v1.ResourceList{v1.ResourceCPU: cpuQ(lc), v1.ResourceMemory: bytesQ(lm)}
	}
	spec.Resources = r
}

// workloadAffinity adds (anti-)affinity typical of the workload.
func (g *gen) workloadAffinity(w *workload, others []string) {
	a := &v1.Affinity{}
	self := &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.app}}
	if g.chance(0.2) {
		a.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			{LabelSelector: self, TopologyKey: labelHostname}}}
	} else if g.chance(0.15) {
		a.PodAntiAffinity = &v1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
			{Weight: int32(g.between(1, 100)), PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: self, TopologyKey: labelZone}}}}
	}
	if g.chance(0.1) {
		// keep away from batch jobs in any namespace
		t := v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"workload": "batch"}},
			TopologyKey: labelHostname, NamespaceSelector: &metav1.LabelSelector{}}
		if g.chance(0.5) {
			t.NamespaceSelector = nil
			t.Namespaces = []string{"batch", "default"}
		}
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &v1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	}
	if len(others) > 0 && g.chance(0.1) {
		a.PodAffinity = &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{
			{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, others)}}, TopologyKey: labelZone}}}
	} else if len(others) > 0 && g.chance(0.1) {
		a.PodAffinity = &v1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
			{Weight: int32(g.between(1, 100)), PodAffinityTerm: v1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, others)}}, TopologyKey: labelHostname}}}}
	}
	if a.PodAffinity != nil || a.PodAntiAffinity != nil {
		w.spec.Affinity = a
	}
}

func (g *gen) genWorkloads() {
	if g.chance(0.5) {
		g.podLevelRate = 0.06
	}
	if g.chance(0.45) {
		g.termRate = 0.03
	}
	g.genDaemonSets()
	n := g.between(3, 9)
	if g.opts.Preemption {
		n = g.between(4, 10)
	}
	used := map[string]bool{}
	var apps []string
	for range n {
		ns := g.pickNS()
		app := pick(g, appNames)
		for used[ns+"/"+app] {
			app = pick(g, appNames)
			if len(used) >= len(appNames)*len(g.userNS) {
				break
			}
		}
		if used[ns+"/"+app] {
			continue
		}
		used[ns+"/"+app] = true
		w := &workload{ns: ns, app: app, name: app}
		w.labels = map[string]string{"app": app}
		if g.chance(0.6) {
			w.labels["tier"] = pick(g, tiers)
		}
		if g.chance(0.3) {
			w.labels["team"] = pick(g, []string{"a", "b"})
		}
		size := g.randomSize()
		if app == "ml" && g.chance(0.5) {
			size = 3
		}
		w.spec = g.podSpec(app, size)
		if app == "ml" && g.hasGPUNodes() {
			w.needGPU = true
			w.spec.Containers[0] = withReqLim(w.spec.Containers[0], fmt.Sprintf("%s=%d", resGPU, g.between(1, 2)))
			w.spec.Tolerations = append(w.spec.Tolerations, v1.Toleration{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
		}
		if g.hasHugeNodes() && g.chance(0.1) {
			w.needHuge = true
			c := withReqLim(w.spec.Containers[0], "hugepages-2Mi=256Mi")
			_, req := c.Resources.Requests[v1.ResourceMemory]
			_, lim := c.Resources.Limits[v1.ResourceMemory]
			if !req && !lim {
				c.Resources.Requests[v1.ResourceMemory] = bytesQ(256 * mi)
			}
			w.spec.Containers[0] = c
			if w.spec.Resources != nil {
				w.spec.Resources = nil
				g.podLevel(&w.spec)
			}
		}
		w.spec.PriorityClassName = g.anyClass()
		if g.opts.Preemption {
			w.spec.PriorityClassName = g.lowClass()
		}
		if g.chance(0.1) {
			w.spec.Containers[0] = hostPort(w.spec.Containers[0], pick(g, []int32{80, 443, 8080}), v1.ProtocolTCP, "")
		}
		switch g.weighted(45, 15, 10, 10, 20) {
		case 0:
			w.kind = "ReplicaSet"
			hash := hashHex(g.name+ns+app, 10)
			w.labels["pod-template-hash"] = hash
			w.name = app + "-" + hash
			sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app, "pod-template-hash": hash}}
			if t, ok := w.labels["tier"]; ok && g.chance(0.3) {
				sel.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{t, "edge"}}}
			}
			w.replicas = g.between(1, 8)
			g.workloadAffinity(w, apps)
			rs := g.addReplicaSet(ns, w.name, int32(w.replicas), sel, w.labels, w.spec)
			w.owner = ptrTo(ownerRef("apps/v1", "ReplicaSet", rs.Name, rs.UID))
			if g.chance(0.6) {
				w.svc = app
				g.addService(ns, app, map[string]string{"app": app}, false)
			}
		case 1:
			w.kind = "StatefulSet"
			w.labels[appsControllerRevision] = app + "-" + hashHex(g.name+ns+app, 10)
			w.replicas = g.between(1, 5)
			w.pvc = g.storage.ebs && g.chance(0.6)
			g.workloadAffinity(w, apps)
			w.svc = app + "-headless"
			g.addService(ns, w.svc, map[string]string{"app": app}, true)
			ss := g.addStatefulSet(ns, app, w.svc, int32(w.replicas), &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, w.labels, w.spec)
			w.owner = ptrTo(ownerRef("apps/v1", "StatefulSet", ss.Name, ss.UID))
		case 2:
			w.kind = "ReplicationController"
			w.labels["version"] = pick(g, []string{"v1", "v2"})
			w.name = app + "-rc"
			w.replicas = g.between(1, 5)
			g.workloadAffinity(w, apps)
			rc := g.addReplicationController(ns, w.name, int32(w.replicas), map[string]string{"app": app, "version": w.labels["version"]}, w.labels, w.spec)
			w.owner = ptrTo(ownerRef("v1", "ReplicationController", rc.Name, rc.UID))
			if g.chance(0.4) {
				w.svc = app
				g.addService(ns, app, map[string]string{"app": app}, false)
			}
		case 3:
			w.kind = "Job"
			w.name = app + "-job-" + hashHex(g.name+app, 5)
			uid := g.uid("Job", ns, w.name)
			w.labels["workload"] = "batch"
			w.labels["batch.kubernetes.io/job-name"] = w.name
			w.labels["job-name"] = w.name
			w.labels["batch.kubernetes.io/controller-uid"] = string(uid)
			w.labels["controller-uid"] = string(uid)
			w.spec.RestartPolicy = v1.RestartPolicyNever
			w.replicas = g.between(1, 6)
			w.owner = ptrTo(ownerRef("batch/v1", "Job", w.name, uid))
		default:
			w.kind = "bare"
			w.replicas = g.between(1, 3)
			g.workloadAffinity(w, apps)
			if g.chance(0.3) {
				w.svc = app
				g.addService(ns, app, map[string]string{"app": app}, false)
			}
		}
		apps = append(apps, app)
		g.workloads = append(g.workloads, w)
	}
	if g.chance(0.15) {
		g.addService(pick(g, g.userNS), "external-db", nil, false).Spec.Selector = nil
	}
	if g.chance(0.15) {
		g.addExternalNameService("default", "legacy", "legacy.example.com")
	}
	if g.chance(0.1) {
		// a Service whose selector spans several apps of a tier
		g.addService("default", "backend", map[string]string{"tier": "backend"}, false)
	}
}

const appsControllerRevision = "controller-revision-hash"

func (g *gen) hasGPUNodes() bool {
	return slices.ContainsFunc(g.ninfos, func(n *nodeInfo) bool { return n.gpu > 0 })
}

func (g *gen) hasHugeNodes() bool {
	return slices.ContainsFunc(g.ninfos, func(n *nodeInfo) bool { return n.huge > 0 })
}

func (g *gen) genDaemonSets() {
	if g.chance(0.55) {
		spec := v1.PodSpec{HostNetwork: true, PriorityClassName: "system-node-critical",
			Containers: []v1.Container{ctr("kube-proxy", "registry.k8s.io/kube-proxy:"+kubeletVersion, "cpu=100m")}}
		spec.Tolerations = append([]v1.Toleration{{Operator: v1.TolerationOpExists}}, daemonTolerations()...)
		spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
		labels := map[string]string{"k8s-app": "kube-proxy", appsControllerRevision: hashHex(g.name+"kube-proxy", 10), "pod-template-generation": "1"}
		ds := g.addDaemonSet("kube-system", "kube-proxy", &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-proxy"}}, labels, spec, int32(len(g.ninfos)))
		g.workloads = append(g.workloads, &workload{kind: "DaemonSet", ns: "kube-system", app: "kube-proxy", name: "kube-proxy",
			labels: labels, spec: spec, owner: ptrTo(ownerRef("apps/v1", "DaemonSet", ds.Name, ds.UID))})
	}
	if g.chance(0.45) {
		c := ctr("node-exporter", "quay.io/prometheus/node-exporter:v1.9.0", "cpu=50m", "memory=64Mi")
		spec := v1.PodSpec{}
		if g.chance(0.5) {
			// hostPort would be defaulted from containerPort in the pods;
			// the chart spells it out in the template.
			spec.HostNetwork = true
			c.Ports = []v1.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}}
		} else {
			c = hostPort(c, 9100, v1.ProtocolTCP, "")
		}
		spec.Containers = []v1.Container{c}
		spec.Tolerations = daemonTolerations()
		if spec.HostNetwork {
			spec.Tolerations = append(spec.Tolerations, v1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
		}
		if g.chance(0.5) {
			spec.Tolerations = append(spec.Tolerations, v1.Toleration{Operator: v1.TolerationOpExists})
		}
		labels := map[string]string{"app": "node-exporter", appsControllerRevision: hashHex(g.name+"node-exporter", 10), "pod-template-generation": "1"}
		ds := g.addDaemonSet("monitoring", "node-exporter", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-exporter"}}, labels, spec, int32(len(g.ninfos)))
		w := &workload{kind: "DaemonSet", ns: "monitoring", app: "node-exporter", name: "node-exporter",
			labels: labels, spec: spec, owner: ptrTo(ownerRef("apps/v1", "DaemonSet", ds.Name, ds.UID))}
		g.workloads = append(g.workloads, w)
		g.ds = w
	}
}

// newWorkloadPod instantiates a (not yet admitted) pod of w.
func (g *gen) newWorkloadPod(w *workload, name string, idx int) *v1.Pod {
	p := newPod(w.ns, name, w.labels)
	p.Spec = *w.spec.DeepCopy()
	if w.owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*w.owner}
	}
	if w.kind == "StatefulSet" {
		p.Labels["statefulset.kubernetes.io/pod-name"] = name
		p.Labels["apps.kubernetes.io/pod-index"] = strconv.Itoa(idx)
		p.Spec.Hostname = name
		p.Spec.Subdomain = w.svc
	}
	return p
}

// startTime is when a bound pod started: shortly after creation, or spread
// over hours when preemption is the focus.
func (g *gen) startTime(created metav1.Time) metav1.Time {
	d := time.Duration(g.between(1, 30)) * time.Second
	if g.opts.Preemption {
		d = time.Duration(g.between(1, 4*3600)) * time.Second
		g.feat(FeatStartTimes)
	}
	return metav1.NewTime(created.Add(d))
}

// podRequests is what NodeResourcesFit counts for a pod in NodeInfo.
func podRequests(p *v1.Pod) (cpu, mem, eph, huge, gpu int64) {
	r := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{UseStatusResources: true})
	get := func(n v1.ResourceName) resource.Quantity { return r[n] }
	c := get(v1.ResourceCPU)
	m := get(v1.ResourceMemory)
	e := get(v1.ResourceEphemeralStorage)
	h := get(resHugePages)
	gp := get(resGPU)
	return c.MilliValue(), m.Value(), e.Value(), h.Value(), gp.Value()
}

// tryBind admits p and binds it to one of the candidate nodes that fits
// within slack (a fraction of allocatable, or the node target when slack is
// 0). It returns nil if no candidate fits.
func (g *gen) tryBind(p *v1.Pod, cands []*nodeInfo, slack float64, w *workload) *nodeInfo {
	b := g.builder
	b.admitPod(p)
	cpu, mem, eph, huge, gpu := podRequests(p)
	var chosen *nodeInfo
	for _, i := range g.r.Perm(len(cands))[:min(len(cands), 12)] {
		ni := cands[i]
		s := slack
		if s == 0 {
			s = ni.target
		}
		if ni.fits(cpu, mem, eph, huge, gpu, s) {
			chosen = ni
			break
		}
	}
	if chosen == nil {
		return nil
	}
	g.commitBound(p, chosen, w)
	return chosen
}

// commitBound binds an admitted pod to ni and records its usage.
func (g *gen) commitBound(p *v1.Pod, ni *nodeInfo, w *workload) {
	if w != nil && w.kind == "DaemonSet" {
		aff := daemonAffinity(ni.name)
		if p.Spec.Affinity != nil {
			aff.PodAffinity, aff.PodAntiAffinity = p.Spec.Affinity.PodAffinity, p.Spec.Affinity.PodAntiAffinity
		}
		p.Spec.Affinity = aff
		ni.hasDS = true
		g.feat(FeatBoundDaemonSet)
	}
	if w != nil && w.pvc {
		claim := g.ebsClaim(p.Namespace, int64(g.between(1, 20))*10*gi, ni, nil)
		g.useClaim(p, "data", claim.Name)
		if ni.ebsLimit >= 0 {
			ni.ebsUsed++
		}
		g.feat(FeatBoundPVC)
	}
	statuses := g.chance(0.5)
	g.bindPod(p, ni.name, g.startTime(p.CreationTimestamp), statuses)
	if statuses {
		g.feat(FeatBoundStatuses)
		if g.resizeLeft > 0 && g.chance(0.05) && len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].Resources != nil {
			g.resizeLeft--
			// an in-place downsize still being actuated: spec < status.resources
			cs := &p.Status.ContainerStatuses[0]
			for k, q := range cs.Resources.Requests {
				if k == v1.ResourceCPU || k == v1.ResourceMemory {
					d := q.DeepCopy()
					d.Add(q)
					cs.Resources.Requests[k] = d
				}
			}
			cs.Resources.Limits = nil
			p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizeInProgress,
				Status: v1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: *p.Status.StartTime})
			g.feat(FeatBoundResizeInFlight)
		}
	}
	g.c.Pods = append(g.c.Pods, p)
	g.bound = append(g.bound, p)
	cpu, mem, eph, huge, gpu := podRequests(p)
	ni.uCPU += cpu
	ni.uMem += mem
	ni.uEph += eph
	ni.uHuge += huge
	ni.uGPU += gpu
	ni.uPods++
	if g.boundApps[p.Namespace] == nil {
		g.boundApps[p.Namespace] = map[string]int{}
	}
	g.boundApps[p.Namespace][p.Labels["app"]]++
	g.boundFeatures(p)
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		for _, port := range c.Ports {
			if port.HostPort > 0 {
				g.hostPorts = append(g.hostPorts, port)
				g.feat(FeatBoundHostPorts)
			}
		}
	}
	if g.chance(g.termRate) {
		terminate(p, metav1.NewTime(p.CreationTimestamp.Add(time.Hour)), false)
		g.feat(FeatBoundTerminating)
	}
}

// volName returns base, or base-N if the pod already has a volume of that name.
func volName(p *v1.Pod, base string) string {
	name := base
	for i := 2; slices.ContainsFunc(p.Spec.Volumes, func(v v1.Volume) bool { return v.Name == name }); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

func (g *gen) useClaim(p *v1.Pod, vol, claim string) {
	vol = volName(p, vol)
	p.Spec.Volumes = append(p.Spec.Volumes, pvcVolume(vol, claim))
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, v1.VolumeMount{Name: vol, MountPath: "/" + vol})
}

func (g *gen) boundFeatures(p *v1.Pod) {
	cpu, mem, _, _, _ := podRequests(p)
	if cpu == 0 && mem == 0 {
		g.feat(FeatBoundNoRequests)
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			g.feat(FeatBoundSidecar)
		} else {
			g.feat(FeatBoundInit)
		}
	}
	if p.Spec.Overhead != nil {
		g.feat(FeatBoundOverhead)
	}
	if p.Spec.Resources != nil {
		g.feat(FeatBoundPodLevel)
	}
	if a := p.Spec.Affinity; a != nil {
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			g.feat(FeatBoundReqAntiAff)
		}
		if a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			g.feat(FeatBoundReqAff)
		}
		if (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
			(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) {
			g.feat(FeatBoundPrefAff)
		}
	}
}

func (g *gen) candidatesFor(w *workload) []*nodeInfo {
	var out []*nodeInfo
	for _, ni := range g.ninfos {
		if w != nil && w.needGPU && ni.gpu == 0 {
			continue
		}
		if w != nil && w.needHuge && ni.huge == 0 {
			continue
		}
		if w != nil && len(w.spec.NodeSelector) > 0 && !selectorMatches(w.spec.NodeSelector, ni.n.Labels) {
			continue
		}
		if w != nil && w.spec.RuntimeClassName != nil && *w.spec.RuntimeClassName == "kata" &&
			ni.n.Labels["katacontainers.io/kata-runtime"] != "true" {
			continue
		}
		out = append(out, ni)
	}
	return out
}

func (g *gen) genBoundPods() {
	if g.chance(0.15) {
		g.resizeLeft = g.between(1, 2) // pods whose in-place resize is still being actuated
	}
	for _, ni := range g.ninfos {
		if g.opts.Preemption {
			ni.target = 0.8 + 0.2*g.r.Float64()
		} else {
			ni.target = 0.1 + 0.75*g.r.Float64()
		}
	}
	if g.opts.Preemption {
		g.feat(FeatPreemptFull)
	}
	// DaemonSet pods first: every node but a few.
	for _, w := range g.workloads {
		if w.kind != "DaemonSet" {
			continue
		}
		for _, ni := range g.ninfos {
			if g.chance(0.06) {
				continue // e.g. a node that just joined
			}
			p := g.newWorkloadPod(w, g.nextPodName(), 0)
			g.admitPod(p)
			g.commitBound(p, ni, w)
		}
	}
	for _, w := range g.workloads {
		if w.kind == "DaemonSet" {
			continue
		}
		cands := g.candidatesFor(w)
		if len(cands) == 0 {
			continue
		}
		for i := range w.replicas {
			p := g.newWorkloadPod(w, g.nextPodName(), i)
			g.tryBind(p, cands, 0, w)
		}
	}
	// Fillers up to each node's target utilisation.
	budget := 14 * len(g.ninfos)
	for _, ni := range g.ninfos {
		for k := 0; k < 20 && budget > 0 && float64(ni.uCPU) < ni.target*float64(ni.cpu)-100; k++ {
			budget--
			var w *workload
			if len(g.workloads) > 0 && g.chance(0.4) {
				w = pick(g, g.workloads)
				if w.kind == "DaemonSet" || w.needGPU || w.needHuge || w.spec.RuntimeClassName != nil {
					w = nil
				}
			}
			var p *v1.Pod
			if w != nil {
				p = g.newWorkloadPod(w, g.nextPodName(), w.replicas+k)
			} else {
				app := pick(g, appNames)
				p = newPod(g.pickNS(), g.nextPodName(), map[string]string{"app": app})
				p.Spec = g.podSpec(app, max(1, g.randomSize()))
				p.Spec.Affinity = nil
				p.Spec.PriorityClassName = g.anyClass()
				if g.opts.Preemption {
					p.Spec.PriorityClassName = g.lowClass()
				}
				if len(g.storage.localFor(ni.name, g)) > 0 && g.chance(0.25) {
					pv := g.storage.localFor(ni.name, g)[0]
					g.pvcSeq++
					claim := g.addPVC(pvcSpec{ns: p.Namespace, name: fmt.Sprintf("pvc-%03d", g.pvcSeq), class: scLocal,
						size: 10 * gi, volume: pv.Name})
					g.useClaim(p, "local", claim.Name)
					g.feat(FeatBoundPVC)
				}
			}
			if g.tryBind(p, []*nodeInfo{ni}, 0, w) == nil {
				break
			}
		}
	}
	// Small nodes packed to their pod limit with tiny pods.
	if g.chance(0.4) {
		for _, ni := range g.ninfos {
			if ni.pods > 32 || !g.chance(0.7) {
				continue
			}
			for ni.uPods < ni.pods {
				p := newPod(pick(g, g.userNS), g.nextPodName(), map[string]string{"app": "sidekick"},
					ctr("sidekick", "registry.k8s.io/pause:3.10"))
				p.Spec.PriorityClassName = g.lowClass()
				g.admitPod(p)
				g.commitBound(p, ni, nil)
			}
		}
	}
	// One over-committed node (e.g. allocatable shrank after a kubelet restart).
	if g.chance(0.06) {
		ni := pick(g, g.ninfos)
		over := ni.cpu - ni.uCPU + int64(g.between(1, 4))*500
		p := newPod("default", g.nextPodName(), map[string]string{"app": "legacy"},
			ctr("legacy", "docker.io/library/busybox:latest", fmt.Sprintf("cpu=%dm", max(over, 100)), "memory=1Gi"))
		g.admitPod(p)
		g.commitBound(p, ni, nil)
	}
	// A pod still bound to a node that no longer exists.
	if g.chance(0.05) {
		p := newPod("default", g.nextPodName(), map[string]string{"app": "orphan"},
			ctr("orphan", "docker.io/library/busybox:latest", "cpu=1", "memory=1Gi"))
		g.addBound(p, "node-decommissioned", metav1.NewTime(epoch.Add(time.Minute)), false)
		g.feat(FeatBoundMissingNode)
	}
	// Volume attachments of CSI volumes not used by any pod still count.
	if g.storage.ebs && g.chance(0.3) {
		for _, ni := range g.ninfos {
			if ni.ebsLimit < 0 || !g.chance(0.2) {
				continue
			}
			g.pvSeq++
			pv := g.addPV(pvSpec{name: fmt.Sprintf("pv-%03d", g.pvSeq), class: scGP3, size: 20 * gi, driver: drvEBS, dynamic: true})
			g.addVolumeAttachment(drvEBS, ni.name, pv.Name)
			ni.ebsUsed++
			g.feat(FeatVolLimitAttachments)
		}
	}
}

// localFor returns the Available local PVs with node affinity to node.
func (s *storageInfra) localFor(node string, g *gen) []*v1.PersistentVolume {
	if !s.local {
		return nil
	}
	var out []*v1.PersistentVolume
	for _, pv := range g.c.PersistentVolumes {
		if pv.Spec.Local == nil || pv.Spec.ClaimRef != nil || pv.Spec.NodeAffinity == nil {
			continue
		}
		if pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0] == node {
			out = append(out, pv)
		}
	}
	return out
}
