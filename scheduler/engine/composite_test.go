package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// compositeEngine runs with CompositePodGroup (and the gates it needs).
func compositeEngine(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, objs ...any) *Engine {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(nodes, pods, objs, Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// compositeGroup is a CompositePodGroup of minGroupCount (basic when 0).
func compositeGroup(name string, minGroupCount int32) *schedulingv1alpha3.CompositePodGroup {
	cpg := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Generation: 1,
		CreationTimestamp: metav1.NewTime(scheduler.Epoch)}}
	if minGroupCount > 0 {
		cpg.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}
	} else {
		cpg.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
	}
	return cpg
}

// childGroup is podGroup below the CompositePodGroup parent, created at
// second s (children are tried in creation order).
func childGroup(name, parent string, minCount int32, s int) *schedulingv1beta1.PodGroup {
	pg := podGroup(name, minCount)
	pg.Spec.ParentCompositePodGroupName = &parent
	pg.CreationTimestamp = metav1.NewTime(scheduler.Epoch.Add(time.Duration(s) * time.Second))
	return pg
}

// TestCompositeGangOfTwoGangs: the composite gang job (minGroupCount 2)
// of the gangs a (2 members) and b (3 members, only 2 fit): the cycle of
// the root tries a then b; b cannot meet its minCount, so job cannot
// meet its minGroupCount and nobody binds: a, placed, takes job's
// message, b keeps its own. The record is the root's, composite, with a
// line per PodGroup and where a's members were placed. A breakpoint on
// the root's name stops at the hierarchy's cycle. Once b's minCount is
// lowered, the whole hierarchy binds.
func TestCompositeGangOfTwoGangs(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2"), gangNode("n2", "2")}
	pods := []*v1.Pod{gangPod("a0", "a"), gangPod("a1", "a"), gangPod("b0", "b"), gangPod("b1", "b"), gangPod("b2", "b")}
	e := compositeEngine(t, nodes, pods, compositeGroup("job", 2), childGroup("a", "job", 2, 1), childGroup("b", "job", 3, 2))
	if hit := e.Continue([]Breakpoint{{Group: "default/job"}}); hit != 0 || e.Attempts().Len() != 5 {
		t.Fatalf("the breakpoint on the root: hit %d after %d attempts, want it after the cycle's 5", hit, e.Attempts().Len())
	}
	g := e.Groups()
	if len(g) != 1 || g[0].Key() != "default/job" || !g[0].Composite || g[0].Result != record.GroupUnschedulable || g[0].MinCount != 2 {
		t.Fatalf("cycles: %+v", g)
	}
	for _, p := range pods {
		if n := nodeOf(e, p.Name); n != "" {
			t.Errorf("%s bound to %s", p.Name, n)
		}
	}
	const jobMsg = "0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
	if c := groupCondition(t, e, "a"); c.Status != metav1.ConditionFalse || c.Message != "pod group is unschedulable, "+jobMsg+", pod group preemption: No preemption victims found for incoming preemptor, pod group preemption: No preemption victims found for incoming preemptor" {
		t.Errorf("a's condition: %+v", c)
	}
	if c := groupCondition(t, e, "b"); c.Status != metav1.ConditionFalse || c.Message != "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor" {
		t.Errorf("b's condition: %+v", c)
	}
	if len(g[0].Children) != 2 || g[0].Children[0].Name != "a" || g[0].Children[1].Name != "b" || g[0].Children[1].Result != record.GroupUnschedulable {
		t.Errorf("children: %+v", g[0].Children)
	}
	placed := 0
	for _, m := range g[0].Members {
		if m.Group == "a" && m.Node != "" {
			placed++
		}
	}
	if placed != 2 {
		t.Errorf("a's members placed in the record: %d of 2: %+v", placed, g[0].Members)
	}
	b, err := e.Scheduler().Objects().PodGroup("default", "b")
	if err != nil {
		t.Fatal(err)
	}
	lowered := b.DeepCopy()
	lowered.Spec.SchedulingPolicy.Gang.MinCount = 2
	if err := e.Apply(change.Change{Kind: change.ObjectUpdate, Object: lowered}); err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	bound := 0
	for _, p := range pods {
		if nodeOf(e, p.Name) != "" {
			bound++
		}
	}
	if bound != 4 {
		t.Errorf("%d members bound with b's minCount 2, want 4 (b2 cannot fit)", bound)
	}
}

// TestCompositeRewindReplays: a hierarchy's cycles (and its retry from
// the backoff queue) replay the same after a rewind from checkpoints: the
// queue's hierarchy entry is exported and imported whole.
func TestCompositeRewindReplays(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2"), gangNode("n2", "2")}
	pods := []*v1.Pod{gangPod("a0", "a"), gangPod("a1", "a"), gangPod("b0", "b"), gangPod("b1", "b"), gangPod("b2", "b"), gangPod("solo", "")}
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(nodes, pods, []any{compositeGroup("job", 2), childGroup("a", "job", 2, 1), childGroup("b", "job", 3, 2)},
		Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, CheckpointInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := func() []string {
		var out []string
		for range 4 {
			a, ok := e.Step()
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%s %v %s %s", a.Pod, a.Outcome, a.Node, a.Message))
		}
		return out
	}
	first := run()
	if len(e.Groups()) < 2 || !e.Groups()[1].Composite {
		t.Fatalf("cycles of the hierarchy: %d", len(e.Groups()))
	}
	if err := e.Rewind(e.Attempts().Len()); err != nil {
		t.Fatal(err)
	}
	if again := run(); strings.Join(again, "\n") != strings.Join(first, "\n") {
		t.Errorf("replay differs:\n%s\nvs\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
	}
}

// TestCompositeRootDeletedAndAdded: the root's delete sends the
// hierarchy's members back to wait for it (the Queues view names it);
// its add brings them back into the queue, and the hierarchy schedules.
func TestCompositeRootDeletedAndAdded(t *testing.T) {
	nodes := []*v1.Node{gangNode("n1", "2")}
	pods := []*v1.Pod{gangPod("a0", "a"), gangPod("b0", "b")}
	job := compositeGroup("job", 2)
	e := compositeEngine(t, nodes, pods, job, childGroup("a", "job", 1, 1), childGroup("b", "job", 1, 2))
	if err := e.Apply(change.Change{Kind: change.ObjectDelete, Object: job}); err != nil {
		t.Fatal(err)
	}
	q := e.Queue()
	if len(q.Groups) != 0 || len(q.WaitingForGroup) != 2 || q.WaitingForGroup[0].MissingGroup != "job" {
		t.Fatalf("after the root's delete: groups %+v, waiting %+v", q.Groups, q.WaitingForGroup)
	}
	if _, ok := e.Step(); ok {
		t.Fatal("a member was attempted without its root")
	}
	if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: job.DeepCopy()}); err != nil {
		t.Fatal(err)
	}
	e.RunToQuiescence()
	if nodeOf(e, "a0") != "n1" || nodeOf(e, "b0") != "n1" {
		t.Errorf("after the root's add: a0 on %q, b0 on %q", nodeOf(e, "a0"), nodeOf(e, "b0"))
	}
	if g := e.Groups(); len(g) != 1 || g[0].Key() != "default/job" || g[0].Result != record.GroupScheduled {
		t.Errorf("cycles: %+v", g)
	}
}
