package schedulinggates

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func podWithGates(gates ...string) *v1.Pod {
	p := &v1.Pod{}
	for _, g := range gates {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: g})
	}
	return p
}

func TestPreEnqueue(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "pod does not carry scheduling gates", pod: podWithGates(), wantCode: framework.Success},
		{
			name:     "pod carries scheduling gates",
			pod:      podWithGates("foo", "bar"),
			wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg:  "waiting for scheduling gates: [foo bar]",
		},
		{
			name:     "single gate",
			pod:      podWithGates("example.com/foo"),
			wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg:  "waiting for scheduling gates: [example.com/foo]",
		},
		{name: "nil pod", pod: nil, wantCode: framework.Success},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := p.(framework.PreEnqueuePlugin).PreEnqueue(context.Background(), tt.pod)
			if got.Code() != tt.wantCode || got.Message() != tt.wantMsg {
				t.Errorf("got (%v, %q), want (%v, %q)", got.Code(), got.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestEventsAndHint(t *testing.T) {
	pl := &SchedulingGates{}
	events, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("got %d events, want 1", len(events))
	}
	want := framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodSchedulingGatesEliminated}
	if events[0].Event != want {
		t.Errorf("event = %+v, want %+v", events[0].Event, want)
	}
	hint, err := events[0].QueueingHintFn(podWithGates("foo"), podWithGates("foo"), podWithGates())
	if err != nil || hint != framework.Queue {
		t.Errorf("hint = %v, %v; want Queue, nil", hint, err)
	}
}
