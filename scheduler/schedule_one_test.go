package scheduler

import (
	"container/heap"
	"testing"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestNumFeasibleNodesToFind(t *testing.T) {
	pct := func(p int32) *int32 { return &p }
	tests := []struct {
		profile *int32
		global  int32
		nodes   int
		want    int
	}{
		{nil, 0, 10, 10}, {nil, 0, 99, 99}, {nil, 0, 100, 100}, {nil, 0, 150, 100},
		{nil, 0, 1000, 420}, {nil, 0, 5000, 500}, {nil, 0, 6000, 300},
		{nil, 50, 1000, 500}, {pct(1), 50, 1000, 100}, {pct(100), 0, 5000, 5000},
	}
	for _, tc := range tests {
		if got := NumFeasibleNodesToFind(tc.profile, tc.global, tc.nodes); got != tc.want {
			t.Errorf("nodes %d global %d: got %d, want %d", tc.nodes, tc.global, got, tc.want)
		}
	}
}

// The winner among equal totals is whatever container/heap leaves at the
// root: deterministic for a given input order, not always the first.
func TestHeapTieBreakFollowsInputOrder(t *testing.T) {
	pop := func(totals ...int64) string {
		h := nodeScoreHeap{}
		for i, tot := range totals {
			h = append(h, framework.NodePluginScores{Name: string(rune('a' + i)), TotalScore: tot})
		}
		heap.Init(&h)
		return heap.Pop(&h).(framework.NodePluginScores).Name
	}
	if got := pop(5, 9, 9, 1); got != "b" {
		t.Errorf("got %s", got)
	}
	if got := pop(9, 9, 9); got != "a" {
		t.Errorf("all tied: got %s", got)
	}
	if got := pop(1, 2, 9, 3, 9); got != "e" { // sift-down moves the later 9 up first
		t.Errorf("got %s", got)
	}
}
