package queue

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
)

// Labels of the queue's own events (pkg/scheduler/framework/events.go).
const (
	ScheduleAttemptFailure = "ScheduleAttemptFailure"
	BackoffComplete        = "BackoffComplete"
	PopFromBackoffQ        = "PopFromBackoffQ"
	ForceActivate          = "ForceActivate"
	UnschedulableTimeout   = "UnschedulableTimeout"
)

// The cluster events the scheduler's event handlers emit.
var (
	EventAssignedPodAdd       = framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add}
	EventAssignedPodUpdate    = framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Update}
	EventAssignedPodDelete    = framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}
	EventUnscheduledPodAdd    = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}
	EventUnscheduledPodUpdate = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Update}
	EventUnscheduledPodDelete = framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Delete}
	EventNodeAdd              = framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}
	EventNodeDelete           = framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Delete}
	EventPodGroupAdd          = framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Add}
	EventPodGroupUpdate       = framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Update}
	EventPodGroupDelete       = framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Delete}
	// CompositePodGroup's informer events (CompositePodGroup on).
	EventCompositePodGroupAdd    = framework.ClusterEvent{Resource: framework.CompositePodGroup, ActionType: framework.Add}
	EventCompositePodGroupUpdate = framework.ClusterEvent{Resource: framework.CompositePodGroup, ActionType: framework.Update}
	EventCompositePodGroupDelete = framework.ClusterEvent{Resource: framework.CompositePodGroup, ActionType: framework.Delete}
	// EventUnschedulableTimeout is the wildcard event of the leftover flush.
	EventUnschedulableTimeout = framework.ClusterEvent{Resource: framework.WildCard, ActionType: framework.All, CustomLabel: UnschedulableTimeout}
	// EventForceActivate is the wildcard event Activate records for an
	// in-flight pod (targeted at that pod through newObj).
	EventForceActivate = framework.ClusterEvent{Resource: framework.WildCard, ActionType: framework.All, CustomLabel: ForceActivate}
)

// IsWildCard reports the wildcard event (every resource, every action).
func IsWildCard(ce framework.ClusterEvent) bool {
	return ce.Resource == framework.WildCard && ce.ActionType == framework.All
}

// MatchClusterEvents reports whether the incoming event is the registered
// one or more specific: the registered resource is the same, "*", or Pod
// for one of its three flavours, and the incoming action is a subset of
// the registered action bits. A wildcard incoming event matches only a
// wildcard registration.
func MatchClusterEvents(registered, incoming framework.ClusterEvent) bool {
	return IsWildCard(registered) ||
		matchEventResources(registered.Resource, incoming.Resource) &&
			registered.ActionType&incoming.ActionType != 0 &&
			incoming.ActionType <= registered.ActionType
}

func matchEventResources(r, in framework.EventResource) bool {
	return r == framework.WildCard || r == in ||
		r == framework.Pod && (in == framework.AssignedPod || in == framework.UnscheduledPod || in == framework.TargetPod)
}

// matchAny reports whether incoming matches any of the registered events.
func matchAny(incoming framework.ClusterEvent, registered []framework.ClusterEvent) bool {
	for _, r := range registered {
		if MatchClusterEvents(r, incoming) {
			return true
		}
	}
	return false
}

// unrollPodEvent splits a Pod registration into its three flavours, as the
// hint map does.
func unrollPodEvent(e framework.ClusterEvent) []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: e.ActionType, CustomLabel: e.CustomLabel},
		{Resource: framework.UnscheduledPod, ActionType: e.ActionType, CustomLabel: e.CustomLabel},
		{Resource: framework.TargetPod, ActionType: e.ActionType, CustomLabel: e.CustomLabel},
	}
}

// PodSchedulingPropertiesChange turns a pod update into the events the
// scheduler's handlers emit: AssignedPod when the new pod has a node, else
// TargetPod for the pod being requeued or UnscheduledPod for the others;
// one event per property that changed, in upstream's extractor order, or a
// generic Update when none did.
//
// The scale events count status resources as the InPlacePodVerticalScaling
// and InPlacePodLevelResourcesVerticalScaling gates say.
func PodSchedulingPropertiesChange(newPod, oldPod *v1.Pod, isTarget bool, gates features.Features) []framework.ClusterEvent {
	r := framework.UnscheduledPod
	switch {
	case newPod.Spec.NodeName != "":
		r = framework.AssignedPod
	case isTarget:
		r = framework.TargetPod
	}
	var events []framework.ClusterEvent
	opts := resource.PodResourcesOptions{
		UseStatusResources: gates.EnableInPlacePodVerticalScaling,
		InPlacePodLevelResourcesVerticalScalingEnabled: gates.EnableInPlacePodLevelResourcesVerticalScaling,
	}
	podScaleDown := func(n, o *v1.Pod) framework.ActionType { return podScaleDown(n, o, opts) }
	podScaleUp := func(n, o *v1.Pod) framework.ActionType { return podScaleUp(n, o, opts) }
	for _, fn := range []func(n, o *v1.Pod) framework.ActionType{
		podLabelsChange, podScaleDown, podScaleUp, podSchedulingGatesEliminated, podTolerationChange,
		// DynamicResourceAllocation is GA and locked on in 1.37.
		podGeneratedResourceClaimChange,
	} {
		if a := fn(newPod, oldPod); a != framework.None {
			events = append(events, framework.ClusterEvent{Resource: r, ActionType: a})
		}
	}
	if len(events) == 0 {
		events = append(events, framework.ClusterEvent{Resource: r, ActionType: framework.Update})
	}
	return events
}

func podScaleDown(newPod, oldPod *v1.Pod, requestOpts resource.PodResourcesOptions) framework.ActionType {
	newReq, oldReq := resource.PodRequests(newPod, requestOpts), resource.PodRequests(oldPod, requestOpts)
	for name, o := range oldReq {
		n, ok := newReq[name]
		if !ok || o.MilliValue() > n.MilliValue() {
			return framework.UpdatePodScaleDown
		}
	}
	return framework.None
}

func podScaleUp(newPod, oldPod *v1.Pod, requestOpts resource.PodResourcesOptions) framework.ActionType {
	newReq, oldReq := resource.PodRequests(newPod, requestOpts), resource.PodRequests(oldPod, requestOpts)
	for name, n := range newReq {
		o, ok := oldReq[name]
		if !ok || n.MilliValue() > o.MilliValue() {
			return framework.UpdatePodScaleUp
		}
	}
	return framework.None
}

func podLabelsChange(newPod, oldPod *v1.Pod) framework.ActionType {
	if !equality.Semantic.DeepEqual(newPod.Labels, oldPod.Labels) {
		return framework.UpdatePodLabel
	}
	return framework.None
}

// Tolerations can only be added (API validation), so a length change is
// every change.
func podTolerationChange(newPod, oldPod *v1.Pod) framework.ActionType {
	if len(newPod.Spec.Tolerations) != len(oldPod.Spec.Tolerations) {
		return framework.UpdatePodToleration
	}
	return framework.None
}

func podSchedulingGatesEliminated(newPod, oldPod *v1.Pod) framework.ActionType {
	if len(newPod.Spec.SchedulingGates) == 0 && len(oldPod.Spec.SchedulingGates) != 0 {
		return framework.UpdatePodSchedulingGatesEliminated
	}
	return framework.None
}

func podGeneratedResourceClaimChange(newPod, oldPod *v1.Pod) framework.ActionType {
	if !claimStatusesEqual(newPod.Status.ResourceClaimStatuses, oldPod.Status.ResourceClaimStatuses) ||
		!extendedClaimStatusEqual(newPod.Status.ExtendedResourceClaimStatus, oldPod.Status.ExtendedResourceClaimStatus) {
		return framework.UpdatePodGeneratedResourceClaim
	}
	return framework.None
}

func claimStatusesEqual(a, b []v1.PodResourceClaimStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !strPtrEqual(a[i].ResourceClaimName, b[i].ResourceClaimName) {
			return false
		}
	}
	return true
}

func extendedClaimStatusEqual(a, b *v1.PodExtendedResourceClaimStatus) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.ResourceClaimName == b.ResourceClaimName && slices.Equal(a.RequestMappings, b.RequestMappings)
}

func strPtrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// NodeSchedulingPropertiesChange turns a node update into one event per
// property that changed, in upstream's extractor order; nothing relevant
// changed means no event at all. A change of declared features is an
// event only with the NodeDeclaredFeatures gate.
func NodeSchedulingPropertiesChange(newNode, oldNode *v1.Node, gates features.Features) []framework.ClusterEvent {
	var events []framework.ClusterEvent
	extractors := []func(n, o *v1.Node) framework.ActionType{
		nodeSpecUnschedulableChange, nodeAllocatableChange, nodeLabelsChange, nodeTaintsChange,
		nodeConditionsChange, nodeAnnotationsChange, nodePreemptionPolicyChange,
	}
	if gates.EnableNodeDeclaredFeatures {
		extractors = append(extractors, nodeFeaturesChange)
	}
	for _, fn := range extractors {
		if a := fn(newNode, oldNode); a != framework.None {
			events = append(events, framework.ClusterEvent{Resource: framework.Node, ActionType: a})
		}
	}
	return events
}

// Only unschedulable true→false is an event (as a taint change): a node
// becoming unschedulable cannot make any pending pod schedulable.
func nodeSpecUnschedulableChange(newNode, oldNode *v1.Node) framework.ActionType {
	if newNode.Spec.Unschedulable != oldNode.Spec.Unschedulable && !newNode.Spec.Unschedulable {
		return framework.UpdateNodeTaint
	}
	return framework.None
}

func nodeAllocatableChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !equality.Semantic.DeepEqual(oldNode.Status.Allocatable, newNode.Status.Allocatable) {
		return framework.UpdateNodeAllocatable
	}
	return framework.None
}

func nodeLabelsChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !equality.Semantic.DeepEqual(newNode.Labels, oldNode.Labels) {
		return framework.UpdateNodeLabel
	}
	return framework.None
}

func nodeTaintsChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !equality.Semantic.DeepEqual(newNode.Spec.Taints, oldNode.Spec.Taints) {
		return framework.UpdateNodeTaint
	}
	return framework.None
}

// Only condition statuses count: heartbeat times change constantly.
func nodeConditionsChange(newNode, oldNode *v1.Node) framework.ActionType {
	strip := func(cs []v1.NodeCondition) map[v1.NodeConditionType]v1.ConditionStatus {
		m := make(map[v1.NodeConditionType]v1.ConditionStatus, len(cs))
		for i := range cs {
			m[cs[i].Type] = cs[i].Status
		}
		return m
	}
	if !equality.Semantic.DeepEqual(strip(oldNode.Status.Conditions), strip(newNode.Status.Conditions)) {
		return framework.UpdateNodeCondition
	}
	return framework.None
}

func nodeAnnotationsChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !equality.Semantic.DeepEqual(oldNode.Annotations, newNode.Annotations) {
		return framework.UpdateNodeAnnotation
	}
	return framework.None
}

func nodePreemptionPolicyChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !equality.Semantic.DeepEqual(oldNode.Spec.PodPreemptionPolicy, newNode.Spec.PodPreemptionPolicy) {
		return framework.UpdateNodePreemptionPolicy
	}
	return framework.None
}

func nodeFeaturesChange(newNode, oldNode *v1.Node) framework.ActionType {
	if !slices.Equal(oldNode.Status.DeclaredFeatures, newNode.Status.DeclaredFeatures) {
		return framework.UpdateNodeDeclaredFeature
	}
	return framework.None
}
