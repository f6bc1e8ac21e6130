package why

// Workload-aware scheduling's plugins (GenericWorkload). They judge a pod
// group, not a node: GangScheduling's verdicts are the group's (PreEnqueue
// holding the members back, the pod-group cycle's minCount check, Permit
// holding placed members), so what it says about a group is in group.go
// (the group's verdict and its hints, proven by re-running the group
// cycle); here are the plugins' purposes for the teaching pane.

var (
	gangSchedulingExplainer = explainer{
		purpose: "schedules a gang all or nothing: PreEnqueue holds its pods back until their PodGroup exists and minCount of them do; " +
			"the pod-group cycle fails when fewer than minCount members find a node, and Permit holds placed members until minCount are assumed, then releases them together.",
		short: "Gang",
	}
	podGroupPodsCountExplainer = explainer{
		purpose: "scores a pod group's candidate placements: the one where more of the group's pods fit wins.",
		short:   "PGPods",
	}
	topologyPlacementExplainer = explainer{
		purpose: "proposes one placement per domain of the pod group's topology constraint (all members in one zone, rack, ...); the group cycle tries each.",
		short:   "TopoPlace",
	}
)
