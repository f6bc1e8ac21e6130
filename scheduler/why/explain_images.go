package why

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// ImageLocality: the sizes of the pod's images already on the node,
// spread over how many nodes have them.

var imageLocalityExplainer = explainer{
	purpose: "prefers nodes that already have the pod's images, weighted by image size and how widely the image is spread.",
	short:   "Image",
	score:   explainImages,
}

// explainImages is the score's arithmetic, image by image.
func explainImages(in Input, c ScoreCell, ni *framework.NodeInfo) []string {
	const mb = 1024 * 1024
	var out []string
	var sum int64
	count := len(in.Pod.Spec.InitContainers) + len(in.Pod.Spec.Containers)
	for _, ctr := range append(append([]v1.Container(nil), in.Pod.Spec.InitContainers...), in.Pod.Spec.Containers...) {
		name := ctr.Image
		if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
			name += ":latest"
		}
		img, ok := ni.ImageStates[name]
		if !ok {
			out = append(out, fmt.Sprintf("  %s: not on this node → 0", ctr.Image))
			continue
		}
		s := int64(float64(img.Size) * float64(img.NumNodes) / float64(max(1, c.NumNodes)))
		sum += s
		out = append(out, fmt.Sprintf("  %s: %dMiB on %d of %d nodes → %dMiB × %d/%d = %dMiB", ctr.Image, img.Size/mb, img.NumNodes, c.NumNodes, img.Size/mb, img.NumNodes, c.NumNodes, s/mb))
	}
	lo, hi := int64(23*mb), int64(1000*mb)*int64(max(1, count))
	clamped := min(max(sum, lo), hi)
	out = append(out, fmt.Sprintf("sum %dMiB clamped to [23MiB, %dMiB]; score = (sum - 23MiB) × 100 / (%dMiB - 23MiB) = %d", sum/mb, hi/mb, hi/mb, (clamped-lo)*100/(hi-lo)))
	return out
}
