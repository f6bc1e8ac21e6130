package conformance

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/schedtui/schedtui/conformance/upstream"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

var numGangScenarios = flag.Int("gang-scenarios", 16, "generated workload-aware scheduling scenarios (GenericWorkload on)")

// TestGangConformance runs the generated gang scenarios with GenericWorkload
// on (at 1.37, beta, and emulating 1.36, alpha; with
// PodGroupPreemptionPolicy, the group's own preemptionPolicy; with
// TopologyAwareWorkloadScheduling, the placements over zones; and off,
// where a member is an ordinary pod), the scenarios of PodGroups
// owning ResourceClaims (scenario.GenerateGroupClaimGangs) with
// DRAWorkloadResourceClaims, and the generated composite scenarios with
// CompositePodGroup on, through schedtui's engine and the real kube-scheduler's
// queue, each
// deciding what it attempts (pods and pod groups), over the same virtual
// time (upstream.QueueHorizon), and compares them cycle by cycle: the
// entity popped, each member's outcome, node, nomination and PodScheduled
// message, the victims; then every change of a PodGroup's
// PodGroupInitiallyScheduled condition, and every pod's and PodGroup's
// state at the end, and the claims PodGroups own.
func TestGangConformance(t *testing.T) {
	for _, c := range []struct {
		emulated, gates string
		generate        func(int64) *scenario.Scenario
		// label tells apart two runs with the same gates.
		label string
	}{
		{"1.37", "GenericWorkload=true", scenario.GenerateGangs, ""},
		{"1.36", "GenericWorkload=true", scenario.GenerateGangs, ""},
		{"1.37", "GenericWorkload=true,PodGroupPreemptionPolicy=true", scenario.GenerateGangs, ""},
		{"1.37", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true", scenario.GenerateGangs, ""},
		// Off (1.37's default): the members are ordinary pods to both.
		{"1.37", "", scenario.GenerateGangs, ""},
		// Hierarchies (scenario.GenerateCompositeGangs): the queue's unit
		// is the root CompositePodGroup, its cycle tries the children
		// (CompositePodGroup needs TopologyAwareWorkloadScheduling).
		{"1.37", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true", scenario.GenerateCompositeGangs, ""},
		// The gang scenarios (no hierarchy) with the gate on: the queue's
		// forest, the chosen placement assumed again, PreEnqueue and
		// Permit through the hierarchy code.
		{"1.37", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true", scenario.GenerateGangs, "flat"},
		// PodGroups owning ResourceClaims (beta, off by default).
		{"1.37", "GenericWorkload=true,DRAWorkloadResourceClaims=true", scenario.GenerateGroupClaimGangs, ""},
	} {
		name := c.emulated + " " + c.gates
		if c.label != "" {
			name += " " + c.label
		}
		t.Run(name, func(t *testing.T) {
			gates, err := features.Resolve(c.emulated, "", c.gates)
			if err != nil {
				t.Fatal(err)
			}
			setUpstreamGates(t, gates, c.gates)
			runGangScenarios(t, &gates.Features, c.generate)
		})
	}
}

func runGangScenarios(t *testing.T, gates *features.Features, generate func(seed int64) *scenario.Scenario) {
	t.Helper()
	bad, compared, stopped := 0, 0, 0
	for i := int64(0); i < int64(*numGangScenarios); i++ {
		s := generate(*firstSeed + i)
		if *only != "" && s.Name != *only {
			continue
		}
		ours, err := runOursQueue(s, gates, upstream.QueueHorizon)
		if err != nil {
			t.Fatalf("%s: schedtui: %v", s.Name, err)
		}
		theirs, err := upstream.RunQueue(context.Background(), s.Cluster.DeepCopy(), nil, s.Late(), scheduler.Epoch)
		if err != nil {
			t.Fatalf("%s: upstream: %v", s.Name, err)
		}
		if *only != "" {
			for _, side := range []struct {
				name string
				run  upstream.QueueRun
			}{{"schedtui", ours.QueueRun}, {"upstream", theirs}} {
				for _, c := range side.run.Cycles {
					b, _ := json.Marshal(c)
					t.Logf("%s %s", side.name, b)
				}
				t.Logf("%s writes %q", side.name, side.run.Writes)
			}
		}
		compared += len(theirs.Cycles)
		diff, random := compareQueueRuns(ours, theirs)
		if random {
			stopped++
		}
		if diff != "" {
			bad++
			if bad <= *maxReportedBad {
				t.Errorf("%s (features %v) disagrees with upstream:\n%s", s.Name, s.Features, diff)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d gang scenarios disagree", bad, *numGangScenarios)
	}
	t.Logf("%d gang scenarios, %d upstream cycles, %d agree (%d compared up to a placement upstream picked at random)", *numGangScenarios, compared, *numGangScenarios-bad, stopped)
}

// runOursQueue is upstream.RunQueueFor's run through schedtui's engine: the
// queue drained at the start, the late PodGroups added one by one (each
// followed by a drain), then virtual time run to horizon;
// its attempts and group cycles read back as upstream's cycles.
// oursRun is schedtui's run as upstream reports its own, and for each
// cycle whether upstream's outcome of it was a random pick (randomCycle).
type oursRun struct {
	upstream.QueueRun
	random []bool
}

func runOursQueue(s *scenario.Scenario, gates *features.Features, horizon time.Duration) (oursRun, error) {
	c := s.Cluster.DeepCopy()
	e, err := engine.New(c.Nodes, c.Pods, c.SchedulerObjects(), engine.Options{
		Registry: plugins.NewInTreeRegistry(), Seed: 1, Config: config.Default(*gates), Features: gates,
	})
	if err != nil {
		return oursRun{}, err
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// upstream.MaxQueueCycles bounds the cycles, as upstream's side does.
	bound := progress.Func(func(int64, int64) {
		if cycles(e) >= upstream.MaxQueueCycles {
			stop()
		}
	})
	run := func(d time.Duration) {
		if ctx.Err() == nil {
			_ = e.RunUntilCtx(ctx, d, bound)
		}
	}
	run(0)
	for _, obj := range s.Late() {
		if err := e.Apply(change.Change{Kind: change.ObjectAdd, Object: obj.DeepCopyObject()}); err != nil {
			return oursRun{}, fmt.Errorf("adding %s: %w", change.DescribeObject(obj), err)
		}
		run(0)
	}
	run(horizon)
	return queueRunOf(e, c.Pods), nil
}

// randomCycle reports whether upstream picks a group cycle's outcome at
// random: the placements come in Go map order, so when none is feasible
// the "first placement" reported is any of them, and feasible placements
// of equal top score are drawn from (schedtui takes the first in both
// cases).
func randomCycle(g *record.GroupAttempt) bool {
	if len(g.Placements) < 2 {
		return false
	}
	feasible, top, atTop := 0, int64(0), 0
	for _, p := range g.Placements {
		if p.Chosen {
			top = p.Score
		}
	}
	for _, p := range g.Placements {
		if p.Feasible {
			feasible++
			if p.Score == top {
				atTop++
			}
		}
	}
	return feasible == 0 || atTop > 1
}

// cycles counts the entities the engine popped: its pods' own attempts and
// its group cycles.
func cycles(e *engine.Engine) int {
	n := e.Attempts().Len()
	for _, g := range e.Groups() {
		n -= len(g.Members) - 1
	}
	return n
}

// queueRunOf reads the engine's attempts and group cycles, its timeline's
// PodGroup status writes and the final state of pods (those of pods, the
// cluster's pods) and PodGroups as upstream.RunQueue reports them.
func queueRunOf(e *engine.Engine, pods []*v1.Pod) oursRun {
	var run oursRun
	attempts := e.Attempts()
	at := func(t time.Time) int { return int(t.Sub(e.Start()) / time.Second) }
	// member is an attempt as upstream's failure handler saw it: the node
	// verdicts only of a FitError of the member's own.
	member := func(a record.AttemptJSON, ownFitError bool) upstream.Member {
		m := upstream.Member{Pod: a.Pod, Outcome: a.Outcome, NominatedNode: a.NominatedNode, Message: a.Message}
		if a.Outcome == record.OutcomeScheduled {
			m.Node, m.NominatedNode, m.Message = a.Node, "", ""
		}
		if ownFitError && len(a.Filter) > 0 {
			m.Filter = a.Filter
		}
		return m
	}
	for i := 0; i < attempts.Len(); i++ {
		a := attempts.At(i)
		g, inGroup := e.GroupOf(i)
		if !inGroup {
			j := a.JSON()
			own := j.Outcome == record.OutcomeUnschedulable
			run.Cycles = append(run.Cycles, upstream.Cycle{At: at(a.Time), Members: []upstream.Member{member(j, own)}, Victims: sortedOrEmpty(j.Victims)})
			run.random = append(run.random, false)
			continue
		}
		if i != g.FirstAttempt {
			continue
		}
		c := upstream.Cycle{At: at(g.Time), Group: g.Key(), Victims: sortedOrEmpty(g.Victims)}
		for _, m := range g.Members {
			c.Members = append(c.Members, member(attempts.At(m.Attempt).JSON(), m.Unschedulable))
		}
		sortMembers(c.Members)
		run.Cycles = append(run.Cycles, c)
		run.random = append(run.random, randomCycle(g))
	}
	for _, ev := range e.Timeline().All() {
		if ev.Reason == engine.PodGroupStatusWrite {
			run.Writes = append(run.Writes, strings.TrimPrefix(ev.Object, "PodGroup ")+": "+ev.Message)
		}
	}
	run.Pods = map[string]upstream.PodState{}
	for _, p := range pods {
		cur := e.Pod(p.Namespace + "/" + p.Name)
		if cur == nil || cur.Status.Phase == v1.PodSucceeded || cur.Status.Phase == v1.PodFailed {
			continue
		}
		st := upstream.PodState{Node: cur.Spec.NodeName, NominatedNode: cur.Status.NominatedNodeName}
		for _, c := range cur.Status.Conditions {
			if c.Type == v1.PodScheduled {
				st.Scheduled = upstream.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message}
			}
		}
		run.Pods[p.Namespace+"/"+p.Name] = st
	}
	run.PodGroups = map[string][]upstream.Condition{}
	for _, pg := range e.Scheduler().Objects().PodGroups(metav1.NamespaceAll) {
		cs := []upstream.Condition{}
		for _, c := range pg.Status.Conditions {
			cs = append(cs, upstream.Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		run.PodGroups[pg.Namespace+"/"+pg.Name] = cs
		for _, name := range upstream.GroupClaimNames(pg) {
			c, _ := e.Scheduler().Objects().ResourceClaim(pg.Namespace, name)
			if run.GroupClaims == nil {
				run.GroupClaims = map[string]string{}
			}
			run.GroupClaims[pg.Namespace+"/"+name] = upstream.GroupClaimStateOf(c)
		}
	}
	return run
}

func sortedOrEmpty(xs []string) []string {
	out := append([]string{}, xs...)
	slices.Sort(out)
	return out
}

func sortMembers(ms []upstream.Member) {
	slices.SortFunc(ms, func(a, b upstream.Member) int { return strings.Compare(a.Pod, b.Pod) })
}

// compareQueueRuns describes the first cycle where the runs differ, then
// the first differing PodGroup write, then the differing end states. A
// cycle whose outcome upstream picked at random (randomCycle) that went
// another way than schedtui's ends the comparison there: the clusters
// differ from then on. stopped says so.
func compareQueueRuns(ours oursRun, theirs upstream.QueueRun) (diff string, stopped bool) {
	var out []string
	n := min(len(ours.Cycles), len(theirs.Cycles))
	for _, run := range []upstream.QueueRun{ours.QueueRun, theirs} {
		for _, c := range run.Cycles {
			for _, m := range c.Members {
				sortFitReasons(m.Filter)
			}
		}
	}
	for i := 0; i < n; i++ {
		var diffs []string
		jsonDiff("", toAny(ours.Cycles[i]), toAny(theirs.Cycles[i]), &diffs)
		if len(diffs) > 0 {
			if ours.random[i] && ours.Cycles[i].Group == theirs.Cycles[i].Group {
				return "", true
			}
			out = append(out, fmt.Sprintf("cycle %d (%s):\n  %s", i, cycleName(theirs.Cycles[i]), strings.Join(diffs, "\n  ")))
			break
		}
	}
	if len(out) == 0 && len(ours.Cycles) != len(theirs.Cycles) {
		out = append(out, fmt.Sprintf("schedtui made %d cycles, upstream %d; the first extra: %s", len(ours.Cycles), len(theirs.Cycles), extraCycle(ours.QueueRun, theirs)))
	}
	var diffs []string
	boundPodsByNode(ours.Pods)
	boundPodsByNode(theirs.Pods)
	jsonDiff("writes", toAny(writesByGroup(ours.Writes)), toAny(writesByGroup(theirs.Writes)), &diffs)
	jsonDiff("pods", toAny(ours.Pods), toAny(theirs.Pods), &diffs)
	jsonDiff("podGroups", toAny(ours.PodGroups), toAny(theirs.PodGroups), &diffs)
	jsonDiff("groupClaims", toAny(ours.GroupClaims), toAny(theirs.GroupClaims), &diffs)
	if len(diffs) > 10 {
		diffs = append(diffs[:10], fmt.Sprintf("... %d more", len(diffs)-10))
	}
	out = append(out, diffs...)
	return strings.Join(out, "\n"), false
}

// writesByGroup is each PodGroup's condition writes, in order. A
// composite hierarchy's cycle writes the condition of each of its
// PodGroups; upstream's submitPodGroupAlgorithmResult goes through them
// in Go map order, so only each group's own sequence is compared (the
// cycles, compared first, fix the order between cycles).
func writesByGroup(writes []string) map[string][]string {
	out := map[string][]string{}
	for _, w := range writes {
		group, _, _ := strings.Cut(w, ": ")
		out[group] = append(out[group], w)
	}
	return out
}

// sortFitReasons sorts NodeResourcesFit's reasons, which upstream emits
// partly in map order (see normalize).
func sortFitReasons(filter map[string]record.FilterJSON) {
	for n, f := range filter {
		if f.Plugin == "NodeResourcesFit" && len(f.Reasons) > 1 {
			f.Reasons = slices.Clone(f.Reasons)
			slices.Sort(f.Reasons)
			filter[n] = f
		}
	}
}

// boundPodsByNode keeps only the node of a bound pod's end state. Its
// PodScheduled=True condition is the API server's binding subresource's
// (the fake one sets it, schedtui's engine does not write it), and the
// nominatedNodeName a gang member keeps after binding is set by upstream's
// binding goroutine only if the member still waits at Permit when the
// goroutine looks (all but the member whose Permit releases the gang, as a
// rule, but it is a race).
func boundPodsByNode(pods map[string]upstream.PodState) {
	for k, p := range pods {
		if p.Node != "" {
			pods[k] = upstream.PodState{Node: p.Node}
		}
	}
}

func cycleName(c upstream.Cycle) string {
	if c.Group != "" {
		return fmt.Sprintf("group %s at %ds", c.Group, c.At)
	}
	if len(c.Members) > 0 {
		return fmt.Sprintf("pod %s at %ds", c.Members[0].Pod, c.At)
	}
	return "?"
}

func extraCycle(ours, theirs upstream.QueueRun) string {
	if len(ours.Cycles) > len(theirs.Cycles) {
		return "schedtui's " + cycleName(ours.Cycles[len(theirs.Cycles)])
	}
	return "upstream's " + cycleName(theirs.Cycles[len(ours.Cycles)])
}

func toAny(v any) any {
	b, _ := json.Marshal(v)
	var t any
	_ = json.Unmarshal(b, &t)
	return t
}

// demoGangHorizon runs the demo long enough for its gang's backoff to
// reach the cap of a group of 8 (10s·√8): cycles at 0, 2, 5, 10, 19, 36
// and 65s.
const demoGangHorizon = 70 * time.Second

// TestGangConformanceDemo runs the embedded demo with its scheduler's gates
// (testdata.DemoFeatureGates: the training job llm-train is a gang of 8
// that cannot be placed) through schedtui's engine and the real
// kube-scheduler's queue, cycle by cycle: both retry the rejected gang
// from the backoff queue, never parking it as unschedulable, at the same
// times. Every pod's grace period is 0 on both sides, as the harness's
// API server deletes a victim at once.
func TestGangConformanceDemo(t *testing.T) {
	gates, err := features.Resolve("", "", testdata.DemoFeatureGates)
	if err != nil {
		t.Fatal(err)
	}
	setUpstreamGates(t, gates, testdata.DemoFeatureGates)
	c, rep, err := snapshot.LoadUnder(testdata.DemoName, testdata.Demo, &gates.Features)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("loading: %s", p)
	}
	for _, p := range c.Pods {
		p.Spec.TerminationGracePeriodSeconds = ptr.To(int64(0))
	}
	s := &scenario.Scenario{Name: "demo", Cluster: c}
	ours, err := runOursQueue(s, &gates.Features, demoGangHorizon)
	if err != nil {
		t.Fatalf("schedtui: %v", err)
	}
	theirs, err := upstream.RunQueueFor(context.Background(), c.DeepCopy(), nil, nil, scheduler.Epoch, demoGangHorizon)
	if err != nil {
		t.Fatalf("upstream: %v", err)
	}
	var gangAt []int
	for _, cy := range theirs.Cycles {
		if cy.Group == "default/llm-train-workers" {
			gangAt = append(gangAt, cy.At)
		}
	}
	if want := []int{0, 2, 5, 10, 19, 36, 65}; !slices.Equal(gangAt, want) {
		t.Errorf("upstream's cycles of the gang at %v s, want %v", gangAt, want)
	}
	if diff, _ := compareQueueRuns(ours, theirs); diff != "" {
		for _, side := range []struct {
			name string
			run  upstream.QueueRun
		}{{"schedtui", ours.QueueRun}, {"upstream", theirs}} {
			for _, cy := range side.run.Cycles {
				t.Logf("%s %s at %ds", side.name, cycleName(cy), cy.At)
			}
		}
		t.Errorf("the demo with %s disagrees with upstream:\n%s", testdata.DemoFeatureGates, diff)
	}
}
