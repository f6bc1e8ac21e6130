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

// nodeAffinityFixes fixes a near-miss nodeSelector value to the node's
// ("did you mean"), labels the node as the nodeSelector wants or drops
// the selector's missing labels; else makes the required node affinity
// preferred.
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
		if meant := meantSelector(in, ni.Node(), sel); meant != nil {
			var was []string
			for _, k := range sortedKeys(meant) {
				was = append(was, k+"="+sel[k])
			}
			out = append(out, []change{{desc: fmt.Sprintf("did you mean nodeSelector %s? (no node has %s)", selectorString(meant), strings.Join(was, ", ")),
				rank: fixesNearMiss, pod: func(p *v1.Pod) {
					for k, v := range meant {
						p.Spec.NodeSelector[k] = v
					}
				}}})
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
		if key, typo, meant := meantAffinityValue(in, a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, ni.Node()); key != "" {
			out = append(out, []change{{desc: fmt.Sprintf("did you mean %s In [%s] in the pod's required node affinity? (no node has %s=%s)", key, meant, key, typo),
				rank: fixesNearMiss, pod: func(p *v1.Pod) {
					for _, t := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
						for _, e := range t.MatchExpressions {
							if e.Key == key && e.Operator == v1.NodeSelectorOpIn {
								for i, v := range e.Values {
									if v == typo {
										e.Values[i] = meant
									}
								}
							}
						}
					}
				}}})
		}
		out = append(out, []change{{desc: "make the pod's required node affinity preferred (weight 100)", rank: keepsIntent, pod: func(p *v1.Pod) {
			na := p.Spec.Affinity.NodeAffinity
			for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, v1.PreferredSchedulingTerm{Weight: 100, Preference: t})
			}
			na.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}}})
	}
	return out
}

// meantSelector is what a mistyped nodeSelector likely meant: for each
// label of sel the node has with a near-miss value (nearMiss) that no
// node has as sel asks, the node's value; nil unless every label of sel
// is such a near miss.
func meantSelector(in Input, node *v1.Node, sel map[string]string) map[string]string {
	meant := map[string]string{}
	for k, want := range sel {
		have, ok := node.Labels[k]
		if !ok || !nearMiss(want, have) {
			return nil
		}
		if anyNodeHas(in, k, want) {
			return nil
		}
		meant[k] = have
	}
	return meant
}

// meantAffinityValue finds, in a required node-affinity term's In
// expression, a value (typo) no node has for its key that is a near miss
// of node's value (meant) for it; key is "" when there is none.
func meantAffinityValue(in Input, sel *v1.NodeSelector, node *v1.Node) (key, typo, meant string) {
	for _, t := range sel.NodeSelectorTerms {
		for _, e := range t.MatchExpressions {
			have, ok := node.Labels[e.Key]
			if e.Operator != v1.NodeSelectorOpIn || !ok {
				continue
			}
			for _, v := range e.Values {
				if nearMiss(v, have) && !anyNodeHas(in, e.Key, v) {
					return e.Key, v, have
				}
			}
		}
	}
	return "", "", ""
}

// anyNodeHas reports whether some node carries the label k=v.
func anyNodeHas(in Input, k, v string) bool {
	for _, n := range in.Sched.Snapshot().List() {
		if have, ok := n.Node().Labels[k]; ok && have == v {
			return true
		}
	}
	return false
}

// nearMiss reports whether got is a likely typo of want: equal but for
// case, or within an edit distance (transpositions count one) of at most
// 2 and a third of the longer.
func nearMiss(want, got string) bool {
	if want == got {
		return false
	}
	if strings.EqualFold(want, got) {
		return true
	}
	d := EditDistance(want, got)
	return d <= 2 && 3*d <= max(len(want), len(got))
}

// EditDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and adjacent transpositions each
// count one (the hints' "did you mean", and the commands' suggestions).
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
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

// interPodFixes makes the pod's required affinity no pod satisfies, or
// its anti-affinity, preferred (and, for anti-affinity, its running
// replicas' too, whose same terms keep it off their domains; the pods of
// other workloads whose anti-affinity selects the pod removed); or
// removes the pods that block the node.
func interPodFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	blockers, unmet := interPodBlockers(in, ni.Name())
	replicas := antiAffinityReplicas(in)
	var all, theirs []change
	seen := map[string]bool{}
	ownAnti := false
	for _, b := range blockers {
		// "its anti-affinity ... selects this pod" is the other pod's
		// term: relaxing the pod's own terms does not clear it.
		own := strings.HasPrefix(b.why, "matches this pod's anti-affinity")
		ownAnti = ownAnti || own
		if !seen[key(b.pod)] {
			seen[key(b.pod)] = true
			all = append(all, removal(b.pod))
		}
		if !own && replicas[key(b.pod)] == nil && !seen["theirs "+key(b.pod)] {
			seen["theirs "+key(b.pod)] = true
			theirs = append(theirs, removal(b.pod))
		}
	}
	var out [][]change
	if len(unmet) > 0 {
		out = append(out, []change{{desc: "make the pod's required pod affinity preferred (weight 100)", rank: keepsIntent, pod: func(p *v1.Pod) {
			pa := p.Spec.Affinity.PodAffinity
			pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution, weighted(pa.RequiredDuringSchedulingIgnoredDuringExecution)...)
			pa.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}}})
		if len(all) > 0 {
			out[0] = append(out[0], all...)
		}
		return out
	}
	if ownAnti {
		relax := change{desc: "make the pod's required pod anti-affinity preferred (weight 100)", rank: keepsIntent, pod: relaxAntiAffinity}
		if len(replicas) > 0 {
			own := metav1.GetControllerOf(in.Pod)
			relax.desc = fmt.Sprintf("make the required pod anti-affinity of %s %s preferred (weight 100): the pod and its %s",
				strings.ToLower(own.Kind), own.Name, plural(len(replicas), "running replica", "running replicas"))
			for _, k := range sortedKeys(replicas) {
				u := replicas[k].DeepCopy()
				relaxAntiAffinity(u)
				relax.update = append(relax.update, u)
			}
		}
		out = append(out, append([]change{relax}, theirs...))
	}
	if len(all) > 0 {
		out = append(out, all)
	}
	return out
}

// antiAffinityReplicas are the running pods of the pod's controller that
// have required anti-affinity, by key: the same template, so the same
// terms as the pod's.
func antiAffinityReplicas(in Input) map[string]*v1.Pod {
	own := metav1.GetControllerOf(in.Pod)
	if own == nil {
		return nil
	}
	out := map[string]*v1.Pod{}
	for _, ni := range in.Sched.Snapshot().HavePodsWithRequiredAntiAffinityList() {
		for _, pi := range ni.PodsWithRequiredAntiAffinity {
			if ref := metav1.GetControllerOf(pi.Pod); ref != nil && pi.Pod.Namespace == in.Pod.Namespace &&
				ref.Kind == own.Kind && ref.Name == own.Name && ref.UID == own.UID {
				out[key(pi.Pod)] = pi.Pod
			}
		}
	}
	return out
}

// relaxAntiAffinity makes p's required pod anti-affinity terms preferred.
func relaxAntiAffinity(p *v1.Pod) {
	pa := p.Spec.Affinity.PodAntiAffinity
	pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution, weighted(pa.RequiredDuringSchedulingIgnoredDuringExecution)...)
	pa.RequiredDuringSchedulingIgnoredDuringExecution = nil
}

// weighted turns required pod (anti-)affinity terms into preferred ones
// of the highest weight.
func weighted(terms []v1.PodAffinityTerm) []v1.WeightedPodAffinityTerm {
	out := make([]v1.WeightedPodAffinityTerm, len(terms))
	for i, t := range terms {
		out[i] = v1.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: t}
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
