package interpodaffinity

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// The InterPodAffinityHostnameFastPath gate (alpha, off by default in
// 1.37) moves terms with topologyKey kubernetes.io/hostname out of the
// cluster-wide counts into checks of the node's own pods. It is meant as a
// speed-up, but it decides differently where hostname labels are not
// unique or missing: the counts join every node sharing a hostname value,
// while the local checks look at one node's pods; and the self-affinity
// exception counts matching pods on nodes without the label too.

// classifyTerms splits the incoming pod's terms by scope: affinity terms
// stay together (one pod must match them all) and are host-scoped only if
// every one is; anti-affinity terms are split one by one.
func (s *preFilterState) classifyTerms() {
	aff, anti := s.podInfo.RequiredAffinityTerms, s.podInfo.RequiredAntiAffinityTerms
	if !s.hostnameFastPath {
		s.clusterWideAffinityTerms, s.clusterWideAntiAffinityTerms = aff, anti
		return
	}
	if len(notHostScoped(aff)) == 0 {
		s.hostScopedAffinityTerms = aff
	} else {
		s.clusterWideAffinityTerms = aff
	}
	for _, t := range anti {
		if t.TopologyKey == v1.LabelHostname {
			s.hostScopedAntiAffinityTerms = append(s.hostScopedAntiAffinityTerms, t)
		} else {
			s.clusterWideAntiAffinityTerms = append(s.clusterWideAntiAffinityTerms, t)
		}
	}
}

// notHostScoped keeps the terms whose topology is not the hostname.
func notHostScoped(terms []framework.AffinityTerm) []framework.AffinityTerm {
	var out []framework.AffinityTerm
	for _, t := range terms {
		if t.TopologyKey != v1.LabelHostname {
			out = append(out, t)
		}
	}
	return out
}

// anyHostScopedAntiAffinity reports whether a pod on these nodes has a
// required anti-affinity term scoped to the hostname.
func anyHostScopedAntiAffinity(nodes []*framework.NodeInfo) bool {
	for _, ni := range nodes {
		for _, pi := range ni.PodsWithRequiredAntiAffinity {
			if len(notHostScoped(pi.RequiredAntiAffinityTerms)) < len(pi.RequiredAntiAffinityTerms) {
				return true
			}
		}
	}
	return false
}

// countMatchingPods counts the pods on all nodes matching every term.
func countMatchingPods(terms []framework.AffinityTerm, nodes []*framework.NodeInfo) int64 {
	var n int64
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			if podMatchesAllAffinityTerms(terms, pi.Pod) {
				n++
			}
		}
	}
	return n
}

// hasHostname: host-scoped terms only apply to nodes with the label.
func hasHostname(node *v1.Node) bool {
	_, ok := node.Labels[v1.LabelHostname]
	return ok
}

// nodePodsSatisfyAffinity: a pod on the node matches every (host-scoped)
// affinity term; failing that, the self-affinity exception, which here
// needs no matching pod anywhere.
func nodePodsSatisfyAffinity(s *preFilterState, nodeInfo *framework.NodeInfo) bool {
	node := nodeInfo.Node()
	if !hasHostname(node) {
		return false
	}
	for _, pi := range nodeInfo.Pods {
		if podMatchesAllAffinityTerms(s.hostScopedAffinityTerms, pi.Pod) {
			return true
		}
	}
	return s.matchingHostScopedAffinityPods <= 0 && podMatchesAllAffinityTerms(s.hostScopedAffinityTerms, s.podInfo.Pod)
}

// nodePodsConflictWithAntiAffinity: a pod on the node matches one of the
// incoming pod's host-scoped anti-affinity terms.
func nodePodsConflictWithAntiAffinity(s *preFilterState, nodeInfo *framework.NodeInfo) bool {
	if len(s.hostScopedAntiAffinityTerms) == 0 || !hasHostname(nodeInfo.Node()) {
		return false
	}
	for _, pi := range nodeInfo.Pods {
		if podMatchesAnyAffinityTerms(s.hostScopedAntiAffinityTerms, pi.Pod) {
			return true
		}
	}
	return false
}

// nodePodsRejectIncoming: a pod on the node has a host-scoped required
// anti-affinity term selecting the incoming pod.
func nodePodsRejectIncoming(s *preFilterState, nodeInfo *framework.NodeInfo) bool {
	if !hasHostname(nodeInfo.Node()) {
		return false
	}
	for _, pi := range nodeInfo.PodsWithRequiredAntiAffinity {
		for _, t := range pi.RequiredAntiAffinityTerms {
			if t.TopologyKey == v1.LabelHostname && t.Matches(s.podInfo.Pod, s.namespaceLabels) {
				return true
			}
		}
	}
	return false
}
