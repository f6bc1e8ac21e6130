package tainttoleration

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestIsSchedulableAfterNodeChange(t *testing.T) {
	user := func(u string) v1.Taint { return v1.Taint{Key: "dedicated", Value: u, Effect: v1.TaintEffectNoSchedule} }
	pod := podWithTolerations(v1.Toleration{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: v1.TaintEffectNoSchedule})
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "backoff-wrong-new-object", newObj: "not-a-node", want: framework.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", oldObj: "not-a-node", newObj: nodeWithTaints("a", user("user1")), want: framework.Queue, wantErr: true},
		{name: "backoff-no-new-object", oldObj: nodeWithTaints("a"), want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-untoleratedtaint-node-added", newObj: nodeWithTaints("a", user("user1")), want: framework.QueueSkip},
		{name: "queue-on-toleratedtaint-node-added", newObj: nodeWithTaints("a", user("user2")), want: framework.Queue},
		{name: "skip-unrelated-change", oldObj: nodeWithTaints("a", user("user1")), newObj: nodeWithTaints("a", user("user1"), user("user3")), want: framework.QueueSkip},
		{name: "queue-on-taint-change", oldObj: nodeWithTaints("a", user("user1")), newObj: nodeWithTaints("a", user("user2")), want: framework.Queue},
		{name: "skip-when-already-tolerated", oldObj: nodeWithTaints("a"), newObj: nodeWithTaints("a", prefer("x", "y")), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&TaintToleration{}).isSchedulableAfterNodeChange(pod, tt.oldObj, tt.newObj)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterTargetPodTolerationChange(t *testing.T) {
	newPod := podWithTolerations(v1.Toleration{Key: "foo", Effect: v1.TaintEffectNoSchedule})
	got, err := (&TaintToleration{}).isSchedulableAfterTargetPodTolerationChange(&v1.Pod{}, &v1.Pod{}, newPod)
	if err != nil || got != framework.Queue {
		t.Errorf("got (%v, %v), want (Queue, nil)", got, err)
	}
}

func TestEventsToRegister(t *testing.T) {
	events, _ := (&TaintToleration{}).EventsToRegister(context.Background())
	want := []framework.ClusterEvent{
		{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint},
		{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i := range want {
		if events[i].Event != want[i] || events[i].QueueingHintFn == nil {
			t.Errorf("event %d = %+v, want %+v with a hint", i, events[i].Event, want[i])
		}
	}
}
