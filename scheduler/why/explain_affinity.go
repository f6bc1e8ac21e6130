package why

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// NodeAffinity (the pod's nodeSelector and node affinity against the
// node's labels) and InterPodAffinity (the pod's required pod
// (anti-)affinity, and the running pods' anti-affinity against it).

var nodeAffinityExplainer = explainer{
	purpose: "Filter: the node must match spec.nodeSelector and requiredDuringScheduling node affinity. Score: sums the weights of matching preferred terms.",
	short:   "NodeAff",
	filter: func(in Input, _ record.Status, ni *framework.NodeInfo) []string {
		return explainNodeAffinity(in.Pod, ni.Node())
	},
	score: func(_ Input, c ScoreCell, _ *framework.NodeInfo) []string {
		out := []string{"raw = sum of the weights of preferred node-affinity terms the node matches = " + fmt.Sprint(c.Raw)}
		if c.MaxRaw == 0 {
			return append(out, "no node matched any preferred term (or none exist): every node gets 0.")
		}
		return append(out, fmt.Sprintf("normalize: raw×100/max = %d×100/%d = %d", c.Raw, c.MaxRaw, c.Raw*100/c.MaxRaw))
	},
	detail: nodeAffinityDetail,
	fixes:  nodeAffinityFixes,
}

var interPodAffinityExplainer = explainer{
	purpose: "Filter: required pod (anti-)affinity with pods already running. Score: preferred terms, weighted.",
	short:   "PodAff",
	filter: func(in Input, _ record.Status, ni *framework.NodeInfo) []string {
		return explainInterPod(in.Pod, ni)
	},
	score: func(_ Input, c ScoreCell, _ *framework.NodeInfo) []string {
		out := []string{"raw = Σ weights of preferred (anti-)affinity terms satisfied by pods in the node's domain (anti-affinity subtracts) = " + fmt.Sprint(c.Raw)}
		if c.MaxRaw == c.MinRaw {
			return append(out, "all nodes scored the same raw value: normalized 0.")
		}
		return append(out, fmt.Sprintf("normalize: (raw-min)×100/(max-min) = (%d-%d)×100/(%d-%d) = %d", c.Raw, c.MinRaw, c.MaxRaw, c.MinRaw, (c.Raw-c.MinRaw)*100/(c.MaxRaw-c.MinRaw)))
	},
	detail: interPodDetail,
	fixes:  interPodFixes,
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
		parts = append(parts, fmt.Sprintf("required node affinity %s matches none of %s", strings.Join(terms, " or "), Names(aff.nodes[""])))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// nodeAffinityFixes labels the node as the nodeSelector wants or drops
// the selector's missing labels; else drops the required node affinity.
func nodeAffinityFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	pod, node := in.Pod, ni.Name()
	var out [][]change
	if miss := selectorMisses(pod, ni.Node()); len(miss) > 0 {
		var keys []string
		for _, k := range sortedKeys(pod.Spec.NodeSelector) {
			if ni.Node().Labels[k] != pod.Spec.NodeSelector[k] {
				keys = append(keys, k)
			}
		}
		sel := map[string]string{}
		for _, k := range keys {
			sel[k] = pod.Spec.NodeSelector[k]
		}
		out = append(out,
			[]change{{desc: fmt.Sprintf("label %s %s", node, selectorString(sel)), node: node, onNode: func(n *v1.Node) {
				if n.Labels == nil {
					n.Labels = map[string]string{}
				}
				for k, v := range sel {
					n.Labels[k] = v
				}
			}}},
			[]change{{desc: "drop nodeSelector " + strings.Join(keys, ", ") + " from the pod", pod: func(p *v1.Pod) {
				for _, k := range keys {
					delete(p.Spec.NodeSelector, k)
				}
			}}})
		return out
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		out = append(out, []change{{desc: "drop the pod's required node affinity", pod: func(p *v1.Pod) {
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}}})
	}
	return out
}

// explainNodeAffinity checks each nodeSelector label and the required
// node affinity against the node.
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
			out = append(out, "  term: "+NodeSelectorTermString(t))
		}
	}
	if len(out) == 0 {
		out = append(out, "The pod has no nodeSelector and no required node affinity.")
	}
	return out
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

// interPodFixes removes the pods that block the node, or drops the pod's
// required affinity no pod satisfies (or its anti-affinity when several
// pods block).
func interPodFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	blockers, unmet := interPodBlockers(in, ni.Name())
	var alt []change
	seen := map[string]bool{}
	ownAnti := false
	for _, b := range blockers {
		// "its anti-affinity ... selects this pod" is the other pod's
		// term: dropping the pod's own terms does not clear it.
		ownAnti = ownAnti || strings.HasPrefix(b.why, "matches this pod's anti-affinity")
		if !seen[key(b.pod)] {
			seen[key(b.pod)] = true
			alt = append(alt, removal(b.pod))
		}
	}
	var out [][]change
	if len(unmet) > 0 {
		out = append(out, []change{{desc: "drop the pod's required pod affinity", pod: func(p *v1.Pod) {
			p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}}})
		if len(alt) > 0 {
			out[0] = append(out[0], alt...)
		}
		return out
	}
	if len(alt) > 0 {
		out = append(out, alt)
	}
	if ownAnti && len(blockers) > 1 {
		out = append(out, []change{{desc: "drop the pod's required pod anti-affinity", pod: func(p *v1.Pod) {
			p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}}})
	}
	return out
}

// explainInterPod lists, per required (anti-)affinity term of the pod,
// the pods on the node it selects.
func explainInterPod(pod *v1.Pod, ni *framework.NodeInfo) []string {
	var out []string
	node := ni.Node()
	terms := func(kind string, ts []v1.PodAffinityTerm) {
		for _, t := range ts {
			sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
			if err != nil {
				continue
			}
			dom := node.Labels[t.TopologyKey]
			var match []string
			for _, pi := range ni.Pods {
				if sel.Matches(labels.Set(pi.Pod.Labels)) {
					match = append(match, podRef(pi.Pod))
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
