package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// load builds an engine over a YAML snapshot (loader defaulting and
// admission included).
func load(t testing.TB, yaml string, opts Options) *Engine {
	t.Helper()
	c, rep, err := snapshot.Load("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Logf("loader: %s", p.String())
	}
	return build(t, c, opts)
}

func build(t testing.TB, c *snapshot.Cluster, opts Options) *Engine {
	t.Helper()
	opts.Registry = plugins.NewInTreeRegistry()
	e, err := New(c.Nodes, c.Pods, c.SchedulerObjects(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// demo is the engine on the demo under opts' gates (v1.37's defaults):
// without GenericWorkload the training job's workers are ordinary pods.
func demo(t testing.TB, opts Options) *Engine {
	t.Helper()
	c, _, err := snapshot.Load(testdata.DemoName, testdata.Demo)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, c, opts)
}

func nodeYAML(name, cpu string, extra string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Node
  metadata:
    name: %s
    labels: {kubernetes.io/hostname: %s}
  spec: {%s}
  status:
    allocatable: {cpu: '%s', memory: 8Gi, pods: '110'}
    capacity: {cpu: '%s', memory: 8Gi, pods: '110'}
`, name, name, extra, cpu, cpu)
}

func podYAML(name, cpu string, prio int, extra string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, uid: uid-%s, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: p%d
    containers: [{name: c, image: x, resources: {requests: {cpu: '%s'}}}]
%s`, name, name, prio, cpu, extra)
}

// listHeader starts a snapshot with priority classes p0, p10 and p100.
var listHeader = "apiVersion: v1\nkind: List\nitems:\n" + priorityClass(0) + priorityClass(10) + priorityClass(100)

func priorityClass(v int) string {
	return fmt.Sprintf("- apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: p%d}\n  value: %d\n", v, v)
}

// timelineJSON renders everything observable about a run.
func timelineJSON(t testing.TB, e *Engine) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range e.Timeline().All() {
		j, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	for _, a := range e.Attempts().All() {
		j, err := json.Marshal(a.JSON())
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	q, _ := json.Marshal(e.Queue())
	b.Write(q)
	return b.String()
}

// disruptionTarget is the pod's DisruptionTarget condition, nil if none.
func disruptionTarget(p *v1.Pod) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.DisruptionTarget {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func findEvents(e *Engine, kind history.EventKind, pod string) []history.Event {
	var out []history.Event
	for _, ev := range e.Timeline().All() {
		if ev.Kind == kind && (pod == "" || ev.Pod == pod) {
			out = append(out, ev)
		}
	}
	return out
}

// preemptionCluster: one 2-cpu node full with a low-priority pod whose
// grace period is 60s, and a high-priority pending pod.
var preemptionCluster = listHeader + `- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {kubernetes.io/hostname: n1}
  status:
    allocatable: {cpu: '2', memory: 8Gi, pods: '110'}
    capacity: {cpu: '2', memory: 8Gi, pods: '110'}
- apiVersion: v1
  kind: Pod
  metadata: {name: victim, namespace: default, uid: uid-victim, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    nodeName: n1
    priorityClassName: p0
    terminationGracePeriodSeconds: 60
    containers: [{name: c, image: x, resources: {requests: {cpu: '2'}}}]
  status: {phase: Running, startTime: '2025-12-31T00:00:00Z'}
- apiVersion: v1
  kind: Pod
  metadata: {name: preemptor, namespace: default, uid: uid-preemptor, creationTimestamp: '2025-12-31T00:00:00Z'}
  spec:
    priorityClassName: p100
    containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]
`

// TestPreemptionGracefulTermination: the preemptor is nominated, the
// victim is marked and terminates after its grace period in virtual time,
// then the preemptor binds on its nominated node.
func TestPreemptionGracefulTermination(t *testing.T) {
	e := load(t, preemptionCluster, Options{})
	a, ok := e.Step()
	if !ok || a.Outcome != record.Unschedulable || a.Nominated != "n1" || len(a.Victims) != 1 || a.Victims[0] != "default/victim" {
		t.Fatalf("first attempt: %v %s nominated %q victims %v", ok, a.Outcome, a.Nominated, a.Victims)
	}
	if p := e.Pod("default/preemptor"); p.Status.NominatedNodeName != "n1" {
		t.Errorf("status.nominatedNodeName %q", p.Status.NominatedNodeName)
	}
	if pe := findEvents(e, history.EventPreemption, "default/preemptor"); len(pe) != 1 || pe[0].Node != "n1" {
		t.Errorf("preemption events %+v", pe)
	}
	// Half-way through the grace period: the victim is terminating.
	e.RunUntil(30 * time.Second)
	if e.Attempts().Len() != 1 {
		t.Fatalf("attempts before the victim left: %d", e.Attempts().Len())
	}
	v := e.Pod("default/victim")
	if v == nil || v.DeletionTimestamp == nil || !v.DeletionTimestamp.Time.Equal(scheduler.Epoch.Add(60*time.Second)) {
		t.Fatalf("victim deletionTimestamp: %+v", v)
	}
	cond := disruptionTarget(v)
	if cond == nil || cond.Status != v1.ConditionTrue || cond.Reason != "PreemptionByScheduler" ||
		cond.Message != "default-scheduler: preempting to accommodate a higher priority pod" ||
		cond.ObservedGeneration != 1 {
		t.Errorf("DisruptionTarget condition %+v (observedGeneration: the created pod's generation 1)", cond)
	}
	if c := e.Pod("default/preemptor").Status.Conditions; len(c) != 1 || c[0].Type != v1.PodScheduled || c[0].Status != v1.ConditionFalse || c[0].ObservedGeneration != 1 {
		t.Errorf("preemptor's conditions %+v, want PodScheduled=False at observedGeneration 1", c)
	}
	if q := e.Queue(); len(q.Unschedulable) != 1 || q.Unschedulable[0].NominatedNode != "n1" {
		t.Errorf("queue while waiting: %+v", q)
	}
	a, ok = e.Step()
	if !ok || a.Outcome != record.Scheduled || a.Node != "n1" || !a.NominatedFastPath {
		t.Fatalf("second attempt: %v %+v", ok, a)
	}
	if !a.Time.Equal(scheduler.Epoch.Add(60 * time.Second)) {
		t.Errorf("bound at %v, want at the end of the grace period", a.Time)
	}
	ev := findEvents(e, history.EventEviction, "default/victim")
	if len(ev) != 1 || !ev[0].Time.Equal(scheduler.Epoch.Add(60*time.Second)) || ev[0].Preemptor != "default/preemptor" {
		t.Errorf("eviction %+v", ev)
	}
	if e.Pod("default/victim") != nil {
		t.Error("the victim is still in the cluster")
	}
	moves := findEvents(e, history.EventQueueMove, "default/preemptor")
	if last := moves[len(moves)-2]; last.Reason != "AssignedPodDelete" || last.To != history.ActiveQ {
		t.Errorf("preemptor requeued by %+v", last)
	}
	if _, ok := e.Step(); ok {
		t.Error("not quiescent at the end")
	}
}

// TestPreemptorGated: while the preemption's API calls are pending, a pod
// moved out of the unschedulable pool is gated by DefaultPreemption; the
// victim's deletion later wakes it up through the gating plugin's event.
func TestPreemptorGated(t *testing.T) {
	e := load(t, preemptionCluster, Options{PreemptionAPIDelay: 5 * time.Second})
	if _, ok := e.Step(); !ok {
		t.Fatal("no attempt")
	}
	// A node that fits the preemptor's cpu (NodeResourcesFit's hint
	// queues it) but taints it away.
	tainted := &v1.Node{}
	tainted.Name = "tainted"
	tainted.Labels = map[string]string{"kubernetes.io/hostname": "tainted"}
	tainted.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
	tainted.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}
	if err := e.Apply(change.Change{Kind: change.NodeAdd, Node: tainted, At: scheduler.Epoch.Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	e.RunUntil(3 * time.Second)
	q := e.Queue()
	if len(q.Gated) != 1 || q.Gated[0].GatingPlugin != "DefaultPreemption" ||
		q.Gated[0].GatingMessage != "waiting for the preemption for this pod to be finished" {
		t.Fatalf("not gated by DefaultPreemption: %+v", q)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled || a.Node != "n1" {
		t.Fatalf("after the victim left: %v %+v", ok, a)
	}
	if !a.Time.Equal(scheduler.Epoch.Add(65 * time.Second)) {
		t.Errorf("bound at %v, want delay 5s + grace 60s", a.Time)
	}
}

// TestFlushRetriesAndQuiescence: a pod that cannot fit is retried by the
// leftover flush only if the cluster changed since its last attempt;
// RunUntil keeps flushing past quiescence.
func TestFlushRetriesAndQuiescence(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") +
		podYAML("stuck", "1", 10, "    nodeSelector: {disk: ssd}\n") + podYAML("fits", "1", 0, "")
	e := load(t, yaml, Options{})
	n := e.RunToQuiescence()
	var got []string
	for _, a := range e.Attempts().All() {
		got = append(got, fmt.Sprintf("%s@%s:%s", a.Pod, a.Time.Sub(scheduler.Epoch), a.Outcome))
	}
	// stuck fails before fits binds, so the cluster changed after its
	// attempt: one flush retry (first tick more than 5m later), then done.
	want := []string{"default/stuck@0s:Unschedulable", "default/fits@0s:Scheduled", "default/stuck@5m30s:Unschedulable"}
	if n != 3 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("attempts %v, want %v", got, want)
	}
	if m := findEvents(e, history.EventQueueMove, "default/stuck"); m[len(m)-3].Reason != "UnschedulableTimeout" {
		t.Errorf("retry moved by %+v", m[len(m)-3])
	}
	e.RunUntil(20 * time.Minute)
	got = got[:0]
	for _, a := range e.Attempts().Slice(3, e.Attempts().Len()) {
		got = append(got, a.Time.Sub(scheduler.Epoch).String())
	}
	// Each retry sets Timestamp; the next flush is the first 30s tick
	// strictly more than 5 minutes later.
	if want := []string{"11m0s", "16m30s"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("retries at %v, want %v", got, want)
	}
	if !e.Now().Equal(scheduler.Epoch.Add(20 * time.Minute)) {
		t.Errorf("now %v", e.Now())
	}
}

// TestApplyEvents: a node update from a recording moves the pod its hint
// lets through; malformed changes are refused.
func TestApplyEvents(t *testing.T) {
	yaml := listHeader + nodeYAML("cordoned", "4", "unschedulable: true") + podYAML("p", "1", 0, "")
	e := load(t, yaml, Options{})
	if a, _ := e.Step(); a.Outcome != record.Unschedulable {
		t.Fatalf("first attempt %s", a.Outcome)
	}
	if _, ok := e.Step(); ok {
		t.Fatal("not quiescent while the only node is cordoned")
	}
	old := e.Scheduler().Snapshot().List()[0].Node()
	up := old.DeepCopy()
	up.Spec.Unschedulable = false
	if err := e.Apply(change.Change{Kind: change.NodeUpdate, Node: up}); err != nil {
		t.Fatal(err)
	}
	moves := findEvents(e, history.EventQueueMove, "default/p")
	if last := moves[len(moves)-1]; last.Reason != "NodeUpdateNodeTaint" || last.To != history.BackoffQ {
		t.Errorf("uncordon moved the pod by %+v", last)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled {
		t.Fatalf("after uncordon: %v %+v", ok, a)
	}
	// PopFromBackoffQ: activeQ was empty, the pod was still backing off.
	if moves := findEvents(e, history.EventQueueMove, "default/p"); moves[len(moves)-1].Reason != "PopFromBackoffQ" {
		t.Errorf("popped by %+v", moves[len(moves)-1])
	}
	for _, bad := range []change.Change{
		{Kind: change.NodeAdd},
		{Kind: change.NodeUpdate, Node: &v1.Node{}},
		{Kind: "Bogus", Node: old},
		{Kind: change.PodDelete, Pod: &v1.Pod{}},
	} {
		if err := e.Apply(bad); err == nil {
			t.Errorf("Apply(%+v) accepted", bad)
		}
	}
	missing := old.DeepCopy()
	missing.Name = "missing"
	if err := e.Apply(change.Change{Kind: change.NodeDelete, Node: missing}); err == nil {
		t.Error("deleting a missing node succeeded")
	}
}

// TestPodChanges: pods added, updated (gates removed) and deleted.
func TestPodChanges(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") +
		podYAML("gated", "1", 0, "    schedulingGates: [{name: example.com/g}]\n")
	e := load(t, yaml, Options{})
	if _, ok := e.Step(); ok {
		t.Fatal("a gated pod was attempted")
	}
	g := e.Pod("default/gated")
	ungated := g.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: ungated}); err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok || a.Pod != "default/gated" || a.Outcome != record.Scheduled {
		t.Fatalf("after ungating: %v %+v", ok, a)
	}
	extra := e.Pod("default/gated").DeepCopy()
	extra.Name, extra.UID, extra.Spec.NodeName = "new", "uid-new", ""
	extra.Status = v1.PodStatus{}
	if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: extra}); err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: extra}); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Step(); ok {
		t.Error("a deleted pod was attempted")
	}
	if err := e.Apply(change.Change{Kind: change.PodDelete, Pod: e.Pod("default/gated")}); err != nil {
		t.Fatal(err)
	}
	if len(e.Scheduler().Snapshot().List()[0].Pods) != 0 {
		t.Error("deleted bound pod still on its node")
	}
}

// TestDeterministic: two runs of the demo are identical, byte for byte.
func TestDeterministic(t *testing.T) {
	a, b := demo(t, Options{Seed: 7}), demo(t, Options{Seed: 7})
	a.RunUntil(15 * time.Minute)
	b.RunUntil(15 * time.Minute)
	if ja, jb := timelineJSON(t, a), timelineJSON(t, b); ja != jb {
		t.Errorf("runs differ:\n%s\n---\n%s", ja, jb)
	}
}

// TestRewindEqualsReplay: rewinding n attempts gives exactly the state of
// a fresh run stopped there, and running on from it gives the original
// run again. Small checkpoint intervals make rewinds cross checkpoints and
// thinning.
func TestRewindEqualsReplay(t *testing.T) {
	opts := Options{Seed: 3, CheckpointInterval: 2, MaxCheckpoints: 3}
	full := demo(t, opts)
	full.RunUntil(12 * time.Minute)
	total := full.Attempts().Len()
	if total < 10 {
		t.Fatalf("only %d attempts", total)
	}
	fullJSON := timelineJSON(t, full)
	for _, n := range []int{1, 2, 5, total - 1, total} {
		t.Run(fmt.Sprintf("rewind %d", n), func(t *testing.T) {
			e := demo(t, opts)
			e.RunUntil(12 * time.Minute)
			if err := e.Rewind(n); err != nil {
				t.Fatal(err)
			}
			fresh := demo(t, opts)
			for i := 0; i < total-n; i++ {
				if _, ok := fresh.stepOp(fresh.start.Add(12*time.Minute), false); !ok {
					t.Fatalf("fresh run ended after %d attempts", i)
				}
			}
			if got, want := timelineJSON(t, e), timelineJSON(t, fresh); got != want {
				t.Fatalf("rewound state differs from a fresh run:\n%s\n---\n%s", got, want)
			}
			if c := e.Cursor(); c.Attempt != total-n-1 {
				t.Errorf("cursor %+v", c)
			}
			e.RunUntil(12 * time.Minute)
			if got := timelineJSON(t, e); got != fullJSON {
				t.Errorf("running on after the rewind differs from the original run")
			}
		})
	}
	if err := full.Rewind(total + 1); err == nil {
		t.Error("rewinding past the start succeeded")
	}
	if err := full.Rewind(0); err == nil {
		t.Error("rewinding 0 succeeded")
	}
}

// TestRewindForgetsLaterChanges: changes applied after the rewind point
// are undone; those before it are replayed.
func TestRewindForgetsLaterChanges(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "1", "") + podYAML("a", "1", 10, "") + podYAML("b", "1", 0, "")
	e := load(t, yaml, Options{CheckpointInterval: 1})
	e.Step() // a binds
	if err := e.Apply(change.Change{Kind: change.NodeAdd, Node: nodeObj("n2", "1")}); err != nil {
		t.Fatal(err)
	}
	e.Step() // b binds on n2
	if a := e.Attempts().At(1); a.Node != "n2" {
		t.Fatalf("b on %q", a.Node)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if e.Scheduler().Snapshot().NumNodes() != 2 {
		t.Error("the node added before the rewound attempt is gone")
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if e.Scheduler().Snapshot().NumNodes() != 1 || e.Attempts().Len() != 0 {
		t.Errorf("rewind to the start kept %d nodes, %d attempts", e.Scheduler().Snapshot().NumNodes(), e.Attempts().Len())
	}
	a, _ := e.Step()
	b, _ := e.Step()
	if a.Node != "n1" || b.Outcome != record.Unschedulable {
		t.Errorf("replay without the node: %s %s", a.Node, b.Outcome)
	}
}

func nodeObj(name, cpu string) *v1.Node {
	n := &v1.Node{}
	n.Name = name
	n.Labels = map[string]string{"kubernetes.io/hostname": name}
	n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	return n
}

func TestBreakpoints(t *testing.T) {
	tests := []struct {
		name    string
		bps     []Breakpoint
		want    int
		wantPod string
	}{
		{"pod pattern", []Breakpoint{{PodPattern: "default/web-*"}}, 0, "default/web-3"},
		{"unschedulable", []Breakpoint{{Unschedulable: true}}, 0, "default/critical-api"},
		{"preemption", []Breakpoint{{Node: "nowhere"}, {Preemption: true}}, 1, "default/critical-api"},
		{"node", []Breakpoint{{Node: "node-b1"}}, 0, "kube-system/log-agent-b1x7k"},
		{"nothing matches", []Breakpoint{{}, {PodPattern: "nope/*"}}, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := demo(t, Options{Seed: 1})
			got := e.Continue(tt.bps)
			if got != tt.want {
				t.Fatalf("Continue = %d, want %d", got, tt.want)
			}
			if tt.want >= 0 {
				if a := e.Attempts().At(e.Attempts().Len() - 1); a.Pod != tt.wantPod {
					t.Errorf("stopped at %s, want %s", a.Pod, tt.wantPod)
				}
			} else if !e.Quiescent() {
				t.Error("Continue returned -1 before quiescence")
			}
		})
	}
}

// TestStepPhase reveals a scheduled attempt phase by phase.
func TestStepPhase(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") + nodeYAML("n2", "4", "") + podYAML("p", "1", 0, "")
	e := load(t, yaml, Options{})
	var got []string
	prev := e.Cursor()
	for i := 0; i < 20; i++ {
		c := e.StepPhase()
		if c == prev {
			break // quiescent: the cursor stays on the last phase
		}
		prev = c
		got = append(got, c.Phase.String())
	}
	want := "PreEnqueue Pop PreFilter Filter PreScore Score NormalizeScore Reserve Permit PreBind Bind"
	if strings.Join(got, " ") != want {
		t.Errorf("phases %v, want %s", got, want)
	}
}

// TestFork returns the cluster as an attempt saw it.
func TestFork(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	e.RunToQuiescence()
	var i int
	for i = range e.Attempts().All() {
		if e.Attempts().At(i).Pod == "default/critical-api" && e.Attempts().At(i).Outcome == record.Scheduled {
			break
		}
	}
	s, pod, err := e.Fork(i)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "critical-api" || pod.Status.NominatedNodeName != "node-b2" {
		t.Errorf("fork pod %s nominated %q", pod.Name, pod.Status.NominatedNodeName)
	}
	a := s.ScheduleOne(pod)
	if a.Outcome != record.Scheduled || a.Node != e.Attempts().At(i).Node {
		t.Errorf("fork schedules to %s %s, the engine did %s", a.Outcome, a.Node, e.Attempts().At(i).Node)
	}
	if _, _, err := e.Fork(e.Attempts().Len()); err == nil {
		t.Error("fork past the end succeeded")
	}
}

func TestJSONLines(t *testing.T) {
	e := load(t, preemptionCluster, Options{})
	e.RunToQuiescence()
	var kinds []string
	for _, ev := range e.Timeline().All() {
		if j, ok := EventJSON(ev); ok {
			b, _ := json.Marshal(j)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, m["kind"].(string))
			if ev.Kind == history.EventEviction && (m["preemptor"] != "default/preemptor" || m["time"] != "2026-01-01T00:01:00Z") {
				t.Errorf("eviction line %s", b)
			}
		}
	}
	if s := strings.Join(kinds, ","); !strings.Contains(s, "queue,preemption") || !strings.Contains(s, "eviction") {
		t.Errorf("kinds %s", s)
	}
}

// TestRewindGenerated repeats the rewind check on generated preemption
// scenarios with more than 100 nodes, where the rotating start index,
// the random candidate offset and graceful termination all matter.
func TestRewindGenerated(t *testing.T) {
	for _, seed := range []int64{11, 12} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sc := scenario.Generate(seed, scenario.Options{MinNodes: 110, MaxNodes: 140, Preemption: true})
			opts := Options{Seed: uint64(seed), CheckpointInterval: 7, MaxCheckpoints: 4}
			run := func() *Engine {
				e := build(t, sc.Cluster.DeepCopy(), opts)
				e.RunUntil(11 * time.Minute)
				return e
			}
			full := run()
			total := full.Attempts().Len()
			want := timelineJSON(t, full)
			var preempted bool
			for _, a := range full.Attempts().All() {
				preempted = preempted || len(a.Victims) > 0
			}
			t.Logf("%d nodes, %d attempts, preemption: %v", full.Scheduler().Snapshot().NumNodes(), total, preempted)
			for _, n := range []int{1, total / 3, total - 2} {
				if n <= 0 || n > total {
					continue
				}
				e := run()
				if err := e.Rewind(n); err != nil {
					t.Fatal(err)
				}
				fresh := build(t, sc.Cluster.DeepCopy(), opts)
				for i := 0; i < total-n; i++ {
					fresh.stepOp(fresh.start.Add(11*time.Minute), false)
				}
				if got, w := timelineJSON(t, e), timelineJSON(t, fresh); got != w {
					t.Fatalf("rewind %d differs from a fresh run", n)
				}
				e.RunUntil(11 * time.Minute)
				if got := timelineJSON(t, e); got != want {
					t.Fatalf("rewind %d then run differs from the original", n)
				}
			}
		})
	}
}

// TestRewindSynthetic: 150 nodes with small pods (early-stopping Filter
// search) and tied preemptions (random offset), stepped strictly (so the
// quiescence bookkeeping must survive restores too).
func TestRewindSynthetic(t *testing.T) {
	nodes, pods := genCluster(150, 120, 2500, 10, 100)
	// An interval prime to the start index's period (3 with 150 nodes and
	// 100 nodes to find) so that checkpoints do not all hold index 0.
	opts := Options{Seed: 5, CheckpointInterval: 7, MaxCheckpoints: 3, Registry: plugins.NewInTreeRegistry()}
	run := func(steps int) *Engine {
		e, err := New(nodes, pods, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; steps < 0 || i < steps; i++ {
			if _, ok := e.Step(); !ok {
				break
			}
		}
		return e
	}
	full := run(-1)
	total := full.Attempts().Len()
	want := timelineJSON(t, full)
	for _, n := range []int{1, 4, total / 2, total - 3} {
		e := run(-1)
		if err := e.Rewind(n); err != nil {
			t.Fatal(err)
		}
		if got, w := timelineJSON(t, e), timelineJSON(t, run(total-n)); got != w {
			t.Fatalf("rewind %d of %d differs from a fresh run", n, total)
		}
		for {
			if _, ok := e.Step(); !ok {
				break
			}
		}
		if got := timelineJSON(t, e); got != want {
			t.Fatalf("rewind %d then run on differs from the original", n)
		}
	}
}

// TestRewindKeepsQuiescence: what quiescence knows (which pods were tried
// against the current cluster) survives a restore: after rewinding the
// last attempt, stepping on makes exactly that attempt again and stops.
func TestRewindKeepsQuiescence(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "4", "") +
		podYAML("a", "1", 10, "    nodeSelector: {disk: ssd}\n") + podYAML("b", "1", 0, "    nodeSelector: {disk: ssd}\n")
	e := load(t, yaml, Options{CheckpointInterval: 1})
	if n := e.RunToQuiescence(); n != 2 {
		t.Fatalf("%d attempts, want 2 (nothing changes between them)", n)
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if n := e.RunToQuiescence(); n != 1 || e.Attempts().Len() != 2 {
		t.Errorf("after rewinding 1: %d more attempts, %d in all; want 1 and 2", n, e.Attempts().Len())
	}
}

// TestAttemptDuration: with attempts taking virtual time, timers due
// during an attempt fire at their own time after it.
func TestAttemptDuration(t *testing.T) {
	e := load(t, preemptionCluster, Options{AttemptDuration: 10 * time.Second})
	e.RunToQuiescence()
	var times []string
	for _, a := range e.Attempts().All() {
		times = append(times, a.Time.Sub(scheduler.Epoch).String())
	}
	if strings.Join(times, " ") != "0s 1m0s" || !e.Now().Equal(scheduler.Epoch.Add(70*time.Second)) {
		t.Errorf("attempts at %v, now %v", times, e.Now().Sub(scheduler.Epoch))
	}
	if ev := findEvents(e, history.EventCluster, "default/victim"); len(ev) != 1 || !ev[0].Time.Equal(scheduler.Epoch) {
		t.Errorf("victim marked %+v, want at 0s (during the first attempt's 10s)", ev)
	}
}

// TestTerminalPods: a pod reaching Succeeded leaves the scheduler's view
// (its informer's field selector) as if deleted, freeing its node.
func TestTerminalPods(t *testing.T) {
	yaml := listHeader + nodeYAML("n1", "1", "") + podYAML("a", "1", 10, "") + podYAML("b", "1", 0, "")
	e := load(t, yaml, Options{})
	e.RunToQuiescence()
	if q := e.Queue(); len(q.Unschedulable) != 1 || q.Unschedulable[0].Pod != "default/b" {
		t.Fatalf("queue %+v", q)
	}
	done := e.Pod("default/a").DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	if err := e.Apply(change.Change{Kind: change.PodUpdate, Pod: done}); err != nil {
		t.Fatal(err)
	}
	if e.Pod("default/a") != nil {
		t.Error("a succeeded pod is still stored")
	}
	a, ok := e.Step()
	if !ok || a.Pod != "default/b" || a.Outcome != record.Scheduled {
		t.Fatalf("after a finished: %v %+v", ok, a)
	}
	ghost := done.DeepCopy()
	ghost.Name = "ghost"
	if err := e.Apply(change.Change{Kind: change.PodAdd, Pod: ghost}); err != nil || e.Pod("default/ghost") != nil {
		t.Errorf("a terminal pod was added: %v", err)
	}
}

// TestQueueAtPop: while StepPhase reveals an attempt, QueueAtPop is the
// queue as the attempt popped its pod (the pod in flight, not yet
// requeued as unschedulable); once its last phase is revealed, and after
// n or a rewind, there is none.
func TestQueueAtPop(t *testing.T) {
	e := demo(t, Options{Seed: 1})
	if _, ok := e.QueueAtPop(); ok {
		t.Fatal("before any attempt: a queue at pop")
	}
	c := e.StepPhase()
	a := e.Attempts().At(c.Attempt)
	if a.Pod != "default/critical-api" || a.Outcome != record.Unschedulable {
		t.Fatalf("first attempt %s %s, want critical-api Unschedulable", a.Pod, a.Outcome)
	}
	names := func(l []QueuedPod) (out []string) {
		for _, p := range l {
			out = append(out, p.Pod)
		}
		return out
	}
	for c.Phase < a.LastPhase() {
		q, ok := e.QueueAtPop()
		if !ok {
			t.Fatalf("at %s: no queue at pop", c.Phase)
		}
		if len(q.Unschedulable) != 0 || len(q.ActiveQ) != 19 || slices.Index(names(q.ActiveQ), a.Pod) >= 0 {
			t.Fatalf("at %s: active %v, unschedulable %v; want 19 active without %s, none unschedulable",
				c.Phase, names(q.ActiveQ), names(q.Unschedulable), a.Pod)
		}
		c = e.StepPhase()
	}
	if _, ok := e.QueueAtPop(); ok {
		t.Errorf("at the last phase (%s): still a queue at pop", c.Phase)
	}
	if got := names(e.Queue().Unschedulable); slices.Index(got, a.Pod) < 0 {
		t.Errorf("after the attempt: unschedulable %v, want %s", got, a.Pod)
	}
	e.StepPhase() // the next attempt, at PreEnqueue
	if _, ok := e.QueueAtPop(); !ok {
		t.Fatal("second attempt at PreEnqueue: no queue at pop")
	}
	if err := e.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.QueueAtPop(); ok {
		t.Error("after a rewind: a queue at pop")
	}
	e.StepPhase()
	e.Step()
	if _, ok := e.QueueAtPop(); ok {
		t.Error("after n: a queue at pop")
	}
}

// TestSyncPreemption: with SchedulerAsyncPreemption off the victims are
// deleted inside the attempt (PostFilter), however long the API delay, and
// the preemptor is never gated by DefaultPreemption.
func TestSyncPreemption(t *testing.T) {
	gates := features.Default()
	gates.EnableAsyncPreemption = false
	e := load(t, preemptionCluster, Options{PreemptionAPIDelay: 5 * time.Second, Features: &gates})
	if a, ok := e.Step(); !ok || a.Nominated != "n1" {
		t.Fatalf("first attempt: %v %+v", ok, a)
	}
	if v := e.Pod("default/victim"); v == nil || v.DeletionTimestamp == nil || !v.DeletionTimestamp.Time.Equal(scheduler.Epoch.Add(60*time.Second)) {
		t.Fatalf("victim not deleted within the attempt: %+v", v)
	}
	if q := e.Queue(); len(q.Gated) != 0 {
		t.Errorf("gated: %+v", q.Gated)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled || a.Node != "n1" || !a.Time.Equal(scheduler.Epoch.Add(60*time.Second)) {
		t.Fatalf("second attempt: %v %+v, want bound at the end of the grace period", ok, a)
	}
}

// TestPopFromBackoffQOff: without SchedulerPopFromBackoffQ the uncordoned
// pod waits out its backoff in backoffQ (1s, released by the flush tick
// after it) instead of being popped from it at once.
func TestPopFromBackoffQOff(t *testing.T) {
	gates := features.Default()
	gates.EnableSchedulerPopFromBackoffQ = false
	yaml := listHeader + nodeYAML("cordoned", "4", "unschedulable: true") + podYAML("p", "1", 0, "")
	e := load(t, yaml, Options{Features: &gates})
	if a, _ := e.Step(); a.Outcome != record.Unschedulable {
		t.Fatalf("first attempt %s", a.Outcome)
	}
	up := e.Scheduler().Snapshot().List()[0].Node().DeepCopy()
	up.Spec.Unschedulable = false
	if err := e.Apply(change.Change{Kind: change.NodeUpdate, Node: up}); err != nil {
		t.Fatal(err)
	}
	a, ok := e.Step()
	if !ok || a.Outcome != record.Scheduled || !a.Time.Equal(scheduler.Epoch.Add(2*time.Second)) {
		t.Fatalf("after uncordon: %v %+v, want scheduled at the first tick after the 1s backoff", ok, a)
	}
	if moves := findEvents(e, history.EventQueueMove, "default/p"); moves[len(moves)-2].Reason != "BackoffComplete" {
		t.Errorf("moved to activeQ by %+v", moves[len(moves)-2])
	}
}
