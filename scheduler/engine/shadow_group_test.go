package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// gangPodYAML is a pod of PodGroup group, as an API server with
// GenericWorkload stored it (a resourceVersion: it keeps
// spec.schedulingGroup whatever the loader's gates).
func gangPodYAML(name, cpu, group, extra string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, uid: uid-%s, resourceVersion: '1', creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: p0
    schedulingGroup: {podGroupName: %s}
    containers: [{name: c, image: x, resources: {requests: {cpu: '%s'}}}]
%s`, name, name, group, cpu, extra)
}

// podGroupYAML is a gang PodGroup of minCount (basic with 0).
func podGroupYAML(name string, minCount int) string {
	policy := "basic: {}"
	if minCount > 0 {
		policy = fmt.Sprintf("gang: {minCount: %d}", minCount)
	}
	return fmt.Sprintf(`- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: %s, namespace: default, uid: pg-%s, resourceVersion: '1', creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    schedulingPolicy: {%s}
`, name, name, policy)
}

func gangShadow(t *testing.T, yaml string) *Engine {
	t.Helper()
	gates := features.Default()
	gates.EnableGenericWorkload = true
	return load(t, yaml, Options{Shadow: true, Features: &gates})
}

// withCondition is the PodGroup with the PodGroupInitiallyScheduled
// condition the cluster's scheduler writes.
func withCondition(t *testing.T, e *Engine, group string, status metav1.ConditionStatus, reason, msg string) *schedulingv1beta1.PodGroup {
	t.Helper()
	pg, err := e.Scheduler().Objects().PodGroup("default", group)
	if err != nil {
		t.Fatal(err)
	}
	pg = pg.DeepCopy()
	apimeta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: status, Reason: reason, Message: msg})
	pg.ResourceVersion += "1"
	return pg
}

func groupChange(e *Engine, d time.Duration, pg *schedulingv1beta1.PodGroup) change.Change {
	return change.Change{Kind: change.ObjectUpdate, Object: pg, At: e.Start().Add(d)}
}

// observedVerdicts are the observations by pod (or PodGroup reference),
// the last one of each.
func observedVerdicts(e *Engine) map[string]history.Event {
	out := map[string]history.Event{}
	for _, o := range e.Observations() {
		out[o.Pod] = o
	}
	return out
}

// TestShadowGangBindings: a gang of three 1-cpu members on two equal
// nodes. The cluster's pod-group cycle placed m1 on n1 (a tie), m2 on n2,
// m3 on n1 (a tie again), and the bindings arrived m3, m1, m2. Judged
// each on arrival, m1 would disagree (m3 already on n1, n2 emptier);
// judged with its group's batch, in member order on the cluster's
// placements, each agrees or ties, and the PodGroup's condition agrees.
func TestShadowGangBindings(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") + podGroupYAML("g", 3) +
		gangPodYAML("m1", "1", "g", "") + gangPodYAML("m2", "1", "g", "") + gangPodYAML("m3", "1", "g", "")
	e := gangShadow(t, yaml)
	applyAll(t, e,
		groupChange(e, 10*time.Second, withCondition(t, e, "g", metav1.ConditionTrue, "Scheduled", "")),
		at(e, 10*time.Second+10*time.Millisecond, change.PodUpdate, bindTo(e, "default/m3", "n1")),
		at(e, 10*time.Second+20*time.Millisecond, change.PodUpdate, bindTo(e, "default/m1", "n1")),
		at(e, 10*time.Second+30*time.Millisecond, change.PodUpdate, bindTo(e, "default/m2", "n2")))
	e.RunToQuiescence()
	v := observedVerdicts(e)
	if len(v) != 4 {
		t.Fatalf("%d observations, want one per member and the PodGroup's: %+v", len(v), v)
	}
	for _, m := range []string{"default/m1", "default/m2", "default/m3"} {
		if o := v[m]; o.Reason != string(Agree) && o.Reason != string(Tie) || o.Uncertain != "" {
			t.Errorf("%s: %+v", m, o)
		}
	}
	if o := v["default/m2"]; o.Reason != string(Agree) || o.Judged == nil || o.Judged.Bound != 1 {
		t.Errorf("m2, judged with m1 on n1 only: %+v", o)
	}
	o := v["podgroup/default/g"]
	if want := SameCondition + "PodGroupInitiallyScheduled=True (Scheduled)"; o.Reason != string(Agree) || o.Message != want {
		t.Errorf("the PodGroup's condition: %+v, want the message %q", o, want)
	}
	if g := e.Groups(); len(g) != 1 || g[0].Key() != "default/g" || len(g[0].Members) != 3 {
		t.Errorf("schedtui's pod-group cycles: %+v", g)
	}
}

// TestShadowGangUnschedulable: a gang of two whose members fit only one
// at a time. The cluster's scheduler is schedtui's own simulation of the
// same cluster: its messages for the two members and the PodGroup's
// condition are the decisions, arriving one after the other. Shadow mode
// makes one pod-group cycle for the three decisions and agrees with each;
// a condition it does not write is a disagreement, its two sides laid out.
func TestShadowGangUnschedulable(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") + podGroupYAML("pair", 2) +
		gangPodYAML("p1", "3", "pair", "") + gangPodYAML("p2", "3", "pair", "")
	gates := features.Default()
	gates.EnableGenericWorkload = true
	sim := load(t, yaml, Options{Features: &gates})
	sim.RunToQuiescence()
	msg := func(pod string) string {
		for _, c := range sim.Pod(pod).Status.Conditions {
			if c.Type == "PodScheduled" {
				return c.Message
			}
		}
		t.Fatalf("the simulation left %s without a PodScheduled condition: %+v", pod, sim.Pod(pod).Status)
		return ""
	}
	pg, err := sim.Scheduler().Objects().PodGroup("default", "pair")
	if err != nil {
		t.Fatal(err)
	}
	cond := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	if cond == nil || cond.Status != metav1.ConditionFalse {
		t.Fatalf("the simulation's PodGroup condition: %+v", pg.Status)
	}
	decide := func(cond *metav1.Condition) *Engine {
		e := gangShadow(t, yaml)
		applyAll(t, e,
			at(e, 10*time.Second, change.PodUpdate, unschedulableUpdate(e, "default/p1", msg("default/p1"))),
			at(e, 10*time.Second+10*time.Millisecond, change.PodUpdate, unschedulableUpdate(e, "default/p2", msg("default/p2"))),
			groupChange(e, 10*time.Second+20*time.Millisecond, withCondition(t, e, "pair", cond.Status, cond.Reason, cond.Message)))
		e.RunToQuiescence()
		return e
	}
	e := decide(cond)
	v := observedVerdicts(e)
	for _, k := range []string{"default/p1", "default/p2", "podgroup/default/pair"} {
		if o := v[k]; o.Reason != string(Agree) {
			t.Errorf("%s: %+v", k, o)
		}
	}
	if o := v["podgroup/default/pair"]; o.Message != SameCondition+GroupConditionText(cond.Status, cond.Reason, cond.Message) {
		t.Errorf("the PodGroup's observation: %+v", o)
	}
	if n := len(e.Groups()); n != 1 {
		t.Errorf("%d pod-group cycles made for one cycle of the cluster's", n)
	}
	// A member's attempt in that cycle forks (the views prove hints on
	// the fork): the state before the cycle, the member as attempted.
	for _, m := range e.Groups()[0].Members {
		if f, pod, err := e.Fork(m.Attempt); err != nil || f == nil || key(pod) != m.Pod {
			t.Errorf("fork of %s's attempt %d: %v", m.Pod, m.Attempt, err)
		}
	}
	other := *cond
	other.Message = "minCount (2) cannot be satisfied: 0 scheduled, 0 remaining"
	o := observedVerdicts(decide(&other))["podgroup/default/pair"]
	if o.Reason != string(Disagree) || !strings.Contains(o.Message, "the conditions differ") {
		t.Errorf("another condition: %+v", o)
	}
	rows := VerdictRows(o, nil)
	if len(rows) != 1 || !rows[0].Differs || rows[0].Schedtui != GroupConditionText(cond.Status, cond.Reason, cond.Message) {
		t.Errorf("the two sides: %+v", rows)
	}
}

// TestShadowGangRejectedThenBound: the cluster's scheduler rejects a gang
// that does not fit (one member's condition written, the other's
// unchanged), the node grows, and the next cycle binds both. The bindings
// open a batch of their own (a cycle that binds rejects none of its
// placed members): judged on schedtui's cycle after the growth, they
// agree, where the rejecting cycle's batch would make them disagree.
func TestShadowGangRejectedThenBound(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "2", "") + podGroupYAML("g", 2) +
		gangPodYAML("m1", "1500m", "g", "") + gangPodYAML("m2", "1500m", "g", "")
	e := gangShadow(t, yaml)
	grown := e.Scheduler().Snapshot().List()[0].Node().DeepCopy()
	grown.Status.Allocatable["cpu"] = resource.MustParse("8")
	grown.Status.Capacity["cpu"] = resource.MustParse("8")
	grown.ResourceVersion += "1"
	applyAll(t, e,
		at(e, 10*time.Second, change.PodUpdate, unschedulableUpdate(e, "default/m1", "pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining")),
		change.Change{Kind: change.NodeUpdate, Node: grown, At: e.Start().Add(11 * time.Second)},
		at(e, 12*time.Second, change.PodUpdate, bindTo(e, "default/m2", "n1")),
		at(e, 12*time.Second+10*time.Millisecond, change.PodUpdate, bindTo(e, "default/m1", "n1")))
	e.RunToQuiescence()
	v := observedVerdicts(e)
	for _, m := range []string{"default/m1", "default/m2"} {
		if o := v[m]; o.Node != "n1" || o.Reason != string(Agree) {
			t.Errorf("%s: %+v", m, o)
		}
	}
	if g := e.Groups(); len(g) != 2 || g[1].Result.String() != "Scheduled" {
		t.Errorf("schedtui's pod-group cycles: %d, want the rejecting one and the binding one", len(g))
	}
}

// TestShadowGangConditionAlone: a PodGroup condition that no member
// decision follows (the members' conditions did not change) is held for
// groupBatchWindow, then judged on the state when a later change arrives:
// every decision is judged, once.
func TestShadowGangConditionAlone(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") + podGroupYAML("g", 2) +
		gangPodYAML("m1", "1", "g", "") + gangPodYAML("m2", "1", "g", "")
	e := gangShadow(t, yaml)
	n2 := e.Scheduler().Snapshot().List()[1].Node().DeepCopy()
	n2.Labels["touched"] = "yes"
	n2.ResourceVersion += "1"
	applyAll(t, e,
		groupChange(e, 10*time.Second, withCondition(t, e, "g", metav1.ConditionTrue, "Scheduled", "")),
		change.Change{Kind: change.NodeUpdate, Node: n2, At: e.Start().Add(12 * time.Second)})
	e.RunToQuiescence()
	if n := len(e.Observations()); n != 0 {
		t.Fatalf("judged before groupBatchWindow passed: %d observation(s)", n)
	}
	n2 = n2.DeepCopy()
	n2.ResourceVersion += "1"
	applyAll(t, e, change.Change{Kind: change.NodeUpdate, Node: n2, At: e.Start().Add(16 * time.Second)})
	e.RunToQuiescence()
	obs := e.Observations()
	if len(obs) != 1 || obs[0].Pod != "podgroup/default/g" || obs[0].Reason != string(Agree) {
		t.Errorf("observations: %+v", obs)
	}
}

// TestVictimCountTie: a pod group's preemption that took another number
// of victims is a tie only when the messages differ in nothing else and
// schedtui's scheduling run placed members on tied nodes.
func TestVictimCountTie(t *testing.T) {
	msg := func(n int) string {
		return fmt.Sprintf("minCount (8) cannot be satisfied: 3 scheduled, 4 remaining, pod group preemption: found a placement for podgroup, preempting %d victims", n)
	}
	cycle := func(tied int) *scheduler.PodGroupCycle {
		return &scheduler.PodGroupCycle{Group: &record.GroupAttempt{Preemption: &record.Preemption{TiedPlacements: tied}}}
	}
	for _, tc := range []struct {
		name         string
		c            *scheduler.PodGroupCycle
		theirs, mine string
		tie          bool
	}{
		{"other victims, tied placements", cycle(3), msg(6), msg(8), true},
		{"no tied placement", cycle(0), msg(6), msg(8), false},
		{"no preemption", &scheduler.PodGroupCycle{Group: &record.GroupAttempt{}}, msg(6), msg(8), false},
		{"the same count", cycle(3), msg(8), msg(8), false},
		{"another difference", cycle(3), strings.Replace(msg(6), "3 scheduled, 4", "1 scheduled, 6", 1), msg(8), false},
		{"no preemption message", cycle(3), "minCount (8) cannot be satisfied", msg(8), false},
	} {
		why, ok := victimCountTie(tc.c, tc.theirs, tc.mine)
		if ok != tc.tie {
			t.Errorf("%s: tie = %v (%s), want %v", tc.name, ok, why, tc.tie)
		}
		if ok && !strings.Contains(why, "preempts 6, schedtui 8") {
			t.Errorf("%s: why = %q", tc.name, why)
		}
	}
}

// TestShadowGangRetryDuringPreemption: the cluster retries a gang of three
// whose preemption is under way (its victim on n3 still terminating), each
// member nominated where that preemption put it: m1 to n3, m2 to n1, m3 to
// n2. The group is in flight in the cluster's scheduler, out of its
// queue, so its members' nominations are stubs of priority 0 to the
// cycle: m1 goes to n1 (m2's nomination does not hold it), m2 to n2, and
// m3 finds no room; upstream's message counts two scheduled. Counted as
// full pods, the nominations would leave m1 nowhere (its own FitError, the
// group's "0 scheduled, 2 remaining").
func TestShadowGangRetryDuringPreemption(t *testing.T) {
	member := func(name, nominated string) string {
		return gangPodYAML(name, "3", "g", fmt.Sprintf(`  status:
    nominatedNodeName: %s
    conditions: [{type: PodScheduled, status: 'False', reason: Unschedulable}]
`, nominated))
	}
	member1 := strings.Replace(member("m1", "n3"), "priorityClassName: p0", "priorityClassName: p100", 1)
	member2 := strings.Replace(member("m2", "n1"), "priorityClassName: p0", "priorityClassName: p100", 1)
	member3 := strings.Replace(member("m3", "n2"), "priorityClassName: p0", "priorityClassName: p100", 1)
	yaml := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") + nodeYAML("n3", "4", "") +
		strings.Replace(podGroupYAML("g", 3), "  spec:\n", "  spec:\n    priorityClassName: p100\n    priority: 100\n", 1) +
		`- apiVersion: v1
  kind: Pod
  metadata: {name: v, namespace: default, uid: uid-v, resourceVersion: '1', creationTimestamp: '2025-12-31T00:00:00Z', deletionTimestamp: '2026-01-01T00:00:00Z'}
  spec:
    nodeName: n3
    priorityClassName: p0
    terminationGracePeriodSeconds: 3600
    containers: [{name: c, image: x, resources: {requests: {cpu: '3'}}}]
  status:
    phase: Running
    conditions: [{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]
` + member1 + member2 + member3
	e := gangShadow(t, yaml)
	want := "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: ongoing preemption on nominated nodes"
	applyAll(t, e, at(e, 10*time.Second, change.PodUpdate, unschedulableUpdate(e, "default/m1", want)))
	e.RunToQuiescence()
	o := observedVerdicts(e)["default/m1"]
	if o.Reason != string(Agree) {
		t.Errorf("m1: %s (%s), want agree", o.Reason, o.Message)
	}
}

// compositeYAML is a root CompositePodGroup, a gang of minGroupCount
// children (basic with 0).
func compositeYAML(name string, minGroupCount int) string {
	policy := "basic: {}"
	if minGroupCount > 0 {
		policy = fmt.Sprintf("gang: {minGroupCount: %d}", minGroupCount)
	}
	return fmt.Sprintf(`- apiVersion: scheduling.k8s.io/v1alpha3
  kind: CompositePodGroup
  metadata: {name: %s, namespace: default, uid: cpg-%s, resourceVersion: '1', creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    workloadRef: {workloadName: %s, templateName: %s}
    schedulingPolicy: {%s}
`, name, name, name, name, policy)
}

// childGroupYAML is a gang PodGroup of minCount under the
// CompositePodGroup parent.
func childGroupYAML(name, parent string, minCount int) string {
	return strings.Replace(podGroupYAML(name, minCount), "  spec:\n",
		"  spec:\n    parentCompositePodGroupName: "+parent+"\n    workloadRef: {workloadName: "+parent+", templateName: "+name+"}\n", 1)
}

// TestShadowCompositeBindings: a composite gang of two gangs, its three
// members bound by the cluster's scheduler in one cycle of the hierarchy
// (the bindings and the two PodGroups' conditions arriving in any order).
// Shadow mode makes one pod-group cycle of the root for them all and
// agrees with each decision and each PodGroup's condition.
func TestShadowCompositeBindings(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") + compositeYAML("job", 2) +
		childGroupYAML("a", "job", 2) + childGroupYAML("b", "job", 1) +
		gangPodYAML("a1", "3", "a", "") + gangPodYAML("a2", "3", "a", "") + gangPodYAML("b1", "500m", "b", "")
	gates := features.Default()
	gates.EnableGenericWorkload, gates.EnableTopologyAwareWorkloadScheduling, gates.EnableCompositePodGroup = true, true, true
	sim := load(t, yaml, Options{Features: &gates})
	sim.RunToQuiescence()
	if g := sim.Groups(); len(g) != 1 || g[0].Key() != "default/job" || !g[0].Composite || g[0].Result != record.GroupScheduled {
		t.Fatalf("the simulation's pod-group cycles: %+v", g)
	}
	e := load(t, yaml, Options{Shadow: true, Features: &gates})
	var changes []change.Change
	for i, m := range []string{"default/b1", "default/a2", "default/a1"} {
		changes = append(changes, at(e, 10*time.Second+time.Duration(i)*10*time.Millisecond, change.PodUpdate, bindTo(e, m, sim.Pod(m).Spec.NodeName)))
	}
	changes = append(changes,
		groupChange(e, 10*time.Second+40*time.Millisecond, withCondition(t, e, "b", metav1.ConditionTrue, "Scheduled", "")),
		groupChange(e, 10*time.Second+50*time.Millisecond, withCondition(t, e, "a", metav1.ConditionTrue, "Scheduled", "")))
	applyAll(t, e, changes...)
	e.RunToQuiescence()
	v := observedVerdicts(e)
	for _, k := range []string{"default/a1", "default/a2", "default/b1", "podgroup/default/a", "podgroup/default/b"} {
		if o := v[k]; o.Reason != string(Agree) && o.Reason != string(Tie) {
			t.Errorf("%s: %+v", k, o)
		}
	}
	if g := e.Groups(); len(g) != 1 || g[0].Key() != "default/job" || len(g[0].Members) != 3 {
		t.Errorf("schedtui's pod-group cycles: %+v", g)
	}
}
