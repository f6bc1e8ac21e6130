// Package nodename is upstream's NodeName plugin: a pod with spec.nodeName
// only fits the node of that name.
package nodename

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.NodeName
	// ErrReason is upstream's Filter reason.
	ErrReason = "node(s) didn't match the requested node name"
)

// NodeName checks spec.nodeName against the node.
type NodeName struct{}

var (
	_ framework.PreFilterPlugin   = &NodeName{}
	_ framework.FilterPlugin      = &NodeName{}
	_ framework.EnqueueExtensions = &NodeName{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	return &NodeName{}, nil
}

// Name returns the plugin's name.
func (pl *NodeName) Name() string { return Name }

// EventsToRegister: only a new node can be the one the pod names. No hint:
// upstream relies on the default (always Queue).
func (pl *NodeName) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}, nil
}

// PreFilter narrows the cycle to the named node. Every other node then
// counts as UnschedulableAndUnresolvable without running Filter, which also
// keeps preemption from considering them. The result merges with other
// plugins' results, so a conflicting NodeAffinity matchFields empties it.
func (pl *NodeName) PreFilter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if pod.Spec.NodeName != "" {
		return &framework.PreFilterResult{NodeNames: sets.New(pod.Spec.NodeName)}, nil
	}
	return nil, nil
}

// PreFilterExtensions: the result does not depend on other pods.
func (pl *NodeName) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects every node but the named one.
func (pl *NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !Fits(pod, nodeInfo) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod names no node or names this one. A NodeInfo
// without a node has the name "" and so only fits pods that name none.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	return len(pod.Spec.NodeName) == 0 || pod.Spec.NodeName == nodeInfo.Name()
}

// NodeLocal: Filter reads the pod's spec.nodeName and the node's name.
func (pl *NodeName) NodeLocal() bool { return true }
