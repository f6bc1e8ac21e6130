package dynamicresources

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// podGroupStateData is the plugin's part of a pod-group cycle's state
// (upstream's podGroupStateData without the PodGroup claims of
// DRAWorkloadResourceClaims): each member's state, in the order the cycle
// tried them.
type podGroupStateData struct {
	members []*stateData
	pods    []*v1.Pod
}

// Clone shares the state, as upstream.
func (d *podGroupStateData) Clone() framework.StateData { return d }

// member is the state of the member named as pod, nil if it has none.
func (d *podGroupStateData) member(pod *v1.Pod) *stateData {
	for i, p := range d.pods {
		if p.Namespace == pod.Namespace && p.Name == pod.Name {
			return d.members[i]
		}
	}
	return nil
}

func getPodGroupStateData(cs *framework.CycleState) (*podGroupStateData, error) {
	v, err := cs.Read(stateKey)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*podGroupStateData)
	if !ok {
		return nil, errors.New("state is not podGroupStateData")
	}
	return d, nil
}

// joinPodGroupState records a member's state in its pod-group cycle's
// state (a member tried again, in another placement, replaces its own).
func joinPodGroupState(cs *framework.CycleState, pod *v1.Pod, s *stateData) {
	root := cs.PodGroupCycle()
	if root == nil {
		return
	}
	d, err := getPodGroupStateData(root)
	if err != nil {
		d = &podGroupStateData{}
		root.Write(stateKey, d)
	}
	for i, p := range d.pods {
		if p.Namespace == pod.Namespace && p.Name == pod.Name {
			d.members[i] = s
			return
		}
	}
	d.pods = append(d.pods, pod)
	d.members = append(d.members, s)
}

var _ framework.PodGroupPostFilterPlugin = &DynamicResources{}

// PodGroupPostFilter is upstream's: after a pod-group cycle failed, each
// member's unavailable claims are dealt with as PostFilter deals with a
// pod's (one deallocated, or a stale special claim deleted); the group
// stays unschedulable, with upstream's reason. Not for groups with
// topology constraints under TopologyAwareWorkloadScheduling.
func (pl *DynamicResources) PodGroupPostFilter(_ context.Context, state *framework.CycleState, group *framework.PodGroupInfo, _ framework.PodGroupSchedulingFunc) (*framework.PodGroupPostFilterResult, *framework.Status) {
	if !pl.enabled {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	if pl.fts.EnableTopologyAwareWorkloadScheduling && group.PodGroup != nil && group.PodGroup.Spec.SchedulingConstraints != nil {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	d, err := getPodGroupStateData(state)
	if err != nil {
		// No member's PreFilter ran: upstream's read error.
		return nil, framework.AsStatus(err)
	}
	for _, pod := range group.UnscheduledPods {
		s := d.member(pod)
		if s == nil {
			continue
		}
		if _, st := pl.deallocateOrDeletePodClaims(pod, s); st.IsError() {
			return nil, st
		}
	}
	return nil, framework.NewStatus(framework.Unschedulable, "deallocation and deletion of ResourceClaims completed")
}
