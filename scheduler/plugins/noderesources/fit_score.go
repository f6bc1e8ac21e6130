package noderesources

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// podRequestOptsFitScore are the PodRequests options upstream's Fit scorer
// ends up with: its resourceAllocationScorer is built by the strategy
// factory and only ever gets the DRA flag, so enablePodLevelResources,
// enableInPlacePodVerticalScaling and the pod-level resize flag stay false
// there. A pod's spec.resources is therefore ignored when Fit scores
// (container requests + defaults + overhead are used), even though Filter
// honours it. Mirrored deliberately: it changes scores.
var podRequestOptsFitScore = resourcehelper.PodResourcesOptions{SkipPodLevelResources: true}

// preScoreState holds the pod's request per configured resource; it is not
// modified after PreScore, so clones share it. scratch is Score's working
// space for the node's amounts (three per resource), reused from node to
// node: Score runs on one goroutine per cycle (RunScorePlugins), and a
// fresh buffer per node was most of the cycle's allocations.
type preScoreState struct {
	podRequests []int64
	// dra holds the DRA devices when a DeviceClass backs some scoring
	// resource.
	dra     *draDevices
	scratch []int64
}

func newPreScoreState(podRequests []int64, dra *draDevices) *preScoreState {
	return &preScoreState{podRequests: podRequests, dra: dra, scratch: make([]int64, 3*len(podRequests))}
}

func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore computes the pod's requests for scoring. It never skips: a pod
// without requests is scored with the non-zero defaults.
func (f *Fit) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, newPreScoreState(f.scorer.podRequestsOfShape(state, pod), f.scorer.dra.preScore(f.scorer.resources)))
	return nil
}

func getPreScoreState(state *framework.CycleState, key framework.StateKey) (*preScoreState, error) {
	c, err := state.Read(key)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycleState: %w", key, err)
	}
	s, ok := c.(*preScoreState)
	if !ok {
		return nil, fmt.Errorf("invalid PreScore state, got type %T", c)
	}
	return s, nil
}

// Score scores the node by the configured strategy. Without PreScore state
// (e.g. the framework skipped PreScore) it recomputes the request, as
// upstream does.
func (f *Fit) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := getPreScoreState(state, preScoreStateKey)
	if err != nil {
		s = newPreScoreState(f.scorer.podRequests(pod), f.scorer.dra.preScore(f.scorer.resources))
	}
	return f.scorer.score(nodeInfo, s)
}

// ScoreExtensions is nil: the strategies already produce 0..100.
func (f *Fit) ScoreExtensions() framework.ScoreExtensions { return nil }
