package interpodaffinity

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/schedtui/schedtui/scheduler/framework"
)

type topologyPair struct {
	key   string
	value string
}

// topologyToMatchedTermCount counts, per (topology key, value), matches
// between terms and pods on nodes in that domain.
type topologyToMatchedTermCount map[topologyPair]int64

// clone copies m (a map copied whole is much cheaper than one filled
// entry by entry: PreFilter's memo copies its counts every cycle).
func (m topologyToMatchedTermCount) clone() topologyToMatchedTermCount {
	if m == nil {
		return topologyToMatchedTermCount{}
	}
	return maps.Clone(m)
}

// keys lists the topology keys m counts domains of, each once.
func (m topologyToMatchedTermCount) keys() []string {
	var keys []string
	for pair := range m {
		if !slices.Contains(keys, pair.key) {
			keys = append(keys, pair.key)
		}
	}
	return keys
}

// update adds value for the domain of tk of the node whose labels are nl;
// nodes without the key are in no domain. Entries that fall to zero are
// dropped, because Filter treats a non-empty affinity map as "some pod
// matches somewhere". The callers walking every pod look the node's labels
// up once per node.
func (m topologyToMatchedTermCount) update(nl map[string]string, tk string, value int64) {
	tv, ok := nl[tk]
	if !ok {
		return
	}
	pair := topologyPair{key: tk, value: tv}
	if v := m[pair] + value; v != 0 {
		m[pair] = v
	} else {
		delete(m, pair)
	}
}

// add adds other's counts to m (a chunk's counts from
// helper.EachNodeChunk), dropping entries that fall to zero as update does.
func (m topologyToMatchedTermCount) add(other topologyToMatchedTermCount) {
	for pair, v := range other {
		m[pair] += v
		if m[pair] == 0 {
			delete(m, pair)
		}
	}
}

// updateWithAffinityTerms counts pod once per term, but only if it matches
// all terms: affinity needs one pod that satisfies every term.
func (m topologyToMatchedTermCount) updateWithAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod, nl map[string]string, value int64) {
	if podMatchesAllAffinityTerms(terms, pod) {
		for _, t := range terms {
			m.update(nl, t.TopologyKey, value)
		}
	}
}

// updateWithAntiAffinityTerms counts pod for every term it matches: any one
// anti-affinity term suffices to repel.
func (m topologyToMatchedTermCount) updateWithAntiAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod, nsLabels labels.Set, nl map[string]string, value int64) {
	for i := range terms {
		if terms[i].Matches(pod, nsLabels) {
			m.update(nl, terms[i].TopologyKey, value)
		}
	}
}

// podMatchesAllAffinityTerms is false for no terms. The terms are the
// incoming pod's, whose namespaceSelector was already folded into
// Namespaces, so no namespace labels are passed.
func podMatchesAllAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

func podMatchesAnyAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	for i := range terms {
		if terms[i].Matches(pod, nil) {
			return true
		}
	}
	return false
}

func requiredAffinityTerms(a *v1.Affinity) []v1.PodAffinityTerm {
	if a != nil && a.PodAffinity != nil {
		return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

func requiredAntiAffinityTerms(a *v1.Affinity) []v1.PodAffinityTerm {
	if a != nil && a.PodAntiAffinity != nil {
		return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// termsError is the first selector error of a term list, in the order
// upstream's GetAffinityTerms meets them (label selector, then namespace
// selector, term by term).
func termsError(terms []v1.PodAffinityTerm) error {
	for i := range terms {
		if _, err := metav1.LabelSelectorAsSelector(terms[i].LabelSelector); err != nil {
			return err
		}
		if _, err := metav1.LabelSelectorAsSelector(terms[i].NamespaceSelector); err != nil {
			return err
		}
	}
	return nil
}

// parsePod parses the incoming pod's terms into a fresh PodInfo (the
// plugin rewrites its terms' namespaces, so it must not share the one the
// snapshot holds); the error is upstream's aggregated text.
func parsePod(pod *v1.Pod) (*framework.PodInfo, error) {
	pi := framework.NewPodInfo(pod)
	return pi, pi.ParseError
}

// requiredTermsOf parses one required term list of pod for the queueing
// hints, which (as upstream) give up on the first list that does not parse.
func requiredTermsOf(pod *v1.Pod, anti bool) ([]framework.AffinityTerm, error) {
	pi := framework.NewPodInfo(pod)
	if anti {
		if pi.ParseError != nil {
			if err := termsError(requiredAntiAffinityTerms(pod.Spec.Affinity)); err != nil {
				return nil, err
			}
		}
		return pi.RequiredAntiAffinityTerms, nil
	}
	if pi.ParseError != nil {
		if err := termsError(requiredAffinityTerms(pod.Spec.Affinity)); err != nil {
			return nil, err
		}
	}
	return pi.RequiredAffinityTerms, nil
}
