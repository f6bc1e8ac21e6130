package framework

import (
	"context"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"
)

// PodGroupPostFilterPlugin runs when a pod group's scheduling cycle found
// no placement for the group (GenericWorkload): workload-aware preemption,
// upstream's PodGroupPostFilter extension point. DefaultPreemption is the
// one in-tree plugin that has it.
//
// It returns, as upstream's: Success when the group can be placed once the
// victims are gone (the result's nominations, the victims already handed
// over for deletion) or when an earlier preemption for the group is still
// going on; Unschedulable when preemption cannot help; UnschedulableAndUnresolvable
// when no other PodGroupPostFilter plugin could either; an error status
// otherwise.
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(ctx context.Context, state *CycleState, group PreemptingPodGroup, schedule PodGroupSchedulingFunc) (*PodGroupPostFilterResult, *Status)
}

// PreemptingPodGroup is the pod group a PodGroupPostFilter plugin makes
// room for: upstream's fwk.PodGroupInfo as far as preemption reads it (the
// method names are upstream's). Exactly one of GetPodGroup and
// GetCompositePodGroup is non-nil: the root of the hierarchy being
// scheduled.
type PreemptingPodGroup interface {
	GetPodGroup() *schedulingv1beta1.PodGroup
	GetCompositePodGroup() *schedulingv1alpha3.CompositePodGroup
	// GetUnscheduledPods are the group's members the cycle tried to place,
	// in the cycle's order.
	GetUnscheduledPods() []*v1.Pod
}

// PodGroupSchedulingFunc runs the pod group's scheduling algorithm again on
// the snapshot as the plugin left it (victims removed), with fresh cycle
// states, and returns where each member would go: upstream's
// fwk.PodGroupSchedulingFunc. The status is the root group's.
type PodGroupSchedulingFunc func(ctx context.Context) (*PodGroupAssignments, *Status)

// PodGroupAssignments are the members' proposed nodes, in the order the
// algorithm placed them.
type PodGroupAssignments struct {
	ProposedAssignments []ProposedAssignment
}

// ProposedAssignment is one member's outcome in a PodGroupSchedulingFunc
// run: its node ("" when it found none) and the cycle state its
// PreFilter built, which knew the members placed before it as assumed.
type ProposedAssignment struct {
	PodInfo  *PodInfo
	NodeName string
	State    *CycleState
}

// Pod is the member.
func (a ProposedAssignment) Pod() *v1.Pod { return a.PodInfo.Pod }

// PodGroupPostFilterResult maps members to the node they are nominated to
// (ModeOverride; an empty name clears a nomination).
type PodGroupPostFilterResult struct {
	NominatingInfos map[types.NamespacedName]*NominatingInfo
}
