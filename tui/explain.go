package tui

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// The teaching pane: for a cell the user may wonder about, which rule of
// which plugin produced it, with the numbers that went into it. What each
// plugin says (its purpose, its arithmetic) is its explainer's, in package
// why; the views pass it the cell and the cluster as the attempt saw it
// (the fork). Here: what each phase does.

// phasePurpose is one sentence per phase.
var phasePurpose = [record.NumPhases]string{
	"PreEnqueue plugins decide whether the pod may enter the active queue at all (scheduling gates).",
	"The pod left the active queue: highest priority first, then oldest.",
	"PreFilter plugins compute per-pod state once (requests, affinity terms) and may reject the pod for every node or narrow the node set.",
	"Filter plugins run node by node; the first plugin that rejects a node ends that node's evaluation.",
	"No node fit: PostFilter plugins (DefaultPreemption) look for a node where evicting lower-priority pods helps, and nominate it.",
	"PreScore plugins prepare state for scoring the feasible nodes.",
	"Score plugins give each feasible node a raw score per plugin.",
	"NormalizeScore maps raw scores onto 0-100; each is multiplied by the plugin's weight and summed.",
	"Reserve plugins claim resources on the chosen node (volumes) before binding.",
	"Permit plugins may approve, deny or delay the binding.",
	"PreBind plugins do work before binding (volume provisioning).",
	"Bind writes the pod's node: the pod is scheduled.",
}

// podRequests returns the pod's effective requests as the scheduler sums them.
func podRequests(pod *v1.Pod) framework.PodResource {
	return framework.NewPodInfo(pod).CalculateResource()
}
