package tui

import "testing"

// TestPodViewHints: the Pod view shows the hints package why proved in the
// background, the same as explain prints for the demo's first attempt.
func TestPodViewHints(t *testing.T) {
	hs := newHarness(t, 130, 50)
	hs.keys("n", "2")
	hs.contains("Waiting for victims to leave: no node fits now (6 nodes);",
		"untolerated taint dedicated=training:NoSchedule (gpu-b1, gpu-b2);", "nvidia.com/gpu=present:NoSchedule (node-a2).",
		"Hint: add a node like node-b1 (2 nodes of this shape, zone demo-1b,",
		"Hint: cut the pod's cpu request by 71% to 1000m (from 3500m) → fits on node-a1, node-b1, node-b2 (proven).")
}
