package volumebinding

import (
	"context"
	"math"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

const maxUtilization = 100

// shapePoint is a point of the broken-linear scoring function, score
// already scaled to [0, MaxNodeScore].
type shapePoint struct {
	utilization int64
	score       int64
}

// brokenLinear is upstream's helper.BuildBrokenLinearFunction: flat before
// the first point and after the last, linear (integer division) between.
func brokenLinear(shape []shapePoint) func(int64) int64 {
	return func(p int64) int64 {
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

// classResourceMap is storage requested and available per class.
type classResourceMap map[string]*StorageResource

type volumeCapacityScorer func(classResourceMap) int64

// buildScorerFunction scores each class by its utilization (full when
// capacity is 0 or exceeded) and rounds the mean over classes; all
// classes weigh the same.
func buildScorerFunction(shape []shapePoint) volumeCapacityScorer {
	raw := brokenLinear(shape)
	f := func(requested, capacity int64) int64 {
		if capacity == 0 || requested > capacity {
			return raw(maxUtilization)
		}
		return raw(requested * maxUtilization / capacity)
	}
	return func(classes classResourceMap) int64 {
		if len(classes) == 0 {
			return 0
		}
		var sum int64
		for _, r := range classes {
			sum += f(r.Requested, r.Capacity)
		}
		return int64(math.Round(float64(sum) / float64(len(classes))))
	}
}

// PreScore never skips: with StorageCapacityScoring on, even a pod
// without claims is scored (0 everywhere).
func (pl *VolumeBinding) PreScore(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	if pl.scorer == nil {
		return framework.NewStatus(framework.Skip)
	}
	if _, err := getStateData(cs); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// Score rates the node by utilization of the storage the pod would use
// there: the PVs chosen for static bindings when there are any, otherwise
// the tracked capacity of the classes to provision from.
func (pl *VolumeBinding) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	if pl.scorer == nil {
		return 0, nil
	}
	state, err := getStateData(cs)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	if state.claimless {
		return 0, nil
	}
	state.mu.Lock()
	podVolumes, ok := state.podVolumesByNode[nodeInfo.Name()]
	state.mu.Unlock()
	if !ok || podVolumes == nil {
		return 0, nil
	}
	classes := classResourceMap{}
	if len(podVolumes.StaticBindings) != 0 {
		for _, b := range podVolumes.StaticBindings {
			class := b.StorageClassName()
			if classes[class] == nil {
				classes[class] = &StorageResource{}
			}
			r := b.StorageResource()
			classes[class].Requested += r.Requested
			classes[class].Capacity += r.Capacity
		}
		return pl.scorer(classes), nil
	}
	for _, p := range podVolumes.DynamicProvisions {
		if p.NodeCapacity == nil {
			continue
		}
		// Upstream dereferences spec.storageClassName (and the capacity);
		// a class named by the beta annotation, or a capacity object with
		// only maximumVolumeSize, would crash it. Here they fall back to
		// the annotation and to 0.
		class := volume.GetPersistentVolumeClaimClass(p.PVC)
		if p.PVC.Spec.StorageClassName != nil {
			class = *p.PVC.Spec.StorageClassName
		}
		if classes[class] == nil {
			classes[class] = &StorageResource{}
		}
		// Claims of one class share the node's capacity: assign, not add.
		if p.NodeCapacity.Capacity != nil {
			classes[class].Capacity = p.NodeCapacity.Capacity.Value()
		} else {
			classes[class].Capacity = 0
		}
		requested := p.PVC.Spec.Resources.Requests[v1.ResourceStorage]
		classes[class].Requested += requested.Value()
	}
	return pl.scorer(classes), nil
}

// ScoreExtensions: scores are already in [0, 100].
func (pl *VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }

// NodeLocalScores: a claimless pod scores 0 on every node (as does every
// pod without a scorer); otherwise the score reads the PVs Filter chose
// for the node.
func (pl *VolumeBinding) NodeLocalScores(cs *framework.CycleState) bool {
	if pl.scorer == nil {
		return true
	}
	state, err := getStateData(cs)
	return err == nil && state.claimless
}
