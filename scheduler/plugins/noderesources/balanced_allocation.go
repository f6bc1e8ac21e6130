package noderesources

import (
	"context"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// BalancedAllocationName is NodeResourcesBalancedAllocation's name.
	BalancedAllocationName = names.NodeResourcesBalancedAllocation

	balancedAllocationPreScoreStateKey framework.StateKey = "PreScore" + BalancedAllocationName
)

// BalancedAllocation favours nodes whose resource utilizations stay close to
// each other once the pod is placed.
type BalancedAllocation struct {
	scorer resourceAllocationScorer
}

var (
	_ framework.PreScorePlugin = &BalancedAllocation{}
	_ framework.ScorePlugin    = &BalancedAllocation{}
)

// NewBalancedAllocation builds the plugin from
// *configv1.NodeResourcesBalancedAllocationArgs (nil: cpu and memory).
func NewBalancedAllocation(obj runtime.Object, h framework.Handle) (framework.Plugin, error) {
	args, err := balancedAllocationArgs(obj)
	if err != nil {
		return nil, err
	}
	return &BalancedAllocation{scorer: resourceAllocationScorer{
		// Balance is about what pods actually asked for, so no defaults.
		useRequested: true,
		// Unlike Fit's scorer, this one gets the resource gates: pod-level
		// requests (PodLevelResources) and status resources
		// (InPlacePodVerticalScaling and its pod-level twin) count.
		requestOpts: framework.ResourceGatesOf(h.Features()).PodRequestsOptions(),
		scorer:      balancedResourceScorer,
		resources:   args.Resources,
		dra:         newDRAScoring(h),
	}}, nil
}

// Name returns the plugin name.
func (ba *BalancedAllocation) Name() string { return BalancedAllocationName }

// PreScore skips best-effort pods (no request for any configured
// resource): scoring them by balance piled them onto the same node
// (kubernetes#129138).
func (ba *BalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	reqs := ba.scorer.podRequestsOfShape(state, pod)
	if isBestEffort(reqs) {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(balancedAllocationPreScoreStateKey, newPreScoreState(reqs, ba.scorer.dra.preScore(ba.scorer.resources)))
	return nil
}

// Score scores the node; without PreScore state it recomputes the request
// and gives best-effort pods 0.
func (ba *BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := getPreScoreState(state, balancedAllocationPreScoreStateKey)
	if err != nil {
		s = newPreScoreState(ba.scorer.podRequests(pod), nil)
		if isBestEffort(s.podRequests) {
			return 0, nil
		}
		s.dra = ba.scorer.dra.preScore(ba.scorer.resources)
	}
	return ba.scorer.score(nodeInfo, s)
}

// ScoreExtensions is nil: scores are already in [50, 100].
func (ba *BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }

// balancedResourceScorer scores the change in balance the pod brings rather
// than the balance after it: both balance scores lie in [50, 100], so the
// difference lies in [-50, 50] and 50 + (50 + diff)/2 maps it back onto
// [50, 100]. An unchanged balance scores 75.
func balancedResourceScorer(requested, allocated, allocatable []int64) int64 {
	withPod := balancedResourceScore(requested, allocatable)
	withoutPod := balancedResourceScore(allocated, allocatable)
	return framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+withPod-withoutPod)/2
}

// balancedResourceScore is (1 - std) * 100 truncated, std being the
// population standard deviation of the utilization fractions (each capped
// at 1) of the resources the node has. Float operations are kept in
// upstream's order so results match to the last bit.
func balancedResourceScore(requested, allocatable []int64) int64 {
	// On the stack for the usual handful of resources.
	fractions := make([]float64, 0, 8)
	var total float64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		f := float64(requested[i]) / float64(allocatable[i])
		if f > 1 {
			f = 1
		}
		total += f
		fractions = append(fractions, f)
	}
	std := 0.0
	switch {
	case len(fractions) == 2:
		// The two-value std reduces to half the difference.
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case len(fractions) > 2:
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum = sum + (f-mean)*(f-mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

// NodeLocal: the score reads the pod's requests and the node's NodeInfo,
// unless a scoring resource may be DRA-backed.
func (ba *BalancedAllocation) NodeLocal() bool { return ba.scorer.nodeLocal() }
