package nodeports

import (
	"context"
	"testing"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestIsSchedulableAfterAssignedPodDeleted(t *testing.T) {
	pod := newPod("", "TCP//8080")
	nominated := newPod("", "TCP//8080")
	nominated.Status.NominatedNodeName = "n"
	tests := []struct {
		name    string
		oldObj  any
		want    framework.QueueingHint
		wantErr bool
	}{
		{name: "backoff-wrong-old-object", oldObj: "not-a-pod", want: framework.Queue, wantErr: true},
		{name: "backoff-no-old-object", oldObj: nil, want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-unscheduled", oldObj: newPod("", "TCP//8080"), want: framework.QueueSkip},
		{name: "skip-queue-on-non-hostport", oldObj: newPod("fake-node"), want: framework.QueueSkip},
		{name: "skip-queue-on-unrelated-hostport", oldObj: newPod("fake-node", "TCP//8081"), want: framework.QueueSkip},
		{name: "queue-on-released-hostport", oldObj: newPod("fake-node", "TCP//8080"), want: framework.Queue},
		{name: "queue-on-released-hostport-of-nominated-pod", oldObj: nominated, want: framework.Queue},
		{name: "skip-on-same-port-other-protocol", oldObj: newPod("fake-node", "UDP//8080"), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&NodePorts{}).isSchedulableAfterAssignedPodDeleted(pod, tt.oldObj, nil)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	events, _ := (&NodePorts{}).EventsToRegister(context.Background())
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2", len(events))
	}
	if e := events[0]; e.Event != (framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}) || e.QueueingHintFn == nil {
		t.Errorf("event 0 = %+v", e.Event)
	}
	if e := events[1]; e.Event != (framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}) || e.QueueingHintFn != nil {
		t.Errorf("event 1 = %+v (want no hint)", e.Event)
	}
}
