package nodename

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func nodeInfo(name string) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	return ni
}

func podOn(node string) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{NodeName: node}}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		node     string
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "no host specified", pod: podOn(""), node: ""},
		{name: "host matches", pod: podOn("foo"), node: "foo"},
		{
			name: "host doesn't match", pod: podOn("bar"), node: "foo",
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReason,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := New(nil, nil)
			got := p.(framework.FilterPlugin).Filter(context.Background(), nil, tt.pod, nodeInfo(tt.node))
			if got.Code() != tt.wantCode || got.Message() != tt.wantMsg {
				t.Errorf("got (%v, %q), want (%v, %q)", got.Code(), got.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFilterNodeInfoWithoutNode(t *testing.T) {
	pl := &NodeName{}
	if s := pl.Filter(context.Background(), nil, podOn("foo"), framework.NewNodeInfo()); s.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("got %v, want UnschedulableAndUnresolvable", s.Code())
	}
}

func TestPreFilter(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		want *framework.PreFilterResult
	}{
		{
			name: "assigned pod with nodeName set, prefilter restricts to assigned node",
			pod:  podOn("foo"),
			want: &framework.PreFilterResult{NodeNames: sets.New("foo")},
		},
		{name: "unassigned pod without nodeName set, prefilter returns nil", pod: podOn("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &NodeName{}
			got, s := pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if !s.IsSuccess() {
				t.Errorf("status = %v, want success", s)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("result = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	events, _ := (&NodeName{}).EventsToRegister(context.Background())
	want := []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}}}
	if len(events) != 1 || events[0].Event != want[0].Event || events[0].QueueingHintFn != nil {
		t.Errorf("events = %+v, want %+v", events, want)
	}
}
