// Package gangscheduling is upstream's GangScheduling plugin (GenericWorkload):
// all-or-nothing scheduling for the pods of a PodGroup with a gang policy.
// PreEnqueue holds a gang's pods until minCount of them exist (and any
// member whose PodGroup is missing); PlacementFeasible tells the pod-group
// cycle whether minCount can still be met; Permit holds each member until
// minCount are assumed. With CompositePodGroup a PodGroup may belong to a
// hierarchy of CompositePodGroups: a composite gang needs minGroupCount of
// its children ready (PreEnqueue: each child's pods exist; Permit: each
// child's pods are scheduled), and PlacementFeasible counts children.
package gangscheduling

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
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
// With CompositePodGroup, a CompositePodGroup added may complete a
// member's hierarchy, and "the member's group" is any group of its
// hierarchy.
func (pl *GangScheduling) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	events := []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodAdded},
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterPodGroupAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Update}, QueueingHintFn: pl.isSchedulableAfterPodGroupUpdated},
	}
	if pl.compositeEnabled() {
		events = append(events, framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.CompositePodGroup, ActionType: framework.Add}, QueueingHintFn: pl.isSchedulableAfterCompositePodGroupAdded})
	}
	return events, nil
}

func (pl *GangScheduling) compositeEnabled() bool {
	return pl.handle.Features().EnableCompositePodGroup
}

// sameHierarchy is areSameHierarchy: without the gate, the pod's own
// PodGroup; with it, any group whose root is the root of the pod's
// PodGroup (both observed).
func (pl *GangScheduling) sameHierarchy(pod *v1.Pod, target framework.GroupRef) bool {
	own := framework.GroupRef{Namespace: pod.Namespace, Name: framework.PodGroupNameOf(pod)}
	if !pl.compositeEnabled() {
		return own == target
	}
	objs := pl.handle.Objects()
	r1, ok1, err := framework.GroupRoot(objs, true, own)
	if err != nil || !ok1 {
		return false
	}
	r2, ok2, err := framework.GroupRoot(objs, true, target)
	if err != nil || !ok2 {
		return false
	}
	return r1 == r2
}

func (pl *GangScheduling) isSchedulableAfterCompositePodGroupAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	added, ok := newObj.(*schedulingv1alpha3.CompositePodGroup)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object type %T, expected *v1alpha3.CompositePodGroup", newObj)
	}
	if framework.PodGroupNameOf(pod) == "" {
		return framework.QueueSkip, nil
	}
	if pl.sameHierarchy(pod, framework.GroupRef{Composite: true, Namespace: added.Namespace, Name: added.Name}) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func (pl *GangScheduling) isSchedulableAfterPodAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	added, ok := newObj.(*v1.Pod)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object type %T, expected *v1.Pod", newObj)
	}
	if framework.PodGroupNameOf(pod) == "" || framework.PodGroupNameOf(added) == "" {
		return framework.QueueSkip, nil
	}
	if pl.sameHierarchy(pod, framework.GroupRef{Namespace: added.Namespace, Name: framework.PodGroupNameOf(added)}) {
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
	if pl.sameHierarchy(pod, framework.GroupRef{Namespace: added.Namespace, Name: added.Name}) {
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
	if framework.PodGroupNameOf(pod) == "" || !pl.sameHierarchy(pod, framework.GroupRef{Namespace: newPG.Namespace, Name: newPG.Name}) {
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
// member until minCount of the gang's pods exist; in a hierarchy, until
// the root's tree meets its quorum.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	name := framework.PodGroupNameOf(pod)
	if name == "" {
		return nil
	}
	if pl.compositeEnabled() {
		return pl.preEnqueueWithHierarchies(pod, name)
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

// hierarchyError is BuildHierarchySnapshotFromPod's error: the pod's
// PodGroup, then each CompositePodGroup up to the root, must be observed.
func (pl *GangScheduling) hierarchyError(pod *v1.Pod, name string) error {
	objs := pl.handle.Objects()
	pg, err := objs.PodGroup(pod.Namespace, name)
	if err != nil {
		return fmt.Errorf("pod group object not found in state for %s", framework.GroupRef{Namespace: pod.Namespace, Name: name})
	}
	parent := framework.ParentOfPodGroup(pg)
	for range maxTreeDepth - 1 {
		if parent == "" {
			return nil
		}
		ref := framework.GroupRef{Composite: true, Namespace: pod.Namespace, Name: parent}
		cpg, err := objs.CompositePodGroup(pod.Namespace, parent)
		if err != nil {
			if len(framework.GroupChildren(objs, pod.Namespace, parent)) > 0 {
				return fmt.Errorf("composite pod group object not found in state for %s", ref)
			}
			return fmt.Errorf("parent composite pod group state not found for %s", ref)
		}
		parent = framework.ParentOfCompositePodGroup(cpg)
	}
	return nil
}

// maxTreeDepth is upstream's WorkloadMaxTreeDepth.
const maxTreeDepth = 4

func (pl *GangScheduling) preEnqueueWithHierarchies(pod *v1.Pod, name string) *framework.Status {
	if err := pl.hierarchyError(pod, name); err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("failed to build hierarchy snapshot: %v", err))
	}
	pg, _ := pl.handle.Objects().PodGroup(pod.Namespace, name)
	allPods := func(s *framework.PodGroupState) int { return s.AllPodsCount() }
	parent := framework.ParentOfPodGroup(pg)
	if parent == "" {
		if framework.PodGroupReady(pl.handle, pod.Namespace, name, allPods) {
			return nil
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgWaitingForMinCount)
	}
	root, st := pl.hierarchyRoot(pod.Namespace, parent)
	if st != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, st.Error())
	}
	if !framework.TreeReady(pl.handle, root.Namespace, root.Name, allPods) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(msgWaitingForTreeQuorum, root.Name))
	}
	return nil
}

// msgWaitingForTreeQuorum is upstream's, with the root's name.
const msgWaitingForTreeQuorum = "waiting for composite pod group %q tree to meet quorum"

// hierarchyRoot is checkCPGHierarchyReadiness's root lookup from the
// CompositePodGroup name.
func (pl *GangScheduling) hierarchyRoot(namespace, name string) (framework.GroupRef, error) {
	ref := framework.GroupRef{Composite: true, Namespace: namespace, Name: name}
	root, ok, err := framework.GroupRoot(pl.handle.Objects(), true, ref)
	if err != nil {
		return root, err
	}
	if !ok {
		return root, fmt.Errorf("failed to build hierarchy snapshot: composite pod group object not found in state for %s", ref)
	}
	return root, nil
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
	if pl.compositeEnabled() {
		if err := pl.hierarchyError(pod, name); err != nil {
			return framework.AsStatus(fmt.Errorf("failed to build hierarchy snapshot: %w", err)), 0
		}
	}
	pg, err := pl.handle.Objects().PodGroup(pod.Namespace, name)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", pod.Namespace, name, err)), 0
	}
	if parent := framework.ParentOfPodGroup(pg); pl.compositeEnabled() && parent != "" {
		// permitPodForHierarchy: the root's tree, counting scheduled pods.
		root, err := pl.hierarchyRoot(pod.Namespace, parent)
		if err != nil {
			return framework.AsStatus(err), 0
		}
		if !framework.TreeReady(pl.handle, root.Namespace, root.Name, (*framework.PodGroupState).ScheduledPodsCount) {
			return framework.NewStatus(framework.Wait, fmt.Sprintf(msgWaitingForTreeQuorum, root.Name)), permitTimeoutDuration
		}
		return nil, 0
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
