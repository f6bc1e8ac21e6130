package engine

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/queue"
	"github.com/schedtui/schedtui/scheduler/record"
)

func gangNode(name, cpu string) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{Allocatable: rl, Capacity: rl}}
}

// gangPod is a pending pod of 1 CPU in group (none when "").
func gangPod(name, group string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(scheduler.Epoch)},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{Name: "c", Image: "x",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}},
	}
	if group != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

// podGroup is a gang of minCount, or a basic group when minCount is 0.
func podGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Generation: 1}}
	if minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	return pg
}

func genericWorkload(t *testing.T, on bool) *features.Features {
	t.Helper()
	r, err := features.Resolve("", "", fmt.Sprintf("GenericWorkload=%v", on))
	if err != nil {
		t.Fatal(err)
	}
	return &r.Features
}

func gangEngine(t *testing.T, gate bool, nodes []*v1.Node, pods []*v1.Pod, objs ...any) *Engine {
	t.Helper()
	e, err := New(nodes, pods, objs, Options{Registry: plugins.NewInTreeRegistry(), Features: genericWorkload(t, gate)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func nodeOf(e *Engine, pod string) string {
	if p := e.Pod("default/" + pod); p != nil {
		return p.Spec.NodeName
	}
	return ""
}

func podMessage(e *Engine, pod string) string {
	for _, c := range e.Pod("default/" + pod).Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Message
		}
	}
	return ""
}

func groupCondition(t *testing.T, e *Engine, name string) metav1.Condition {
	t.Helper()
	pg, err := e.Scheduler().Objects().PodGroup("default", name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pg.Status.Conditions {
		if c.Type == scheduler.PodGroupInitiallyScheduled {
			return c
		}
	}
	t.Fatalf("podgroup %s has no %s condition: %+v", name, scheduler.PodGroupInitiallyScheduled, pg.Status)
	return metav1.Condition{}
}

// A gang that fits is bound whole in one group cycle.
func TestGangFitsWhole(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2"), gangNode("n2", "2")}
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job"), gangPod("w2", "job"), gangPod("w3", "job")}
	e := gangEngine(t, true, nodes, pods, podGroup("job", 4))
	if _, ok := e.Step(); !ok {
		t.Fatal("no step")
	}
	for _, p := range pods {
		if nodeOf(e, p.Name) == "" {
			t.Errorf("%s not bound", p.Name)
		}
	}
	gs := e.Groups()
	if len(gs) != 1 {
		t.Fatalf("group cycles: %d", len(gs))
	}
	g := gs[0]
	if g.Result != record.GroupScheduled || g.Policy != "Gang" || g.MinCount != 4 || len(g.Members) != 4 || g.Placed() != 4 {
		t.Errorf("group record: %+v", g)
	}
	for i, m := range g.Members {
		if a := e.Attempts().At(m.Attempt); a.Pod != m.Pod || a.Outcome != record.Scheduled {
			t.Errorf("member %d: attempt %d is %s %v", i, m.Attempt, a.Pod, a.Outcome)
		}
		if got, ok := e.GroupOf(m.Attempt); !ok || got != g {
			t.Errorf("GroupOf(%d) = %v, %v", m.Attempt, got, ok)
		}
	}
	if c := groupCondition(t, e, "job"); c.Status != metav1.ConditionTrue || c.Reason != "Scheduled" {
		t.Errorf("condition: %+v", c)
	}
}

// A gang too big for the cluster binds no member: each placed member is
// rejected with the group's message, the one that found no node with its
// own, and the PodGroup says why.
func TestGangTooBigBindsNone(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "1")}
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job")}
	e := gangEngine(t, true, nodes, pods, podGroup("job", 2))
	e.Step()
	for _, p := range pods {
		if n := nodeOf(e, p.Name); n != "" {
			t.Errorf("%s bound to %s", p.Name, n)
		}
	}
	const groupMsg = "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, "
	if c := groupCondition(t, e, "job"); c.Status != metav1.ConditionFalse || c.Reason != "Unschedulable" || c.Message != groupMsg {
		t.Errorf("condition: %+v", c)
	}
	if got, want := podMessage(e, "w0"), "pod group is unschedulable, "+groupMsg; got != want {
		t.Errorf("w0: %q, want %q", got, want)
	}
	if got := podMessage(e, "w1"); !strings.HasPrefix(got, "0/1 nodes are available: 1 Insufficient cpu") {
		t.Errorf("w1: %q", got)
	}
	g := e.Groups()[0]
	if g.Result != record.GroupUnschedulable || g.Members[0].Node != "n1" || g.Members[1].Node != "" || !g.Members[1].Unschedulable {
		t.Errorf("group record: %+v", g)
	}
	// Everything the cycle assumed was reverted: the node is empty.
	if ni, _ := e.Scheduler().Snapshot().Get("n1"); len(ni.Pods) != 0 {
		t.Errorf("n1 holds %d pods", len(ni.Pods))
	}
	// The group backs off as one entry and comes back whole.
	q := e.Queue()
	if len(q.Groups) != 1 || len(q.Groups[0].Members) != 2 || q.Groups[0].Queue != history.QueueName(queue.Backoff) {
		t.Errorf("queue groups: %+v", q.Groups)
	}
}

// A basic group's members are placed one by one: those that fit bind.
func TestBasicGroupSchedulesWhatFits(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2")}
	pods := []*v1.Pod{gangPod("b0", "web"), gangPod("b1", "web"), gangPod("b2", "web")}
	e := gangEngine(t, true, nodes, pods, podGroup("web", 0))
	e.Step()
	bound := 0
	for _, p := range pods {
		if nodeOf(e, p.Name) != "" {
			bound++
		}
	}
	if bound != 2 {
		t.Errorf("%d bound, want 2", bound)
	}
	if g := e.Groups()[0]; g.Result != record.GroupScheduled || g.Policy != "Basic" || g.MinCount != 1 {
		t.Errorf("group record: %+v", g)
	}
}

// Pods of a PodGroup that does not exist are never attempted; once it
// appears they are scheduled with it.
func TestMissingPodGroupHoldsPods(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "4")}
	pods := []*v1.Pod{gangPod("w0", "late"), gangPod("w1", "late")}
	e := gangEngine(t, true, nodes, pods)
	if a, ok := e.Step(); ok {
		t.Fatalf("attempted %s without its PodGroup", a.Pod)
	}
	if q := e.Queue(); len(q.WaitingForGroup) != 2 {
		t.Errorf("waiting for group: %+v", q.WaitingForGroup)
	}
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: podGroup("late", 2)}); err != nil {
		t.Fatal(err)
	}
	e.Step()
	if nodeOf(e, "w0") == "" || nodeOf(e, "w1") == "" {
		t.Error("gang not bound after its PodGroup appeared")
	}
}

// A gang below minCount waits at PreEnqueue (GangScheduling's message)
// until its last member arrives.
func TestGangBelowMinCountIsGated(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "4")}
	e := gangEngine(t, true, nodes, []*v1.Pod{gangPod("w0", "job")}, podGroup("job", 2))
	if a, ok := e.Step(); ok {
		t.Fatalf("attempted %s below minCount", a.Pod)
	}
	q := e.Queue()
	if len(q.Groups) != 1 || q.Groups[0].GatingPlugin != "GangScheduling" ||
		q.Groups[0].GatingMessage != "waiting for minCount pods from a gang to appear in scheduling queue" {
		t.Fatalf("queue groups: %+v", q.Groups)
	}
	if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: gangPod("w1", "job")}); err != nil {
		t.Fatal(err)
	}
	e.Step()
	if nodeOf(e, "w0") == "" || nodeOf(e, "w1") == "" {
		t.Error("gang not bound once complete")
	}
}

// With the gate off, pods naming a group are ordinary pods: scheduled one
// by one, no group cycle.
func TestGateOffSchedulesMembersAsPods(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "1")}
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job")}
	e := gangEngine(t, false, nodes, pods, podGroup("job", 2))
	e.Step()
	e.Step()
	if nodeOf(e, "w0") == "" && nodeOf(e, "w1") == "" {
		t.Error("no member bound with the gate off")
	}
	if len(e.Groups()) != 0 {
		t.Errorf("group cycles with the gate off: %d", len(e.Groups()))
	}
}

// Group cycles replay exactly after a rewind, from checkpoints taken
// between them (the queue's groups and the cache's assumed members
// restored).
func TestGangRewindReplays(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2"), gangNode("n2", "1")}
	pods := []*v1.Pod{gangPod("a0", "a"), gangPod("a1", "a"), gangPod("b0", "b"), gangPod("b1", "b"), gangPod("solo", "")}
	e, err := New(nodes, pods, []any{podGroup("a", 2), podGroup("b", 2)},
		Options{Registry: plugins.NewInTreeRegistry(), Features: genericWorkload(t, true), CheckpointInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := func() []string {
		var out []string
		for i := 0; i < 6; i++ {
			a, ok := e.Step()
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%s %v %s %s", a.Pod, a.Outcome, a.Node, a.Message))
		}
		return out
	}
	first := run()
	if len(e.Groups()) < 2 {
		t.Fatalf("group cycles: %d", len(e.Groups()))
	}
	if err := e.Rewind(e.Attempts().Len()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.Groups()); n != 0 {
		t.Fatalf("%d group cycles left after rewinding everything", n)
	}
	if again := run(); strings.Join(again, "\n") != strings.Join(first, "\n") {
		t.Errorf("replay differs:\n%s\nvs\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
	}
}

func zoned(name, zone string) *v1.Node {
	n := gangNode(name, "1")
	n.Labels["topology.kubernetes.io/zone"] = zone
	return n
}

func zonalGang(name string, minCount int32) *schedulingv1beta1.PodGroup {
	pg := podGroup(name, minCount)
	pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
		Topology: []schedulingv1beta1.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}}
	return pg
}

func topologyEngine(t *testing.T, pods []*v1.Pod, objs ...any) *Engine {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*v1.Node{zoned("a1", "zone-a"), zoned("a2", "zone-a"), zoned("b1", "zone-b"), zoned("b2", "zone-b"), zoned("b3", "zone-b")}
	e, err := New(nodes, pods, objs, Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// With TopologyAwareWorkloadScheduling a gang with a topology constraint
// is tried per zone and placed whole in one that fits it.
func TestGangPlacedInOneDomain(t *testing.T) {
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job"), gangPod("w2", "job")}
	e := topologyEngine(t, pods, zonalGang("job", 3))
	e.Step()
	for _, p := range pods {
		if n := nodeOf(e, p.Name); !strings.HasPrefix(n, "b") {
			t.Errorf("%s on %q, want zone-b", p.Name, n)
		}
	}
	g := e.Groups()[0]
	want := []record.PlacementTried{
		{Name: "zone-a", Nodes: 2, Placed: 2, Message: "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"},
		{Name: "zone-b", Nodes: 3, Placed: 3, Feasible: true, Chosen: true},
	}
	if fmt.Sprint(g.Placements) != fmt.Sprint(want) {
		t.Errorf("placements tried:\n%+v\nwant\n%+v", g.Placements, want)
	}
}

// A gang no zone can hold reports the first placement's status. The
// status carries errPodGroupUnschedulable, whose text leads its message,
// so a member rejected with the group says it twice, as upstream's does.
func TestGangTooBigForEveryDomain(t *testing.T) {
	pods := []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job"), gangPod("w2", "job"), gangPod("w3", "job")}
	e := topologyEngine(t, pods, zonalGang("job", 4))
	e.Step()
	const msg = "pod group is unschedulable, 0/2 placements are available, first placement status: minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, "
	if c := groupCondition(t, e, "job"); c.Message != msg {
		t.Errorf("condition message %q, want %q", c.Message, msg)
	}
	if got := podMessage(e, "w0"); got != "pod group is unschedulable, "+msg {
		t.Errorf("w0: %q", got)
	}
	for _, p := range pods {
		if n := nodeOf(e, p.Name); n != "" {
			t.Errorf("%s bound to %s", p.Name, n)
		}
	}
}

// A gang that can never fit settles: the engine goes quiescent instead of
// retrying it forever.
func TestUnschedulableGangSettles(t *testing.T) {
	e := gangEngine(t, true, []*v1.Node{gangNode("n1", "1")}, []*v1.Pod{gangPod("w0", "job"), gangPod("w1", "job")}, podGroup("job", 2))
	for i := 0; i < 20; i++ {
		if _, ok := e.Step(); !ok {
			if i < 1 {
				t.Fatal("quiescent before the first cycle")
			}
			return
		}
	}
	t.Errorf("still stepping after 20 cycles (%d group cycles)", len(e.Groups()))
}
