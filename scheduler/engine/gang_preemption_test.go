package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

func wapNode(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}}}
}

func wapPod(name string, prio int32, node string, group string, grace int64) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(scheduler.Epoch.Add(-time.Hour))},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &prio, NodeName: node, TerminationGracePeriodSeconds: &grace,
			Containers: []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}}}}}}
	if group != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	}
	if node != "" {
		p.Status.Phase = v1.PodRunning
		t := metav1.NewTime(scheduler.Epoch.Add(-time.Hour))
		p.Status.StartTime = &t
	}
	return p
}

func wapGroup(name string, prio int32, minCount int32, all bool) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-pg-" + name),
		CreationTimestamp: metav1.NewTime(scheduler.Epoch.Add(-time.Hour))}}
	pg.Spec.Priority = &prio
	pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	if all {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	return pg
}

func wapEngine(t *testing.T, pods []*v1.Pod, objs ...any) *Engine {
	t.Helper()
	r, err := features.Resolve("", "", "GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New([]*v1.Node{wapNode("n1"), wapNode("n2")}, pods, objs,
		Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, Config: config.Default(r.Features)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestGangPreemptsLowerPriorityPods: a gang of two that fits nowhere
// preempts the two lower-priority pods in its way (workload-aware
// preemption over the cluster), each member nominated where the algorithm
// put it; while a victim is still terminating the group's next cycle finds
// the preemption under way (upstream's "ongoing preemption on nominated
// nodes") and evicts nothing more; once both victims are gone the gang
// binds whole.
func TestGangPreemptsLowerPriorityPods(t *testing.T) {
	e := wapEngine(t, []*v1.Pod{
		wapPod("low-1", 0, "n1", "", 30), wapPod("low-2", 0, "n2", "", 60),
		wapPod("worker-0", 100, "", "train", 30), wapPod("worker-1", 100, "", "train", 30),
	}, wapGroup("train", 100, 2, false))
	g := stepGroup(t, e)
	const found = "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, pod group preemption: found a placement for podgroup, preempting 2 victims"
	if g.Message != found || !slices.Equal(g.Victims, []string{"default/low-1", "default/low-2"}) {
		t.Errorf("first cycle: message %q victims %v", g.Message, g.Victims)
	}
	if p := g.Preemption; p == nil || p.Chosen != 0 || p.Candidates[0].Node != "cluster" {
		t.Errorf("preemption record %+v", p)
	}
	for pod, node := range map[string]string{"default/worker-0": "n1", "default/worker-1": "n2"} {
		if got := e.Pod(pod).Status.NominatedNodeName; got != node {
			t.Errorf("%s nominated to %q, want %q", pod, got, node)
		}
	}
	if pg, _ := e.sched.Objects().PodGroup("default", "train"); pg == nil || !hasCondition(pg, "False", "Unschedulable", found) {
		t.Errorf("PodGroup status %+v", pg)
	}

	e.RunUntil(45 * time.Second)
	for _, name := range []string{"default/low-1", "default/low-2"} {
		var preempted []string
		for _, ev := range findEvents(e, history.EventCluster, name) {
			if ev.Reason == "Preempted" {
				preempted = append(preempted, ev.Message)
			}
		}
		if want := []string{"Preempted by podgroup uid-pg-train on node cluster"}; !slices.Equal(preempted, want) {
			t.Errorf("%s: Preempted events %q, want %q", name, preempted, want)
		}
	}
	if v := e.Pod("default/low-2"); v == nil || disruptionTarget(v) == nil ||
		disruptionTarget(v).Message != "default-scheduler: preempting to accommodate a higher priority podgroup" {
		t.Errorf("low-2 while terminating: %+v", v)
	}
	const ongoing = "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: ongoing preemption on nominated nodes"
	var sawOngoing bool
	for _, a := range e.Attempts().All() {
		if a.Pod == "default/worker-0" && a.Message == ongoing {
			sawOngoing = true
		}
	}
	if !sawOngoing {
		t.Errorf("no member attempt says %q", ongoing)
	}
	if pe := findEvents(e, history.EventPreemption, ""); len(pe) != 1 {
		t.Errorf("%d preemption decisions, want the first only", len(pe))
	}

	e.RunUntil(3 * time.Minute)
	for pod, node := range map[string]string{"default/worker-0": "n1", "default/worker-1": "n2"} {
		if got := e.Pod(pod).Spec.NodeName; got != node {
			t.Errorf("%s bound to %q, want %q", pod, got, node)
		}
	}
}

// TestGangPreemptsDisruptionModeAllGroup: the pod in the gang's way
// belongs to a group whose disruptionMode is all, so its whole group goes,
// its pod on the other node too; with disruptionMode single only the pod
// in the way goes.
func TestGangPreemptsDisruptionModeAllGroup(t *testing.T) {
	for _, all := range []bool{true, false} {
		t.Run(fmt.Sprintf("all=%v", all), func(t *testing.T) {
			e := wapEngine(t, []*v1.Pod{
				wapPod("batch-0", 10, "n1", "batch", 30), halfCPU(wapPod("batch-1", 10, "n2", "batch", 30)),
				// Above the gang: n2 can never hold a worker.
				halfCPU(wapPod("keeper", 200, "n2", "", 30)),
				wapPod("worker-0", 100, "", "train", 30),
			}, wapGroup("train", 100, 1, false), wapGroup("batch", 10, 2, all))
			g := stepGroup(t, e)
			want := []string{"default/batch-0"}
			if all {
				want = []string{"default/batch-0", "default/batch-1"}
			}
			if !slices.Equal(g.Victims, want) {
				t.Errorf("victims %v, want %v (%s)", g.Victims, want, g.Message)
			}
			wantMsg := fmt.Sprintf("pod group preemption: found a placement for podgroup, preempting %d victims", len(want))
			if !strings.HasSuffix(g.Message, wantMsg) {
				t.Errorf("message %q does not end with %q", g.Message, wantMsg)
			}
			for _, v := range g.Preemption.Candidates[0].Victims {
				if wantGroup := map[bool]string{true: "default/batch"}[all]; v.Group != wantGroup {
					t.Errorf("victim %s with group %q, want %q", v.Pod, v.Group, wantGroup)
				}
			}
		})
	}
}

// stepGroup makes the next attempt, which must be a pod-group cycle, and
// returns its record.
func stepGroup(t *testing.T, e *Engine) *record.GroupAttempt {
	t.Helper()
	if _, ok := e.Step(); !ok {
		t.Fatal("nothing to schedule")
	}
	gs := e.Groups()
	if len(gs) == 0 {
		t.Fatal("no group cycle")
	}
	return gs[len(gs)-1]
}

func halfCPU(p *v1.Pod) *v1.Pod {
	p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("1")
	return p
}

func hasCondition(pg *schedulingv1beta1.PodGroup, status, reason, msg string) bool {
	for _, c := range pg.Status.Conditions {
		if c.Type == scheduler.PodGroupInitiallyScheduled {
			return string(c.Status) == status && c.Reason == reason && c.Message == msg
		}
	}
	return false
}

// TestPodGroupPreemptionPolicyGate: with PodGroupPreemptionPolicy the
// PodGroup's own policy decides whether the gang preempts, and every
// member must share it.
func TestPodGroupPreemptionPolicyGate(t *testing.T) {
	r, err := features.Resolve("", "", "GenericWorkload=true,PodGroupPreemptionPolicy=true")
	if err != nil {
		t.Fatal(err)
	}
	never, neverPod := schedulingv1beta1.PreemptNever, v1.PreemptNever
	for _, tc := range []struct {
		name        string
		groupNever  bool
		memberNever bool
		want        string
	}{
		// DynamicResources' PodGroupPostFilter runs first and leaves its
		// reason before DefaultPreemption's Unschedulable one.
		{name: "the group says Never", groupNever: true, memberNever: true,
			want: "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, deallocation and deletion of ResourceClaims completed, pod group preemption: not eligible due to preemptionPolicy=Never."},
		{name: "a member differs from the group", memberNever: true,
			want: "all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got Never and PreemptLowerPriority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := wapGroup("train", 100, 1, false)
			if tc.groupNever {
				pg.Spec.PreemptionPolicy = &never
			}
			w := wapPod("worker-0", 100, "", "train", 30)
			if tc.memberNever {
				w.Spec.PreemptionPolicy = &neverPod
			}
			e, err := New([]*v1.Node{wapNode("n1")}, []*v1.Pod{wapPod("low-1", 0, "n1", "", 30), w}, []any{pg},
				Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, Config: config.Default(r.Features)})
			if err != nil {
				t.Fatal(err)
			}
			// The group's condition says why (a member's own attempt keeps
			// its FitError).
			if g := stepGroup(t, e); !strings.Contains(g.Message, tc.want) {
				t.Errorf("group message %q does not contain %q", g.Message, tc.want)
			}
			if len(findEvents(e, history.EventPreemption, "")) != 0 {
				t.Error("the gang preempted")
			}
		})
	}
}

// TestPodPreemptsDisruptionModeAllGroup: with GenericWorkload an ordinary
// pod's preemption takes a disruptionMode all group whole, its pod on the
// other node too, each victim marked as preempted by a pod.
func TestPodPreemptsDisruptionModeAllGroup(t *testing.T) {
	e := wapEngine(t, []*v1.Pod{
		wapPod("batch-0", 10, "n1", "batch", 30), halfCPU(wapPod("batch-1", 10, "n2", "batch", 30)),
		halfCPU(wapPod("keeper", 200, "n2", "", 30)),
		wapPod("urgent", 100, "", "", 30),
	}, wapGroup("batch", 10, 2, true))
	a, ok := e.Step()
	if !ok || a.Nominated != "n1" || !slices.Equal(a.Victims, []string{"default/batch-0", "default/batch-1"}) {
		t.Fatalf("attempt: nominated %q victims %v (%s)", a.Nominated, a.Victims, a.Message)
	}
	if want := "preemption: found a potential placement for pod on node n1, preempting 2 victims"; !strings.HasSuffix(a.Message, want) {
		t.Errorf("message %q does not end with %q", a.Message, want)
	}
	e.RunUntil(10 * time.Second)
	for _, name := range []string{"default/batch-0", "default/batch-1"} {
		if v := e.Pod(name); v == nil || disruptionTarget(v) == nil ||
			disruptionTarget(v).Message != "default-scheduler: preempting to accommodate a higher priority pod" {
			t.Errorf("%s: %+v", name, v)
		}
	}
}

// TestGangPreemptionTiedPlacements: with every victim taken off, the
// preemption's scheduling run finds empty nodes that tie at the top score
// for the first members: the record counts them (the placements
// kube-scheduler breaks by its parallel Filter's order), and a cycle
// without ties counts none.
func TestGangPreemptionTiedPlacements(t *testing.T) {
	r, err := features.Resolve("", "", "GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*v1.Node{wapNode("n1"), wapNode("n2"), wapNode("n3")}
	pods := []*v1.Pod{wapPod("low-1", 0, "n1", "", 30), wapPod("low-2", 0, "n2", "", 30)}
	for i := range 3 {
		pods = append(pods, wapPod(fmt.Sprintf("worker-%d", i), 100, "", "train", 30))
	}
	e, err := New(nodes, pods, []any{wapGroup("train", 100, 3, false)},
		Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features, Config: config.Default(r.Features)})
	if err != nil {
		t.Fatal(err)
	}
	g := stepGroup(t, e)
	if g.Preemption == nil || len(g.Victims) != 2 {
		t.Fatalf("preemption = %+v, victims %v; want both low pods preempted", g.Preemption, g.Victims)
	}
	// The first member has three empty nodes to choose from, the second
	// two, the third one.
	if g.Preemption.TiedPlacements != 2 {
		t.Errorf("TiedPlacements = %d, want 2", g.Preemption.TiedPlacements)
	}

	// One victim, the other node held by a pod of higher priority: one
	// node to place the member on, no tie.
	e = wapEngine(t, []*v1.Pod{wapPod("low-1", 0, "n1", "", 30), wapPod("high", 1000, "n2", "", 30),
		wapPod("worker-0", 100, "", "one", 30)}, wapGroup("one", 100, 1, false))
	g = stepGroup(t, e)
	if g.Preemption == nil || len(g.Victims) != 1 || g.Preemption.TiedPlacements != 0 {
		t.Errorf("preemption = %+v, victims %v; want low-1 preempted, no tied placement", g.Preemption, g.Victims)
	}
}

// TestGangDeallocatesUnavailableClaim: the one member of a gang claims a
// device allocated on n2, where a pod of higher priority leaves no room;
// n1 has room but cannot use the claim. DynamicResources'
// PodGroupPostFilter deallocates the claim (reserved for nobody), stored
// as the API server stores it; with no victim, DefaultPreemption's
// UnschedulableAndUnresolvable then ends the chain with its reason alone
// (DynamicResources' is dropped, as upstream's runtime drops it).
func TestGangDeallocatesUnavailableClaim(t *testing.T) {
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gpu", UID: "uid-claim-gpu"}}
	c.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}
	c.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "n2", Device: "gpu-0"}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n2"}}}}}},
	}
	w := wapPod("worker-0", 100, "", "train", 30)
	w.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &c.Name}}
	e := wapEngine(t, []*v1.Pod{wapPod("high", 1000, "n2", "", 30), w}, wapGroup("train", 100, 1, false), c)
	g := stepGroup(t, e)
	if want := "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor"; g.Message != want {
		t.Errorf("group message %q, want %q", g.Message, want)
	}
	cur, err := e.Scheduler().Objects().ResourceClaim("default", "gpu")
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status.Allocation != nil {
		t.Errorf("the claim is still allocated: %+v", cur.Status.Allocation)
	}
}
