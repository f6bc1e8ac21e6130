package podtopologyspread

import (
	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// topologySpreadConstraint is a v1.TopologySpreadConstraint with its
// selector parsed (and matchLabelKeys merged in) and its defaults applied.
type topologySpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           labels.Selector
	MinDomains         int32
	NodeAffinityPolicy v1.NodeInclusionPolicy
	NodeTaintsPolicy   v1.NodeInclusionPolicy
}

// doNotScheduleTaint keeps the taints that forbid scheduling; a node whose
// only untolerated taints are PreferNoSchedule still counts as a domain.
func doNotScheduleTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// matchNodeInclusionPolicies reports whether node is a domain of c for
// pod: with Honor policies, nodes the pod could not land on (affinity,
// untolerated taints) don't count. comparisonOperators is the
// TaintTolerationComparisonOperators gate: off, Lt/Gt tolerations match
// nothing.
func (c *topologySpreadConstraint) matchNodeInclusionPolicies(pod *v1.Pod, node *v1.Node, require nodeaffinity.RequiredNodeAffinity, comparisonOperators bool) bool {
	if c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
		// Parse errors count as a match, as upstream keeps them for
		// backwards compatibility.
		if match, _ := require.Match(node); !match {
			return false
		}
	}
	if c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
		if _, untolerated := v1helper.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, pod.Spec.Tolerations, doNotScheduleTaint, comparisonOperators); untolerated {
			return false
		}
	}
	return true
}

// countsNode reports whether node is a domain of constraint c for pod.
// With NodeInclusionPolicyInPodTopologySpread off, the constraint's own
// policies are not read: every constraint counts only the nodes matching
// the pod's required node affinity and ignores taints.
func (pl *PodTopologySpread) countsNode(c *topologySpreadConstraint, pod *v1.Pod, node *v1.Node, require nodeaffinity.RequiredNodeAffinity) bool {
	if !pl.gates.EnableNodeInclusionPolicyInPodTopologySpread {
		// Parse errors count as a match, as upstream keeps them for
		// backwards compatibility.
		match, _ := require.Match(node)
		return match
	}
	return c.matchNodeInclusionPolicies(pod, node, require, pl.gates.EnableTaintTolerationComparisonOperators)
}

// filterTopologySpreadConstraints keeps the constraints with the given
// whenUnsatisfiable action and parses them. matchLabelKeys are merged only
// with MatchLabelKeysInPodTopologySpread on, and nodeAffinityPolicy /
// nodeTaintsPolicy read only with NodeInclusionPolicyInPodTopologySpread
// on (off, they stay Honor / Ignore).
//
// matchLabelKeys: with MatchLabelKeysInPodTopologySpreadSelectorMerge the
// API server has already ANDed "key in (value)" into labelSelector at pod
// creation, yet the 1.37 scheduler still merges "key=value" itself. The
// duplicate requirement selects the same pods, and for pods the server did
// not rewrite (created before the gate, or with keys absent) this merge is
// what applies, so we mirror the scheduler side. A nil labelSelector parses
// to Nothing, which has no requirements to merge into and stays Nothing.
func (pl *PodTopologySpread) filterTopologySpreadConstraints(constraints []v1.TopologySpreadConstraint, podLabels map[string]string, action v1.UnsatisfiableConstraintAction) ([]topologySpreadConstraint, error) {
	var result []topologySpreadConstraint
	for _, c := range constraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		if pl.gates.EnableMatchLabelKeysInPodTopologySpread && len(c.MatchLabelKeys) > 0 {
			matchLabels := make(labels.Set)
			for _, key := range c.MatchLabelKeys {
				if value, ok := podLabels[key]; ok {
					matchLabels[key] = value
				}
			}
			if len(matchLabels) > 0 {
				selector = mergeLabelSetWithSelector(matchLabels, selector)
			}
		}
		tsc := topologySpreadConstraint{
			MaxSkew:            c.MaxSkew,
			TopologyKey:        c.TopologyKey,
			Selector:           selector,
			MinDomains:         1,
			NodeAffinityPolicy: v1.NodeInclusionPolicyHonor,
			NodeTaintsPolicy:   v1.NodeInclusionPolicyIgnore,
		}
		if c.MinDomains != nil {
			tsc.MinDomains = *c.MinDomains
		}
		if pl.gates.EnableNodeInclusionPolicyInPodTopologySpread {
			if c.NodeAffinityPolicy != nil {
				tsc.NodeAffinityPolicy = *c.NodeAffinityPolicy
			}
			if c.NodeTaintsPolicy != nil {
				tsc.NodeTaintsPolicy = *c.NodeTaintsPolicy
			}
		}
		result = append(result, tsc)
	}
	return result, nil
}

func mergeLabelSetWithSelector(matchLabels labels.Set, s labels.Selector) labels.Selector {
	requirements, ok := s.Requirements()
	if !ok {
		return s
	}
	merged := labels.SelectorFromSet(matchLabels)
	for _, r := range requirements {
		merged = merged.Add(r)
	}
	return merged
}

// buildDefaultConstraints applies the plugin's default constraints with
// the given action to a pod without constraints of its own, all selecting
// the pod's workload. A pod no workload selects gets none.
func (pl *PodTopologySpread) buildDefaultConstraints(p *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]topologySpreadConstraint, error) {
	constraints, err := pl.filterTopologySpreadConstraints(pl.defaultConstraints, p.Labels, action)
	if err != nil || len(constraints) == 0 {
		return nil, err
	}
	selector := helper.DefaultSelector(p, pl.objects())
	if selector.Empty() {
		return nil, nil
	}
	for i := range constraints {
		constraints[i].Selector = selector
	}
	return constraints, nil
}

// nodeLabelsMatchSpreadConstraints reports whether the node has every
// constraint's topology key.
func nodeLabelsMatchSpreadConstraints(nodeLabels map[string]string, constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if _, ok := nodeLabels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// countPodsMatchSelector counts the pods in namespace ns that selector
// matches, leaving out terminating pods (#87621). In 1.37 an empty
// selector (labelSelector: {}) counts nothing although it matches every
// pod, including the incoming one in Filter's self-match.
func countPodsMatchSelector(podInfos []*framework.PodInfo, selector labels.Selector, ns string) int {
	if selector.Empty() {
		return 0
	}
	count := 0
	for _, pi := range podInfos {
		p := pi.Pod
		if p.DeletionTimestamp != nil || p.Namespace != ns {
			continue
		}
		if selector.Matches(labels.Set(p.Labels)) {
			count++
		}
	}
	return count
}

// podLabelsMatchSpreadConstraints reports whether any constraint selects
// a pod with these labels.
func podLabelsMatchSpreadConstraints(constraints []topologySpreadConstraint, podLabels labels.Set) bool {
	for _, c := range constraints {
		if c.Selector.Matches(podLabels) {
			return true
		}
	}
	return false
}
