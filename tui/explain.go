package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// The teaching pane: for a cell the user may wonder about, which rule of
// which plugin produced it, with the numbers that went into it. Numbers are
// recomputed from the cluster as the attempt saw it (the fork) and the pod;
// where a profile's configuration differs from the defaults the text says
// which numbers the scheduler actually recorded.

var noLog = klog.Logger{}

// pluginPurpose is one sentence per default plugin.
var pluginPurpose = map[string]string{
	"NodeUnschedulable":               "rejects nodes marked unschedulable (kubectl cordon) unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule.",
	"NodeName":                        "rejects every node but the one spec.nodeName names.",
	"TaintToleration":                 "Filter: rejects nodes with a NoSchedule/NoExecute taint the pod does not tolerate. Score: counts untolerated PreferNoSchedule taints (fewer is better).",
	"NodeAffinity":                    "Filter: the node must match spec.nodeSelector and requiredDuringScheduling node affinity. Score: sums the weights of matching preferred terms.",
	"NodePorts":                       "rejects nodes where a hostPort the pod wants is already taken.",
	"NodeResourcesFit":                "Filter: the pod's requests must fit in allocatable minus what pods on the node (and higher-priority nominated pods) request. Score: LeastAllocated by default: emptier nodes score higher.",
	"NodeResourcesBalancedAllocation": "favours nodes whose cpu and memory utilisation stay close to each other once the pod is placed.",
	"VolumeRestrictions":              "rejects nodes where the pod's volumes conflict with volumes already in use (ReadWriteOncePod, some disk types).",
	"NodeVolumeLimits":                "rejects nodes that would exceed a CSI driver's attachable volume limit.",
	"VolumeBinding":                   "checks the pod's PVCs can bind to PVs reachable from the node (or be provisioned there).",
	"VolumeZone":                      "rejects nodes outside the zones of the pod's bound PVs.",
	"PodTopologySpread":               "Filter: placing the pod must keep the skew between topology domains within maxSkew (DoNotSchedule). Score: prefers domains with fewer matching pods.",
	"InterPodAffinity":                "Filter: required pod (anti-)affinity with pods already running. Score: preferred terms, weighted.",
	"ImageLocality":                   "prefers nodes that already have the pod's images, weighted by image size and how widely the image is spread.",
	"DynamicResources":                "allocates devices for the pod's claims and DRA-backed extended resources with upstream's structured allocator: each request needs enough free devices of its DeviceClass that match the class's and the request's CEL selectors. Every rejection is UnschedulableAndUnresolvable: preemption never evicts for devices.",
	"NodeDeclaredFeatures":            "rejects nodes that do not declare the features the pod needs.",
	"SchedulingGates":                 "keeps the pod out of the active queue while spec.schedulingGates is not empty.",
	"DefaultPreemption":               "when no node fits, looks for a node where evicting lower-priority pods would make room.",
}

// phasePurpose is one sentence per phase.
var phasePurpose = [record.NumPhases]string{
	"PreEnqueue plugins decide whether the pod may enter the active queue at all (scheduling gates).",
	"The pod left the active queue: highest priority first, then oldest.",
	"PreFilter plugins compute per-pod state once (requests, affinity terms) and may reject the pod for every node or narrow the node set.",
	"Filter plugins run node by node; the first plugin that rejects a node ends that node's evaluation.",
	"No node fit: PostFilter plugins (DefaultPreemption) look for a node where evicting lower-priority pods helps, and nominate it.",
	"PreScore plugins prepare state for scoring the feasible nodes.",
	"Score plugins give each feasible node a raw score per plugin.",
	"NormalizeScore maps raw scores onto 0-100; each is multiplied by the plugin's weight and summed.",
	"Reserve plugins claim resources on the chosen node (volumes) before binding.",
	"Permit plugins may approve, deny or delay the binding.",
	"PreBind plugins do work before binding (volume provisioning).",
	"Bind writes the pod's node: the pod is scheduled.",
}

// podRequests returns the pod's effective requests as the scheduler sums them.
func podRequests(pod *v1.Pod) framework.PodResource {
	return framework.NewPodInfo(pod).CalculateResource()
}

// explainFilter explains a Filter verdict of plugin on a node.
func explainFilter(plugin string, st record.Status, pod *v1.Pod, ni *framework.NodeInfo, all []*framework.NodeInfo, nominated []nominee) []string {
	var out []string
	if p := pluginPurpose[plugin]; p != "" {
		out = append(out, plugin+" "+p, "")
	}
	if st.Code == record.CodeSuccess {
		out = append(out, "Verdict: passed.")
	} else {
		out = append(out, fmt.Sprintf("Verdict: %s — %s", st.Code, strings.Join(st.Reasons, "; ")))
		if st.Code == record.CodeUnschedulableAndUnresolvable {
			out = append(out, "UnschedulableAndUnresolvable: preemption cannot help on this node.")
		}
	}
	if pod == nil || ni == nil {
		return append(out, "", "(computing the cluster as this attempt saw it…)")
	}
	out = append(out, "")
	switch plugin {
	case "NodeResourcesFit":
		out = append(out, explainFit(st, pod, ni, nominated)...)
	case "TaintToleration":
		out = append(out, explainTaints(pod, ni.Node())...)
	case "NodeAffinity":
		out = append(out, explainNodeAffinity(pod, ni.Node())...)
	case "NodeUnschedulable":
		out = append(out, fmt.Sprintf("node.spec.unschedulable = %v", ni.Node().Spec.Unschedulable))
	case "NodePorts":
		var want []string
		for _, p := range framework.HostPorts(pod) {
			want = append(want, fmt.Sprintf("%s/%d", p.Protocol, p.HostPort))
		}
		out = append(out, "pod host ports: "+orNone(strings.Join(want, ", ")), fmt.Sprintf("ports in use on the node: %d", ni.UsedPorts.Len()))
	case "InterPodAffinity":
		out = append(out, explainInterPod(pod, ni)...)
	case "PodTopologySpread":
		out = append(out, explainSpread(pod, ni, all)...)
	}
	return out
}

func metaSelector(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// explainSpread recomputes each DoNotSchedule constraint's skew: matching
// pods per domain over the nodes the constraint counts (nodeAffinityPolicy
// Honor, the default, counts only nodes matching the pod's node
// selector/affinity).
func explainSpread(pod *v1.Pod, ni *framework.NodeInfo, all []*framework.NodeInfo) []string {
	var out []string
	req := nodeaffinity.GetRequiredNodeAffinity(pod)
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != v1.DoNotSchedule {
			continue
		}
		sel, err := metaSelector(c.LabelSelector)
		if err != nil {
			continue
		}
		honor := c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor
		counts := map[string]int{}
		for _, n := range all {
			node := n.Node()
			dom, ok := node.Labels[c.TopologyKey]
			if !ok {
				continue
			}
			if honor {
				if m, _ := req.Match(node); !m {
					continue
				}
			}
			if _, seen := counts[dom]; !seen {
				counts[dom] = 0
			}
			for _, pi := range n.Pods {
				if pi.Pod.Namespace == pod.Namespace && pi.Pod.DeletionTimestamp == nil && sel.Matches(labels.Set(pi.Pod.Labels)) {
					counts[dom]++
				}
			}
		}
		minC := math.MaxInt
		var doms []string
		for _, d := range sortedKeys(counts) {
			minC = min(minC, counts[d])
			doms = append(doms, fmt.Sprintf("%s=%d", d, counts[d]))
		}
		self := 0
		if sel.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		dom := ni.Node().Labels[c.TopologyKey]
		policy := "Honor"
		if !honor {
			policy = "Ignore"
		}
		out = append(out, fmt.Sprintf("constraint %s, maxSkew %d, selector %s, nodeAffinityPolicy %s:", c.TopologyKey, c.MaxSkew, sel, policy),
			"  matching pods per domain: "+orNone(strings.Join(doms, ", ")))
		if minC == math.MaxInt {
			minC = 0
		}
		if _, ok := counts[dom]; !ok {
			out = append(out, "  this node has no "+c.TopologyKey+" label (or is not counted): rejected")
			continue
		}
		skew := counts[dom] + self - minC
		verdict := "within maxSkew"
		if skew > int(c.MaxSkew) {
			verdict = "exceeds maxSkew → rejected"
		}
		out = append(out, fmt.Sprintf("  placing here: %s has %d + %d - min %d = skew %d: %s", dom, counts[dom], self, minC, skew, verdict))
	}
	if len(out) == 0 {
		out = append(out, "The pod has no DoNotSchedule spread constraint (defaults apply only to scoring).")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// explainFit is NodeResourcesFit's arithmetic for each resource the pod
// requests: allocatable - requested = free, against the request.
func explainFit(st record.Status, pod *v1.Pod, ni *framework.NodeInfo, nominated []nominee) []string {
	req := podRequests(pod).Resource
	nomReq := nominatedRequests(pod, nominated)
	var out []string
	n := len(ni.Pods)
	pods := plural(n, "pod", "pods")
	podsLine := fmt.Sprintf("pods: %d of %d allocatable used", n, ni.Allocatable.AllowedPodNumber)
	if n+1 > ni.Allocatable.AllowedPodNumber {
		podsLine += " → Too many pods"
	}
	out = append(out, podsLine)
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage}
	for r := range req.ScalarResources {
		names = append(names, r)
	}
	sort.Slice(names[3:], func(i, j int) bool { return names[3+i] < names[3+j] })
	failed := map[string]bool{}
	for _, r := range st.Reasons {
		failed[strings.TrimPrefix(r, "Insufficient ")] = true
	}
	for _, name := range names {
		want := req.Amount(name)
		if want == 0 && !failed[string(name)] {
			continue
		}
		alloc := ni.Allocatable.Amount(name)
		used := ni.Requested.Amount(name)
		nom := nomReq.Amount(name)
		free := alloc - used - nom
		verdict := "fits"
		if want > free {
			verdict = fmt.Sprintf("Insufficient %s (%s > %s)", name, qty(string(name), want), qty(string(name), max(free, 0)))
		}
		nomText := ""
		if nom > 0 {
			nomText = fmt.Sprintf(" and %s by nominated pods", qty(string(name), nom))
		}
		out = append(out, fmt.Sprintf("%s: requests %s, node has %s allocatable, %s requested by %s%s → %s free: %s",
			name, qty(string(name), want), qty(string(name), alloc), qty(string(name), used), pods, nomText, qty(string(name), free), verdict))
	}
	if len(nominated) > 0 {
		var ns []string
		for _, nm := range nominated {
			ns = append(ns, fmt.Sprintf("%s (priority %d)", nm.pod, nm.priority))
		}
		out = append(out, "", "Nominated to this node: "+strings.Join(ns, ", ")+
			". Filter counts nominated pods of equal or higher priority as if they were running (first pass), so their requests also take room here; lower-priority ones do not.")
	}
	return out
}

// nominatedRequests sums the requests of the nominated pods Filter counts
// for pod: those of equal or higher priority, other than pod itself.
func nominatedRequests(pod *v1.Pod, nominated []nominee) framework.Resource {
	var sum framework.Resource
	prio := corev1helpers.PodPriority(pod)
	for _, nm := range nominated {
		if nm.obj == nil || nm.obj.UID == pod.UID || nm.priority < prio {
			continue
		}
		r := podRequests(nm.obj).Resource
		sum.MilliCPU += r.MilliCPU
		sum.Memory += r.Memory
		sum.EphemeralStorage += r.EphemeralStorage
		for k, v := range r.ScalarResources {
			sum.AddScalar(k, v)
		}
	}
	return sum
}

// nomineesOf lists the pods nominated to a node in a fork.
func nomineesOf(f *forkResult, node string) []nominee {
	if f == nil {
		return nil
	}
	var out []nominee
	for _, pi := range f.sched.Nominator().NominatedPodsForNode(node) {
		out = append(out, nominee{pod: pi.Pod.Namespace + "/" + pi.Pod.Name, priority: corev1helpers.PodPriority(pi.Pod), obj: pi.Pod})
	}
	return out
}

func explainTaints(pod *v1.Pod, node *v1.Node) []string {
	if len(node.Spec.Taints) == 0 {
		return []string{"The node has no taints."}
	}
	out := []string{"Node taints:"}
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		tol := corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, t, false)
		verdict := "tolerated"
		switch {
		case !tol && t.Effect == v1.TaintEffectPreferNoSchedule:
			verdict = "not tolerated (PreferNoSchedule: lowers the score only)"
		case !tol:
			verdict = "NOT tolerated → rejects the node; add a toleration {key: " + t.Key + ", operator: Exists, effect: " + string(t.Effect) + "}"
		}
		out = append(out, "  "+t.ToString()+": "+verdict)
	}
	if len(pod.Spec.Tolerations) == 0 {
		out = append(out, "The pod has no tolerations.")
	}
	return out
}

func explainNodeAffinity(pod *v1.Pod, node *v1.Node) []string {
	var out []string
	if len(pod.Spec.NodeSelector) > 0 {
		out = append(out, "spec.nodeSelector (every label must match):")
		for _, k := range sortedKeys(pod.Spec.NodeSelector) {
			have, ok := node.Labels[k]
			verdict := "✓"
			switch {
			case !ok:
				verdict = "✗ node has no label " + k
			case have != pod.Spec.NodeSelector[k]:
				verdict = "✗ node has " + k + "=" + have
			}
			out = append(out, fmt.Sprintf("  %s=%s  %s", k, pod.Spec.NodeSelector[k], verdict))
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ok, _ := nodeaffinity.NewLazyErrorNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution).Match(node)
		out = append(out, fmt.Sprintf("required node affinity (any term must match): %s", map[bool]string{true: "✓ matches", false: "✗ no term matches"}[ok]))
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			out = append(out, "  term: "+why.NodeSelectorTermString(t))
		}
	}
	if len(out) == 0 {
		out = append(out, "The pod has no nodeSelector and no required node affinity.")
	}
	return out
}

func explainInterPod(pod *v1.Pod, ni *framework.NodeInfo) []string {
	var out []string
	node := ni.Node()
	terms := func(kind string, ts []v1.PodAffinityTerm) {
		for _, t := range ts {
			sel, err := metaSelector(t.LabelSelector)
			if err != nil {
				continue
			}
			dom := node.Labels[t.TopologyKey]
			var match []string
			for _, pi := range ni.Pods {
				if sel.Matches(labels.Set(pi.Pod.Labels)) {
					match = append(match, pi.Pod.Namespace+"/"+pi.Pod.Name)
				}
			}
			out = append(out, fmt.Sprintf("%s: pods matching %s in the same %s (%s)", kind, sel, t.TopologyKey, orNone(dom)))
			out = append(out, "  on this node: "+orNone(strings.Join(match, ", ")))
		}
	}
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			terms("required affinity (must be near)", a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
		if a.PodAntiAffinity != nil {
			terms("required anti-affinity (must not be near)", a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
	}
	if len(out) == 0 {
		out = append(out, "The pod has no required pod (anti-)affinity; a rejection comes from an existing pod's anti-affinity against this pod.")
	}
	return out
}

// scoreInputs is one score cell with its column's context.
type scoreInputs struct {
	plugin           string
	weight           int32
	raw, norm        int64
	minRaw, maxRaw   int64
	normalizes       bool
	pod              *v1.Pod
	ni               *framework.NodeInfo
	numNodes         int
	profileRecorded  string
	imageNodesByName map[string]int
}

// explainScore shows a score cell's formula with its inputs.
func explainScore(in scoreInputs) []string {
	out := []string{}
	if p := pluginPurpose[in.plugin]; p != "" {
		out = append(out, in.plugin+" "+p, "")
	}
	out = append(out, fmt.Sprintf("raw %d → normalized %d × weight %d = %d", in.raw, in.norm, in.weight, in.norm*int64(in.weight)))
	if in.pod == nil || in.ni == nil {
		return append(out, "", "(computing the cluster as this attempt saw it…)")
	}
	out = append(out, "")
	switch in.plugin {
	case "NodeResourcesFit":
		out = append(out, explainLeastAllocated(in)...)
	case "NodeResourcesBalancedAllocation":
		out = append(out, explainBalanced(in)...)
	case "TaintToleration":
		out = append(out, fmt.Sprintf("raw = number of PreferNoSchedule taints the pod does not tolerate = %d", in.raw),
			"normalize (reverse): 100 - raw×100/max, max over feasible nodes = "+fmt.Sprint(in.maxRaw))
		if in.maxRaw == 0 {
			out = append(out, "max is 0: every node gets 100.")
		} else {
			out = append(out, fmt.Sprintf("= 100 - %d×100/%d = %d", in.raw, in.maxRaw, 100-in.raw*100/in.maxRaw))
		}
	case "NodeAffinity":
		out = append(out, "raw = sum of the weights of preferred node-affinity terms the node matches = "+fmt.Sprint(in.raw))
		if in.maxRaw == 0 {
			out = append(out, "no node matched any preferred term (or none exist): every node gets 0.")
		} else {
			out = append(out, fmt.Sprintf("normalize: raw×100/max = %d×100/%d = %d", in.raw, in.maxRaw, in.raw*100/in.maxRaw))
		}
	case "ImageLocality":
		out = append(out, explainImages(in)...)
	case "InterPodAffinity":
		out = append(out, "raw = Σ weights of preferred (anti-)affinity terms satisfied by pods in the node's domain (anti-affinity subtracts) = "+fmt.Sprint(in.raw))
		if in.maxRaw == in.minRaw {
			out = append(out, "all nodes scored the same raw value: normalized 0.")
		} else {
			out = append(out, fmt.Sprintf("normalize: (raw-min)×100/(max-min) = (%d-%d)×100/(%d-%d) = %d", in.raw, in.minRaw, in.maxRaw, in.minRaw, (in.raw-in.minRaw)*100/(in.maxRaw-in.minRaw)))
		}
	case "PodTopologySpread":
		out = append(out, "raw = Σ over soft (ScheduleAnyway) constraints of matching pods in the node's domain, weighted by log(#domains+2) = "+fmt.Sprint(in.raw))
		if in.maxRaw == 0 {
			out = append(out, "max is 0: every node gets 100.")
		} else {
			out = append(out, fmt.Sprintf("normalize: 100×(max+min-raw)/max = 100×(%d+%d-%d)/%d = %d", in.maxRaw, in.minRaw, in.raw, in.maxRaw, 100*(in.maxRaw+in.minRaw-in.raw)/in.maxRaw))
		}
	}
	if in.normalizes {
		out = append(out, fmt.Sprintf("column range: raw min %d, max %d", in.minRaw, in.maxRaw))
	}
	return out
}

// nonZero is the request LeastAllocated uses: 100m cpu / 200Mi memory when
// the pod asks for none, so that empty pods still spread.
func nonZero(pod *v1.Pod) (cpu, mem int64) {
	r := podRequests(pod)
	return r.Non0CPU, r.Non0Mem
}

func explainLeastAllocated(in scoreInputs) []string {
	cpu, mem := nonZero(in.pod)
	type res struct {
		name             string
		req, used, alloc int64
	}
	rs := []res{
		{"cpu", cpu, in.ni.NonZeroRequested.MilliCPU, in.ni.Allocatable.MilliCPU},
		{"memory", mem, in.ni.NonZeroRequested.Memory, in.ni.Allocatable.Memory},
	}
	out := []string{"LeastAllocated (default strategy, cpu and memory weight 1): per resource (alloc - (requested + pod)) × 100 / alloc, then the weighted mean:"}
	var sum, n int64
	for _, r := range rs {
		if r.alloc == 0 {
			continue
		}
		total := r.used + r.req
		s := int64(0)
		if total <= r.alloc {
			s = (r.alloc - total) * 100 / r.alloc
		}
		out = append(out, fmt.Sprintf("  %s: (%s - (%s + %s)) × 100 / %s = %d", r.name, qty(r.name, r.alloc), qty(r.name, r.used), qty(r.name, r.req), qty(r.name, r.alloc), s))
		sum += s
		n++
	}
	if n > 0 {
		got := sum / n
		out = append(out, fmt.Sprintf("  mean = %d", got))
		if got != in.raw {
			out = append(out, fmt.Sprintf("The profile configures another scoring strategy or resources: the scheduler recorded %d.", in.raw))
		}
	}
	out = append(out, "(requested sums use 100m cpu / 200Mi memory for pods that request none)")
	return out
}

func explainBalanced(in scoreInputs) []string {
	req := podRequests(in.pod).Resource
	type res struct {
		name             string
		req, used, alloc int64
	}
	rs := []res{
		{"cpu", req.MilliCPU, in.ni.Requested.MilliCPU, in.ni.Allocatable.MilliCPU},
		{"memory", req.Memory, in.ni.Requested.Memory, in.ni.Allocatable.Memory},
	}
	frac := func(v, a int64) float64 { return math.Min(1, float64(v)/float64(a)) }
	out := []string{"utilisation fractions without → with the pod:"}
	var with, without []float64
	for _, r := range rs {
		if r.alloc == 0 {
			continue
		}
		f0, f1 := frac(r.used, r.alloc), frac(r.used+r.req, r.alloc)
		without, with = append(without, f0), append(with, f1)
		out = append(out, fmt.Sprintf("  %s: %s/%s = %.3f → %s/%s = %.3f", r.name, qty(r.name, r.used), qty(r.name, r.alloc), f0, qty(r.name, r.used+r.req), qty(r.name, r.alloc), f1))
	}
	bal := func(fs []float64) int64 {
		if len(fs) != 2 {
			return 100
		}
		return int64((1 - math.Abs((fs[0]-fs[1])/2)) * 100)
	}
	b0, b1 := bal(without), bal(with)
	got := 50 + (50+b1-b0)/2
	out = append(out,
		fmt.Sprintf("balance = (1 - std) × 100: without %d, with %d", b0, b1),
		fmt.Sprintf("score = 50 + (50 + with - without)/2 = 50 + (50 + %d - %d)/2 = %d", b1, b0, got),
		"(an unchanged balance scores 75; a pod that evens the node out scores more)")
	if got != in.raw {
		out = append(out, fmt.Sprintf("The profile configures other resources: the scheduler recorded %d.", in.raw))
	}
	return out
}

func explainImages(in scoreInputs) []string {
	const mb = 1024 * 1024
	var out []string
	var sum int64
	count := len(in.pod.Spec.InitContainers) + len(in.pod.Spec.Containers)
	for _, c := range append(append([]v1.Container(nil), in.pod.Spec.InitContainers...), in.pod.Spec.Containers...) {
		name := c.Image
		if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
			name += ":latest"
		}
		st, ok := in.ni.ImageStates[name]
		if !ok {
			out = append(out, fmt.Sprintf("  %s: not on this node → 0", c.Image))
			continue
		}
		s := int64(float64(st.Size) * float64(st.NumNodes) / float64(max(1, in.numNodes)))
		sum += s
		out = append(out, fmt.Sprintf("  %s: %dMiB on %d of %d nodes → %dMiB × %d/%d = %dMiB", c.Image, st.Size/mb, st.NumNodes, in.numNodes, st.Size/mb, st.NumNodes, in.numNodes, s/mb))
	}
	lo, hi := int64(23*mb), int64(1000*mb)*int64(max(1, count))
	clamped := min(max(sum, lo), hi)
	out = append(out, fmt.Sprintf("sum %dMiB clamped to [23MiB, %dMiB]; score = (sum - 23MiB) × 100 / (%dMiB - 23MiB) = %d", sum/mb, hi/mb, hi/mb, (clamped-lo)*100/(hi-lo)))
	return out
}
