// Package podgrouppodscount is upstream's PodGroupPodsCount
// (TopologyAwareWorkloadScheduling): a placement scores the number of the
// group's pods scheduled with it (already scheduled plus those it
// places), normalized against the best placement.
package podgrouppodscount

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.PodGroupPodsCount

// PodGroupPodsCount scores placements by pods placed.
type PodGroupPodsCount struct {
	handle framework.Handle
}

var (
	_ framework.PlacementScorePlugin     = &PodGroupPodsCount{}
	_ framework.PlacementScoreNormalizer = &PodGroupPodsCount{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &PodGroupPodsCount{handle: h}, nil
}

// Name returns the plugin's name.
func (pl *PodGroupPodsCount) Name() string { return Name }

// ScorePlacement counts the group's scheduled pods (with
// CompositePodGroup, its hierarchy's) and the placement's assignments.
func (pl *PodGroupPodsCount) ScorePlacement(_ context.Context, _ *framework.CycleState, group *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	scheduled, err := framework.ScheduledPodsOfGroup(pl.handle, group)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	return int64(len(scheduled) + len(a.ProposedAssignments)), nil
}

// NormalizePlacementScores scales the counts so that the largest is
// MaxNodeScore.
func (pl *PodGroupPodsCount) NormalizePlacementScores(_ context.Context, _ *framework.PodGroupInfo, scores []int64) *framework.Status {
	maxCount := int64(0)
	for _, s := range scores {
		maxCount = max(maxCount, s)
	}
	if maxCount == 0 {
		return framework.AsStatus(errors.New("no pods from pod group are assigned to any of the candidate placements"))
	}
	for i := range scores {
		scores[i] = framework.MinNodeScore + scores[i]*(framework.MaxNodeScore-framework.MinNodeScore)/maxCount
	}
	return nil
}
