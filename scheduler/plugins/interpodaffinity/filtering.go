package interpodaffinity

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

const (
	preFilterStateKey framework.StateKey = "PreFilter" + Name

	// ErrReasonExistingAntiAffinityRulesNotMatch: an existing pod's required
	// anti-affinity selects the incoming pod in the node's domain.
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	// ErrReasonAffinityRulesNotMatch: the incoming pod's required affinity
	// is not satisfied on the node.
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch: the incoming pod's required
	// anti-affinity selects a pod in the node's domain.
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
)

// preFilterState is what PreFilter computes for Filter.
type preFilterState struct {
	// existingAntiAffinityCounts: existing pods' required anti-affinity
	// terms that select the incoming pod, per domain of the existing pod.
	existingAntiAffinityCounts topologyToMatchedTermCount
	// existingAntiAffinityKeys are the topology keys of
	// existingAntiAffinityCounts' domains: Filter looks up the node's
	// value of each (one or two keys) instead of every label of the node.
	existingAntiAffinityKeys []string
	// affinityCounts: existing pods matching all the incoming pod's required
	// affinity terms, per domain of each term.
	affinityCounts topologyToMatchedTermCount
	// antiAffinityCounts: (existing pod, incoming anti-affinity term)
	// matches, per domain of the term.
	antiAffinityCounts topologyToMatchedTermCount
	// podInfo is the incoming pod with namespaceSelectors folded in.
	podInfo *framework.PodInfo
	// namespaceLabels are the labels of the incoming pod's namespace.
	namespaceLabels labels.Set

	// With InterPodAffinityHostnameFastPath (hostnameFastPath), terms
	// scoped to kubernetes.io/hostname are checked in Filter against the
	// node's own pods instead of through the counts, which then hold only
	// the other terms (see hostname.go). Without it, the cluster-wide
	// lists hold every term and the host-scoped ones stay empty.
	hostnameFastPath bool
	// clusterWideAffinityTerms are all the affinity terms, unless every
	// one is host-scoped (then hostScopedAffinityTerms holds them).
	clusterWideAffinityTerms []framework.AffinityTerm
	hostScopedAffinityTerms  []framework.AffinityTerm
	// clusterWideAntiAffinityTerms and hostScopedAntiAffinityTerms split
	// the anti-affinity terms by scope.
	clusterWideAntiAffinityTerms []framework.AffinityTerm
	hostScopedAntiAffinityTerms  []framework.AffinityTerm
	// sharedCounts: the counts are the plugin's memo's (memo.go), which
	// other cycles' states may hold too; updateWithPod copies them first.
	sharedCounts bool
	// matchingHostScopedAffinityPods counts the pods anywhere matching
	// every host-scoped affinity term: the self-affinity exception needs
	// none.
	matchingHostScopedAffinityPods int64
}

// Clone copies the counts; the pod info and labels are never mutated after
// PreFilter.
func (s *preFilterState) Clone() framework.StateData {
	if s == nil {
		return nil
	}
	c := *s
	c.sharedCounts = false
	c.existingAntiAffinityCounts = s.existingAntiAffinityCounts.clone()
	c.affinityCounts = s.affinityCounts.clone()
	c.antiAffinityCounts = s.antiAffinityCounts.clone()
	return &c
}

// updateWithPod adds (multiplier 1) or removes (-1) pi, on node, from the
// counts, as if PreFilter had (not) seen it.
func (s *preFilterState) updateWithPod(pi *framework.PodInfo, node *v1.Node, multiplier int64) {
	if s == nil || pi == nil || pi.Pod == nil {
		return
	}
	if s.sharedCounts {
		s.existingAntiAffinityCounts = s.existingAntiAffinityCounts.clone()
		s.affinityCounts = s.affinityCounts.clone()
		s.antiAffinityCounts = s.antiAffinityCounts.clone()
		s.sharedCounts = false
	}
	existingTerms := pi.RequiredAntiAffinityTerms
	if s.hostnameFastPath {
		existingTerms = notHostScoped(existingTerms)
	}
	nl := nodeLabels(node)
	s.existingAntiAffinityCounts.updateWithAntiAffinityTerms(existingTerms, s.podInfo.Pod, s.namespaceLabels, nl, multiplier)
	s.existingAntiAffinityKeys = s.existingAntiAffinityCounts.keys()
	s.affinityCounts.updateWithAffinityTerms(s.clusterWideAffinityTerms, pi.Pod, nl, multiplier)
	// The incoming pod's terms have their namespaceSelector folded in, so
	// the other pod's namespace labels are not needed.
	s.antiAffinityCounts.updateWithAntiAffinityTerms(s.clusterWideAntiAffinityTerms, pi.Pod, nil, nl, multiplier)
	if len(s.hostScopedAffinityTerms) > 0 && podMatchesAllAffinityTerms(s.hostScopedAffinityTerms, pi.Pod) {
		s.matchingHostScopedAffinityPods += multiplier
	}
}

// existingAntiAffinityCounts counts, over nodes hosting pods with required
// anti-affinity, the terms of those pods that select the incoming pod
// (without the host-scoped ones on the hostname fast path). Existing pods'
// namespaceSelectors are matched against the incoming pod's namespace
// labels.
func existingAntiAffinityCounts(pod *v1.Pod, nsLabels labels.Set, nodes []*framework.NodeInfo, hostnameFastPath bool) topologyToMatchedTermCount {
	out := topologyToMatchedTermCount{}
	for _, part := range helper.EachNodeChunk(nodes, func(nodes []*framework.NodeInfo) topologyToMatchedTermCount {
		m := topologyToMatchedTermCount{}
		for _, ni := range nodes {
			nl := nodeLabels(ni.Node())
			for _, existing := range ni.PodsWithRequiredAntiAffinity {
				terms := existing.RequiredAntiAffinityTerms
				if hostnameFastPath {
					terms = notHostScoped(terms)
				}
				m.updateWithAntiAffinityTerms(terms, pod, nsLabels, nl, 1)
			}
		}
		return m
	}) {
		out.add(part)
	}
	return out
}

// PreFilter computes the counts Filter reads. It skips Filter when the pod
// has no required terms and no existing pod's anti-affinity selects it.
func (pl *InterPodAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	pi, err := parsePod(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %+v", err))
	}
	for i := range pi.RequiredAffinityTerms {
		pl.mergeTermNamespaces(&pi.RequiredAffinityTerms[i])
	}
	for i := range pi.RequiredAntiAffinityTerms {
		pl.mergeTermNamespaces(&pi.RequiredAntiAffinityTerms[i])
	}
	s := &preFilterState{podInfo: pi, namespaceLabels: pl.namespaceLabels(pod.Namespace), hostnameFastPath: pl.hostnameFastPath}
	s.classifyTerms()

	var all, withAntiAffinity []*framework.NodeInfo
	if snap := pl.handle.Snapshot(); snap != nil {
		all, withAntiAffinity = snap.List(), snap.HavePodsWithRequiredAntiAffinityList()
	}
	if len(withAntiAffinity) > 0 && 8*len(withAntiAffinity) >= len(all) {
		s.existingAntiAffinityCounts = pl.memo.existingAntiAffinityCounts(s, all)
		s.sharedCounts = true
	} else {
		s.existingAntiAffinityCounts = existingAntiAffinityCounts(pod, s.namespaceLabels, withAntiAffinity, s.hostnameFastPath)
	}
	s.existingAntiAffinityKeys = s.existingAntiAffinityCounts.keys()
	s.affinityCounts, s.antiAffinityCounts = topologyToMatchedTermCount{}, topologyToMatchedTermCount{}
	if len(s.clusterWideAffinityTerms) > 0 || len(s.clusterWideAntiAffinityTerms) > 0 {
		s.affinityCounts, s.antiAffinityCounts = pl.memo.incomingAffinityCounts(s, nodes)
		s.sharedCounts = true
	}
	if len(s.hostScopedAffinityTerms) > 0 {
		s.matchingHostScopedAffinityPods = countMatchingPods(s.hostScopedAffinityTerms, nodes)
	}
	// On the fast path, existing pods' host-scoped anti-affinity is not in
	// the counts: Filter must still look at the node's pods.
	mustCheckHostScoped := s.hostnameFastPath && anyHostScopedAntiAffinity(withAntiAffinity)

	if len(s.existingAntiAffinityCounts) == 0 && len(pi.RequiredAffinityTerms) == 0 && len(pi.RequiredAntiAffinityTerms) == 0 && !mustCheckHostScoped {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// PreFilterExtensions keeps the counts right for nominated pods and
// preemption victims.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts podInfoToAdd as if it ran on nodeInfo.
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podInfoToAdd, nodeInfo.Node(), 1)
	return nil
}

// RemovePod uncounts podInfoToRemove from nodeInfo.
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *v1.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podInfoToRemove, nodeInfo.Node(), -1)
	return nil
}

func getPreFilterState(state *framework.CycleState) (*preFilterState, error) {
	if state == nil {
		return nil, fmt.Errorf("error reading %q from cycleState: %w", preFilterStateKey, framework.ErrNotFound)
	}
	c, err := state.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("error reading %q from cycleState: %w", preFilterStateKey, err)
	}
	s, ok := c.(*preFilterState)
	if !ok || s == nil {
		return nil, fmt.Errorf("%+v  convert to interpodaffinity.state error", c)
	}
	return s, nil
}

// satisfyExistingPodsAntiAffinity: no label of the node names a domain in
// which an existing pod's anti-affinity selects the incoming pod (and, on
// the hostname fast path, no pod on the node has a host-scoped term that
// does).
func satisfyExistingPodsAntiAffinity(s *preFilterState, nodeInfo *framework.NodeInfo) bool {
	nl := nodeLabels(nodeInfo.Node())
	for _, k := range s.existingAntiAffinityKeys {
		if v, ok := nl[k]; ok && s.existingAntiAffinityCounts[topologyPair{key: k, value: v}] > 0 {
			return false
		}
	}
	return !s.hostnameFastPath || !nodePodsRejectIncoming(s, nodeInfo)
}

// satisfyPodAntiAffinity: no anti-affinity term of the incoming pod has a
// matching pod in the node's domain of that term.
func satisfyPodAntiAffinity(s *preFilterState, node *v1.Node) bool {
	if len(s.antiAffinityCounts) == 0 {
		return true
	}
	nl := nodeLabels(node)
	for _, t := range s.clusterWideAntiAffinityTerms {
		if v, ok := nl[t.TopologyKey]; ok && s.antiAffinityCounts[topologyPair{key: t.TopologyKey, value: v}] > 0 {
			return false
		}
	}
	return true
}

// satisfyPodAffinity: the node has every term's topology key, and each of
// its domains holds a pod matching all terms. Failing that, the pod may be
// the first of a group with affinity to itself: allowed when no pod in the
// cluster matches all terms and the pod matches them itself.
func satisfyPodAffinity(s *preFilterState, node *v1.Node) bool {
	terms := s.clusterWideAffinityTerms
	if len(terms) == 0 {
		return true
	}
	nl := nodeLabels(node)
	podsExist := true
	for _, t := range terms {
		v, ok := nl[t.TopologyKey]
		if !ok {
			// Even the self-affinity exception needs every topology key.
			return false
		}
		if s.affinityCounts[topologyPair{key: t.TopologyKey, value: v}] <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	return len(s.affinityCounts) == 0 && s.matchingHostScopedAffinityPods <= 0 && podMatchesAllAffinityTerms(terms, s.podInfo.Pod)
}

// Filter runs the three checks in upstream's order; the first failure is
// the status, with a single reason.
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	node := nodeInfo.Node()
	if len(s.hostScopedAffinityTerms) > 0 {
		if !nodePodsSatisfyAffinity(s, nodeInfo) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
		}
	} else if !satisfyPodAffinity(s, node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	}
	if !satisfyPodAntiAffinity(s, node) || nodePodsConflictWithAntiAffinity(s, nodeInfo) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	}
	if !satisfyExistingPodsAntiAffinity(s, nodeInfo) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	}
	return nil
}
