package engine

import (
	"slices"
	"testing"

	"github.com/schedtui/schedtui/scheduler/history"
)

// TestHistories checks the demo's pod histories against the run: web-3
// fails first and is scheduled once its preemption victims leave,
// gated-job is never attempted, and every attempt is in exactly one
// history.
func TestHistories(t *testing.T) {
	e := demo(t, Options{})
	e.RunToQuiescence()
	hs := e.Histories()
	seen := 0
	byPod := map[string]history.PodHistory{}
	for i, h := range hs {
		if i > 0 && hs[i-1].Pod >= h.Pod {
			t.Errorf("histories not sorted: %s before %s", hs[i-1].Pod, h.Pod)
		}
		byPod[h.Pod] = h
		for n, a := range h.Attempts {
			seen++
			if a.N != n+1 || e.Attempts().At(a.Index) != a.Attempt || a.Attempt.Pod != h.Pod {
				t.Errorf("%s: attempt %d is %+v", h.Pod, n+1, a)
			}
		}
	}
	if seen != e.Attempts().Len() {
		t.Errorf("%d attempts in histories, %d in the run", seen, e.Attempts().Len())
	}
	web3 := byPod["default/web-3"]
	if len(web3.Attempts) != 2 || web3.Attempts[0].Attempt.Outcome.String() != "Unschedulable" || web3.Last().Attempt.Node != "node-b2" {
		t.Fatalf("web-3: %+v", web3)
	}
	if !slices.Equal(web3.Attempts[0].Events, []string{"UnscheduledPodAdd"}) || len(web3.Last().Events) == 0 {
		t.Errorf("web-3 events: %v then %v", web3.Attempts[0].Events, web3.Last().Events)
	}
	if web3.Queue != "" {
		t.Errorf("web-3 is bound but in %s", web3.Queue)
	}
	gated, ok := e.History("default/gated-job")
	if !ok || len(gated.Attempts) != 0 || gated.Last() != nil || gated.Queue != history.Gated || gated.GatingPlugin != "SchedulingGates" {
		t.Errorf("gated-job: %+v", gated)
	}
	if _, ok := e.History("default/no-such-pod"); ok {
		t.Error("a pod that was never queued has a history")
	}
}
