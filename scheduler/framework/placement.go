package framework

import (
	"context"
	"fmt"
)

// Placements (TopologyAwareWorkloadScheduling): a pod-group cycle may try
// its group on several subsets of the nodes, one per topology domain,
// each assumed in the snapshot in turn (upstream's AssumePlacement) so
// that the members' Filter and Score see only its nodes.

// Placement is a named set of nodes, in node-tree order.
type Placement struct {
	Name  string
	Nodes []*NodeInfo
}

// PlacementGeneratePlugin splits the parent placement into the placements
// to try (TopologyPlacementGenerator: one per domain of the group's
// topology key).
type PlacementGeneratePlugin interface {
	Plugin
	GeneratePlacements(ctx context.Context, state *CycleState, group *PodGroupInfo, parent *Placement) ([]*Placement, *Status)
}

// PlacementScorePlugin scores a placement where the group could be placed
// (PodGroupPodsCount: how many of its pods).
type PlacementScorePlugin interface {
	Plugin
	ScorePlacement(ctx context.Context, state *CycleState, group *PodGroupInfo, assignments *PodGroupAssignments) (int64, *Status)
}

// PlacementScoreNormalizer is a PlacementScorePlugin's normalization of
// its scores into [MinNodeScore, MaxNodeScore].
type PlacementScoreNormalizer interface {
	NormalizePlacementScores(ctx context.Context, group *PodGroupInfo, scores []int64) *Status
}

// placementNodes is the assumed placement.
type placementNodes struct {
	placement *Placement
	names     map[string]bool
}

// AssumePlacement limits the cycle's nodes to the placement's (nil or all
// nodes: no limit), until ForgetPlacement.
func (s *Snapshot) AssumePlacement(p *Placement) error {
	if p == nil || len(p.Nodes) == len(s.nodeInfoList) {
		s.placement = nil
		return nil
	}
	pn := &placementNodes{placement: p, names: make(map[string]bool, len(p.Nodes))}
	for _, ni := range p.Nodes {
		if cur, ok := s.nodeInfoMap[ni.Name()]; !ok || cur != ni {
			s.placement = nil
			return fmt.Errorf("node %s in placement is not present in snapshot", ni.Name())
		}
		pn.names[ni.Name()] = true
	}
	s.placement = pn
	return nil
}

// ForgetPlacement lifts the limit.
func (s *Snapshot) ForgetPlacement() { s.placement = nil }

// Placement is the assumed placement, nil when none is.
func (s *Snapshot) Placement() *Placement {
	if s.placement == nil {
		return nil
	}
	return s.placement.placement
}

// ListNodesInPlacement lists the assumed placement's nodes, every node
// when none is assumed.
func (s *Snapshot) ListNodesInPlacement() []*NodeInfo {
	if s.placement == nil {
		return s.nodeInfoList
	}
	return s.placement.placement.Nodes
}

// NumNodesInPlacement counts ListNodesInPlacement.
func (s *Snapshot) NumNodesInPlacement() int { return len(s.ListNodesInPlacement()) }

// GetNodeInPlacement is Get limited to the assumed placement.
func (s *Snapshot) GetNodeInPlacement(name string) (*NodeInfo, error) {
	if s.placement != nil && !s.placement.names[name] {
		return nil, fmt.Errorf("node %q not found in placement", name)
	}
	return s.Get(name)
}
