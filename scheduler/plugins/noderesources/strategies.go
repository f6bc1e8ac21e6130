package noderesources

import (
	"fmt"
	"math"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// maxUtilization is 100%: utilization is an integer percentage.
const maxUtilization = 100

// newStrategyScorer builds Fit's scorer. It never uses the plain requests:
// spreading and bin packing both want a requestless pod to weigh something.
func newStrategyScorer(s *configv1.ScoringStrategy) (*resourceAllocationScorer, error) {
	if s == nil {
		return nil, fmt.Errorf("scoring strategy not specified")
	}
	var fn func(requested, allocated, allocatable []int64) int64
	switch s.Type {
	case configv1.LeastAllocated:
		fn = leastResourceScorer(s.Resources)
	case configv1.MostAllocated:
		fn = mostResourceScorer(s.Resources)
	case configv1.RequestedToCapacityRatio:
		var shape []configv1.UtilizationShapePoint
		if s.RequestedToCapacityRatio != nil {
			shape = s.RequestedToCapacityRatio.Shape
		}
		fn = requestedToCapacityRatioScorer(s.Resources, shape)
	default:
		return nil, fmt.Errorf("scoring strategy %s is not supported", s.Type)
	}
	return &resourceAllocationScorer{
		scorer:    fn,
		resources: append([]configv1.ResourceSpec(nil), s.Resources...),
		// Pod-level resources skipped, no status resources: see requestOpts.
		requestOpts: podRequestOptsFitScore,
	}, nil
}

// weightedMean is the integer weighted mean of per-resource scores over
// the resources the node has (allocatable != 0).
func weightedMean(resources []configv1.ResourceSpec, requested, allocatable []int64, perResource func(requested, capacity int64) int64) int64 {
	var nodeScore, weightSum int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		w := resources[i].Weight
		nodeScore += perResource(requested[i], allocatable[i]) * w
		weightSum += w
	}
	if weightSum == 0 {
		return 0
	}
	return nodeScore / weightSum
}

// leastResourceScorer favours nodes with more room left.
func leastResourceScorer(resources []configv1.ResourceSpec) func(requested, allocated, allocatable []int64) int64 {
	return func(requested, _, allocatable []int64) int64 {
		return weightedMean(resources, requested, allocatable, leastRequestedScore)
	}
}

func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// mostResourceScorer favours fuller nodes (bin packing).
func mostResourceScorer(resources []configv1.ResourceSpec) func(requested, allocated, allocatable []int64) int64 {
	return func(requested, _, allocatable []int64) int64 {
		return weightedMean(resources, requested, allocatable, mostRequestedScore)
	}
}

// mostRequestedScore caps at capacity: the non-zero defaults can push the
// requested sum past it.
func mostRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	if requested > capacity {
		requested = capacity
	}
	return requested * framework.MaxNodeScore / capacity
}

// requestedToCapacityRatioScorer maps each resource's utilization through
// the configured broken-linear shape (shape scores 0..10 scaled to 0..100).
// Unlike the other strategies, resources scoring 0 drop out of the mean,
// and the mean is rounded rather than truncated.
func requestedToCapacityRatioScorer(resources []configv1.ResourceSpec, shape []configv1.UtilizationShapePoint) func(requested, allocated, allocatable []int64) int64 {
	points := make([]shapePoint, 0, len(shape))
	for _, p := range shape {
		points = append(points, shapePoint{
			utilization: int64(p.Utilization),
			score:       int64(p.Score) * (framework.MaxNodeScore / validation.MaxCustomPriorityScore),
		})
	}
	raw := brokenLinearFunction(points)
	perResource := func(requested, capacity int64) int64 {
		if capacity == 0 || requested > capacity {
			return raw(maxUtilization)
		}
		return raw(requested * maxUtilization / capacity)
	}
	return func(requested, _, allocatable []int64) int64 {
		var nodeScore, weightSum int64
		for i := range requested {
			if allocatable[i] == 0 {
				continue
			}
			w := resources[i].Weight
			if s := perResource(requested[i], allocatable[i]); s > 0 {
				nodeScore += s * w
				weightSum += w
			}
		}
		if weightSum == 0 {
			return 0
		}
		return int64(math.Round(float64(nodeScore) / float64(weightSum)))
	}
}

type shapePoint struct {
	utilization, score int64
}

// brokenLinearFunction is flat before the first point and after the last,
// and linear (integer arithmetic, truncating) between points.
func brokenLinearFunction(shape []shapePoint) func(int64) int64 {
	return func(p int64) int64 {
		if len(shape) == 0 {
			return 0
		}
		for i := range shape {
			if p <= shape[i].utilization {
				if i == 0 {
					return shape[0].score
				}
				prev := shape[i-1]
				return prev.score + (shape[i].score-prev.score)*(p-prev.utilization)/(shape[i].utilization-prev.utilization)
			}
		}
		return shape[len(shape)-1].score
	}
}
