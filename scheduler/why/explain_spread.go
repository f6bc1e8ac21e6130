package why

import (
	"fmt"
	"math"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// PodTopologySpread: each DoNotSchedule constraint's matching pods per
// topology domain, and the skew placing the pod would make.

var spreadExplainer = explainer{
	purpose: "Filter: placing the pod must keep the skew between topology domains within maxSkew (DoNotSchedule). Score: prefers domains with fewer matching pods.",
	short:   "Spread",
	filter:  explainSpread,
	score: func(_ Input, c ScoreCell, _ *framework.NodeInfo) []string {
		out := []string{"raw = Σ over soft (ScheduleAnyway) constraints of matching pods in the node's domain, weighted by log(#domains+2) = " + fmt.Sprint(c.Raw)}
		if c.MaxRaw == 0 {
			return append(out, "max is 0: every node gets 100.")
		}
		return append(out, fmt.Sprintf("normalize: 100×(max+min-raw)/max = 100×(%d+%d-%d)/%d = %d", c.MaxRaw, c.MinRaw, c.Raw, c.MaxRaw, 100*(c.MaxRaw+c.MinRaw-c.Raw)/c.MaxRaw))
	},
	detail: spreadDetail,
	fixes:  spreadFixes,
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

// perDomain is the counts as "domain=count", by domain.
func (d domainCounts) perDomain() []string {
	var out []string
	for _, k := range sortedKeys(d.counts) {
		out = append(out, fmt.Sprintf("%s=%d", k, d.counts[k]))
	}
	return out
}

// metaSelector is a label selector, selecting nothing when it is absent
// or invalid (validation has refused the latter upstream).
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
					desc += ", matching pods " + Names(ps)
				}
				over.add(desc, n)
			}
		}
		if len(over.order) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s maxSkew %d, selector %s, per domain %s (min %d); %s", d.c.TopologyKey, d.c.MaxSkew,
			metaSelector(d.c.LabelSelector), strings.Join(d.perDomain(), ", "), d.min, over.String()))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " | ") + "."
}

// spreadFixes raises the maxSkew of the first constraint the node
// violates to the skew placing the pod there makes, or makes it soft.
func spreadFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	var out [][]change
	for _, d := range spreadCounts(in) {
		dom, ok := ni.Node().Labels[d.c.TopologyKey]
		if _, counted := d.counts[dom]; !ok || !counted {
			return nil
		}
		skew := d.counts[dom] + d.self - d.min
		if skew <= int(d.c.MaxSkew) {
			continue
		}
		tk, need := d.c.TopologyKey, int32(skew)
		match := func(c *v1.TopologySpreadConstraint) bool {
			return c.TopologyKey == tk && c.WhenUnsatisfiable == v1.DoNotSchedule
		}
		out = append(out,
			[]change{{desc: fmt.Sprintf("raise maxSkew of the %s spread constraint to %d", tk, need), pod: func(p *v1.Pod) {
				for i := range p.Spec.TopologySpreadConstraints {
					if c := &p.Spec.TopologySpreadConstraints[i]; match(c) {
						c.MaxSkew = need
					}
				}
			}}})
		// The API server takes one constraint per topology key and
		// whenUnsatisfiable: a pod with a soft one on this key already
		// cannot have this one made soft.
		if !slices.ContainsFunc(in.Pod.Spec.TopologySpreadConstraints, func(c v1.TopologySpreadConstraint) bool {
			return c.TopologyKey == tk && c.WhenUnsatisfiable == v1.ScheduleAnyway
		}) {
			out = append(out, []change{{desc: fmt.Sprintf("make the %s spread constraint whenUnsatisfiable: ScheduleAnyway", tk), pod: func(p *v1.Pod) {
				for i := range p.Spec.TopologySpreadConstraints {
					if c := &p.Spec.TopologySpreadConstraints[i]; match(c) {
						c.WhenUnsatisfiable = v1.ScheduleAnyway
						// The API server takes minDomains only with
						// DoNotSchedule; scoring never reads it.
						c.MinDomains = nil
					}
				}
			}}})
		}
		// One constraint at a time: a node violating two needs both,
		// which the combination over plugins does not cover.
		break
	}
	return out
}

// explainSpread shows each DoNotSchedule constraint's skew were the pod
// placed on ni: matching pods per domain over the nodes the constraint
// counts (spreadCounts).
func explainSpread(in Input, _ record.Status, ni *framework.NodeInfo) []string {
	var out []string
	for _, d := range spreadCounts(in) {
		c := d.c
		policy := "Honor"
		if c.NodeAffinityPolicy != nil && *c.NodeAffinityPolicy != v1.NodeInclusionPolicyHonor {
			policy = "Ignore"
		}
		out = append(out, fmt.Sprintf("constraint %s, maxSkew %d, selector %s, nodeAffinityPolicy %s:", c.TopologyKey, c.MaxSkew, metaSelector(c.LabelSelector), policy),
			"  matching pods per domain: "+orNone(strings.Join(d.perDomain(), ", ")))
		dom := ni.Node().Labels[c.TopologyKey]
		if _, ok := d.counts[dom]; !ok {
			out = append(out, "  this node has no "+c.TopologyKey+" label (or is not counted): rejected")
			continue
		}
		skew := d.counts[dom] + d.self - d.min
		verdict := "within maxSkew"
		if skew > int(c.MaxSkew) {
			verdict = "exceeds maxSkew → rejected"
		}
		out = append(out, fmt.Sprintf("  placing here: %s has %d + %d - min %d = skew %d: %s", dom, d.counts[dom], d.self, d.min, skew, verdict))
	}
	if len(out) == 0 {
		out = append(out, "The pod has no DoNotSchedule spread constraint (defaults apply only to scoring).")
	}
	return out
}
