package framework

import (
	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// ExtenderName is the pseudo-plugin the cycle adds to a pod's unschedulable
// plugins when extenders rejected nodes (upstream's framework.ExtenderName);
// a profile with extenders registers it for every cluster event.
const ExtenderName = "Extender"

// Extender is a scheduler extender as upstream's fwk.Extender: an HTTP
// service that filters, scores, trims preemption candidates and binds
// (package scheduler/extender implements it).
type Extender interface {
	// Name is the extender's URL prefix.
	Name() string
	IsIgnorable() bool
	// IsInterested reports whether the pod asks for a resource the
	// extender manages (always, when it manages none).
	IsInterested(pod *v1.Pod) bool
	IsFilter() bool
	IsPrioritizer() bool
	IsBinder() bool
	SupportsPreemption() bool
	// Filter keeps the nodes the extender accepts; the maps name the nodes
	// it rejected, with their messages.
	Filter(pod *v1.Pod, nodes []*NodeInfo) (filtered []*NodeInfo, failed, failedAndUnresolvable extenderv1.FailedNodesMap, err error)
	// Prioritize returns the extender's scores and its weight.
	Prioritize(pod *v1.Pod, nodes []*NodeInfo) (*extenderv1.HostPriorityList, int64, error)
	// ProcessPreemption returns the candidates the extender keeps, with
	// their victims looked up in nodes.
	ProcessPreemption(pod *v1.Pod, victims map[string]*extenderv1.Victims, nodes *Snapshot) (map[string]*extenderv1.Victims, error)
	Bind(binding *v1.Binding) error
}
