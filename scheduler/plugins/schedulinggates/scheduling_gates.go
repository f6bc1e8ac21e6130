// Package schedulinggates is upstream's SchedulingGates plugin: a pod that
// still carries spec.schedulingGates is held out of activeQ at PreEnqueue.
package schedulinggates

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.SchedulingGates

// SchedulingGates gates pods with spec.schedulingGates.
type SchedulingGates struct{}

var (
	_ framework.PreEnqueuePlugin  = &SchedulingGates{}
	_ framework.EnqueueExtensions = &SchedulingGates{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	return &SchedulingGates{}, nil
}

// Name returns the plugin's name.
func (pl *SchedulingGates) Name() string { return Name }

// PreEnqueue rejects a gated pod with the gate names in spec order, printed
// as a Go slice ("[a b]") because that is how upstream formats the reason.
func (pl *SchedulingGates) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	if pod == nil || len(pod.Spec.SchedulingGates) == 0 {
		return nil
	}
	gates := make([]string, 0, len(pod.Spec.SchedulingGates))
	for _, g := range pod.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for scheduling gates: %v", gates))
}

// EventsToRegister: only the removal of the pod's last gate can ungate it.
func (pl *SchedulingGates) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodSchedulingGatesEliminated},
			QueueingHintFn: pl.isSchedulableAfterGatesEliminated,
		},
	}, nil
}

// The event itself means the gates are gone, so there is nothing left to
// check: upstream always queues.
func (pl *SchedulingGates) isSchedulableAfterGatesEliminated(_ *v1.Pod, _, _ any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}
