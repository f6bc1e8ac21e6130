package engine

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TestPodGroupPreemptionActuation: a pod group's preemption decision (the
// cluster-wide candidate PodGroupPostFilter records) is carried out as
// upstream's executor does it for a group: the PodGroup is held back by
// its UID until the API calls are made, each victim gets the
// DisruptionTarget condition naming a podgroup and terminates after its
// grace period, and the event names the PodGroup's UID and the "cluster"
// candidate (whose lower-priority nominations upstream's executor looks
// up under that name: none).
func TestPodGroupPreemptionActuation(t *testing.T) {
	e := load(t, listHeader+nodeYAML("n1", "2", "")+podYAML("victim", "2", 0, `    nodeName: n1
    terminationGracePeriodSeconds: 60
`), Options{PreemptionAPIDelay: time.Second})
	prio := int32(100)
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "default", UID: "uid-pg-train"}}
	pg.Spec.Priority = &prio
	member := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default", UID: "uid-worker-0"},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName}}
	group := &framework.PodGroupInfo{Namespace: "default", Name: "train", PodGroup: pg, UnscheduledPods: []*v1.Pod{member}}
	rec := &record.Preemption{Eligible: true, Chosen: 0, Candidates: []record.Candidate{{Node: "cluster",
		Victims: []record.Victim{{Pod: "default/victim", Node: "n1", Priority: 0}}}}}

	e.onPreemption(scheduler.PodGroupPreemptor(group), rec)
	e.actuateSyncDecision()
	e.preemptionDecided("default/train", []string{"default/victim"}, "pod group preemption: found a placement for podgroup, preempting 1 victims")
	if !e.preempting["uid-pg-train"] {
		t.Error("the PodGroup is not held back while the API calls are pending")
	}
	if pe := findEvents(e, history.EventPreemption, "default/train"); len(pe) != 1 || pe[0].Node != "cluster" {
		t.Errorf("preemption events %+v", pe)
	}

	e.RunUntil(30 * time.Second)
	if e.preempting["uid-pg-train"] {
		t.Error("the PodGroup is still held back once its victims are being deleted")
	}
	v := e.Pod("default/victim")
	if v == nil || v.DeletionTimestamp == nil || !v.DeletionTimestamp.Time.Equal(scheduler.Epoch.Add(61*time.Second)) {
		t.Fatalf("victim: %+v", v)
	}
	if cond := disruptionTarget(v); cond == nil || cond.Reason != v1.PodReasonPreemptionByScheduler ||
		cond.Message != "default-scheduler: preempting to accommodate a higher priority podgroup" {
		t.Errorf("DisruptionTarget condition %+v", cond)
	}
	var preempted []history.Event
	for _, ev := range findEvents(e, history.EventCluster, "default/victim") {
		if ev.Reason == "Preempted" {
			preempted = append(preempted, ev)
		}
	}
	if len(preempted) != 1 || preempted[0].Message != "Preempted by podgroup uid-pg-train on node cluster" || preempted[0].Preemptor != "default/train" {
		t.Errorf("Preempted events %+v", preempted)
	}
	if len(rec.NominatedPodsCleared) != 0 {
		t.Errorf("nominations cleared: %v", rec.NominatedPodsCleared)
	}

	e.RunUntil(time.Minute + 2*time.Second)
	ev := findEvents(e, history.EventEviction, "default/victim")
	if len(ev) != 1 || ev[0].Preemptor != "default/train" || !ev[0].Time.Equal(scheduler.Epoch.Add(61*time.Second)) {
		t.Errorf("eviction %+v", ev)
	}
}
