// Package gangscheduling is upstream's GangScheduling plugin (GenericWorkload):
// all-or-nothing scheduling for the pods of a PodGroup with a gang policy.
// PreEnqueue holds a gang's pods until minCount of them exist (and any
// member whose PodGroup is missing); PlacementFeasible tells the pod-group
// cycle whether minCount can still be met; Permit holds each member until
// minCount are assumed. Without CompositePodGroup (refused by its gate)
// only leaf groups exist.
package gangscheduling

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.GangScheduling

// permitTimeoutDuration is how long a gang's member waits at Permit for
// the quorum.
const permitTimeoutDuration = 5 * time.Minute

// Upstream's messages.
const (
	msgWaitingForMinCount = "waiting for minCount pods from a gang to appear in scheduling queue"
	msgWaitingForQuorum   = "waiting for minCount pods from a gang to be scheduled"
)

// GangScheduling enforces minCount for gang pod groups.
type GangScheduling struct {
	handle framework.Handle
}

var (
	_ framework.PreEnqueuePlugin        = &GangScheduling{}
	_ framework.PermitPlugin            = &GangScheduling{}
	_ framework.PlacementFeasiblePlugin = &GangScheduling{}
	_ framework.EnqueueExtensions       = &GangScheduling{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &GangScheduling{handle: h}, nil
}

// Name returns the plugin's name.
func (pl *GangScheduling) Name() string { return Name }

// EventsToRegister: a pod added (pending or bound) may complete a gang; a
// PodGroup added may be the one its pods wait for; a PodGroup update that
// lowers minCount may let them in. spec.schedulingGroup is immutable, so
// pod updates cannot help.
func (pl *GangScheduling) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodAdded},
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodGroupAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterPodGroupUpdated},
	}, nil
}

func (pl *GangScheduling) isSchedulableAfterPodAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	added, ok := newObj.(*v1.Pod)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object type %T, expected *v1.Pod", newObj)
	}
	if framework.PodGroupNameOf(pod) == "" || framework.PodGroupNameOf(added) == "" {
		return framework.QueueSkip, nil
	}
	if framework.PodGroupKeyOf(pod) == framework.PodGroupKeyOf(added) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func (pl *GangScheduling) isSchedulableAfterPodGroupAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	added, ok := newObj.(*schedulingv1beta1.PodGroup)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object type %T, expected *v1beta1.PodGroup", newObj)
	}
	if framework.PodGroupNameOf(pod) == "" {
		return framework.QueueSkip, nil
	}
	if framework.PodGroupKeyOf(pod) == framework.PodGroupKey(added.Namespace, added.Name) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func (pl *GangScheduling) isSchedulableAfterPodGroupUpdated(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPG, ok1 := oldObj.(*schedulingv1beta1.PodGroup)
	newPG, ok2 := newObj.(*schedulingv1beta1.PodGroup)
	if !ok1 || !ok2 {
		return framework.Queue, fmt.Errorf("unexpected object types %T, %T, expected *v1beta1.PodGroup", oldObj, newObj)
	}
	if framework.PodGroupNameOf(pod) == "" || framework.PodGroupKeyOf(pod) != framework.PodGroupKey(newPG.Namespace, newPG.Name) {
		return framework.QueueSkip, nil
	}
	oldGang, newGang := oldPG.Spec.SchedulingPolicy.Gang, newPG.Spec.SchedulingPolicy.Gang
	// Only a gang whose minCount went down may let its pods in.
	if oldGang == nil || newGang == nil || newGang.MinCount >= oldGang.MinCount {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// PreEnqueue holds a member whose PodGroup does not exist, and a gang's
// member until minCount of the gang's pods exist.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	name := framework.PodGroupNameOf(pod)
	if name == "" {
		return nil
	}
	pg, err := pl.handle.Objects().PodGroup(pod.Namespace, name)
	if err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name))
	}
	gang := pg.Spec.SchedulingPolicy.Gang
	if gang == nil {
		return nil
	}
	if pl.handle.PodGroupState(pod.Namespace, name).AllPodsCount() < int(gang.MinCount) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgWaitingForMinCount)
	}
	return nil
}

// Permit holds a gang's member until minCount of its pods are assumed or
// bound; the member that completes the quorum releases the others.
// Upstream's Permit also activates the gang's unscheduled pods when it
// waits; in a pod-group cycle those are in flight or pending with their
// group, where activation changes nothing.
func (pl *GangScheduling) Permit(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) (*framework.Status, time.Duration) {
	name := framework.PodGroupNameOf(pod)
	if name == "" {
		return nil, 0
	}
	pg, err := pl.handle.Objects().PodGroup(pod.Namespace, name)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", pod.Namespace, name, err)), 0
	}
	gang := pg.Spec.SchedulingPolicy.Gang
	if gang == nil {
		return nil, 0
	}
	if pl.handle.PodGroupState(pod.Namespace, name).ScheduledPodsCount() < int(gang.MinCount) {
		return framework.NewStatus(framework.Wait, msgWaitingForQuorum), permitTimeoutDuration
	}
	return nil, 0
}

// PlacementFeasible enforces minCount in the pod-group cycle: success once
// it is met (or for a basic group), Wait while the remaining members may
// still meet it, Unschedulable when they cannot.
func (pl *GangScheduling) PlacementFeasible(_ context.Context, _ *framework.CycleState, group *framework.PodGroupInfo, progress framework.PlacementProgress) *framework.Status {
	minCount := group.MinCount()
	if progress.Remaining+progress.Scheduled < minCount {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", minCount, progress.Scheduled, progress.Remaining))
	}
	if progress.Scheduled < minCount {
		return framework.NewStatus(framework.Wait, fmt.Sprintf("minCount (%d) is not yet satisfied: %d scheduled, %d remaining", minCount, progress.Scheduled, progress.Remaining))
	}
	return nil
}
