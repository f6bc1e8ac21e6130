package nodeaffinity

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

type preScoreState struct {
	preferredNodeAffinity *nodeaffinity.PreferredSchedulingTerms
}

// Clone shares the state: it is never modified after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// getPodPreferredNodeAffinity returns nil only when the preferred list is
// nil: an empty but non-nil list still yields (empty) terms, so such a pod
// is scored (all zeros) rather than skipped, as upstream does.
func getPodPreferredNodeAffinity(pod *v1.Pod) (*nodeaffinity.PreferredSchedulingTerms, error) {
	a := pod.Spec.Affinity
	if a != nil && a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		return nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return nil, nil
}

// PreScore parses the preferred terms once; a term that does not parse is
// an Error (unlike required terms, which Filter silently ignores). Skips
// when neither the pod nor addedAffinity has preferred terms.
func (pl *NodeAffinity) PreScore(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	preferred, err := getPodPreferredNodeAffinity(pod)
	if err != nil {
		return framework.AsStatus(err)
	}
	if preferred == nil && pl.addedPrefSchedTerms == nil {
		return framework.NewStatus(framework.Skip)
	}
	cs.Write(preScoreStateKey, &preScoreState{preferredNodeAffinity: preferred})
	return nil
}

// Score sums the weights of the matching preferred terms, addedAffinity's
// included. Terms with weight 0 or no requirements were dropped at parse.
func (pl *NodeAffinity) Score(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(errors.New("node not found"))
	}
	var count int64
	if pl.addedPrefSchedTerms != nil {
		count += pl.addedPrefSchedTerms.Score(node)
	}
	s, err := getPreScoreState(cs)
	if err != nil {
		// PreScore did not run: compute what it would have.
		preferred, err := getPodPreferredNodeAffinity(pod)
		if err != nil {
			return 0, framework.AsStatus(err)
		}
		s = &preScoreState{preferredNodeAffinity: preferred}
	}
	if s.preferredNodeAffinity != nil {
		count += s.preferredNodeAffinity.Score(node)
	}
	return count, nil
}

// NormalizeScore scales to 100*score/max; all zeros stay zero.
func (pl *NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// ScoreExtensions returns the plugin itself, which normalizes.
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

func getPreScoreState(cs *framework.CycleState) (*preScoreState, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	c, err := cs.Read(preScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycleState: %w", preScoreStateKey, err)
	}
	s, ok := c.(*preScoreState)
	if !ok {
		return nil, fmt.Errorf("invalid PreScore state, got type %T", c)
	}
	return s, nil
}
