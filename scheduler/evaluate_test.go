package scheduler

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Evaluate changes nothing; Prediction stops at the FitError and is not
// counted, Judgement evaluates preemption and is; a pod no profile
// schedules is Skipped with upstream's message, whichever the evaluation.
func TestEvaluateWithoutEffects(t *testing.T) {
	cpu := func(q string) v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse(q)} }
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("10")}}}
	podOf := func(name string, prio int32, node string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, NodeName: node, Priority: &prio,
				Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: cpu("1")}}}}}
	}
	victim, big := podOf("victim", 0, "n1"), podOf("big", 100, "")
	s, err := New([]*v1.Node{node}, []*v1.Pod{victim, big}, nil, Options{Registry: plugins.NewInTreeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	seq := s.seq

	p := s.Evaluate(big, Prediction)
	if p.Outcome != record.Unschedulable || strings.Contains(p.Message, "preemption") || p.Nominated != "" || s.seq != seq {
		t.Fatalf("prediction: %s %q nominated %q, attempt counter %d → %d", p.Outcome, p.Message, p.Nominated, seq, s.seq)
	}
	j := s.Evaluate(big, Judgement)
	if j.Outcome != record.Unschedulable || !strings.Contains(j.Message, "preemption") || j.Nominated != "n1" || s.seq != seq+1 || j.Seq != seq+1 {
		t.Fatalf("judgement: %s %q nominated %q, attempt %d, counter %d → %d", j.Outcome, j.Message, j.Nominated, j.Seq, seq, s.seq)
	}
	if ni, err := s.Snapshot().Get("n1"); err != nil || len(ni.Pods) != 1 || ni.Pods[0].Pod.DeletionTimestamp != nil {
		t.Fatalf("the victim was touched: %v", err)
	}
	if n := s.Nominator().NominatedNode(big.UID); n != "" {
		t.Fatalf("the preemptor was nominated to %q", n)
	}

	other := podOf("other", 0, "")
	other.Spec.SchedulerName = "other-scheduler"
	for _, how := range []Evaluation{Prediction, Judgement} {
		if a := s.Evaluate(other, how); a.Outcome != record.Skipped || a.Message != `profile not found for scheduler name "other-scheduler"` {
			t.Errorf("evaluation %d of a pod without a profile: %s %q", how, a.Outcome, a.Message)
		}
	}
}
