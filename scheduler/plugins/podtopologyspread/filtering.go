package podtopologyspread

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// preFilterState is what PreFilter learns about the hard constraints.
// An empty state (no constraints) is legitimate and admits every node.
type preFilterState struct {
	Constraints []topologySpreadConstraint
	// CriticalPaths[i] tracks the two smallest domains of constraint i;
	// [0] always holds the minimum.
	CriticalPaths []*criticalPaths
	// TpValueToMatchNum[i] counts matching pods per topology value of
	// constraint i; its size is the number of eligible domains.
	TpValueToMatchNum []map[string]int
}

// minMatchNum is the global minimum used in the skew, taken as 0 while
// there are fewer eligible domains than minDomains.
func (s *preFilterState) minMatchNum(i int, minDomains int32) int {
	if len(s.TpValueToMatchNum[i]) < int(minDomains) {
		return 0
	}
	return s.CriticalPaths[i][0].MatchNum
}

// Clone copies the counts; constraints never change and are shared.
func (s *preFilterState) Clone() framework.StateData {
	if s == nil {
		return nil
	}
	c := &preFilterState{
		Constraints:       s.Constraints,
		CriticalPaths:     make([]*criticalPaths, len(s.CriticalPaths)),
		TpValueToMatchNum: make([]map[string]int, len(s.TpValueToMatchNum)),
	}
	for i, p := range s.CriticalPaths {
		cp := *p
		c.CriticalPaths[i] = &cp
	}
	for i, m := range s.TpValueToMatchNum {
		c.TpValueToMatchNum[i] = maps.Clone(m)
	}
	return c
}

// criticalPaths keeps two domains rather than all of them. That suffices
// because preemption only ever adds or removes pods on one node per
// cloned state, so only one domain per constraint moves at a time.
type criticalPaths [2]struct {
	TopologyValue string
	MatchNum      int
}

func newCriticalPaths() *criticalPaths {
	return &criticalPaths{{MatchNum: math.MaxInt32}, {MatchNum: math.MaxInt32}}
}

func (p *criticalPaths) update(tpVal string, num int) {
	i := -1
	if tpVal == p[0].TopologyValue {
		i = 0
	} else if tpVal == p[1].TopologyValue {
		i = 1
	}
	if i >= 0 {
		p[i].MatchNum = num
		if p[0].MatchNum > p[1].MatchNum {
			p[0], p[1] = p[1], p[0]
		}
		return
	}
	if num < p[0].MatchNum {
		p[1] = p[0]
		p[0].TopologyValue, p[0].MatchNum = tpVal, num
	} else if num < p[1].MatchNum {
		p[1].TopologyValue, p[1].MatchNum = tpVal, num
	}
}

// PreFilter counts matching pods per domain over all nodes; it skips the
// Filter when the pod has no hard constraints.
func (pl *PodTopologySpread) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	s, err := pl.calPreFilterState(pod, nodes)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(s.Constraints) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(preFilterStateKey, s)
	return nil, nil
}

// PreFilterExtensions keeps the counts right for nominated pods and
// preemption victims.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts a pod hypothetically placed on nodeInfo.
func (pl *PodTopologySpread) AddPod(_ context.Context, cs *framework.CycleState, podToSchedule *v1.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	pl.updateWithPod(s, podInfoToAdd.Pod, podToSchedule, nodeInfo.Node(), 1)
	return nil
}

// RemovePod uncounts a pod hypothetically removed from nodeInfo.
func (pl *PodTopologySpread) RemovePod(_ context.Context, cs *framework.CycleState, podToSchedule *v1.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	pl.updateWithPod(s, podInfoToRemove.Pod, podToSchedule, nodeInfo.Node(), -1)
	return nil
}

// updateWithPod applies the same eligibility as PreFilter except that, as
// upstream, it neither skips terminating pods nor treats an empty selector
// as matching nothing.
func (pl *PodTopologySpread) updateWithPod(s *preFilterState, updatedPod, preemptorPod *v1.Pod, node *v1.Node, delta int) {
	if s == nil || updatedPod == nil || updatedPod.Namespace != preemptorPod.Namespace || node == nil {
		return
	}
	if !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
		return
	}
	require := nodeaffinity.GetRequiredNodeAffinity(preemptorPod)
	podLabels := labels.Set(updatedPod.Labels)
	for i := range s.Constraints {
		c := &s.Constraints[i]
		if !c.Selector.Matches(podLabels) {
			continue
		}
		if !pl.countsNode(c, preemptorPod, node, require) {
			continue
		}
		v := node.Labels[c.TopologyKey]
		s.TpValueToMatchNum[i][v] += delta
		s.CriticalPaths[i].update(v, s.TpValueToMatchNum[i][v])
	}
}

func getPreFilterState(cs *framework.CycleState) (*preFilterState, error) {
	c, err := cs.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycleState: %w", preFilterStateKey, err)
	}
	s, ok := c.(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("%+v convert to podtopologyspread.preFilterState error", c)
	}
	return s, nil
}

func (pl *PodTopologySpread) calPreFilterState(pod *v1.Pod, nodes []*framework.NodeInfo) (*preFilterState, error) {
	constraints, err := pl.getConstraints(pod)
	if err != nil {
		return nil, fmt.Errorf("get constraints from pod: %w", err)
	}
	if len(constraints) == 0 {
		return &preFilterState{}, nil
	}
	s := &preFilterState{
		Constraints:       constraints,
		CriticalPaths:     make([]*criticalPaths, len(constraints)),
		TpValueToMatchNum: make([]map[string]int, len(constraints)),
	}
	require := nodeaffinity.GetRequiredNodeAffinity(pod)
	// Upstream counts on the parallelizer, one node at a time; here each
	// chunk of nodes counts into maps of its own, added up after. A domain
	// a node counts for is a key even at 0 (the minimum may be there), so
	// the sum keeps zeros.
	for _, part := range helper.EachNodeChunk(nodes, func(nodes []*framework.NodeInfo) []map[string]int {
		counts := make([]map[string]int, len(constraints))
		for i := range counts {
			counts[i] = map[string]int{}
		}
		for _, ni := range nodes {
			node := ni.Node()
			// A node counts only if it has every constraint's key, even for
			// constraints whose key it has.
			if node == nil || !nodeLabelsMatchSpreadConstraints(node.Labels, constraints) {
				continue
			}
			for i := range constraints {
				c := &constraints[i]
				if !pl.countsNode(c, pod, node, require) {
					continue
				}
				counts[i][node.Labels[c.TopologyKey]] += countPodsMatchSelector(ni.Pods, c.Selector, pod.Namespace)
			}
		}
		return counts
	}) {
		for i, m := range part {
			if s.TpValueToMatchNum[i] == nil {
				s.TpValueToMatchNum[i] = m
				continue
			}
			for v, n := range m {
				s.TpValueToMatchNum[i][v] += n
			}
		}
	}
	for i := range constraints {
		s.CriticalPaths[i] = newCriticalPaths()
		// Upstream walks a Go map here. Only the minimum's MatchNum is ever
		// read, and neither it nor its updates by AddPod/RemovePod (which
		// move one domain per constraint at a time) depend on the order;
		// sorting keeps the recorded TopologyValues reproducible.
		for _, v := range sortedKeys(s.TpValueToMatchNum[i]) {
			s.CriticalPaths[i].update(v, s.TpValueToMatchNum[i][v])
		}
	}
	return s, nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Filter rejects a node when placing the pod there would push a domain's
// skew over maxSkew: count(domain) + selfMatch - globalMin > maxSkew.
func (pl *PodTopologySpread) Filter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(s.Constraints) == 0 {
		return nil
	}
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("node not found"))
	}
	podLabels := labels.Set(pod.Labels)
	for i, c := range s.Constraints {
		tpVal, ok := node.Labels[c.TopologyKey]
		if !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
		}
		selfMatch := 0
		if c.Selector.Matches(podLabels) {
			selfMatch = 1
		}
		// A value absent from the map (node excluded by inclusion
		// policies) counts as 0.
		skew := s.TpValueToMatchNum[i][tpVal] + selfMatch - s.minMatchNum(i, c.MinDomains)
		if skew > int(c.MaxSkew) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}
