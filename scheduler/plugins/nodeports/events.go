package nodeports

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
)

// EventsToRegister: a deleted assigned pod may free ports; a new node has
// all ports free (no hint: always Queue). Pod updates are ignored because
// container ports are immutable.
func (pl *NodePorts) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, QueueingHintFn: pl.isSchedulableAfterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}, nil
}

// Queue only when the deleted pod was bound or nominated and released a
// port conflicting with one the rejected pod wants.
func (pl *NodePorts) isSchedulableAfterAssignedPodDeleted(pod *v1.Pod, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*v1.Pod](oldObj, nil)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil {
		return framework.Queue, errors.New("no deleted pod in the event")
	}
	if deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	ports := hostPorts(deleted)
	if len(ports) == 0 {
		return framework.QueueSkip, nil
	}
	freed := make(framework.HostPortInfo, len(ports))
	for _, p := range ports {
		freed.Add(p.HostIP, string(p.Protocol), p.HostPort)
	}
	if fitsPorts(hostPorts(pod), freed) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
