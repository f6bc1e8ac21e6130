package why

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// NodeResourcesFit and NodeResourcesBalancedAllocation: the node's
// allocatable against the requests of its pods, the pods nominated to it
// and the pod.

var fitExplainer = explainer{
	purpose: "Filter: the pod's requests must fit in allocatable minus what pods on the node (and higher-priority nominated pods) request. Score: LeastAllocated by default: emptier nodes score higher.",
	short:   "Fit",
	filter:  explainFit,
	score:   explainLeastAllocated,
	detail:  resourcesDetail,
	fixes:   fitFixes,
}

var balancedExplainer = explainer{
	purpose: "favours nodes whose cpu and memory utilisation stay close to each other once the pod is placed.",
	short:   "Balanced",
	score:   explainBalanced,
}

// podResource is the pod's requests as the scheduler sums them, with the
// resource gates in effect (v1.37's defaults without a scheduler).
func podResource(in Input, pod *v1.Pod) framework.PodResource {
	g := framework.DefaultResourceGates
	if in.Sched != nil {
		g = framework.ResourceGatesOf(in.Sched.Features())
	}
	return framework.NewPodInfo(pod).CalculateResourceWith(g)
}

// requests is the pod's effective requests (podResource).
func requests(in Input, pod *v1.Pod) framework.Resource {
	return podResource(in, pod).Resource
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

// fitFixes lowers each request the node cannot hold to what it has free
// (nominated pods counted); a node out of pod slots has no fix.
func fitFixes(in Input, st record.Status, ni *framework.NodeInfo) [][]change {
	pod, node := in.Pod, ni.Name()
	var alt []change
	req := requests(in, pod)
	for _, r := range st.Reasons {
		res, ok := reasonResource(r)
		if !ok || res == v1.ResourcePods {
			return nil
		}
		f, _ := free(in, node, res, true)
		if f <= 0 || f >= req.Amount(res) {
			return nil
		}
		alt = append(alt, change{desc: fmt.Sprintf("lower the pod's %s request to %s (from %s)", res, qty(res, f), qty(res, req.Amount(res))),
			pod: func(p *v1.Pod) { setRequest(p, res, f) }})
	}
	if len(alt) == 0 {
		return nil
	}
	return [][]change{alt}
}

// explainFit is NodeResourcesFit's arithmetic for each resource the pod
// requests: allocatable - requested = free, against the request.
func explainFit(in Input, st record.Status, ni *framework.NodeInfo) []string {
	req := requests(in, in.Pod)
	// The nominated pods Filter counts: equal or higher priority.
	var nomReq framework.Resource
	for _, p := range nominatedAgainst(in.Sched, in.Pod, ni.Name()) {
		r := requests(in, p)
		nomReq.MilliCPU += r.MilliCPU
		nomReq.Memory += r.Memory
		nomReq.EphemeralStorage += r.EphemeralStorage
		for k, v := range r.ScalarResources {
			nomReq.AddScalar(k, v)
		}
	}
	var out []string
	n := len(ni.Pods)
	pods := plural(n, "pod", "pods")
	podsLine := fmt.Sprintf("pods: %d of %d allocatable used", n, ni.Allocatable.AllowedPodNumber)
	if n+1 > ni.Allocatable.AllowedPodNumber {
		podsLine += " → Too many pods"
	}
	out = append(out, podsLine)
	resources := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage}
	for r := range req.ScalarResources {
		resources = append(resources, r)
	}
	sort.Slice(resources[3:], func(i, j int) bool { return resources[3+i] < resources[3+j] })
	failed := map[string]bool{}
	for _, r := range st.Reasons {
		failed[strings.TrimPrefix(r, "Insufficient ")] = true
	}
	for _, r := range resources {
		name := string(r)
		want := req.Amount(r)
		if want == 0 && !failed[name] {
			continue
		}
		alloc := ni.Allocatable.Amount(r)
		used := ni.Requested.Amount(r)
		nom := nomReq.Amount(r)
		free := alloc - used - nom
		verdict := "fits"
		if want > free {
			verdict = fmt.Sprintf("Insufficient %s (%s > %s)", name, Amount(name, want), Amount(name, max(free, 0)))
		}
		nomText := ""
		if nom > 0 {
			nomText = fmt.Sprintf(" and %s by nominated pods", Amount(name, nom))
		}
		out = append(out, fmt.Sprintf("%s: requests %s, node has %s allocatable, %s requested by %s%s → %s free: %s",
			name, Amount(name, want), Amount(name, alloc), Amount(name, used), pods, nomText, Amount(name, free), verdict))
	}
	if nominated := in.Sched.Nominator().NominatedPodsForNode(ni.Name()); len(nominated) > 0 {
		var ns []string
		for _, pi := range nominated {
			ns = append(ns, fmt.Sprintf("%s (priority %d)", podRef(pi.Pod), corev1helpers.PodPriority(pi.Pod)))
		}
		out = append(out, "", "Nominated to this node: "+strings.Join(ns, ", ")+
			". Filter counts nominated pods of equal or higher priority as if they were running (first pass), so their requests also take room here; lower-priority ones do not.")
	}
	return out
}

// allocation is one resource in a score's arithmetic: the pod's request,
// what the node's pods request, the node's allocatable.
type allocation struct {
	name             string
	req, used, alloc int64
}

// explainLeastAllocated is the default scoring strategy's arithmetic. It
// uses the non-zero requests (100m cpu / 200Mi memory for a pod that asks
// for none, so that empty pods still spread).
func explainLeastAllocated(in Input, c ScoreCell, ni *framework.NodeInfo) []string {
	r := podResource(in, in.Pod)
	rs := []allocation{
		{"cpu", r.Non0CPU, ni.NonZeroRequested.MilliCPU, ni.Allocatable.MilliCPU},
		{"memory", r.Non0Mem, ni.NonZeroRequested.Memory, ni.Allocatable.Memory},
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
		out = append(out, fmt.Sprintf("  %s: (%s - (%s + %s)) × 100 / %s = %d", r.name, Amount(r.name, r.alloc), Amount(r.name, r.used), Amount(r.name, r.req), Amount(r.name, r.alloc), s))
		sum += s
		n++
	}
	if n > 0 {
		got := sum / n
		out = append(out, fmt.Sprintf("  mean = %d", got))
		if got != c.Raw {
			out = append(out, fmt.Sprintf("The profile configures another scoring strategy or resources: the scheduler recorded %d.", c.Raw))
		}
	}
	out = append(out, "(requested sums use 100m cpu / 200Mi memory for pods that request none)")
	return out
}

// explainBalanced is BalancedAllocation's arithmetic over cpu and memory.
func explainBalanced(in Input, c ScoreCell, ni *framework.NodeInfo) []string {
	req := requests(in, in.Pod)
	rs := []allocation{
		{"cpu", req.MilliCPU, ni.Requested.MilliCPU, ni.Allocatable.MilliCPU},
		{"memory", req.Memory, ni.Requested.Memory, ni.Allocatable.Memory},
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
		out = append(out, fmt.Sprintf("  %s: %s/%s = %.3f → %s/%s = %.3f", r.name, Amount(r.name, r.used), Amount(r.name, r.alloc), f0, Amount(r.name, r.used+r.req), Amount(r.name, r.alloc), f1))
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
	if got != c.Raw {
		out = append(out, fmt.Sprintf("The profile configures other resources: the scheduler recorded %d.", c.Raw))
	}
	return out
}
