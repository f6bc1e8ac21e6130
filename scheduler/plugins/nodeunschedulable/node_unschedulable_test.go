package nodeunschedulable

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func node(unschedulable bool, taints ...v1.Taint) *v1.Node {
	return &v1.Node{Spec: v1.NodeSpec{Unschedulable: unschedulable, Taints: taints}}
}

func podTolerating(tols ...v1.Toleration) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Tolerations: tols}}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		node     *v1.Node
		wantCode framework.Code
		wantMsg  string
	}{
		{
			name: "does not schedule pod to unschedulable node", pod: podTolerating(), node: node(true),
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnschedulable,
		},
		{name: "schedule pod to normal node", pod: podTolerating(), node: node(false)},
		{
			name: "schedule pod with toleration to unschedulable node",
			pod:  podTolerating(v1.Toleration{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}),
			node: node(true),
		},
		{
			name: "Exists toleration without key tolerates it",
			pod:  podTolerating(v1.Toleration{Operator: v1.TolerationOpExists}),
			node: node(true),
		},
		{
			name: "toleration for a different effect does not",
			pod:  podTolerating(v1.Toleration{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoExecute}),
			node: node(true), wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnschedulable,
		},
		{
			name: "Gt toleration tolerates nothing with the gate off",
			pod:  podTolerating(v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpGt, Value: "-1"}),
			node: node(true), wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnschedulable,
		},
		{
			name: "the taint on a schedulable node is not this plugin's concern",
			pod:  podTolerating(),
			node: node(false, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := framework.NewNodeInfo()
			ni.SetNode(tt.node)
			p, _ := New(nil, frameworktest.NewHandle(nil, nil))
			got := p.(framework.FilterPlugin).Filter(context.Background(), nil, tt.pod, ni)
			if got.Code() != tt.wantCode || got.Message() != tt.wantMsg {
				t.Errorf("got (%v, %q), want (%v, %q)", got.Code(), got.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFilterWithoutNode(t *testing.T) {
	if s := (&NodeUnschedulable{}).Filter(context.Background(), nil, podTolerating(), framework.NewNodeInfo()); s.Code() != framework.Error {
		t.Errorf("got %v, want Error", s.Code())
	}
}

func TestPreFilterNeverSkips(t *testing.T) {
	r, s := (&NodeUnschedulable{}).PreFilter(context.Background(), framework.NewCycleState(), podTolerating(), nil)
	if r != nil || s != nil {
		t.Errorf("got (%v, %v), want (nil, nil)", r, s)
	}
}

func TestIsSchedulableAfterNodeChange(t *testing.T) {
	notReady := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "error-wrong-new-object", newObj: "not-a-node", want: framework.Queue, wantErr: true},
		{name: "error-wrong-old-object", oldObj: "not-a-node", newObj: node(true), want: framework.Queue, wantErr: true},
		{name: "error-no-new-object", oldObj: node(true), want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-unschedulable-node-added", newObj: node(true), want: framework.QueueSkip},
		{name: "queue-on-schedulable-node-added", newObj: node(false), want: framework.Queue},
		{name: "skip-unrelated-change-unschedulable-true", oldObj: node(true), newObj: node(true, notReady), want: framework.QueueSkip},
		{name: "skip-unrelated-change-unschedulable-false", oldObj: node(false), newObj: node(false, notReady), want: framework.QueueSkip},
		{name: "queue-on-unschedulable-field-change", oldObj: node(true), newObj: node(false), want: framework.Queue},
		{name: "skip-on-cordon", oldObj: node(false), newObj: node(true), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&NodeUnschedulable{}).isSchedulableAfterNodeChange(&v1.Pod{}, tt.oldObj, tt.newObj)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterPodTolerationChange(t *testing.T) {
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "error-wrong-new-object", newObj: "not-a-pod", want: framework.Queue, wantErr: true},
		{name: "error-wrong-old-object", oldObj: "not-a-pod", newObj: &v1.Pod{}, want: framework.Queue, wantErr: true},
		{
			name:   "queue-when-the-unsched-pod-gets-toleration",
			oldObj: podTolerating(),
			newObj: podTolerating(v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists}),
			want:   framework.Queue,
		},
		{
			name:   "skip-when-the-unsched-pod-gets-unrelated-toleration",
			oldObj: podTolerating(),
			newObj: podTolerating(v1.Toleration{Key: "unrelated-key", Operator: v1.TolerationOpExists}),
			want:   framework.QueueSkip,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&NodeUnschedulable{}).isSchedulableAfterTargetPodTolerationChange(&v1.Pod{}, tt.oldObj, tt.newObj)
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
	events, _ := (&NodeUnschedulable{}).EventsToRegister(context.Background())
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
