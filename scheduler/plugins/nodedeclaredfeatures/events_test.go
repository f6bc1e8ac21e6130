package nodedeclaredfeatures

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func declaring(features ...string) *v1.Node {
	n := &v1.Node{}
	n.Status.DeclaredFeatures = features
	return n
}

func TestIsSchedulableAfterNodeChange(t *testing.T) {
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "node add with feature", newObj: declaring("FeatureA"), want: framework.Queue},
		{name: "node add without features", newObj: declaring(), want: framework.Queue},
		{name: "features added", oldObj: declaring(), newObj: declaring("FeatureA"), want: framework.Queue},
		{name: "features removed", oldObj: declaring("FeatureA"), newObj: declaring(), want: framework.Queue},
		{name: "features unchanged", oldObj: declaring("FeatureA"), newObj: declaring("FeatureA"), want: framework.QueueSkip},
		{name: "reordered counts as changed", oldObj: declaring("A", "B"), newObj: declaring("B", "A"), want: framework.Queue},
		{name: "wrong type", newObj: "not-a-node", want: framework.Queue, wantErr: true},
		{name: "no new node", oldObj: declaring(), want: framework.Queue, wantErr: true},
	}
	pl := &NodeDeclaredFeatures{features: ndf.New(nil), version: schedulerVersion, enabled: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterNodeChange(&v1.Pod{}, tt.oldObj, tt.newObj)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterTargetPodUpdate(t *testing.T) {
	plain := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{}}}}
	labelled := plain.DeepCopy()
	labelled.Labels = map[string]string{"foo": "bar"}
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "requirement added", oldObj: plain, newObj: restartAllPod(), want: framework.Queue},
		{name: "requirement removed", oldObj: restartAllPod(), newObj: plain, want: framework.Queue},
		{name: "requirement changed", oldObj: restartAllPod(), newObj: hostNetworkUserNSPod(), want: framework.Queue},
		{name: "no change in requirements", oldObj: plain, newObj: labelled, want: framework.QueueSkip},
		{name: "same requirements", oldObj: restartAllPod(), newObj: restartAllPod(), want: framework.QueueSkip},
		{name: "wrong type", oldObj: plain, newObj: "x", want: framework.Queue, wantErr: true},
	}
	p, _ := New(nil, frameworktest.NewHandle(nil, nil))
	pl := p.(*NodeDeclaredFeatures)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterTargetPodUpdate(&v1.Pod{}, tt.oldObj, tt.newObj)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterTargetPodUpdateInferenceError(t *testing.T) {
	pl := &NodeDeclaredFeatures{features: ndf.New(nil), enabled: true}
	got, err := pl.isSchedulableAfterTargetPodUpdate(&v1.Pod{}, &v1.Pod{}, &v1.Pod{})
	if err == nil || err.Error() != "target version cannot be nil" || got != framework.Queue {
		t.Errorf("got (%v, %v), want (Queue, target version cannot be nil)", got, err)
	}
}

func TestEventsToRegister(t *testing.T) {
	events, _ := (&NodeDeclaredFeatures{enabled: true}).EventsToRegister(context.Background())
	want := []framework.ClusterEvent{
		{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeDeclaredFeature},
		{Resource: framework.TargetPod, ActionType: framework.Update},
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
