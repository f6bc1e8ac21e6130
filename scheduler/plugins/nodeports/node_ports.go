// Package nodeports is upstream's NodePorts plugin: a pod's host ports must
// be free on the node.
package nodeports

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.NodePorts
	// ErrReason is upstream's Filter reason.
	ErrReason = "node(s) didn't have free ports for the requested pod ports"

	preFilterStateKey framework.StateKey = "PreFilter" + Name
)

// NodePorts checks host-port conflicts.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin   = &NodePorts{}
	_ framework.FilterPlugin      = &NodePorts{}
	_ framework.EnqueueExtensions = &NodePorts{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	return &NodePorts{}, nil
}

// Name returns the plugin's name.
func (pl *NodePorts) Name() string { return Name }

// preFilterState is the pod's wanted host ports.
type preFilterState []v1.ContainerPort

// Clone shares the state: other pods never change what this pod wants.
func (s preFilterState) Clone() framework.StateData { return s }

// hostPorts is framework.HostPorts (regular containers and restartable
// init containers, hostPort > 0), tolerating a nil pod.
func hostPorts(pod *v1.Pod) []v1.ContainerPort {
	if pod == nil {
		return nil
	}
	return framework.HostPorts(pod)
}

// PreFilter Skips pods without host ports; non-sidecar init containers
// finish before the pod runs, so their ports do not count.
func (pl *NodePorts) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	ports := hostPorts(pod)
	if len(ports) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(preFilterStateKey, preFilterState(ports))
	return nil, nil
}

// PreFilterExtensions: the state does not depend on other pods.
func (pl *NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func getPreFilterState(cs *framework.CycleState) (preFilterState, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	c, err := cs.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycleState: %w", preFilterStateKey, err)
	}
	s, ok := c.(preFilterState)
	if !ok {
		return nil, fmt.Errorf("%+v  convert to nodeports.preFilterState error", c)
	}
	return s, nil
}

// Filter rejects (resolvably: freeing a port helps) a node where any
// wanted (ip, protocol, port) conflicts with one in use. Without PreFilter
// state it errors rather than recomputing, as upstream does.
func (pl *NodePorts) Filter(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	wanted, err := getPreFilterState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !fitsPorts(wanted, nodeInfo.UsedPorts) {
		return framework.NewStatus(framework.Unschedulable, ErrReason)
	}
	return nil
}

// Fits reports whether none of the pod's host ports conflicts with the
// node's used ports (0.0.0.0 conflicts with the same protocol/port on any
// IP; empty protocol means TCP).
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	return fitsPorts(hostPorts(pod), nodeInfo.UsedPorts)
}

func fitsPorts(wanted []v1.ContainerPort, inUse framework.HostPortInfo) bool {
	for _, p := range wanted {
		if inUse.CheckConflict(p.HostIP, string(p.Protocol), p.HostPort) {
			return false
		}
	}
	return true
}

// NodeLocal: Filter reads the pod's host ports and the node's used ports.
func (pl *NodePorts) NodeLocal() bool { return true }
