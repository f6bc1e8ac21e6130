package upstream

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

func inGroup(group string) podOpt {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group} }
}

func gang(name string, minCount int32) *schedulingv1beta1.PodGroup {
	prio := int32(0)
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("pg-" + name), Generation: 1}}
	pg.Spec.Priority = &prio
	pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	return pg
}

func runQueue(t *testing.T, c *snapshot.Cluster, late ...*schedulingv1beta1.PodGroup) QueueRun {
	t.Helper()
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{"GenericWorkload": true})
	var objs []runtime.Object
	for _, pg := range late {
		objs = append(objs, pg)
	}
	got, err := RunQueue(context.Background(), c, nil, objs, time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatalf("RunQueue: %v", err)
	}
	for _, cy := range got.Cycles {
		b, _ := json.Marshal(cy)
		t.Logf("%s", b)
	}
	return got
}

// TestRunQueueGangs pins what the harness sees upstream do with groups:
// a gang that fits binds whole; a gang too big fails whole, its first
// member with its own FitError (its node verdicts), the member never
// tried with the group's message, and comes back from the backoff queue
// at 2s, 5s and 10s; a lone pod schedules between them; a PodGroup
// created late lets its pod schedule; the pod of a missing PodGroup is
// never attempted.
func TestRunQueueGangs(t *testing.T) {
	c := &snapshot.Cluster{
		Nodes:     []*v1.Node{node("node-a", "4", "8Gi"), node("node-b", "4", "8Gi"), node("node-c", "4", "8Gi")},
		PodGroups: []*schedulingv1beta1.PodGroup{gang("fits", 3), gang("too-big", 2)},
		Pods: []*v1.Pod{
			pod("fits-0", "3", "1Gi", inGroup("fits")),
			pod("fits-1", "3", "1Gi", inGroup("fits")),
			pod("fits-2", "3", "1Gi", inGroup("fits")),
			pod("too-big-0", "3", "1Gi", inGroup("too-big")),
			pod("too-big-1", "3", "1Gi", inGroup("too-big")),
			pod("ghost-0", "100m", "1Gi", inGroup("ghost")),
			pod("late-0", "100m", "1Gi", inGroup("late")),
			pod("lone", "500m", "1Gi"),
		},
	}
	got := runQueue(t, c, gang("late", 1))
	const notTried = "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
	cpuShort := record.FilterJSON{Plugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}}
	tooBig := Cycle{Group: "default/too-big", Members: []Member{
		{Pod: "default/too-big-0", Outcome: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu.", Filter: map[string]record.FilterJSON{
			"node-a": cpuShort, "node-b": cpuShort, "node-c": cpuShort}},
		{Pod: "default/too-big-1", Outcome: "Unschedulable", Message: notTried},
	}, Victims: []string{}}
	at := func(s int, c Cycle) Cycle { c.At = s; return c }
	want := []Cycle{
		{Group: "default/fits", Members: []Member{
			{Pod: "default/fits-0", Outcome: "Scheduled", Node: "node-a"},
			{Pod: "default/fits-1", Outcome: "Scheduled", Node: "node-b"},
			{Pod: "default/fits-2", Outcome: "Scheduled", Node: "node-c"},
		}, Victims: []string{}},
		tooBig,
		{Members: []Member{{Pod: "default/lone", Outcome: "Scheduled", Node: "node-a"}}, Victims: []string{}},
		{Group: "default/late", Members: []Member{{Pod: "default/late-0", Outcome: "Scheduled", Node: "node-b"}}, Victims: []string{}},
		at(2, tooBig), at(5, tooBig), at(10, tooBig),
	}
	if g, w := mustJSON(t, got.Cycles), mustJSON(t, want); g != w {
		t.Errorf("cycles:\n got %s\nwant %s", g, w)
	}
	wantWrites := []string{
		"default/fits: True Scheduled: ",
		"default/too-big: False Unschedulable: " + notTried + ", pod group preemption: No preemption victims found for incoming preemptor",
		"default/late: True Scheduled: ",
	}
	if g, w := mustJSON(t, got.Writes), mustJSON(t, wantWrites); g != w {
		t.Errorf("PodGroup writes:\n got %s\nwant %s", g, w)
	}
	if s := got.Pods["default/ghost-0"]; s.Scheduled.Type != "" || s.Node != "" {
		t.Errorf("the pod of a missing PodGroup was attempted: %+v", s)
	}
	if s := got.Pods["default/too-big-0"].Scheduled; s.Reason != "Unschedulable" || s.Message != "0/3 nodes are available: 3 Insufficient cpu." {
		t.Errorf("too-big-0's PodScheduled condition is %+v", s)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
