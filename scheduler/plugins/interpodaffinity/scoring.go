package interpodaffinity

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// scoreMap accumulates weights per topology key and value.
type scoreMap map[string]map[string]int64

// preScoreState is what PreScore computes for Score and NormalizeScore.
type preScoreState struct {
	topologyScore scoreMap
	// keys and values are topologyScore's entries, listed once for Score,
	// which runs on every node (ranging over a map costs more than the
	// one or two lookups it leads to).
	keys            []string
	values          []map[string]int64
	podInfo         *framework.PodInfo
	namespaceLabels labels.Set
}

// Clone shares the state: nothing mutates it after PreScore (as upstream).
func (s *preScoreState) Clone() framework.StateData { return s }

// scoreItem is weight w for the domain value of topology key tk: one
// term of one existing pod that matched, on a node with that key.
type scoreItem struct {
	tk, tv string
	w      int64
}

// termItems appends an item for each term that selects pod, on a node
// whose labels are nl and have the term's key, with weight*multiplier (an
// int32 product, as upstream's).
func termItems(out []scoreItem, terms []framework.WeightedAffinityTerm, pod *v1.Pod, nsLabels labels.Set, nl map[string]string, multiplier int32) []scoreItem {
	for i := range terms {
		out = termItem(out, &terms[i].AffinityTerm, terms[i].Weight, pod, nsLabels, nl, multiplier)
	}
	return out
}

func termItem(out []scoreItem, term *framework.AffinityTerm, weight int32, pod *v1.Pod, nsLabels labels.Set, nl map[string]string, multiplier int32) []scoreItem {
	if !term.Matches(pod, nsLabels) {
		return out
	}
	tv, ok := nl[term.TopologyKey]
	if !ok {
		return out
	}
	return append(out, scoreItem{tk: term.TopologyKey, tv: tv, w: int64(weight * multiplier)})
}

// add adds an item's weight to its domain, creating the domain's entry.
// sizeHint is how many domains a host-scoped term can have here (one per
// node), so that a walk over every node does not grow the map step by
// step.
func (m scoreMap) add(it scoreItem, sizeHint int) {
	scores := m[it.tk]
	if scores == nil {
		hint := 0
		if it.tk == v1.LabelHostname {
			hint = sizeHint
		}
		scores = make(map[string]int64, hint)
		m[it.tk] = scores
	}
	scores[it.tv] += it.w
}

func (m scoreMap) append(other scoreMap) {
	for tk, oScores := range other {
		scores := m[tk]
		if scores == nil {
			m[tk] = oScores
			continue
		}
		for k, v := range oScores {
			scores[k] += v
		}
	}
}

// existingPodItems scores existing's node domain both ways: the incoming
// pod's preferred terms selecting existing, and existing's required
// affinity (hardPodAffinityWeight) and preferred terms selecting the
// incoming pod. Existing pods' required anti-affinity is not scored.
func (pl *InterPodAffinity) existingPodItems(out []scoreItem, s *preScoreState, existing *framework.PodInfo, nl map[string]string, pod *v1.Pod) []scoreItem {
	if len(nl) == 0 {
		return out
	}
	// The incoming pod's terms have their namespaceSelector folded in, so
	// the existing pod's namespace labels are not needed.
	out = termItems(out, s.podInfo.PreferredAffinityTerms, existing.Pod, nil, nl, 1)
	out = termItems(out, s.podInfo.PreferredAntiAffinityTerms, existing.Pod, nil, nl, -1)

	if pl.hardPodAffinityWeight > 0 {
		for i := range existing.RequiredAffinityTerms {
			out = termItem(out, &existing.RequiredAffinityTerms[i], pl.hardPodAffinityWeight, pod, s.namespaceLabels, nl, 1)
		}
	}
	out = termItems(out, existing.PreferredAffinityTerms, pod, s.namespaceLabels, nl, 1)
	return termItems(out, existing.PreferredAntiAffinityTerms, pod, s.namespaceLabels, nl, -1)
}

func hasPreferredTerms(a *v1.Affinity) bool {
	if a == nil {
		return false
	}
	return (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

// PreScore accumulates weights per topology domain over the whole snapshot
// (not only the feasible nodes), and skips scoring when nothing accumulated.
func (pl *InterPodAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	snap := pl.handle.Snapshot()
	if snap == nil {
		return framework.NewStatus(framework.Error, "empty shared lister in InterPodAffinity PreScore")
	}
	hasConstraints := hasPreferredTerms(pod.Spec.Affinity)
	if pl.ignorePreferredTermsOfExistingPods && !hasConstraints {
		return framework.NewStatus(framework.Skip)
	}
	// Without preferred terms of its own, the pod can only be scored by
	// existing pods' terms, so only pods with affinity matter.
	nodes := snap.HavePodsWithAffinityList()
	if hasConstraints {
		nodes = snap.List()
	}

	pi, err := parsePod(pod)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("failed to parse pod: %w", err))
	}
	for i := range pi.PreferredAffinityTerms {
		pl.mergeTermNamespaces(&pi.PreferredAffinityTerms[i].AffinityTerm)
	}
	for i := range pi.PreferredAntiAffinityTerms {
		pl.mergeTermNamespaces(&pi.PreferredAntiAffinityTerms[i].AffinityTerm)
	}
	s := &preScoreState{podInfo: pi, namespaceLabels: pl.namespaceLabels(pod.Namespace)}

	// With preferred terms of its own the pod is matched against every
	// pod on every node, and without them against the pods with affinity,
	// which may be on most nodes: the plugin's memo (memo.go) keeps each
	// node's items while the node is unchanged. A short list is walked.
	if all := snap.List(); hasConstraints || 8*len(nodes) >= len(all) {
		s.topologyScore = pl.memo.topologyScore(pl, s, pod, hasConstraints, all)
	} else {
		s.topologyScore = pl.chunkedTopologyScore(s, pod, nodes)
	}
	if len(s.topologyScore) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	for tk, values := range s.topologyScore {
		s.keys, s.values = append(s.keys, tk), append(s.values, values)
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// chunkedTopologyScore sums the items of the pods with affinity on nodes.
// Each chunk adds into one map of its own (upstream makes one per node and
// merges them; the sums are the same). Something accumulated when a term
// matched in some domain, even if the weights there cancel out to 0: add
// creates the domain's entry whenever it adds, and nothing removes
// entries, so that is a non-empty map.
func (pl *InterPodAffinity) chunkedTopologyScore(s *preScoreState, pod *v1.Pod, nodes []*framework.NodeInfo) scoreMap {
	out := scoreMap{}
	for _, part := range helper.EachNodeChunk(nodes, func(nodes []*framework.NodeInfo) scoreMap {
		sums := scoreMap{}
		var items []scoreItem
		for _, ni := range nodes {
			if len(ni.PodsWithAffinity) == 0 {
				continue
			}
			nl := nodeLabels(ni.Node())
			items = items[:0]
			for _, existing := range ni.PodsWithAffinity {
				items = pl.existingPodItems(items, s, existing, nl, pod)
			}
			for _, it := range items {
				sums.add(it, len(nodes))
			}
		}
		return sums
	}) {
		out.append(part)
	}
	return out
}

func getPreScoreState(state *framework.CycleState) (*preScoreState, error) {
	if state == nil {
		return nil, fmt.Errorf("failed to read %q from cycleState: %w", preScoreStateKey, framework.ErrNotFound)
	}
	c, err := state.Read(preScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("failed to read %q from cycleState: %w", preScoreStateKey, err)
	}
	s, ok := c.(*preScoreState)
	if !ok || s == nil {
		return nil, fmt.Errorf("%+v  convert to interpodaffinity.preScoreState error", c)
	}
	return s, nil
}

// Score sums the accumulated weights of the node's domains: positive for
// affinity, negative for anti-affinity.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := getPreScoreState(state)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	nl := nodeLabels(nodeInfo.Node())
	var score int64
	for i, tk := range s.keys {
		if v, ok := nl[tk]; ok {
			score += s.values[i][v]
		}
	}
	return score, nil
}

// ScoreExtensions returns the normalizer.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps [min, max] onto [0, 100] with upstream's float
// arithmetic: the ratio is taken first, then scaled, then truncated (so
// 29/100 gives 28, not 29).
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	s, err := getPreScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(s.topologyScore) == 0 {
		return nil
	}
	var minCount int64 = math.MaxInt64
	var maxCount int64 = math.MinInt64
	for i := range scores {
		minCount = min(minCount, scores[i].Score)
		maxCount = max(maxCount, scores[i].Score)
	}
	diff := maxCount - minCount
	for i := range scores {
		f := float64(0)
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i].Score-minCount) / float64(diff))
		}
		scores[i].Score = int64(f)
	}
	return nil
}
