package dynamicresources

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// After a failed pod-group cycle, PodGroupPostFilter deallocates each
// member's unavailable claim reserved for nobody, as PostFilter does for a
// pod, and leaves upstream's reason; the writes come off the group's state.
func TestPodGroupPostFilterDeallocatesMembersClaims(t *testing.T) {
	pl, _ := newPlugin(t, nil)
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)}}
	}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "ns"},
		Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{}}}
	w0, w1 := pod("w0"), pod("w1")
	root := framework.NewCycleState()
	for _, p := range []*v1.Pod{w0, w1} {
		cs := framework.NewCycleState()
		cs.SetPodGroupCycle(root)
		s := &stateData{ext: extendedState{index: -1}, unavailable: map[int]bool{}}
		if p == w0 {
			s.claims, s.unavailable[0] = []*resourcev1.ResourceClaim{claim}, true
		}
		joinPodGroupState(cs, p, s)
	}
	group := &framework.PodGroupInfo{Namespace: "ns", Name: "job", PodGroup: &schedulingv1beta1.PodGroup{}, UnscheduledPods: []*v1.Pod{w0, w1}}
	_, st := pl.PodGroupPostFilter(context.Background(), root, group, nil)
	if st.Code() != framework.Unschedulable || st.Message() != "deallocation and deletion of ResourceClaims completed" {
		t.Errorf("status %v %q", st.Code(), st.Message())
	}
	writes := pl.TakeClaimWrites(root)
	if len(writes) != 1 || writes[0].Name != "gpu" || writes[0].Status.Allocation != nil {
		t.Fatalf("writes: %+v", writes)
	}
	// No member state (no PreFilter ran): upstream's read error.
	if _, st := pl.PodGroupPostFilter(context.Background(), framework.NewCycleState(), group, nil); !st.IsError() {
		t.Errorf("without the group's state: %v", st)
	}
}
