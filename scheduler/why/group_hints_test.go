package why

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
	v1 "k8s.io/api/core/v1"
)

// runDemoGang runs the demo with its scheduler's gates (its training job
// is a gang) and returns the engine and the gang's first cycle.
func runDemoGang(t testing.TB) (*engine.Engine, *record.GroupAttempt) {
	t.Helper()
	r, err := features.Resolve("", "", testdata.DemoFeatureGates)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := snapshot.LoadUnder(testdata.DemoName, testdata.Demo, &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	for len(e.Groups()) == 0 {
		if _, ok := e.Step(); !ok {
			t.Fatal("the demo's gang had no group cycle")
		}
	}
	return e, e.Groups()[0]
}

// TestGroupHintsDemo: the demo's gang of 8 places 6 (6 GPUs free in zone
// demo-1b); each hint is proven by re-running the group cycle.
func TestGroupHintsDemo(t *testing.T) {
	e, g := runDemoGang(t)
	if g.Result != record.GroupUnschedulable || Placeable(g) != 6 || GroupSize(g) != 8 {
		t.Fatalf("the demo's gang: %s, %d of %d placeable", g.Result, Placeable(g), GroupSize(g))
	}
	fork := func() (*scheduler.Scheduler, *v1.Pod, error) { return e.Fork(g.FirstAttempt) }
	s, pod, err := fork()
	if err != nil {
		t.Fatal(err)
	}
	in := GroupHintsInput{GroupInput: GroupInput{Group: g, Members: members(e, g)}, Sched: s, Pod: pod, Fork: fork}
	res, err := GroupHints(in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hints {
		got = append(got, h.Summary+" → "+strings.Join(h.FitsOn, ","))
	}
	want := []string{
		"minCount 6 (PodGroup default/llm-train-workers: the gang runs with the 6 of its 8 members that fit) → gpu-b1,gpu-b2",
		"add a node like gpu-b1 (NodePool gpu-pool-b, zone demo-1b) → gpu-b1,gpu-b1-new,gpu-b2",
		"2 more nvidia.com/gpu on gpu-b2 (zone demo-1b) → gpu-b1,gpu-b2",
		"remove pod default/llm-serve-0 (holds 2 nvidia.com/gpu on gpu-b2) → gpu-b1,gpu-b2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hints:\n%s\nwant:\n%s\n(note: %s)", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Note)
	}
}

func members(e *engine.Engine, g *record.GroupAttempt) []*record.Attempt {
	out := make([]*record.Attempt, len(g.Members))
	for i, m := range g.Members {
		out[i] = e.Attempts().At(m.Attempt)
	}
	return out
}

// TestGroupHintsTopology: a gang asked into one zone fits in none, but
// across the two: dropping the topology constraint is proven by re-running
// the group cycle, and the verdict lists the placements tried.
func TestGroupHintsTopology(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for _, n := range []string{"a1", "a2", "b1", "b2"} {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata:
    name: node-%s
    labels: {kubernetes.io/hostname: node-%s, topology.kubernetes.io/zone: zone-%s}
  status:
    allocatable: {cpu: '8', memory: 16Gi, pods: '110', example.com/gpu: '2'}
    capacity: {cpu: '8', memory: 16Gi, pods: '110', example.com/gpu: '2'}
`, n, n, n[:1])
	}
	b.WriteString(`- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: job, namespace: default}
  spec:
    schedulingPolicy: {gang: {minCount: 6}}
    schedulingConstraints:
      topology: [{key: topology.kubernetes.io/zone}]
`)
	for i := range 6 {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata: {name: w-%d, namespace: default}
  spec:
    containers: [{name: c, image: x, resources: {requests: {cpu: 100m, example.com/gpu: '1'}, limits: {example.com/gpu: '1'}}}]
    schedulingGroup: {podGroupName: job}
`, i)
	}
	r, err := features.Resolve("", "", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
	if err != nil {
		t.Fatal(err)
	}
	c, rep, err := snapshot.LoadUnder("topology.yaml", []byte(b.String()), &r.Features)
	if err != nil || rep != nil && len(rep.Problems) > 0 {
		t.Fatalf("%v %v", err, rep)
	}
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry(), Features: &r.Features})
	if err != nil {
		t.Fatal(err)
	}
	for len(e.Groups()) == 0 {
		if _, ok := e.Step(); !ok {
			t.Fatal("no group cycle")
		}
	}
	g := e.Groups()[0]
	if verdict := strings.Join(GroupVerdict(GroupInput{Group: g, Members: members(e, g)}), "\n"); !strings.Contains(verdict, "2 placements tried (one per topology domain)") {
		t.Errorf("verdict:\n%s", verdict)
	}
	fork := func() (*scheduler.Scheduler, *v1.Pod, error) { return e.Fork(g.FirstAttempt) }
	s, pod, err := fork()
	if err != nil {
		t.Fatal(err)
	}
	res, err := GroupHints(GroupHintsInput{GroupInput: GroupInput{Group: g, Members: members(e, g)}, Sched: s, Pod: pod, Fork: fork})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hints {
		got = append(got, h.Summary)
	}
	if !slices.Contains(got, "drop the topology constraint (PodGroup default/job: schedulingConstraints.topology topology.kubernetes.io/zone): the members may spread across domains") {
		t.Errorf("hints %q (note %q)", got, res.Note)
	}
}
