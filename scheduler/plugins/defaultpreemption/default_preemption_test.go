package defaultpreemption_test

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/plugins/defaultpreemption"
	"github.com/schedtui/schedtui/scheduler/record"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func node(name string, cpu string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourcePods: resource.MustParse("10")}}}
}

type podOpt func(*v1.Pod)

func on(n string) podOpt        { return func(p *v1.Pod) { p.Spec.NodeName = n } }
func labels(k, v string) podOpt { return func(p *v1.Pod) { p.Labels = map[string]string{k: v} } }
func never() podOpt {
	return func(p *v1.Pod) { pol := v1.PreemptNever; p.Spec.PreemptionPolicy = &pol }
}
func nominated(n string) podOpt { return func(p *v1.Pod) { p.Status.NominatedNodeName = n } }
func started(min int) podOpt {
	return func(p *v1.Pod) {
		t := metav1.NewTime(epoch.Add(time.Duration(min) * time.Minute))
		p.Status.StartTime = &t
	}
}
func terminatingByPreemption() podOpt {
	return func(p *v1.Pod) {
		t := metav1.NewTime(epoch)
		p.DeletionTimestamp = &t
		p.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler}}
	}
}

func pod(name string, prio int32, cpu string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &prio, Containers: []v1.Container{{
			Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}},
		}}},
	}
	started(0)(p)
	for _, o := range opts {
		o(p)
	}
	return p
}

func pdb(name, app string, allowed int32) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// attempt schedules preemptor (the last pod) on a cluster of nodes and
// the other pods.
func attempt(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, objs ...any) *record.Attempt {
	t.Helper()
	s, err := scheduler.New(nodes, pods, objs, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Clock: func() time.Time { return epoch.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	return s.ScheduleOne(pods[len(pods)-1])
}

func TestPickOneNodeForPreemption(t *testing.T) {
	high := func(opts ...podOpt) *v1.Pod { return pod("preemptor", 1000, "2", opts...) }
	tests := []struct {
		name       string
		nodes      []*v1.Node
		pods       []*v1.Pod
		objs       []any
		wantNode   string
		wantVictim []string
		decidedBy  string
	}{
		{
			name:  "single candidate",
			nodes: []*v1.Node{node("a", "2"), node("b", "1")},
			pods:  []*v1.Pod{pod("low-a", 10, "2", on("a")), high()},
			// b is too small even empty: its status is Unschedulable but
			// the dry run finds no victims there.
			wantNode: "a", wantVictim: []string{"default/low-a"}, decidedBy: "single candidate",
		},
		{
			name:     "minimum number of PDB violations",
			nodes:    []*v1.Node{node("a", "2"), node("b", "2")},
			pods:     []*v1.Pod{pod("protected", 10, "2", on("a"), labels("app", "db")), pod("free", 10, "2", on("b")), high()},
			objs:     []any{pdb("db", "db", 0)},
			wantNode: "b", wantVictim: []string{"default/free"}, decidedBy: "minimum number of PDB violations",
		},
		{
			name:     "minimum highest-priority victim",
			nodes:    []*v1.Node{node("a", "2"), node("b", "2")},
			pods:     []*v1.Pod{pod("p10", 10, "2", on("a")), pod("p5", 5, "2", on("b")), high()},
			wantNode: "b", wantVictim: []string{"default/p5"}, decidedBy: "minimum highest-priority victim",
		},
		{
			name:  "minimum sum of victim priorities",
			nodes: []*v1.Node{node("a", "2"), node("b", "2")},
			pods: []*v1.Pod{
				pod("a1", 5, "1", on("a")), pod("a2", 5, "1", on("a")),
				pod("b1", 5, "1", on("b")), pod("b2", 1, "1", on("b")), high(),
			},
			wantNode: "b", wantVictim: []string{"default/b1", "default/b2"}, decidedBy: "minimum sum of victim priorities",
		},
		{
			// Each victim adds its priority + 2^31 to the sum, so a second
			// victim at the lowest priority leaves the sums equal.
			name:  "minimum number of victims",
			nodes: []*v1.Node{node("a", "2"), node("b", "2")},
			pods: []*v1.Pod{
				pod("a1", 5, "2", on("a")),
				pod("b1", 5, "1", on("b")), pod("b2", math.MinInt32, "1", on("b")), high(),
			},
			wantNode: "a", wantVictim: []string{"default/a1"}, decidedBy: "minimum number of victims",
		},
		{
			name:     "latest start among the highest-priority victims",
			nodes:    []*v1.Node{node("a", "2"), node("b", "2")},
			pods:     []*v1.Pod{pod("old", 5, "2", on("a"), started(1)), pod("young", 5, "2", on("b"), started(30)), high()},
			wantNode: "b", wantVictim: []string{"default/young"}, decidedBy: defaultpreemption.LatestStartCriterion,
		},
		{
			name:  "reprieve keeps victims the pod does not need gone",
			nodes: []*v1.Node{node("a", "3")},
			pods:  []*v1.Pod{pod("keep", 5, "1", on("a"), started(1)), pod("evict", 5, "2", on("a"), started(2)), high()},
			// Victims are reprieved most important first (earlier start):
			// "keep" fits back beside the preemptor; "evict" cannot.
			wantNode: "a", wantVictim: []string{"default/evict"}, decidedBy: "single candidate",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := attempt(t, tc.nodes, tc.pods, tc.objs...)
			p := a.Preemption
			if p == nil || !p.Eligible {
				t.Fatalf("no preemption: %s", a.Message)
			}
			if a.Nominated != tc.wantNode || !slices.Equal(a.Victims, tc.wantVictim) {
				t.Errorf("nominated %q victims %v, want %q %v (message %q)", a.Nominated, a.Victims, tc.wantNode, tc.wantVictim, a.Message)
			}
			if p.DecidedBy != tc.decidedBy {
				t.Errorf("decided by %q, want %q", p.DecidedBy, tc.decidedBy)
			}
			want := fmt.Sprintf("preemption: found a potential placement for pod on node %s, preempting %d victims", tc.wantNode, len(tc.wantVictim))
			if !strings.HasSuffix(a.Message, want) {
				t.Errorf("message %q does not end with %q", a.Message, want)
			}
		})
	}
}

func TestPreemptionNotPossible(t *testing.T) {
	tests := []struct {
		name  string
		nodes []*v1.Node
		pods  []*v1.Pod
		want  string
	}{
		{
			name:  "preemptionPolicy Never",
			nodes: []*v1.Node{node("a", "1")},
			pods:  []*v1.Pod{pod("low", 1, "1", on("a")), pod("p", 100, "1", never())},
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:  "terminating victim on the nominated node",
			nodes: []*v1.Node{node("a", "1")},
			pods:  []*v1.Pod{pod("going", 1, "1", on("a"), terminatingByPreemption()), pod("p", 100, "1", nominated("a"))},
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.",
		},
		{
			name:  "no lower-priority pods",
			nodes: []*v1.Node{node("a", "1")},
			pods:  []*v1.Pod{pod("peer", 100, "1", on("a")), pod("p", 100, "1")},
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			// The equal-priority peer stays: evicting "low" is not enough.
			name:  "evicting every lower-priority pod would not help",
			nodes: []*v1.Node{node("a", "2")},
			pods:  []*v1.Pod{pod("low", 1, "1", on("a")), pod("peer", 100, "1", on("a")), pod("p", 100, "2")},
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			// A request above allocatable is UnschedulableAndUnresolvable:
			// such a node is never a candidate.
			name:  "request larger than the node",
			nodes: []*v1.Node{node("a", "1")},
			pods:  []*v1.Pod{pod("low", 1, "1", on("a")), pod("p", 100, "2")},
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := attempt(t, tc.nodes, tc.pods)
			if a.Message != tc.want {
				t.Errorf("message\n got %q\nwant %q", a.Message, tc.want)
			}
			if len(a.Victims) != 0 {
				t.Errorf("victims %v", a.Victims)
			}
		})
	}
}

// TestPDBViolationStopsAtTheFirstBudget: a victim under two budgets whose
// first (in the lister's order) it breaks spends nothing of the second, as
// upstream's FilterVictimsWithPDBViolation returns at the first violation,
// so a second victim under the second budget still fits in it; the record
// names the budget broken.
func TestPDBViolationStopsAtTheFirstBudget(t *testing.T) {
	nodes := []*v1.Node{node("a", "2")}
	both := pod("db-0", 6, "1", on("a"), labels("app", "db"))
	both.Labels["tier"] = "data"
	other := pod("cache-0", 5, "1", on("a"), labels("tier", "data"))
	db := pdb("a-db", "db", 0)
	data := pdb("b-data", "", 1)
	data.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "data"}}
	a := attempt(t, nodes, []*v1.Pod{both, other, pod("p", 100, "2")}, db, data)
	if a.Preemption == nil || len(a.Preemption.Candidates) != 1 {
		t.Fatalf("candidates: %+v", a.Preemption)
	}
	c := a.Preemption.Candidates[0]
	got := map[string][]string{}
	for _, v := range c.Victims {
		got[v.Pod] = v.PDBs
	}
	want := map[string][]string{"default/db-0": {"default/a-db"}, "default/cache-0": nil}
	if c.PDBViolations != 1 || !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%d violations, victims' PDBs %v; want 1, %v", c.PDBViolations, got, want)
	}
}

func TestPDBViolationsCountedWhenUnavoidable(t *testing.T) {
	nodes := []*v1.Node{node("a", "2")}
	pods := []*v1.Pod{pod("db-0", 5, "2", on("a"), labels("app", "db")), pod("p", 100, "2")}
	a := attempt(t, nodes, pods, pdb("db", "db", 0))
	if a.Preemption == nil || len(a.Preemption.Candidates) != 1 {
		t.Fatalf("candidates: %+v", a.Preemption)
	}
	c := a.Preemption.Candidates[0]
	if c.PDBViolations != 1 || !slices.Equal(c.Victims[0].PDBs, []string{"default/db"}) {
		t.Errorf("candidate %+v: want one PDB violation, of default/db", c)
	}
	// A pod already counted in status.disruptedPods is not counted again.
	b := pdb("db", "db", 0)
	b.Status.DisruptedPods = map[string]metav1.Time{"db-0": metav1.NewTime(epoch)}
	a = attempt(t, nodes, pods, b)
	if got := a.Preemption.Candidates[0].PDBViolations; got != 0 {
		t.Errorf("disrupted pod counted: %d violations", got)
	}
}

func TestLowerPriorityNominationsCleared(t *testing.T) {
	nodes := []*v1.Node{node("a", "2")}
	pods := []*v1.Pod{
		pod("low", 5, "2", on("a")),
		pod("waiting", 50, "1", nominated("a")),
		pod("p", 100, "2"),
	}
	a := attempt(t, nodes, pods)
	if a.Nominated != "a" {
		t.Fatalf("not nominated: %s", a.Message)
	}
	if !slices.Equal(a.Preemption.NominatedPodsCleared, []string{"default/waiting"}) {
		t.Errorf("cleared %v", a.Preemption.NominatedPodsCleared)
	}
}
