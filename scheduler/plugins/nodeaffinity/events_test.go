package nodeaffinity

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func labelled(labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}}
}

func withCapacity(n *v1.Node) *v1.Node {
	n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	return n
}

func TestIsSchedulableAfterNodeChange(t *testing.T) {
	pod := requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar"))))
	fooBar := map[string]string{"foo": "bar"}
	enforced := addedRequired(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar"))))
	tests := []struct {
		name           string
		args           *configv1.NodeAffinityArgs
		pod            *v1.Pod
		oldObj, newObj any
		want           framework.QueueingHint
		wantErr        bool
	}{
		{name: "backoff-wrong-new-object", newObj: "not-a-node", want: framework.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", oldObj: "not-a-node", newObj: labelled(nil), want: framework.Queue, wantErr: true},
		{name: "backoff-no-new-object", oldObj: labelled(nil), want: framework.Queue, wantErr: true},
		{name: "skip-queue-on-add", newObj: labelled(nil), want: framework.QueueSkip},
		{name: "queue-on-add", newObj: labelled(fooBar), want: framework.Queue},
		{name: "skip-unrelated-changes", oldObj: labelled(nil), newObj: withCapacity(labelled(nil)), want: framework.QueueSkip},
		{name: "skip-unrelated-changes-on-labels", oldObj: labelled(nil), newObj: labelled(map[string]string{"k": "v"}), want: framework.QueueSkip},
		{name: "skip-labels-changes-on-node-from-suitable-to-unsuitable", oldObj: labelled(fooBar), newObj: labelled(map[string]string{"k": "v"}), want: framework.QueueSkip},
		{name: "queue-on-labels-change-makes-pod-schedulable", oldObj: labelled(nil), newObj: labelled(fooBar), want: framework.Queue},
		{name: "skip-unrelated-change-that-keeps-pod-schedulable", oldObj: labelled(fooBar), newObj: withCapacity(labelled(fooBar)), want: framework.QueueSkip},
		{name: "skip-queue-on-add-scheduler-enforced-node-affinity", args: enforced, newObj: labelled(nil), want: framework.QueueSkip},
		{name: "queue-on-add-scheduler-enforced-node-affinity", args: enforced, newObj: labelled(fooBar), want: framework.Queue},
		{name: "nodeSelector pod: queue when a label appears", pod: selectorPod(fooBar), oldObj: labelled(nil), newObj: labelled(fooBar), want: framework.Queue},
		{
			name: "parse error in the pod's affinity queues with the error",
			pod:  requiredPod(term(exprs(req("foo", "BadOp", "x")))), newObj: labelled(fooBar),
			want: framework.Queue, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args any
			if tt.args != nil {
				args = tt.args
			}
			p, err := New(asObject(args), nil)
			if err != nil {
				t.Fatal(err)
			}
			target := pod
			if tt.pod != nil {
				target = tt.pod
			}
			got, err := p.(*NodeAffinity).isSchedulableAfterNodeChange(target, tt.oldObj, tt.newObj)
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
	events, _ := (&NodeAffinity{}).EventsToRegister(context.Background())
	want := framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}
	if len(events) != 1 || events[0].Event != want || events[0].QueueingHintFn == nil {
		t.Errorf("events = %+v, want [%+v] with a hint", events, want)
	}
}
