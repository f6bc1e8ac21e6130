package engine

import (
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/history"
)

func gangGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-pg-" + name)},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}}}}
}

// TestWorkloadObjects: the engine's object store holds a snapshot's
// PodGroups and Workloads from the start, and applies the changes of
// PodGroups (added, updated, deleted) as cluster events; a rewind before
// them restores the store's groups.
func TestWorkloadObjects(t *testing.T) {
	cluster := volumeCluster + `- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: train, namespace: default}
  spec: {schedulingPolicy: {gang: {minCount: 2}}}
- apiVersion: scheduling.k8s.io/v1beta1
  kind: Workload
  metadata: {name: train, namespace: default}
  spec: {podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 2}}}]}
`
	e := load(t, cluster, Options{})
	objs := e.Scheduler().Objects()
	minCount := func(name string) int32 {
		t.Helper()
		pg, err := e.Scheduler().Objects().PodGroup("default", name)
		if apierrors.IsNotFound(err) {
			return -1
		}
		if err != nil {
			t.Fatal(err)
		}
		return pg.Spec.SchedulingPolicy.Gang.MinCount
	}
	if minCount("train") != 2 || len(objs.Workloads("default")) != 1 {
		t.Fatalf("initial store: PodGroups %v, Workloads %v", objs.PodGroups(""), objs.Workloads(""))
	}
	if _, ok := e.Step(); !ok {
		t.Fatal("no first attempt")
	}
	mark := e.Timeline().Len()
	changes := []change.Change{
		{Kind: change.ObjectAdd, Object: gangGroup("ps", 1)},
		{Kind: change.ObjectUpdate, Object: gangGroup("train", 3)},
		{Kind: change.ObjectDelete, Object: gangGroup("ps", 1)},
	}
	for _, c := range changes {
		if err := e.Apply(c); err != nil {
			t.Fatalf("Apply(%s): %v", c, err)
		}
	}
	var seen []string
	for _, ev := range eventsSince(e, mark) {
		if ev.Kind == history.EventCluster {
			seen = append(seen, ev.Reason+" "+ev.Object)
		}
	}
	if len(seen) != len(changes) {
		t.Errorf("cluster events %q for %d changes", seen, len(changes))
	}
	if minCount("train") != 3 || minCount("ps") != -1 {
		t.Errorf("after the changes: train minCount %d, ps %d", minCount("train"), minCount("ps"))
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if minCount("train") != 2 || len(e.Scheduler().Objects().Workloads("default")) != 1 {
		t.Errorf("after the rewind: train minCount %d, Workloads %v", minCount("train"), e.Scheduler().Objects().Workloads(""))
	}
}
