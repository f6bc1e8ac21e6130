package podtopologyspread

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// invalidScore marks ignored nodes between Score and NormalizeScore.
const invalidScore = -1

// preScoreState is what PreScore learns about the soft constraints.
type preScoreState struct {
	Constraints []topologySpreadConstraint
	// IgnoredNodes lack some topology key (only when all are required);
	// they score 0.
	IgnoredNodes sets.Set[string]
	// TopologyValueToPodCounts[i] counts matching pods per topology value
	// of constraint i, for the values of feasible nodes. Hostname
	// constraints are left empty: Score counts the node's own pods.
	TopologyValueToPodCounts []map[string]*int64
	// TopologyNormalizingWeight[i] = ln(#domains + 2), so that a skew in a
	// topology with few domains weighs as much as in one with many.
	TopologyNormalizingWeight []float64
}

// Clone shares the state: nothing after PreScore modifies it.
func (s *preScoreState) Clone() framework.StateData { return s }

func (pl *PodTopologySpread) initPreScoreState(s *preScoreState, pod *v1.Pod, filteredNodes []*framework.NodeInfo, requireAllTopologies bool) error {
	var err error
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		s.Constraints, err = pl.filterTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, v1.ScheduleAnyway)
		if err != nil {
			return fmt.Errorf("obtaining pod's soft topology spread constraints: %w", err)
		}
	} else {
		s.Constraints, err = pl.buildDefaultConstraints(pod, v1.ScheduleAnyway)
		if err != nil {
			return fmt.Errorf("setting default soft topology spread constraints: %w", err)
		}
	}
	if len(s.Constraints) == 0 {
		return nil
	}
	s.TopologyValueToPodCounts = make([]map[string]*int64, len(s.Constraints))
	for i := range s.Constraints {
		s.TopologyValueToPodCounts[i] = map[string]*int64{}
	}
	topoSize := make([]int, len(s.Constraints))
	for _, ni := range filteredNodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		if requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
			s.IgnoredNodes.Insert(node.Name)
			continue
		}
		for i, c := range s.Constraints {
			if c.TopologyKey == v1.LabelHostname {
				continue
			}
			// Without requireAllTopologies a node lacking the key lands in
			// the "" domain, which counts towards the domain total.
			value := node.Labels[c.TopologyKey]
			if s.TopologyValueToPodCounts[i][value] == nil {
				s.TopologyValueToPodCounts[i][value] = new(int64)
				topoSize[i]++
			}
		}
	}
	s.TopologyNormalizingWeight = make([]float64, len(s.Constraints))
	for i, c := range s.Constraints {
		size := topoSize[i]
		if c.TopologyKey == v1.LabelHostname {
			size = len(filteredNodes) - len(s.IgnoredNodes)
		}
		s.TopologyNormalizingWeight[i] = topologyNormalizingWeight(size)
	}
	return nil
}

// PreScore counts matching pods per domain over all nodes; it skips
// scoring when the pod has no soft constraints.
func (pl *PodTopologySpread) PreScore(_ context.Context, cs *framework.CycleState, pod *v1.Pod, filteredNodes []*framework.NodeInfo) *framework.Status {
	var allNodes []*framework.NodeInfo
	if pl.handle != nil && pl.handle.Snapshot() != nil {
		allNodes = pl.handle.Snapshot().List()
	}
	if len(allNodes) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state := &preScoreState{IgnoredNodes: sets.New[string]()}
	// Explicit or List-default constraints need every key on a node; the
	// system defaults don't, so zoneless clusters still spread by hostname.
	requireAllTopologies := len(pod.Spec.TopologySpreadConstraints) > 0 || !pl.systemDefaulted
	if err := pl.initPreScoreState(state, pod, filteredNodes, requireAllTopologies); err != nil {
		return framework.AsStatus(fmt.Errorf("calculating preScoreState: %w", err))
	}
	if len(state.Constraints) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	require := nodeaffinity.GetRequiredNodeAffinity(pod)
	for _, ni := range allNodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		if requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node.Labels, state.Constraints) {
			continue
		}
		for i := range state.Constraints {
			c := &state.Constraints[i]
			if !pl.countsNode(c, pod, node, require) {
				continue
			}
			// Only domains of feasible nodes are counted; hostname counts
			// are left to Score.
			cnt := state.TopologyValueToPodCounts[i][node.Labels[c.TopologyKey]]
			if cnt == nil {
				continue
			}
			*cnt += int64(countPodsMatchSelector(ni.Pods, c.Selector, pod.Namespace))
		}
	}
	cs.Write(preScoreStateKey, state)
	return nil
}

// Score returns the node's weighted matching-pod count (lower is better);
// NormalizeScore inverts it.
func (pl *PodTopologySpread) Score(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := getPreScoreState(cs)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	node := nodeInfo.Node()
	if node == nil || s.IgnoredNodes.Has(node.Name) {
		return 0, nil
	}
	var score float64
	for i, c := range s.Constraints {
		tpVal, ok := node.Labels[c.TopologyKey]
		if !ok {
			continue
		}
		var cnt int64
		if c.TopologyKey == v1.LabelHostname {
			cnt = int64(countPodsMatchSelector(nodeInfo.Pods, c.Selector, pod.Namespace))
		} else if p := s.TopologyValueToPodCounts[i][tpVal]; p != nil {
			cnt = *p
		}
		score += scoreForCount(cnt, c.MaxSkew, s.TopologyNormalizingWeight[i])
	}
	return int64(math.Round(score)), nil
}

// NormalizeScore maps the lowest raw score to 100 relative to the highest:
// 100 * (max + min - s) / max. Ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, cs *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	s, err := getPreScoreState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if s == nil {
		return nil
	}
	var minScore int64 = math.MaxInt64
	var maxScore int64
	for i, sc := range scores {
		if s.IgnoredNodes.Has(sc.Name) {
			scores[i].Score = invalidScore
			continue
		}
		minScore = min(minScore, sc.Score)
		maxScore = max(maxScore, sc.Score)
	}
	for i := range scores {
		if scores[i].Score == invalidScore {
			scores[i].Score = 0
			continue
		}
		if maxScore == 0 {
			scores[i].Score = framework.MaxNodeScore
			continue
		}
		scores[i].Score = framework.MaxNodeScore * (maxScore + minScore - scores[i].Score) / maxScore
	}
	return nil
}

// ScoreExtensions returns the plugin: it normalizes its scores.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

func getPreScoreState(cs *framework.CycleState) (*preScoreState, error) {
	c, err := cs.Read(preScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("error reading %q from cycleState: %w", preScoreStateKey, err)
	}
	s, ok := c.(*preScoreState)
	if !ok {
		return nil, fmt.Errorf("%+v  convert to podtopologyspread.preScoreState error", c)
	}
	return s, nil
}

// topologyNormalizingWeight is ln(size + 2): in (1.09, 8.52) for 1 to 5000
// domains, and harmless at size 0 where every node scores alike.
func topologyNormalizingWeight(size int) float64 {
	return math.Log(float64(size + 2))
}

// scoreForCount adds maxSkew-1 so that larger skew tolerances water down
// the differences between domains.
func scoreForCount(cnt int64, maxSkew int32, tpWeight float64) float64 {
	return float64(cnt)*tpWeight + float64(maxSkew-1)
}
