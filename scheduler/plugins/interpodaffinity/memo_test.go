package interpodaffinity

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// TestMemoMatchesFreshWalk: a plugin that keeps its memo from cycle to
// cycle (memo.go) decides exactly as a new plugin walking every node
// afresh, cycle after cycle, while pods are added to and removed from
// nodes, nodes change labels, states are given nominated pods, and the
// incoming pods' shapes change in runs (so that both the remembered path
// and the walk from scratch run). Every count, every weight, and every
// node's Filter status and Score are compared; and a state handed out
// earlier must not change under a later cycle.
func TestMemoMatchesFreshWalk(t *testing.T) {
	const numNodes = 64
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range numNodes {
		name := fmt.Sprintf("node-%02d", i)
		l := map[string]string{v1.LabelHostname: name, "os": "linux"}
		if i%9 != 0 {
			l[v1.LabelTopologyZone] = fmt.Sprintf("zone-%d", i%4)
		}
		nodes = append(nodes, mkNode(name, l))
		b := mkPod(name+"-pod").ns("team-a").node(name).label("app", fmt.Sprintf("app-%d", i%5))
		switch i % 4 {
		case 0:
			b.reqAnti(term(v1.LabelHostname, sel(in("app", "web"))))
		case 1:
			b.prefAff(int32(1+i%9), term(v1.LabelTopologyZone, sel(in("app", "web"))))
		case 2:
			b.reqAff(term(v1.LabelTopologyZone, sel(exists("app"))))
		}
		pods = append(pods, b.obj())
	}
	shapes := []func(name string) *v1.Pod{
		func(name string) *v1.Pod { // SchedulingPodAntiAffinity's
			return mkPod(name).ns("team-a").label("app", "web").reqAnti(term(v1.LabelHostname, sel(in("app", "web")))).obj()
		},
		func(name string) *v1.Pod { // SchedulingPreferredPodAffinity's
			return mkPod(name).ns("team-a").label("app", "web").prefAff(1, term(v1.LabelHostname, sel(in("app", "web")))).obj()
		},
		func(name string) *v1.Pod {
			return mkPod(name).ns("team-a").label("app", "app-1").
				reqAff(term(v1.LabelTopologyZone, sel(in("app", "app-1", "app-2")))).
				prefAnti(3, term(v1.LabelTopologyZone, sel(in("app", "web")))).obj()
		},
		func(name string) *v1.Pod { // no terms: existing pods' terms only
			return mkPod(name).ns("team-a").label("app", "web").obj()
		},
	}

	h := frameworktest.NewHandle(nodes, pods, teamNamespaces()...)
	args := &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(2)}
	kept := newPlugin(t, args, h)
	var added []*v1.Pod
	var earlier *preFilterState
	var earlierCounts [3]topologyToMatchedTermCount
	for step := range 120 {
		pod := shapes[(step/4)%len(shapes)](fmt.Sprintf("incoming-%03d", step))
		fresh := newPlugin(t, args, h)
		all := h.Snap.List()

		keptState, freshState := framework.NewCycleState(), framework.NewCycleState()
		_, keptSt := kept.PreFilter(ctx, keptState, pod, all)
		_, freshSt := fresh.PreFilter(ctx, freshState, pod, all)
		if !sameStatus(keptSt, freshSt) {
			t.Fatalf("step %d: PreFilter %v, afresh %v", step, keptSt, freshSt)
		}
		if step%3 == 1 && keptSt.IsSuccess() {
			// A nominated pod changes this cycle's counts only.
			nominated := framework.NewPodInfo(shapes[0](fmt.Sprintf("nominated-%03d", step)))
			ni := all[step%numNodes]
			for _, p := range []*InterPodAffinity{kept, fresh} {
				state := map[*InterPodAffinity]*framework.CycleState{kept: keptState, fresh: freshState}[p]
				if st := p.AddPod(ctx, state, pod, nominated, ni); !st.IsSuccess() {
					t.Fatal(st)
				}
			}
		}
		keptPre, _ := getPreFilterState(keptState)
		freshPre, _ := getPreFilterState(freshState)
		if (keptPre == nil) != (freshPre == nil) {
			t.Fatalf("step %d: PreFilter state %v, afresh %v", step, keptPre, freshPre)
		}
		if keptPre != nil {
			for _, c := range []struct {
				what      string
				got, want topologyToMatchedTermCount
			}{
				{"existing anti-affinity", keptPre.existingAntiAffinityCounts, freshPre.existingAntiAffinityCounts},
				{"affinity", keptPre.affinityCounts, freshPre.affinityCounts},
				{"anti-affinity", keptPre.antiAffinityCounts, freshPre.antiAffinityCounts},
			} {
				if !maps.Equal(c.got, c.want) {
					t.Fatalf("step %d: %s counts %v, afresh %v", step, c.what, c.got, c.want)
				}
			}
			if got, want := slices.Sorted(slices.Values(keptPre.existingAntiAffinityKeys)), keptPre.existingAntiAffinityCounts.keys(); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
				t.Fatalf("step %d: existing anti-affinity keys %v, want %v", step, got, want)
			}
			// The walk over the nodes with anti-affinity pods only, which
			// PreFilter takes when they are few, counts the same.
			if walked := existingAntiAffinityCounts(pod, keptPre.namespaceLabels, h.Snap.HavePodsWithRequiredAntiAffinityList(), false); step%3 != 1 && !maps.Equal(walked, keptPre.existingAntiAffinityCounts) {
				t.Fatalf("step %d: existing anti-affinity counts %v, walked %v", step, keptPre.existingAntiAffinityCounts, walked)
			}
			for _, ni := range all {
				if got, want := kept.Filter(ctx, keptState, pod, ni), fresh.Filter(ctx, freshState, pod, ni); !sameStatus(got, want) {
					t.Fatalf("step %d: Filter on %s %v, afresh %v", step, ni.Name(), got, want)
				}
			}
		}

		keptSt = kept.PreScore(ctx, keptState, pod, all)
		freshSt = fresh.PreScore(ctx, freshState, pod, all)
		if !sameStatus(keptSt, freshSt) {
			t.Fatalf("step %d: PreScore %v, afresh %v", step, keptSt, freshSt)
		}
		if !hasPreferredTerms(pod.Spec.Affinity) {
			// The walk over the nodes with affinity pods only, which
			// PreScore takes when they are few, sums the same.
			s := &preScoreState{podInfo: framework.NewPodInfo(pod), namespaceLabels: kept.namespaceLabels(pod.Namespace)}
			walked := kept.chunkedTopologyScore(s, pod, h.Snap.HavePodsWithAffinityList())
			var remembered scoreMap
			if keptScore, err := getPreScoreState(keptState); err == nil {
				remembered = keptScore.topologyScore
			}
			if len(walked) != len(remembered) || (len(walked) > 0 && !reflect.DeepEqual(walked, remembered)) {
				t.Fatalf("step %d: weights %v, walked %v", step, remembered, walked)
			}
		}
		if keptSt.IsSuccess() {
			keptScore, _ := getPreScoreState(keptState)
			freshScore, _ := getPreScoreState(freshState)
			if !reflect.DeepEqual(keptScore.topologyScore, freshScore.topologyScore) {
				t.Fatalf("step %d: weights %v, afresh %v", step, keptScore.topologyScore, freshScore.topologyScore)
			}
			for _, ni := range all {
				got, gotSt := kept.Score(ctx, keptState, pod, ni)
				want, wantSt := fresh.Score(ctx, freshState, pod, ni)
				if got != want || !sameStatus(gotSt, wantSt) {
					t.Fatalf("step %d: Score on %s %d %v, afresh %d %v", step, ni.Name(), got, gotSt, want, wantSt)
				}
			}
		}

		// The state of an earlier cycle is as it was handed out.
		if earlier != nil {
			for i, m := range []topologyToMatchedTermCount{earlier.existingAntiAffinityCounts, earlier.affinityCounts, earlier.antiAffinityCounts} {
				if !maps.Equal(m, earlierCounts[i]) {
					t.Fatalf("step %d: an earlier cycle's counts changed: %v, were %v", step, m, earlierCounts[i])
				}
			}
		}
		earlier = keptPre
		if keptPre != nil {
			earlierCounts = [3]topologyToMatchedTermCount{
				maps.Clone(keptPre.existingAntiAffinityCounts), maps.Clone(keptPre.affinityCounts), maps.Clone(keptPre.antiAffinityCounts)}
		}

		// The cluster changes as scheduling would change it, and more.
		pod.Spec.NodeName = all[(step*7)%numNodes].Name()
		if err := h.Snap.AddPod(pod); err != nil {
			t.Fatal(err)
		}
		added = append(added, pod)
		if step%5 == 4 {
			gone := added[step%len(added)]
			added = slices.DeleteFunc(added, func(p *v1.Pod) bool { return p == gone })
			if err := h.Snap.RemovePod(gone); err != nil {
				t.Fatal(err)
			}
		}
		if step%11 == 10 {
			ni := all[(step*3)%numNodes]
			node := ni.Node().DeepCopy()
			node.Labels[v1.LabelTopologyZone] = fmt.Sprintf("zone-%d", step%3)
			ni.SetNode(node)
		}
	}
}
