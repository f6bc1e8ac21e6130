// Package imagelocality is upstream's ImageLocality score plugin: prefer
// nodes that already have the pod's images, weighted by how widely each
// image has spread across the cluster.
package imagelocality

import (
	"context"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.ImageLocality

// The score ramps from 0 at minThreshold to 100 at maxContainerThreshold
// per image; upstream picked the range to cover most registry images.
const (
	mb                    int64 = 1024 * 1024
	minThreshold          int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

// ImageLocality scores nodes by the images they already hold.
type ImageLocality struct {
	handle framework.Handle
}

var _ framework.ScorePlugin = &ImageLocality{}

// New is the plugin's factory; it takes no args. The handle's snapshot
// gives the cluster's node count.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &ImageLocality{handle: h}, nil
}

// Name returns the plugin's name.
func (pl *ImageLocality) Name() string { return Name }

// Score has no PreScore and no normalization: the raw score is already in
// [0, 100]. The node count is the whole snapshot, not the feasible nodes.
func (pl *ImageLocality) Score(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	total := 0
	if pl.handle != nil && pl.handle.Snapshot() != nil {
		total = pl.handle.Snapshot().NumNodes()
	}
	sum, count := sumImageScores(nodeInfo, pod, total)
	return calculatePriority(sum, count), nil
}

// ScoreExtensions: no normalization.
func (pl *ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }

// calculatePriority clamps the sum into [minThreshold, imageCount *
// maxContainerThreshold] and maps it linearly onto [0, 100] with integer
// division. With no images the range is inverted and the result is 0.
func calculatePriority(sum int64, imageCount int) int64 {
	maxThreshold := maxContainerThreshold * int64(imageCount)
	if sum < minThreshold {
		sum = minThreshold
	} else if sum > maxThreshold {
		sum = maxThreshold
	}
	return framework.MaxNodeScore * (sum - minThreshold) / (maxThreshold - minThreshold)
}

// sumImageScores adds the scaled size of every image present on the node,
// in upstream's order: init containers, containers, then image volumes.
// Every container and image volume counts toward imageCount, present or
// not, and duplicates count each time.
func sumImageScores(nodeInfo *framework.NodeInfo, pod *v1.Pod, total int) (int64, int) {
	var sum int64
	add := func(image string) {
		if state, ok := nodeInfo.ImageStates[normalizedImageName(image)]; ok {
			sum += scaledImageScore(state, total)
		}
	}
	for i := range pod.Spec.InitContainers {
		add(pod.Spec.InitContainers[i].Image)
	}
	for i := range pod.Spec.Containers {
		add(pod.Spec.Containers[i].Image)
	}
	count := len(pod.Spec.InitContainers) + len(pod.Spec.Containers)
	for i := range pod.Spec.Volumes {
		if img := pod.Spec.Volumes[i].Image; img != nil {
			add(img.Reference)
			count++
		}
	}
	return sum, count
}

// scaledImageScore discounts an image by the fraction of nodes that have
// it, so that a widely spread image does not pull every pod onto the same
// few nodes. The fraction is computed first, then multiplied in float64
// and truncated, exactly as upstream (the order changes the rounding).
func scaledImageScore(state *framework.ImageStateSummary, total int) int64 {
	if state == nil || total <= 0 {
		return 0
	}
	spread := float64(state.NumNodes) / float64(total)
	return int64(float64(state.Size) * spread)
}

// normalizedImageName appends ":latest" when the name has no tag, which is
// how nodes report untagged images. A registry port ("host:5000/img") is
// not a tag because it precedes the last "/"; digests ("img@sha256:…")
// contain a ":" after it and are kept as they are.
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}

// NodeLocal: Score reads the pod's images, the node's image states (their
// spread over the cluster is recounted only when the node set changes,
// which gives every NodeInfo a new generation) and the number of nodes,
// which is part of the verdict memo's key.
func (pl *ImageLocality) NodeLocal() bool { return true }
