package podtopologyspread

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestEventsToRegister(t *testing.T) {
	pl, _ := newTestPlugin(t, listArgs(), nil, nil)
	got, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete},
		{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration | framework.UpdatePodLabel},
		{Resource: framework.Node, ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint},
	}
	var events []framework.ClusterEvent
	for _, e := range got {
		events = append(events, e.Event)
		if e.QueueingHintFn == nil {
			t.Errorf("%v has no hint", e.Event.Label())
		}
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events = %v, want %v", events, want)
	}
}

func TestIsSchedulableAfterNodeChange(t *testing.T) {
	zone := makePod("p").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	zoneAndNode := makePod("p").
		spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
		spread(1, "node", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	taint := func(key string) []v1.Taint {
		return []v1.Taint{{Key: key, Value: "bbb", Effect: v1.TaintEffectNoSchedule}}
	}
	tests := []struct {
		name             string
		pod              *v1.Pod
		oldNode, newNode *v1.Node
		want             framework.QueueingHint
	}{
		{"node updates label which matches topologyKey", zone,
			makeNode("node-a").label("zone", "zone1").obj(), makeNode("node-a").label("zone", "zone2").obj(), framework.Queue},
		{"node that doesn't match topologySpreadConstraints updates non-related label", zone,
			makeNode("node-a").label("foo", "bar1").obj(), makeNode("node-a").label("foo", "bar2").obj(), framework.QueueSkip},
		{"node that match topologySpreadConstraints adds non-related label", zoneAndNode,
			zoneNode("node1", "zone1").label("foo", "bar").obj(), zoneNode("node1", "zone1").obj(), framework.QueueSkip},
		{"create node with non-related labels", zone, nil, makeNode("node-a").label("foo", "bar").obj(), framework.QueueSkip},
		{"create node with related labels", zone, nil, makeNode("node-a").label("zone", "zone1").obj(), framework.Queue},
		{"delete node with non-related labels", zone, makeNode("node-a").label("foo", "bar").obj(), nil, framework.QueueSkip},
		{"delete node with related labels", zone, makeNode("node-a").label("zone", "zone1").obj(), nil, framework.Queue},
		{"add node with related labels that only match one of topologySpreadConstraints", zoneAndNode,
			nil, makeNode("node-a").label("zone", "zone1").obj(), framework.QueueSkip},
		{"add node with related labels that match all topologySpreadConstraints", zoneAndNode,
			nil, makeNode("node-a").label("zone", "zone1").label("node", "node1").obj(), framework.Queue},
		{"update node with related labels that only match one of topologySpreadConstraints", zoneAndNode,
			makeNode("node-a").label("zone", "zone1").obj(), makeNode("node-a").label("zone", "zone1").obj(), framework.QueueSkip},
		{"update node with related labels that match all topologySpreadConstraints", zoneAndNode,
			makeNode("node-a").label("zone", "zone1").label("node", "node1").obj(),
			makeNode("node-a").label("zone", "zone1").label("node", "node2").obj(), framework.Queue},
		{"update node gaining the last topology key", zoneAndNode,
			makeNode("node-a").label("zone", "zone1").obj(),
			makeNode("node-a").label("zone", "zone1").label("node", "node1").obj(), framework.Queue},
		{"update node losing a topology key", zoneAndNode,
			makeNode("node-a").label("zone", "zone1").label("node", "node1").obj(),
			makeNode("node-a").label("zone", "zone1").obj(), framework.Queue},
		{"update node with different taints that match all topologySpreadConstraints", zoneAndNode,
			makeNode("node-a").label("zone", "zone1").label("node", "node1").taints(taint("aaa")).obj(),
			makeNode("node-a").label("zone", "zone1").label("node", "node1").taints(taint("ccc")).obj(), framework.Queue},
		{"update node with different taints that only match one of topologySpreadConstraints", zoneAndNode,
			makeNode("node-a").label("node", "node1").taints(taint("aaa")).obj(),
			makeNode("node-a").label("node", "node1").taints(taint("ccc")).obj(), framework.QueueSkip},
		{"pod without hard constraints queues on any node", makePod("p").obj(),
			nil, makeNode("node-a").obj(), framework.Queue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, _ := newTestPlugin(t, listArgs(), nil, nil)
			var oldObj, newObj any
			if tt.oldNode != nil {
				oldObj = tt.oldNode
			}
			if tt.newNode != nil {
				newObj = tt.newNode
			}
			got, err := pl.isSchedulableAfterNodeChange(tt.pod, oldObj, newObj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterAssignedPodChange(t *testing.T) {
	zone := makePod("p").label("foo", "").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	multi := makePod("p").label("foo", "").
		spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).
		spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj()
	p2 := func() *podBuilder { return makePod("p2") }
	tests := []struct {
		name           string
		pod            *v1.Pod
		oldPod, newPod *v1.Pod
		want           framework.QueueingHint
	}{
		{"add pod with labels match topologySpreadConstraints selector", zone,
			nil, p2().node("fake-node").label("foo", "").obj(), framework.Queue},
		{"add un-scheduled pod", zone, nil, p2().label("foo", "").obj(), framework.QueueSkip},
		{"update un-scheduled pod", zone, p2().label("bar", "").obj(), p2().label("foo", "").obj(), framework.QueueSkip},
		{"delete un-scheduled pod", zone, p2().label("foo", "").obj(), nil, framework.QueueSkip},
		{"add pod with different namespace", zone,
			nil, p2().node("fake-node").ns("fake-namespace").label("foo", "").obj(), framework.QueueSkip},
		{"add pod with labels don't match topologySpreadConstraints selector", zone,
			nil, p2().node("fake-node").label("bar", "").obj(), framework.QueueSkip},
		{"delete pod with labels that match topologySpreadConstraints selector", zone,
			p2().node("fake-node").label("foo", "").obj(), nil, framework.Queue},
		{"delete nominated pod with labels that don't match topologySpreadConstraints selector", zone,
			p2().nominated("fake-node").label("bar", "").obj(), nil, framework.QueueSkip},
		{"delete nominated pod with labels that match topologySpreadConstraints selector", zone,
			p2().nominated("fake-node").label("foo", "").obj(), nil, framework.Queue},
		{"delete pod with labels that don't match topologySpreadConstraints selector", zone,
			p2().node("fake-node").label("bar", "").obj(), nil, framework.QueueSkip},
		{"update pod's non-related label", zone,
			p2().node("fake-node").label("foo", "").label("bar", "bar1").obj(),
			p2().node("fake-node").label("foo", "").label("bar", "bar2").obj(), framework.QueueSkip},
		{"add pod's label that matches topologySpreadConstraints selector", zone,
			p2().node("fake-node").obj(), p2().node("fake-node").label("foo", "").obj(), framework.Queue},
		{"delete pod label that matches topologySpreadConstraints selector", zone,
			p2().node("fake-node").label("foo", "").obj(), p2().node("fake-node").obj(), framework.Queue},
		{"change pod's label that matches topologySpreadConstraints selector", zone,
			p2().node("fake-node").label("foo", "foo1").obj(), p2().node("fake-node").label("foo", "foo2").obj(), framework.QueueSkip},
		{"change pod's label that doesn't match topologySpreadConstraints selector", zone,
			p2().node("fake-node").label("foo", "").label("bar", "bar1").obj(),
			p2().node("fake-node").label("foo", "").label("bar", "bar2").obj(), framework.QueueSkip},
		{"add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints", multi,
			p2().node("fake-node").label("foo", "").obj(),
			p2().node("fake-node").label("foo", "").label("bar", "bar2").obj(), framework.Queue},
		{"change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints", multi,
			p2().node("fake-node").label("foo", "").obj(),
			p2().node("fake-node").label("foo", "").label("baz", "").obj(), framework.QueueSkip},
		{"change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints", multi,
			p2().node("fake-node").label("foo", "").label("bar", "").obj(),
			p2().node("fake-node").label("foo", "").label("bar", "bar2").obj(), framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, _ := newTestPlugin(t, listArgs(), nil, nil)
			var oldObj, newObj any
			if tt.oldPod != nil {
				oldObj = tt.oldPod
			}
			if tt.newPod != nil {
				newObj = tt.newPod
			}
			got, err := pl.isSchedulableAfterAssignedPodChange(tt.pod, oldObj, newObj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsSchedulableAfterTargetPodChange(t *testing.T) {
	withTaintsPolicy := func(p v1.NodeInclusionPolicy) *v1.Pod {
		return makePod("p").label("foo", "").
			spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, &p, nil).
			spread(1, "node", v1.DoNotSchedule, barSelector, nil, nil, nil, nil).obj()
	}
	tests := []struct {
		name           string
		pod            *v1.Pod
		oldPod, newPod *v1.Pod
		want           framework.QueueingHint
	}{
		{"the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new toleration",
			withTaintsPolicy(honor), makePod("p").label("foo", "").obj(),
			makePod("p").label("foo", "").toleration(v1.TaintNodeUnschedulable).obj(), framework.Queue},
		{"the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new toleration",
			withTaintsPolicy(ignore), makePod("p").label("foo", "").obj(),
			makePod("p").label("foo", "").toleration(v1.TaintNodeUnschedulable).obj(), framework.QueueSkip},
		{"the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of the constraint",
			withTaintsPolicy(ignore), makePod("p").obj(), makePod("p").label("foo", "").obj(), framework.Queue},
		{"the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
			withTaintsPolicy(ignore), makePod("p").obj(), makePod("p").label("unrelated", "").obj(), framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, _ := newTestPlugin(t, listArgs(), nil, nil)
			got, err := pl.isSchedulableAfterTargetPodChange(tt.pod, tt.oldPod, tt.newPod)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHintsUseDefaultConstraints: without own constraints, hints judge by
// the hard default constraints, selected by the pod's workload.
func TestHintsUseDefaultConstraints(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "ns"}, Spec: v1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
	pod := makePod("p").ns("ns").label("app", "web").obj()
	pl, _ := newTestPlugin(t, listArgs(v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}), nil, nil, svc)

	if h, _ := pl.isSchedulableAfterNodeChange(pod, nil, makeNode("n").label("rack", "r").obj()); h != framework.QueueSkip {
		t.Errorf("node without zone: %v, want QueueSkip", h)
	}
	if h, _ := pl.isSchedulableAfterNodeChange(pod, nil, makeNode("n").label("zone", "z").obj()); h != framework.Queue {
		t.Errorf("node with zone: %v, want Queue", h)
	}
	if h, _ := pl.isSchedulableAfterAssignedPodChange(pod, nil, makePod("q").ns("ns").node("n").label("app", "web").obj()); h != framework.Queue {
		t.Errorf("matching pod added: %v, want Queue", h)
	}
	if h, _ := pl.isSchedulableAfterAssignedPodChange(pod, nil, makePod("q").ns("ns").node("n").label("app", "db").obj()); h != framework.QueueSkip {
		t.Errorf("other pod added: %v, want QueueSkip", h)
	}

	// System defaults are all soft: no hard constraints to match, so every
	// assigned pod in the namespace is skipped and every node queues.
	sys, _ := newTestPlugin(t, systemArgs(), nil, nil, svc)
	if h, _ := sys.isSchedulableAfterAssignedPodChange(pod, nil, makePod("q").ns("ns").node("n").label("app", "web").obj()); h != framework.QueueSkip {
		t.Errorf("system defaults, matching pod added: %v, want QueueSkip", h)
	}
	if h, _ := sys.isSchedulableAfterNodeChange(pod, nil, makeNode("n").obj()); h != framework.Queue {
		t.Errorf("system defaults, node added: %v, want Queue", h)
	}
}

func TestHintsOddInput(t *testing.T) {
	pl, _ := newTestPlugin(t, listArgs(), nil, nil)
	pod := makePod("p").spread(1, "zone", v1.DoNotSchedule, fooSelector, nil, nil, nil, nil).obj()
	if h, err := pl.isSchedulableAfterNodeChange(pod, nil, makePod("x").obj()); err == nil || h != framework.Queue {
		t.Errorf("wrong type: %v %v, want Queue and an error", h, err)
	}
	if h, err := pl.isSchedulableAfterAssignedPodChange(pod, makeNode("n").obj(), nil); err == nil || h != framework.Queue {
		t.Errorf("wrong type: %v %v, want Queue and an error", h, err)
	}
	if h, err := pl.isSchedulableAfterTargetPodChange(pod, nil, pod); err == nil || h != framework.Queue {
		t.Errorf("missing old pod: %v %v, want Queue and an error", h, err)
	}
	if h, err := pl.isSchedulableAfterAssignedPodChange(pod, nil, nil); err != nil || h != framework.QueueSkip {
		t.Errorf("no pods: %v %v, want QueueSkip", h, err)
	}
	bad := makePod("p").spread(1, "zone", v1.DoNotSchedule, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "foo", Operator: "Bogus"}}}, nil, nil, nil, nil).obj()
	if h, err := pl.isSchedulableAfterNodeChange(bad, nil, makeNode("n").obj()); err == nil || h != framework.Queue {
		t.Errorf("bad selector: %v %v, want Queue and an error", h, err)
	}
}
