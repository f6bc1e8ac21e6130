package tui

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
)

// TestObservedTallyReadsNewEventsOnly: the status line's tally reads each
// event about once over a long session, though compaction moves the
// timeline's positions under it every few attempts; it used to count
// again from the start after each compaction.
func TestObservedTallyReadsNewEventsOnly(t *testing.T) {
	e := demoBackend(t).engine
	if err := e.SetRetention(engine.Retention{Detailed: 5, Sliding: true}, 8, 3); err != nil {
		t.Fatal(err)
	}
	e.Continue(nil)
	pod := func(i int) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("churn-%d", i), UID: types.UID(fmt.Sprintf("churn-%d", i))},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{Name: "c",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("10m")}}}}}}
	}
	var tally observedTally
	compactions, dropped := 0, 0
	for i := range 400 {
		if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: pod(i)}); err != nil {
			t.Fatal(err)
		}
		if i >= 10 {
			if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod(fmt.Sprintf("default/churn-%d", i-10))}); err != nil {
				t.Fatal(err)
			}
		}
		e.Continue(nil)
		l := e.Timeline()
		if l.Dropped() > dropped {
			compactions, dropped = compactions+1, l.Dropped()
		}
		tally.count(l)
	}
	if compactions < 10 {
		t.Fatalf("%d compactions: the test does not exercise them", compactions)
	}
	total := e.Timeline().Dropped() + e.Timeline().Len()
	if tally.read > 2*total {
		t.Errorf("the tally read %d events over a run of %d (%d compactions): it counted again from the start", tally.read, total, compactions)
	}
}
