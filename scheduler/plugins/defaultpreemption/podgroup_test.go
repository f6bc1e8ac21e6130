package defaultpreemption_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
	"github.com/schedtui/schedtui/scheduler/plugins/defaultpreemption"
	"github.com/schedtui/schedtui/scheduler/plugins/noderesources"
	"github.com/schedtui/schedtui/scheduler/record"
)

// podGroup is a PodGroup at a priority, disruptionMode single unless all.
func podGroup(name string, prio int32, all bool) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("pg-" + name)}}
	pg.Spec.Priority = &prio
	if all {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	} else {
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
	return pg
}

func inGroup(name string) podOpt {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name} }
}

// gang is the group being scheduled: its PodGroup and members.
func gang(pg *schedulingv1beta1.PodGroup, members []*v1.Pod) *framework.PodGroupInfo {
	return &framework.PodGroupInfo{Namespace: pg.Namespace, Name: pg.Name, PodGroup: pg, UnscheduledPods: members}
}

// reserveCounter is a Reserve plugin counting what is reserved and not
// unreserved yet.
type reserveCounter struct{ held map[string]int }

func (r *reserveCounter) Name() string { return "ReserveCounter" }
func (r *reserveCounter) Reserve(_ context.Context, _ *framework.CycleState, p *v1.Pod, node string) *framework.Status {
	r.held[p.Name+"@"+node]++
	return nil
}
func (r *reserveCounter) Unreserve(_ context.Context, _ *framework.CycleState, p *v1.Pod, node string) {
	r.held[p.Name+"@"+node]--
}

// groupRun is a pod group preemption over a frameworktest handle with
// NodeResourcesFit as the one PreFilter and Filter plugin.
type groupRun struct {
	h       *frameworktest.Handle
	pl      framework.PodGroupPostFilterPlugin
	fit     *noderesources.Fit
	reserve *reserveCounter
	// runs counts the calls of the scheduling function.
	runs int
}

func newGroupRun(t *testing.T, nodes []*v1.Node, bound []*v1.Pod, objs ...any) *groupRun {
	t.Helper()
	h := frameworktest.NewHandle(nodes, bound, objs...)
	h.Gates.EnableGenericWorkload = true
	return newGroupRunOn(t, h)
}

// newGroupRunOn builds the plugins over h, its gates as set.
func newGroupRunOn(t *testing.T, h *frameworktest.Handle) *groupRun {
	t.Helper()
	h.Clock = epoch.Add(time.Hour)
	fit, err := noderesources.NewFit(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	r := &groupRun{h: h, fit: fit.(*noderesources.Fit), reserve: &reserveCounter{held: map[string]int{}}}
	h.Filters = []framework.FilterPlugin{r.fit}
	h.Reserves = []framework.ReservePlugin{r.reserve}
	pl, err := defaultpreemption.New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	r.pl = pl.(framework.PodGroupPostFilterPlugin)
	return r
}

// schedule is the group algorithm as the pod-group cycle runs it for
// preemption: each member in order on a fresh cycle state, on the first
// node (in node-tree order) that passes Filter, assumed there for the
// members after it; all assumed pods are taken off again before it
// returns. It succeeds when every member is placed.
func (r *groupRun) schedule(members []*v1.Pod) framework.PodGroupSchedulingFunc {
	return func(ctx context.Context) (*framework.PodGroupAssignments, *framework.Status) {
		r.runs++
		out := &framework.PodGroupAssignments{}
		var assumed []*v1.Pod
		defer func() {
			for _, p := range assumed {
				if err := r.h.Snap.RemovePod(p); err != nil {
					panic(err)
				}
			}
		}()
		placed := 0
		for _, m := range members {
			state := framework.NewCycleState()
			r.fit.PreFilter(ctx, state, m, r.h.Snap.List())
			a := framework.ProposedAssignment{PodInfo: framework.NewPodInfo(m), State: state}
			for _, ni := range r.h.Snap.List() {
				if r.h.RunFilterPluginsWithNominatedPods(ctx, state, m, ni).IsSuccess() {
					a.NodeName = ni.Name()
					p := m.DeepCopy()
					p.Spec.NodeName = ni.Name()
					if err := r.h.Snap.AddPod(p); err != nil {
						panic(err)
					}
					assumed = append(assumed, p)
					placed++
					break
				}
			}
			out.ProposedAssignments = append(out.ProposedAssignments, a)
		}
		if placed < len(members) {
			return out, framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%d of %d members placed", placed, len(members)))
		}
		return out, nil
	}
}

// podsByNode lists each node's pods in order.
func podsByNode(s *framework.Snapshot) map[string][]string {
	out := map[string][]string{}
	for _, ni := range s.List() {
		for _, pi := range ni.Pods {
			out[ni.Name()] = append(out[ni.Name()], pi.Pod.Name)
		}
	}
	return out
}

func (r *groupRun) preempt(t *testing.T, g *framework.PodGroupInfo) (*framework.PodGroupPostFilterResult, *framework.Status, *record.Preemption) {
	t.Helper()
	for _, m := range g.UnscheduledPods {
		r.h.Store.Add(m)
	}
	before := podsByNode(r.h.Snap)
	state := framework.NewCycleState()
	res, st := r.pl.PodGroupPostFilter(context.Background(), state, g, r.schedule(g.UnscheduledPods))
	if after := podsByNode(r.h.Snap); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("snapshot not restored:\n got %v\nwant %v", after, before)
	}
	for k, n := range r.reserve.held {
		if n != 0 {
			t.Errorf("%s reserved %d times more than unreserved", k, n)
		}
	}
	d, err := state.Read(record.PreemptionStateKey)
	if err != nil {
		t.Fatal(err)
	}
	return res, st, d.(*record.PreemptionState).Preemption
}

func victimNames(p *record.Preemption) []string {
	if p.Chosen < 0 {
		return nil
	}
	var out []string
	for _, v := range p.Candidates[p.Chosen].Victims {
		name := v.Pod + "@" + v.Node
		if v.Group != "" {
			name += " with " + v.Group
		}
		out = append(out, name)
	}
	return out
}

func nominations(res *framework.PodGroupPostFilterResult) map[string]string {
	out := map[string]string{}
	if res == nil {
		return out
	}
	for k, ni := range res.NominatingInfos {
		if ni.NominatingMode != framework.ModeOverride {
			out[k.Name] = "not override"
			continue
		}
		out[k.Name] = ni.NominatedNodeName
	}
	return out
}

func TestPodGroupPreemption(t *testing.T) {
	members := func(n int, cpu string, opts ...podOpt) []*v1.Pod {
		var out []*v1.Pod
		for i := range n {
			out = append(out, pod(fmt.Sprintf("worker-%d", i), 0, cpu, append([]podOpt{inGroup("train")}, opts...)...))
		}
		return out
	}
	train := podGroup("train", 100, false)
	// batch is a group of two pods on a and b; free is alone on b.
	batchAndFree := []*v1.Pod{
		pod("batch-0", 0, "2", on("a"), inGroup("batch")), pod("batch-1", 0, "1", on("b"), inGroup("batch")),
		pod("free", 10, "1", on("b")),
	}
	tests := []struct {
		name    string
		nodes   []*v1.Node
		bound   []*v1.Pod
		objs    []any
		gang    *framework.PodGroupInfo
		wantMsg string
		// wantVictims are pod@node, most important first.
		wantVictims []string
		wantNominee map[string]string
		wantPDB     int
	}{
		{
			name:  "the members' priority is their PodGroup's",
			nodes: []*v1.Node{node("a", "2"), node("b", "2")},
			bound: []*v1.Pod{pod("low-a", 10, "2", on("a")), pod("low-b", 10, "2", on("b"))},
			gang:  gang(train, members(2, "2")),
			// The members' own priority is 0; the group's 100.
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 2 victims",
			wantVictims: []string{"default/low-a@a", "default/low-b@b"},
			wantNominee: map[string]string{"worker-0": "a", "worker-1": "b"},
		},
		{
			name:  "victims the placement does not need are reprieved",
			nodes: []*v1.Node{node("a", "2"), node("b", "2"), node("c", "2")},
			bound: []*v1.Pod{pod("p50", 50, "2", on("a")), pod("p5", 5, "2", on("b")), pod("p20", 20, "2", on("c"))},
			gang:  gang(train, members(2, "2")),
			// The algorithm runs once with every victim gone and places
			// the members on a and b; p20 on c goes back.
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 2 victims",
			wantVictims: []string{"default/p50@a", "default/p5@b"},
			wantNominee: map[string]string{"worker-0": "a", "worker-1": "b"},
		},
		{
			name:        "a victim of a disruptionMode all group takes its whole group",
			nodes:       []*v1.Node{node("a", "2"), node("b", "2")},
			bound:       batchAndFree,
			objs:        []any{podGroup("batch", 10, true)},
			gang:        gang(train, members(1, "2")),
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 2 victims",
			wantVictims: []string{"default/batch-0@a with default/batch", "default/batch-1@b with default/batch"},
			wantNominee: map[string]string{"worker-0": "a"},
		},
		{
			name:        "with disruptionMode single only the pod in the way goes",
			nodes:       []*v1.Node{node("a", "2"), node("b", "2")},
			bound:       batchAndFree,
			objs:        []any{podGroup("batch", 10, false)},
			gang:        gang(train, members(1, "2")),
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 1 victims",
			wantVictims: []string{"default/batch-0@a"},
			wantNominee: map[string]string{"worker-0": "a"},
		},
		{
			name:  "a pod of a group is a victim at its group's priority",
			nodes: []*v1.Node{node("a", "2")},
			// 1000 on its own, but its group's 10 is below the gang's 100.
			bound:       []*v1.Pod{pod("batch-0", 1000, "2", on("a"), inGroup("batch"))},
			objs:        []any{podGroup("batch", 10, false)},
			gang:        gang(train, members(1, "2")),
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 1 victims",
			wantVictims: []string{"default/batch-0@a"},
			wantNominee: map[string]string{"worker-0": "a"},
		},
		{
			name:  "PDBs do not steer the placement: a violating victim in the way is evicted",
			nodes: []*v1.Node{node("a", "2"), node("b", "2")},
			bound: []*v1.Pod{pod("protected", 10, "2", on("a"), labels("app", "db")), pod("free", 10, "2", on("b"))},
			objs:  []any{pdb("db", "db", 0)},
			gang:  gang(train, members(1, "2")),
			// Placed on a (first fit without victims); protected is
			// reprieved first but does not fit back; free does.
			wantMsg:     "pod group preemption: found a placement for podgroup, preempting 1 victims",
			wantVictims: []string{"default/protected@a"},
			wantNominee: map[string]string{"worker-0": "a"},
			wantPDB:     1,
		},
		{
			name:    "no victim of lower priority",
			nodes:   []*v1.Node{node("a", "2")},
			bound:   []*v1.Pod{pod("peer", 100, "2", on("a"))},
			gang:    gang(train, members(1, "2")),
			wantMsg: "pod group preemption: No preemption victims found for incoming preemptor",
		},
		{
			name:    "the group does not fit even without the victims",
			nodes:   []*v1.Node{node("a", "2")},
			bound:   []*v1.Pod{pod("low", 10, "2", on("a"))},
			gang:    gang(train, members(2, "2")),
			wantMsg: "pod group preemption: 1 of 2 members placed",
		},
		{
			name:    "a member with preemptionPolicy Never",
			nodes:   []*v1.Node{node("a", "2")},
			bound:   []*v1.Pod{pod("low", 10, "2", on("a"))},
			gang:    gang(train, members(1, "2", never())),
			wantMsg: "pod group preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:  "a preemption for the group is under way on a member's nominated node",
			nodes: []*v1.Node{node("a", "2"), node("b", "2")},
			bound: []*v1.Pod{pod("going", 10, "2", on("a"), terminatingByPreemption()), pod("low-b", 10, "2", on("b"))},
			gang:  gang(train, []*v1.Pod{pod("worker-0", 0, "2", inGroup("train"), nominated("a")), pod("worker-1", 0, "2", inGroup("train"))}),
			// Each member keeps its nomination, an empty one too.
			wantMsg:     "pod group preemption: ongoing preemption on nominated nodes",
			wantNominee: map[string]string{"worker-0": "a", "worker-1": ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newGroupRun(t, tc.nodes, tc.bound, append(tc.objs, tc.gang.PodGroup)...)
			res, st, rec := r.preempt(t, tc.gang)
			if st.Message() != tc.wantMsg {
				t.Errorf("status %q, want %q", st.Message(), tc.wantMsg)
			}
			if got := victimNames(rec); !slices.Equal(got, tc.wantVictims) {
				t.Errorf("victims %v, want %v", got, tc.wantVictims)
			}
			want := tc.wantNominee
			if want == nil {
				want = map[string]string{}
			}
			if got := nominations(res); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("nominations %v, want %v", got, want)
			}
			if rec.Chosen >= 0 {
				c := rec.Candidates[rec.Chosen]
				if c.Node != defaultpreemption.ClusterCandidate || c.PDBViolations != tc.wantPDB {
					t.Errorf("candidate %q with %d PDB violations, want %q with %d", c.Node, c.PDBViolations, defaultpreemption.ClusterCandidate, tc.wantPDB)
				}
			}
			wantCode := framework.Unschedulable
			switch {
			case strings.Contains(tc.wantMsg, "found a placement"), strings.Contains(tc.wantMsg, "ongoing"):
				wantCode = framework.Success
			case strings.Contains(tc.wantMsg, "No preemption victims"):
				wantCode = framework.UnschedulableAndUnresolvable
			}
			if st.Code() != wantCode {
				t.Errorf("code %v, want %v", st.Code(), wantCode)
			}
		})
	}
}

// TestPodGroupPreemptionPolicy: with the PodGroupPreemptionPolicy gate the
// group's own policy decides, not its members'.
func TestPodGroupPreemptionPolicy(t *testing.T) {
	nodes := []*v1.Node{node("a", "2")}
	bound := []*v1.Pod{pod("low", 10, "2", on("a"))}
	groupNever := schedulingv1beta1.PreemptNever
	for _, tc := range []struct {
		name      string
		gate      bool
		groupNone bool
		member    []podOpt
		want      string
	}{
		{name: "gate off, a member says Never", member: []podOpt{never()}, want: "pod group preemption: not eligible due to preemptionPolicy=Never."},
		{name: "gate off, the group says Never", groupNone: true, want: "pod group preemption: found a placement for podgroup, preempting 1 victims"},
		{name: "gate on, the group says Never", gate: true, groupNone: true, want: "pod group preemption: not eligible due to preemptionPolicy=Never."},
		{name: "gate on, a member says Never", gate: true, member: []podOpt{never()}, want: "pod group preemption: found a placement for podgroup, preempting 1 victims"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := podGroup("train", 100, false)
			if tc.groupNone {
				pg.Spec.PreemptionPolicy = &groupNever
			}
			h := frameworktest.NewHandle(nodes, bound, pg)
			h.Gates.EnableGenericWorkload = true
			h.Gates.EnablePodGroupPreemptionPolicy = tc.gate
			r := newGroupRunOn(t, h)
			_, st, _ := r.preempt(t, gang(pg, []*v1.Pod{pod("worker-0", 0, "2", append(tc.member, inGroup("train"))...)}))
			if st.Message() != tc.want {
				t.Errorf("status %q, want %q", st.Message(), tc.want)
			}
		})
	}
}

// TestPodPreemptsGroupVictims: with GenericWorkload, a pod's preemption
// counts a pod of a group at its group's priority and evicts a
// disruptionMode all group whole, its pods on other nodes too; without
// the gate each pod goes alone at its own priority.
func TestPodPreemptsGroupVictims(t *testing.T) {
	nodes := []*v1.Node{node("a", "2"), node("b", "2")}
	bound := []*v1.Pod{
		pod("batch-0", 0, "2", on("a"), inGroup("batch")), pod("batch-1", 0, "1", on("b"), inGroup("batch")),
		pod("free", 10, "1", on("b")),
	}
	for _, tc := range []struct {
		name    string
		gate    bool
		batch   *schedulingv1beta1.PodGroup
		prio    int32
		want    []string
		wantMsg string
	}{
		{name: "gate off", batch: podGroup("batch", 10, true), prio: 100, want: []string{"default/batch-0"},
			wantMsg: "preemption: found a potential placement for pod on node a, preempting 1 victims"},
		{name: "disruptionMode all", gate: true, batch: podGroup("batch", 10, true), prio: 100, want: []string{"default/batch-0", "default/batch-1"},
			wantMsg: "preemption: found a potential placement for pod on node a, preempting 2 victims"},
		{name: "disruptionMode single", gate: true, batch: podGroup("batch", 10, false), prio: 100, want: []string{"default/batch-0"},
			wantMsg: "preemption: found a potential placement for pod on node a, preempting 1 victims"},
		{name: "the group's priority is not lower", gate: true, batch: podGroup("batch", 100, true), prio: 50, want: []string{"default/free"},
			// Only free (10) is below 50: on b, evicting it is not enough (batch-1 stays); on a nothing is.
			wantMsg: "preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := frameworktest.NewHandle(nodes, bound, tc.batch)
			h.Gates.EnableGenericWorkload = tc.gate
			r := newGroupRunOn(t, h)
			p := pod("p", tc.prio, "2")
			h.Store.Add(p)
			state := framework.NewCycleState()
			r.fit.PreFilter(context.Background(), state, p, h.Snap.List())
			statuses := framework.NewDefaultNodeToStatus()
			for _, n := range nodes {
				statuses.Set(n.Name, framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
			}
			_, st := r.pl.(framework.PostFilterPlugin).PostFilter(context.Background(), state, p, statuses)
			if st.Message() != tc.wantMsg {
				t.Errorf("status %q, want %q", st.Message(), tc.wantMsg)
			}
			if !st.IsSuccess() {
				return
			}
			d, _ := state.Read(record.PreemptionStateKey)
			rec := d.(*record.PreemptionState).Preemption
			if got := rec.VictimNames(); !slices.Equal(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
			// The record says where a group victim's pods run and which
			// group took them.
			for _, v := range rec.Candidates[rec.Chosen].Victims {
				wantNode, wantGroup := "", ""
				if v.Pod == "default/batch-1" {
					wantNode = "b"
				}
				if tc.gate && tc.batch.Spec.DisruptionMode.All != nil {
					wantGroup = "default/batch"
				}
				if v.Node != wantNode || v.Group != wantGroup {
					t.Errorf("victim %s on %q with %q, want on %q with %q", v.Pod, v.Node, v.Group, wantNode, wantGroup)
				}
			}
		})
	}
}

// TestPreEnqueueGatesGroupMembers: with async preemption a pod of a pod
// group is held while its group's preemption is under way (by the
// PodGroup's UID, never the pod's), and not at all when its PodGroup is
// missing.
func TestPreEnqueueGatesGroupMembers(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil, podGroup("train", 100, false))
	h.Gates.EnableGenericWorkload = true
	pl, err := defaultpreemption.New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	dp := pl.(*defaultpreemption.DefaultPreemption)
	member, stray := pod("worker-0", 0, "1", inGroup("train")), pod("stray", 0, "1", inGroup("gone"))
	dp.SetPreempting(string(member.UID), true)
	dp.SetPreempting(string(stray.UID), true)
	if st := dp.PreEnqueue(context.Background(), member); !st.IsSuccess() {
		t.Errorf("gated by its own UID: %v", st.Message())
	}
	dp.SetPreempting("pg-train", true)
	if st := dp.PreEnqueue(context.Background(), member); st.Message() != "waiting for the preemption for this pod group to be finished" {
		t.Errorf("member: %q", st.Message())
	}
	if st := dp.PreEnqueue(context.Background(), stray); !st.IsSuccess() {
		t.Errorf("pod of a missing group gated: %v", st.Message())
	}
}
