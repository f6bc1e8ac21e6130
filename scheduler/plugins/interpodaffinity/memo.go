package interpodaffinity

import (
	"maps"
	"reflect"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// nodeMemo remembers what each node of a cycle's node list added to
// PreFilter's counts or PreScore's weights (items I), so that the next
// cycle asking the same question (an incoming pod of the same shape: the
// caller compares its key) walks only the nodes that changed instead of
// every pod on every node. A node's items hold while its
// NodeInfo.Generation is the one they were made at: every change to a
// NodeInfo (a pod added or removed, its node object replaced, a mutation
// session undone) takes a new generation, never one given before, and a
// copy keeps its original's, so equal generations mean equal pods and
// labels. The list itself must be the same NodeInfos in the same order,
// or everything is worked out again.
//
// Between two pods of one deployment at 5000 nodes, one node changes (the
// one the last pod went to), and the cycle costs a walk over the
// generations instead of thousands of label matches and map writes.
type nodeMemo[I any] struct {
	mu sync.Mutex
	// valid: entries answer the question the caller last asked.
	valid   bool
	entries []nodeItems[I]
	changed []int
}

// nodeItems is one node's items at one generation.
type nodeItems[I any] struct {
	ni    *framework.NodeInfo
	gen   int64
	items []I
}

// memoSums is what the caller keeps from the items: begin is called
// before the sums change (rebuild: start from nothing; otherwise copy what
// an earlier cycle's state may still hold, since states are handed out
// and must not change under them), apply adds a node's items (sign 1) or
// takes them away (-1).
type memoSums[I any] interface {
	begin(rebuild bool)
	apply(items []I, sign int64)
}

// update brings the memo and sums to nodes: sameQuestion says whether the
// caller's key equals the one the entries were made for. items works out
// one node's items; it may run on several goroutines at once, so it must
// only read. Called with mu held.
func (m *nodeMemo[I]) update(nodes []*framework.NodeInfo, sameQuestion bool, items func(*framework.NodeInfo) []I, sums memoSums[I]) {
	if m.valid && sameQuestion && len(m.entries) == len(nodes) {
		m.changed = m.changed[:0]
		sameList := true
		for i, ni := range nodes {
			e := &m.entries[i]
			if e.ni != ni {
				sameList = false
				break
			}
			if e.gen != ni.Generation {
				m.changed = append(m.changed, i)
			}
		}
		if sameList {
			if len(m.changed) > 0 {
				sums.begin(false)
			}
			for _, i := range m.changed {
				e := &m.entries[i]
				sums.apply(e.items, -1)
				e.gen, e.items = e.ni.Generation, items(e.ni)
				sums.apply(e.items, 1)
			}
			return
		}
	}
	m.entries = m.entries[:0]
	for _, part := range helper.EachNodeChunk(nodes, func(nodes []*framework.NodeInfo) []nodeItems[I] {
		out := make([]nodeItems[I], len(nodes))
		for i, ni := range nodes {
			out[i] = nodeItems[I]{ni: ni, gen: ni.Generation, items: items(ni)}
		}
		return out
	}) {
		m.entries = append(m.entries, part...)
	}
	sums.begin(true)
	for i := range m.entries {
		sums.apply(m.entries[i].items, 1)
	}
	m.valid = true
}

// affinityMemos are the plugin's memories of its walks over every node:
// existing pods' required anti-affinity selecting the incoming pod, the
// existing pods the incoming pod's required terms select (PreFilter), and
// the weights PreScore sums. Each holds for one question, the parts of the
// incoming pod its walk reads; a pod asking another starts it again.
type affinityMemos struct {
	existing     nodeMemo[countItem]
	existingQ    podQuestion
	existingSums countSums

	incoming     nodeMemo[countItem]
	incomingQ    [2][]framework.AffinityTerm
	incomingSums countSums

	score     nodeMemo[scoreItem]
	scoreQ    scoreQuestion
	scoreSums scoreSums
}

// podQuestion is what existing pods' terms are matched against: the
// incoming pod's namespace, its labels and its namespace's labels.
type podQuestion struct {
	namespace string
	labels    map[string]string
	nsLabels  labels.Set
}

// questionOf copies the pod's labels: the memo keeps the question after
// the cycle, and must not see them change with the pod's object.
func questionOf(pod *v1.Pod, nsLabels labels.Set) podQuestion {
	return podQuestion{namespace: pod.Namespace, labels: maps.Clone(pod.Labels), nsLabels: nsLabels}
}

func (q podQuestion) equal(o podQuestion) bool {
	return q.namespace == o.namespace && maps.Equal(q.labels, o.labels) && maps.Equal(q.nsLabels, o.nsLabels)
}

// sameTerms compares parsed terms (namespaces, selectors, topology keys,
// weights). Terms that are equal but built differently (a nil list
// against an empty one) only cost a walk from scratch.
func sameTerms[T any](a, b []T) bool { return reflect.DeepEqual(a, b) }

// countItem is one match a node adds to one of PreFilter's counts (set
// indexes countSums.counts).
type countItem struct {
	set  uint8
	pair topologyPair
}

// countSums are PreFilter's counts kept from the items.
type countSums struct {
	counts []topologyToMatchedTermCount
}

func (s *countSums) begin(rebuild bool) {
	for i, c := range s.counts {
		if rebuild {
			s.counts[i] = topologyToMatchedTermCount{}
		} else {
			s.counts[i] = c.clone()
		}
	}
}

func (s *countSums) apply(items []countItem, sign int64) {
	for _, it := range items {
		m := s.counts[it.set]
		if v := m[it.pair] + sign; v != 0 {
			m[it.pair] = v
		} else {
			delete(m, it.pair)
		}
	}
}

// existingAntiAffinityCounts is the package's function of that name over
// every node, remembered: the items of a node are its pods' required
// anti-affinity terms that select the incoming pod.
func (m *affinityMemos) existingAntiAffinityCounts(s *preFilterState, nodes []*framework.NodeInfo) topologyToMatchedTermCount {
	pod := s.podInfo.Pod
	q := questionOf(pod, s.namespaceLabels)
	m.existing.mu.Lock()
	defer m.existing.mu.Unlock()
	if m.existingSums.counts == nil {
		m.existingSums.counts = make([]topologyToMatchedTermCount, 1)
	}
	m.existing.update(nodes, q.equal(m.existingQ), func(ni *framework.NodeInfo) []countItem {
		var out []countItem
		nl := nodeLabels(ni.Node())
		for _, existing := range ni.PodsWithRequiredAntiAffinity {
			terms := existing.RequiredAntiAffinityTerms
			if s.hostnameFastPath {
				terms = notHostScoped(terms)
			}
			for i := range terms {
				if tv, ok := nl[terms[i].TopologyKey]; ok && terms[i].Matches(pod, s.namespaceLabels) {
					out = append(out, countItem{0, topologyPair{terms[i].TopologyKey, tv}})
				}
			}
		}
		return out
	}, &m.existingSums)
	m.existingQ = q
	return m.existingSums.counts[0]
}

// incomingAffinityCounts counts the existing pods on all nodes that match
// the incoming pod's cluster-wide required affinity (all terms, set 0)
// and anti-affinity (per term, set 1), remembered per node.
func (m *affinityMemos) incomingAffinityCounts(s *preFilterState, nodes []*framework.NodeInfo) (topologyToMatchedTermCount, topologyToMatchedTermCount) {
	affinity, antiAffinity := s.clusterWideAffinityTerms, s.clusterWideAntiAffinityTerms
	m.incoming.mu.Lock()
	defer m.incoming.mu.Unlock()
	if m.incomingSums.counts == nil {
		m.incomingSums.counts = make([]topologyToMatchedTermCount, 2)
	}
	same := sameTerms(affinity, m.incomingQ[0]) && sameTerms(antiAffinity, m.incomingQ[1])
	m.incoming.update(nodes, same, func(ni *framework.NodeInfo) []countItem {
		var out []countItem
		nl := nodeLabels(ni.Node())
		for _, existing := range ni.Pods {
			if podMatchesAllAffinityTerms(affinity, existing.Pod) {
				for _, t := range affinity {
					if tv, ok := nl[t.TopologyKey]; ok {
						out = append(out, countItem{0, topologyPair{t.TopologyKey, tv}})
					}
				}
			}
			for i := range antiAffinity {
				if tv, ok := nl[antiAffinity[i].TopologyKey]; ok && antiAffinity[i].Matches(existing.Pod, nil) {
					out = append(out, countItem{1, topologyPair{antiAffinity[i].TopologyKey, tv}})
				}
			}
		}
		return out
	}, &m.incomingSums)
	m.incomingQ = [2][]framework.AffinityTerm{affinity, antiAffinity}
	return m.incomingSums.counts[0], m.incomingSums.counts[1]
}

// scoreQuestion is what PreScore's items of a node depend on besides the
// node: the incoming pod as existing pods' terms see it, and its preferred
// terms (hardPodAffinityWeight is the plugin's own).
type scoreQuestion struct {
	pod                    podQuestion
	affinity, antiAffinity []framework.WeightedAffinityTerm
	// allPods: the pod has preferred terms, so every existing pod is
	// matched, not only those with affinity.
	allPods bool
}

func (q scoreQuestion) equal(o scoreQuestion) bool {
	return q.allPods == o.allPods && q.pod.equal(o.pod) && sameTerms(q.affinity, o.affinity) && sameTerms(q.antiAffinity, o.antiAffinity)
}

// scoreSums are PreScore's weights kept from the items. A domain has an
// entry while some item adds to it, as when the weights are summed afresh
// (an entry whose weights cancel out to 0 still says a term matched):
// terms counts the items per domain.
type scoreSums struct {
	scores scoreMap
	terms  map[topologyPair]int
	// sizeHint sizes a host-scoped key's map when starting afresh.
	sizeHint int
}

func (s *scoreSums) begin(rebuild bool) {
	if rebuild {
		s.scores, s.terms = scoreMap{}, map[topologyPair]int{}
		return
	}
	c := make(scoreMap, len(s.scores))
	for tk, values := range s.scores {
		c[tk] = maps.Clone(values)
	}
	s.scores = c
}

func (s *scoreSums) apply(items []scoreItem, sign int64) {
	for _, it := range items {
		pair := topologyPair{it.tk, it.tv}
		n := s.terms[pair] + int(sign)
		if n > 0 {
			s.terms[pair] = n
			s.scores.add(scoreItem{tk: it.tk, tv: it.tv, w: sign * it.w}, s.sizeHint)
			continue
		}
		delete(s.terms, pair)
		if values := s.scores[it.tk]; values != nil {
			delete(values, it.tv)
			if len(values) == 0 {
				delete(s.scores, it.tk)
			}
		}
	}
}

// topologyScore is PreScore's sums over every pod (allPods) or every pod
// with affinity on every node, remembered per node.
func (m *affinityMemos) topologyScore(pl *InterPodAffinity, s *preScoreState, pod *v1.Pod, allPods bool, nodes []*framework.NodeInfo) scoreMap {
	q := scoreQuestion{pod: questionOf(pod, s.namespaceLabels), affinity: s.podInfo.PreferredAffinityTerms,
		antiAffinity: s.podInfo.PreferredAntiAffinityTerms, allPods: allPods}
	m.score.mu.Lock()
	defer m.score.mu.Unlock()
	m.scoreSums.sizeHint = len(nodes)
	m.score.update(nodes, q.equal(m.scoreQ), func(ni *framework.NodeInfo) []scoreItem {
		var out []scoreItem
		nl := nodeLabels(ni.Node())
		pods := ni.PodsWithAffinity
		if allPods {
			pods = ni.Pods
		}
		for _, existing := range pods {
			out = pl.existingPodItems(out, s, existing, nl, pod)
		}
		return out
	}, &m.scoreSums)
	m.scoreQ = q
	return m.scoreSums.scores
}
