package queuesort

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func qpi(prio *int32, ts time.Time) *framework.QueuedPodInfo {
	p := &v1.Pod{}
	p.Spec.Priority = prio
	return &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p), QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func ptr(i int32) *int32 { return &i }

func TestLess(t *testing.T) {
	pl := &PrioritySort{}
	low, high := ptr(10), ptr(100)
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Second)
	tests := []struct {
		name   string
		p1, p2 *framework.QueuedPodInfo
		want   bool
	}{
		{"p1.priority less than p2.priority", qpi(low, t1), qpi(high, t1), false},
		{"p1.priority greater than p2.priority", qpi(high, t2), qpi(low, t1), true},
		{"equal priority, p1 added earlier", qpi(high, t1), qpi(high, t2), true},
		{"equal priority, p2 added earlier", qpi(high, t2), qpi(high, t1), false},
		{"equal priority and timestamp", qpi(high, t1), qpi(high, t1), false},
		{"nil priority counts as 0, below 10", qpi(nil, t1), qpi(low, t2), false},
		{"nil priority above negative", qpi(nil, t2), qpi(ptr(-5), t1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.Less(tt.p1, tt.p2); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}
