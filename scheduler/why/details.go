package why

import (
	"fmt"
	"math"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
)

var noLog = klog.Logger{}

// requests is the pod's effective requests as the scheduler sums them,
// with the resource gates in effect (v1.37's defaults without a scheduler).
func requests(in Input, pod *v1.Pod) framework.Resource {
	g := framework.DefaultResourceGates
	if in.Sched != nil {
		g = framework.ResourceGatesOf(in.Sched.Features())
	}
	return framework.NewPodInfo(pod).CalculateResourceWith(g).Resource
}

// quantity renders an amount of a resource as the API would.
func quantity(name v1.ResourceName, n int64) resource.Quantity {
	switch name {
	case v1.ResourceCPU:
		return *resource.NewMilliQuantity(n, resource.DecimalSI)
	case v1.ResourceMemory, v1.ResourceEphemeralStorage:
		return *resource.NewQuantity(n, resource.BinarySI)
	}
	return *resource.NewQuantity(n, resource.DecimalSI)
}

func qty(name v1.ResourceName, n int64) string {
	if name == v1.ResourceCPU {
		return fmt.Sprintf("%dm", n)
	}
	q := quantity(name, n)
	return q.String()
}

// free is what node has left of a resource for pod: allocatable minus
// its pods' requests, and minus the requests of the pods nominated to it
// that the two-pass Filter counts (withNominated).
func free(in Input, node string, res v1.ResourceName, withNominated bool) (int64, bool) {
	ni := in.nodeInfo(node)
	if ni == nil {
		return 0, false
	}
	f := ni.Allocatable.Amount(res) - ni.Requested.Amount(res)
	if res == v1.ResourcePods {
		f = int64(ni.Allocatable.AllowedPodNumber) - int64(len(ni.Pods))
	}
	if withNominated {
		for _, p := range nominatedAgainst(in.Sched, in.Pod, node) {
			if res == v1.ResourcePods {
				f--
				continue
			}
			r := requests(in, p)
			f -= r.Amount(res)
		}
	}
	return f, true
}

func reasonResource(reason string) (v1.ResourceName, bool) {
	if reason == "Too many pods" {
		return v1.ResourcePods, true
	}
	r, ok := strings.CutPrefix(reason, "Insufficient ")
	return v1.ResourceName(r), ok
}

// resourcesDetail: what the pod asks, the most free on these nodes, and
// the nodes that fit without the nominated pods counted against them.
func resourcesDetail(in Input, g group) string {
	res, ok := reasonResource(g.reason)
	if !ok {
		return ""
	}
	req := requests(in, in.Pod)
	want := req.Amount(res)
	if res == v1.ResourcePods {
		want = 1
	}
	best, bestNode := int64(math.MinInt64), ""
	var nominatedBlock []string
	for _, n := range g.nodes {
		f, ok := free(in, n, res, true)
		if !ok {
			continue
		}
		if f > best {
			best, bestNode = f, n
		}
		if without, _ := free(in, n, res, false); without >= want && f < want {
			var noms []string
			for _, p := range nominatedAgainst(in.Sched, in.Pod, n) {
				r := requests(in, p)
				noms = append(noms, fmt.Sprintf("%s (priority %d, %s)", podRef(p), corev1helpers.PodPriority(p), qty(res, r.Amount(res))))
			}
			nominatedBlock = append(nominatedBlock, fmt.Sprintf("%s fits without the pods nominated to it: %s", n, strings.Join(noms, ", ")))
		}
	}
	if bestNode == "" {
		return ""
	}
	s := fmt.Sprintf("asks %s; most free is %s on %s (higher-priority nominated pods counted).", qty(res, want), qty(res, max(best, 0)), bestNode)
	if res == v1.ResourcePods {
		s = fmt.Sprintf("every one of them holds its maximum number of pods; most room is %d on %s.", max(best, 0), bestNode)
	}
	if len(nominatedBlock) > 0 {
		if len(nominatedBlock) > 3 {
			nominatedBlock = append(nominatedBlock[:3], fmt.Sprintf("and %d more", len(nominatedBlock)-3))
		}
		s += " " + strings.Join(nominatedBlock, "; ") + "."
	}
	return s
}

// untolerated lists the node's NoSchedule/NoExecute taints pod does not
// tolerate.
func untolerated(pod *v1.Pod, node *v1.Node) []v1.Taint {
	var out []v1.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == v1.TaintEffectPreferNoSchedule {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, &t, false) {
			out = append(out, t)
		}
	}
	return out
}

func taintsDetail(in Input, g group) string {
	var b byValue
	for _, n := range g.nodes {
		if ni := in.nodeInfo(n); ni != nil {
			for _, t := range untolerated(in.Pod, ni.Node()) {
				b.add(t.ToString(), n)
			}
		}
	}
	if len(b.order) == 0 {
		return ""
	}
	return "untolerated taint " + b.String() + "."
}

func selectorString(m map[string]string) string {
	var kv []string
	for _, k := range sortedKeys(m) {
		kv = append(kv, k+"="+m[k])
	}
	return strings.Join(kv, ",")
}

// NodeSelectorTermString is a required node-affinity term as the verdict,
// the Pod view and the teaching pane print it.
func NodeSelectorTermString(t v1.NodeSelectorTerm) string {
	var parts []string
	for _, e := range t.MatchExpressions {
		parts = append(parts, fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values))
	}
	for _, e := range t.MatchFields {
		parts = append(parts, fmt.Sprintf("field %s %s %v", e.Key, e.Operator, e.Values))
	}
	return strings.Join(parts, ", ")
}

// selectorMisses says which of the pod's nodeSelector labels node lacks.
func selectorMisses(pod *v1.Pod, node *v1.Node) []string {
	var out []string
	for _, k := range sortedKeys(pod.Spec.NodeSelector) {
		want := pod.Spec.NodeSelector[k]
		got, ok := node.Labels[k]
		switch {
		case !ok:
			out = append(out, "no "+k)
		case got != want:
			out = append(out, k+"="+got)
		}
	}
	return out
}

func nodeAffinityDetail(in Input, g group) string {
	var sel, aff byValue
	for _, n := range g.nodes {
		ni := in.nodeInfo(n)
		if ni == nil {
			continue
		}
		if miss := selectorMisses(in.Pod, ni.Node()); len(miss) > 0 {
			sel.add("has "+strings.Join(miss, ", "), n)
			continue
		}
		aff.add("", n)
	}
	var parts []string
	if len(sel.order) > 0 {
		parts = append(parts, "nodeSelector "+selectorString(in.Pod.Spec.NodeSelector)+": "+sel.String())
	}
	if len(aff.order) > 0 {
		var terms []string
		if a := in.Pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				terms = append(terms, "{"+NodeSelectorTermString(t)+"}")
			}
		}
		parts = append(parts, fmt.Sprintf("required node affinity %s matches none of %s", strings.Join(terms, " or "), names(aff.nodes[""])))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// portHolders lists, per wanted host port, the pods on node holding it.
func portHolders(in Input, node string) map[string][]*v1.Pod {
	ni := in.nodeInfo(node)
	if ni == nil {
		return nil
	}
	out := map[string][]*v1.Pod{}
	for _, want := range framework.HostPorts(in.Pod) {
		for _, pi := range ni.Pods {
			for _, have := range framework.HostPorts(pi.Pod) {
				if portsConflict(want, have) {
					k := fmt.Sprintf("%s/%d", orTCP(want.Protocol), want.HostPort)
					out[k] = append(out[k], pi.Pod)
					break
				}
			}
		}
	}
	return out
}

func orTCP(p v1.Protocol) v1.Protocol {
	if p == "" {
		return v1.ProtocolTCP
	}
	return p
}

func portsConflict(a, b v1.ContainerPort) bool {
	if a.HostPort != b.HostPort || orTCP(a.Protocol) != orTCP(b.Protocol) {
		return false
	}
	wild := func(ip string) bool { return ip == "" || ip == "0.0.0.0" }
	return wild(a.HostIP) || wild(b.HostIP) || a.HostIP == b.HostIP
}

func portsDetail(in Input, g group) string {
	var b byValue
	for _, n := range g.nodes {
		h := portHolders(in, n)
		for _, port := range sortedKeys(h) {
			var who []string
			for _, p := range h[port] {
				who = append(who, podRef(p))
			}
			b.add(fmt.Sprintf("%s on %s held by %s", port, n, strings.Join(who, ", ")), "")
		}
	}
	if len(b.order) == 0 {
		return ""
	}
	return "host port " + b.String() + "."
}

func (in Input) nsLabels(ns string) labels.Set {
	if n, err := in.Sched.Objects().Namespace(ns); err == nil {
		return n.Labels
	}
	return nil
}

// blocker is a pod that keeps the pod off a node, and why.
type blocker struct {
	pod  *v1.Pod
	node string
	why  string
}

// interPodBlockers finds, for node, the pods in its topology domains that
// the pod's required anti-affinity selects and the pods whose required
// anti-affinity selects the pod; and the affinity terms no pod satisfies.
func interPodBlockers(in Input, node string) (blockers []blocker, unmet []string) {
	ni := in.nodeInfo(node)
	if ni == nil {
		return nil, nil
	}
	pi := framework.NewPodInfo(in.Pod)
	nodeLabels := ni.Node().Labels
	all := in.Sched.Snapshot().List()
	inDomain := func(other *framework.NodeInfo, key string) bool {
		v, ok := nodeLabels[key]
		ov, ook := other.Node().Labels[key]
		return ok && ook && v == ov
	}
	for _, t := range pi.RequiredAntiAffinityTerms {
		for _, other := range all {
			if !inDomain(other, t.TopologyKey) {
				continue
			}
			for _, op := range other.Pods {
				if t.Matches(op.Pod, in.nsLabels(op.Pod.Namespace)) {
					blockers = append(blockers, blocker{op.Pod, other.Name(), domain("matches this pod's anti-affinity "+t.Selector.String(), t.TopologyKey, nodeLabels, other)})
				}
			}
		}
	}
	own := in.nsLabels(in.Pod.Namespace)
	for _, other := range in.Sched.Snapshot().HavePodsWithRequiredAntiAffinityList() {
		for _, op := range other.PodsWithRequiredAntiAffinity {
			for _, t := range op.RequiredAntiAffinityTerms {
				if inDomain(other, t.TopologyKey) && t.Matches(in.Pod, own) {
					blockers = append(blockers, blocker{op.Pod, other.Name(), domain("its anti-affinity "+t.Selector.String()+" selects this pod", t.TopologyKey, nodeLabels, other)})
					break
				}
			}
		}
	}
	for _, t := range pi.RequiredAffinityTerms {
		found := false
		for _, other := range all {
			if !inDomain(other, t.TopologyKey) {
				continue
			}
			for _, op := range other.Pods {
				if t.Matches(op.Pod, in.nsLabels(op.Pod.Namespace)) {
					found = true
				}
			}
		}
		if !found {
			dom := "no " + t.TopologyKey + " label"
			if v, ok := nodeLabels[t.TopologyKey]; ok {
				dom = t.TopologyKey + "=" + v
			}
			unmet = append(unmet, fmt.Sprintf("no pod matching %s in %s", t.Selector, dom))
		}
	}
	return blockers, unmet
}

// domain says why: on the node itself for a per-node topology key, else
// which domain the two nodes share.
func domain(why, key string, nodeLabels map[string]string, other *framework.NodeInfo) string {
	if other.Node().Labels[key] == other.Name() || key == v1.LabelHostname {
		return why
	}
	return fmt.Sprintf("%s in %s=%s", why, key, nodeLabels[key])
}

func interPodDetail(in Input, g group) string {
	var b byValue
	for _, n := range g.nodes {
		bl, unmet := interPodBlockers(in, n)
		for _, x := range bl {
			b.add(fmt.Sprintf("%s on %s (%s)", podRef(x.pod), x.node, x.why), "")
		}
		for _, u := range unmet {
			b.add("affinity unmet: "+u, n)
		}
	}
	if len(b.order) == 0 {
		return ""
	}
	return "blocked by " + b.String() + "."
}

// domainCounts is one DoNotSchedule constraint's matching pods per
// topology domain, over the nodes it counts.
type domainCounts struct {
	c      v1.TopologySpreadConstraint
	counts map[string]int
	pods   map[string][]string
	min    int
	self   int
}

func metaSelector(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Nothing()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return s
}

// spreadCounts recomputes each DoNotSchedule constraint's counts
// (nodeAffinityPolicy Honor, the default, counts only nodes matching the
// pod's node selector and affinity; nodeTaintsPolicy Honor only nodes
// whose taints the pod tolerates).
func spreadCounts(in Input) []domainCounts {
	var out []domainCounts
	req := nodeaffinity.GetRequiredNodeAffinity(in.Pod)
	for _, c := range in.Pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != v1.DoNotSchedule {
			continue
		}
		sel := metaSelector(c.LabelSelector)
		d := domainCounts{c: c, counts: map[string]int{}, pods: map[string][]string{}}
		for _, ni := range in.Sched.Snapshot().List() {
			node := ni.Node()
			dom, ok := node.Labels[c.TopologyKey]
			if !ok {
				continue
			}
			if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
				if m, _ := req.Match(node); !m {
					continue
				}
			}
			if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor && len(untolerated(in.Pod, node)) > 0 {
				continue
			}
			d.counts[dom] += 0
			for _, p := range ni.Pods {
				if p.Pod.Namespace == in.Pod.Namespace && p.Pod.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Pod.Labels)) {
					d.counts[dom]++
					d.pods[dom] = append(d.pods[dom], podRef(p.Pod))
				}
			}
		}
		d.min = math.MaxInt
		for _, n := range d.counts {
			d.min = min(d.min, n)
		}
		if d.min == math.MaxInt {
			d.min = 0
		}
		if sel.Matches(labels.Set(in.Pod.Labels)) {
			d.self = 1
		}
		out = append(out, d)
	}
	return out
}

func spreadDetail(in Input, g group) string {
	var parts []string
	for _, d := range spreadCounts(in) {
		var doms []string
		for _, k := range sortedKeys(d.counts) {
			doms = append(doms, fmt.Sprintf("%s=%d", k, d.counts[k]))
		}
		var over byValue
		for _, n := range g.nodes {
			ni := in.nodeInfo(n)
			if ni == nil {
				continue
			}
			dom, ok := ni.Node().Labels[d.c.TopologyKey]
			if _, counted := d.counts[dom]; !ok || !counted {
				over.add("no "+d.c.TopologyKey+" label or not counted", n)
				continue
			}
			if skew := d.counts[dom] + d.self - d.min; skew > int(d.c.MaxSkew) {
				desc := fmt.Sprintf("%s: %d+%d-%d = skew %d > %d", dom, d.counts[dom], d.self, d.min, skew, d.c.MaxSkew)
				if ps := d.pods[dom]; len(ps) > 0 {
					desc += ", matching pods " + names(ps)
				}
				over.add(desc, n)
			}
		}
		if len(over.order) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s maxSkew %d, selector %s, per domain %s (min %d); %s", d.c.TopologyKey, d.c.MaxSkew,
			metaSelector(d.c.LabelSelector), strings.Join(doms, ", "), d.min, over.String()))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " | ") + "."
}

// claims lists the pod's claims ("namespace/name"), generic ephemeral
// volumes included.
func claims(pod *v1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, pod.Namespace+"/"+v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Namespace+"/"+pod.Name+"-"+v.Name)
		}
	}
	return out
}

// describeClaim names a claim, its storage class (with its binding mode
// and provisioner) and the PV it is bound to (with the PV's node affinity
// and zone labels).
func describeClaim(in Input, ref string) string {
	ns, name, _ := strings.Cut(ref, "/")
	objs := in.Sched.Objects()
	pvc, err := objs.PersistentVolumeClaim(ns, name)
	if err != nil {
		return "claim " + ref + " (not found)"
	}
	s := "claim " + ref
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	if class != "" {
		s += ", storage class " + class
		if sc, err := objs.StorageClass(class); err == nil {
			mode := storagev1.VolumeBindingImmediate
			if sc.VolumeBindingMode != nil {
				mode = *sc.VolumeBindingMode
			}
			s += fmt.Sprintf(" (%s, %s)", sc.Provisioner, mode)
		} else {
			s += " (not found)"
		}
	} else {
		s += ", no storage class"
	}
	if pvc.Spec.VolumeName == "" {
		return s + ", unbound"
	}
	s += ", bound to PV " + pvc.Spec.VolumeName
	pv, err := objs.PersistentVolume(pvc.Spec.VolumeName)
	if err != nil {
		return s + " (not found)"
	}
	var where []string
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		var terms []string
		for _, t := range na.Required.NodeSelectorTerms {
			terms = append(terms, NodeSelectorTermString(t))
		}
		where = append(where, "node affinity "+strings.Join(terms, " or "))
	}
	for _, k := range []string{v1.LabelTopologyZone, v1.LabelTopologyRegion, v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion} {
		if v, ok := pv.Labels[k]; ok {
			where = append(where, k+"="+v)
		}
	}
	if pv.Spec.CSI != nil {
		where = append(where, "CSI driver "+pv.Spec.CSI.Driver)
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, "; ") + ")"
	}
	return s
}

// claimUsers lists the bound pods other than pod using claim ref.
func claimUsers(in Input, ref string) []string {
	var out []string
	for _, p := range in.Sched.Objects().Pods() {
		if p.UID == in.Pod.UID || p.Spec.NodeName == "" {
			continue
		}
		for _, c := range claims(p) {
			if c == ref {
				out = append(out, podRef(p)+" on "+p.Spec.NodeName)
			}
		}
	}
	return out
}

func volumesDetail(in Input, g group) string {
	var parts []string
	for _, c := range claims(in.Pod) {
		s := describeClaim(in, c)
		if g.plugin == "VolumeRestrictions" {
			if users := claimUsers(in, c); len(users) > 0 {
				s += ", in use by " + names(users)
			}
		}
		parts = append(parts, s)
	}
	if g.plugin == "NodeVolumeLimits" {
		var b byValue
		for _, n := range g.nodes {
			if cn, err := in.Sched.Objects().CSINode(n); err == nil {
				for _, d := range cn.Spec.Drivers {
					if d.Allocatable != nil && d.Allocatable.Count != nil {
						b.add(fmt.Sprintf("%s allows %d volumes", d.Name, *d.Allocatable.Count), n)
					}
				}
			}
		}
		if len(b.order) > 0 {
			parts = append(parts, "CSINode limits: "+b.String())
		}
	}
	if len(parts) == 0 {
		if in.Refs.Filter == "" {
			return "the pod has no claim (in-tree volumes)."
		}
		return "the pod has no claim (in-tree volumes; see " + in.Refs.Filter + ")."
	}
	return strings.Join(parts, "; ") + "."
}

// featuresVersion is the scheduler version inference targets (as the
// NodeDeclaredFeatures plugin).
var featuresVersion = version.MustParseSemantic("v1.37.1")

func featuresDetail(in Input, g group) string {
	f := ndf.DefaultFramework
	reqs, err := f.InferForPodScheduling(&ndf.PodInfo{Spec: &in.Pod.Spec}, featuresVersion)
	if err != nil {
		return ""
	}
	var b byValue
	for _, n := range g.nodes {
		ni := in.nodeInfo(n)
		if ni == nil {
			continue
		}
		m, err := f.MatchNode(reqs, ni.Node())
		if err != nil || m.IsMatch {
			continue
		}
		b.add(strings.Join(m.UnsatisfiedRequirements, ", "), n)
	}
	if len(b.order) == 0 {
		return ""
	}
	return "missing node feature " + b.String() + " (status.declaredFeatures)."
}
