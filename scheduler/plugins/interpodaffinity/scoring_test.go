package interpodaffinity

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

const maxScore = framework.MaxNodeScore

type scoreCase struct {
	name  string
	pod   *v1.Pod
	pods  []*v1.Pod
	nodes []*v1.Node
	args  *configv1.InterPodAffinityArgs
	// scoreNodes, if set, is what PreScore is given (feasible nodes);
	// Score runs on these too. Defaults to all nodes.
	scoreNodes []string
	wantStatus *framework.Status
	// wantMsg must be contained in the PreScore message when set.
	wantMsg string
	wantRaw []int64
	want    []int64
}

func runScoreCases(t *testing.T, tests []scoreCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := frameworktest.NewHandle(tc.nodes, tc.pods, teamNamespaces()...)
			args := tc.args
			if args == nil {
				args = &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(1)}
			}
			pl := newPlugin(t, args, h)
			var nodes []*framework.NodeInfo
			if tc.scoreNodes == nil {
				nodes = h.Snap.List()
			} else {
				for _, n := range tc.scoreNodes {
					nodes = append(nodes, nodeInfo(t, h, n))
				}
			}
			state := framework.NewCycleState()
			st := pl.PreScore(ctx, state, tc.pod, nodes)
			if tc.wantMsg != "" {
				if st.Code() != framework.Error || !strings.Contains(st.Message(), tc.wantMsg) {
					t.Fatalf("PreScore = %v %q, want Error containing %q", st.Code(), st.Message(), tc.wantMsg)
				}
				return
			}
			if !sameStatus(st, tc.wantStatus) {
				t.Fatalf("PreScore = %v %q, want %v", st.Code(), st.Message(), tc.wantStatus.Code())
			}
			if !st.IsSuccess() {
				return
			}
			var list framework.NodeScoreList
			var raw []int64
			for _, ni := range nodes {
				s, st := pl.Score(ctx, state, tc.pod, ni)
				if !st.IsSuccess() {
					t.Fatalf("Score(%s): %v", ni.Name(), st)
				}
				list = append(list, framework.NodeScore{Name: ni.Name(), Score: s})
				raw = append(raw, s)
			}
			if tc.wantRaw != nil && !slices.Equal(raw, tc.wantRaw) {
				t.Errorf("raw scores %v, want %v", raw, tc.wantRaw)
			}
			if st := pl.ScoreExtensions().NormalizeScore(ctx, state, tc.pod, list); !st.IsSuccess() {
				t.Fatalf("NormalizeScore: %v", st)
			}
			var got []int64
			for _, s := range list {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("normalized scores %v, want %v", got, tc.want)
			}
		})
	}
}

// Cases of upstream's TestPreferredAffinity.
func TestPreferredAffinity(t *testing.T) {
	china := map[string]string{"region": "China"}
	india := map[string]string{"region": "India"}
	az1 := map[string]string{"az": "az1"}
	az2 := map[string]string{"az": "az2"}
	chinaAz1 := map[string]string{"region": "China", "az": "az1"}
	s1 := map[string]string{"security": "S1"}
	s2 := map[string]string{"security": "S2"}
	team1 := sel(in("team", "team1"))

	stayWithS1InRegion := mkPod("").prefAff(5, term("region", sel(in("security", "S1")))).obj().Spec.Affinity
	stayWithS2InRegion := mkPod("").prefAff(6, term("region", sel(in("security", "S2")))).obj().Spec.Affinity
	affinity3 := mkPod("").
		prefAff(8, term("region", sel(notIn("security", "S1"), in("security", "S2")))).
		prefAff(2, term("region", sel(exists("security"), doesNotExist("wrongkey")))).obj().Spec.Affinity
	hardAffinity := mkPod("").
		reqAff(term("region", sel(in("security", "S1", "value2")))).
		reqAff(term("region", sel(exists("security"), doesNotExist("wrongkey")))).obj().Spec.Affinity
	awayFromS1InAz := mkPod("").prefAnti(5, term("az", sel(in("security", "S1")))).obj().Spec.Affinity
	awayFromS2InAz := mkPod("").prefAnti(5, term("az", sel(in("security", "S2")))).obj().Spec.Affinity
	stayWithS1AwayFromS2 := mkPod("").prefAff(8, term("region", sel(in("security", "S1")))).
		prefAnti(5, term("az", sel(in("security", "S2")))).obj().Spec.Affinity
	affinityNsSel := mkPod("").prefAff(5, nsTerm("region", sel(in("security", "S1")), []string{"subteam2.team2"}, team1)).obj().Spec.Affinity
	antiAffinityNsSel := mkPod("").prefAnti(5, nsTerm("region", sel(in("security", "S1")), []string{"subteam2.team2"}, team1)).obj().Spec.Affinity
	affinityNegNsSel := mkPod("").prefAff(5, nsTerm("region", sel(in("security", "S1")), nil, sel(notIn("team", "team1")))).obj().Spec.Affinity
	antiAffinityNegNsSel := mkPod("").prefAnti(5, nsTerm("region", sel(in("security", "S1")), nil, sel(notIn("team", "team1")))).obj().Spec.Affinity
	invalidAffinity := mkPod("").prefAff(8, term("region", sel(in("security", "{{.bad-value.}}")))).obj().Spec.Affinity
	invalidAnti := mkPod("").prefAnti(5, term("az", sel(in("security", "{{.bad-value.}}")))).obj().Spec.Affinity

	n := func(name string, l map[string]string) *v1.Node { return mkNode(name, l) }
	on := func(name, node string, l map[string]string, a *v1.Affinity) *v1.Pod {
		return mkPod(name).node(node).labels(l).withAffinity(a).obj()
	}
	onNs := func(name, ns, node string) *v1.Pod {
		return mkPod(name).ns(ns).node(node).labels(s1).obj()
	}
	incoming := func(l map[string]string, a *v1.Affinity) *v1.Pod {
		return mkPod("incoming").labels(l).withAffinity(a).obj()
	}
	incomingNs := func(a *v1.Affinity) *v1.Pod {
		return mkPod("incoming").ns("subteam1.team1").labels(s1).withAffinity(a).obj()
	}
	twoRegions := []*v1.Node{n("node1", china), n("node2", india)}
	withIgnore := &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(1), IgnorePreferredTermsOfExistingPods: true}
	skip := framework.NewStatus(framework.Skip)

	runScoreCases(t, []scoreCase{
		{
			name:       "no affinity anywhere: Skip",
			pod:        incoming(s1, nil),
			nodes:      []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			wantStatus: skip,
		},
		{
			name:  "affinity: matching pod in the topology scores high",
			pod:   incoming(s1, stayWithS1InRegion),
			pods:  []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", s2, nil), on("c", "node3", s1, nil)},
			nodes: []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			want:  []int64{maxScore, 0, 0},
		},
		{
			name:  "affinity: whole domain gets the same score",
			pod:   incoming(nil, stayWithS1InRegion),
			pods:  []*v1.Pod{on("a", "node1", s1, nil)},
			nodes: []*v1.Node{n("node1", china), n("node2", chinaAz1), n("node3", india)},
			want:  []int64{maxScore, maxScore, 0},
		},
		{
			name: "affinity: the region with more matches wins",
			pod:  incoming(s1, stayWithS2InRegion),
			pods: []*v1.Pod{
				on("a", "node1", s2, nil), on("b", "node1", s2, nil), on("c", "node2", s2, nil),
				on("d", "node3", s2, nil), on("e", "node4", s2, nil), on("f", "node5", s2, nil),
			},
			nodes: []*v1.Node{n("node1", china), n("node2", india), n("node3", china), n("node4", china), n("node5", india)},
			want:  []int64{maxScore, 0, maxScore, maxScore, 0},
		},
		{
			name:    "affinity: operators and partial matches",
			pod:     incoming(s1, affinity3),
			pods:    []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", s2, nil), on("c", "node3", s1, nil)},
			nodes:   []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			wantRaw: []int64{2, 10, 0},
			want:    []int64{20, maxScore, 0},
		},
		{
			name:  "symmetry: existing pods' preferred affinity",
			pod:   incoming(s2, nil),
			pods:  []*v1.Pod{on("a", "node1", s1, stayWithS1InRegion), on("b", "node2", s2, stayWithS2InRegion)},
			nodes: []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			want:  []int64{0, maxScore, 0},
		},
		{
			name:  "symmetry with namespaceSelector",
			pod:   incomingNs(nil),
			pods:  []*v1.Pod{on("a", "node1", s1, affinityNsSel), on("b", "node2", s2, stayWithS2InRegion)},
			nodes: []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			want:  []int64{maxScore, 0, 0},
		},
		{
			name:    "anti-affinity symmetry with namespaceSelector",
			pod:     incomingNs(nil),
			pods:    []*v1.Pod{on("a", "node1", s1, antiAffinityNsSel), on("b", "node2", s2, stayWithS2InRegion)},
			nodes:   []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			wantRaw: []int64{-5, 0, 0},
			want:    []int64{0, maxScore, maxScore},
		},
		{
			name:    "symmetry: existing pods' required affinity, hardPodAffinityWeight per term",
			pod:     incoming(s1, nil),
			pods:    []*v1.Pod{on("a", "node1", s1, hardAffinity), on("b", "node2", s2, hardAffinity)},
			nodes:   []*v1.Node{n("node1", china), n("node2", india), n("node3", az1)},
			wantRaw: []int64{2, 2, 0},
			want:    []int64{maxScore, maxScore, 0},
		},
		{
			name:  "anti-affinity: matching node scores low",
			pod:   incoming(s1, awayFromS1InAz),
			pods:  []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", s2, nil)},
			nodes: []*v1.Node{n("node1", az1), n("node2", china)},
			want:  []int64{0, maxScore},
		},
		{
			name:  "anti-affinity: node without the topology key scores high",
			pod:   incoming(s1, awayFromS1InAz),
			pods:  []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", s1, nil)},
			nodes: []*v1.Node{n("node1", az1), n("node2", china)},
			want:  []int64{0, maxScore},
		},
		{
			name:    "anti-affinity: more matches score lower",
			pod:     incoming(s1, awayFromS1InAz),
			pods:    []*v1.Pod{on("a", "node1", s1, nil), on("b", "node1", s1, nil), on("c", "node2", s2, nil)},
			nodes:   []*v1.Node{n("node1", az1), n("node2", india)},
			wantRaw: []int64{-10, 0},
			want:    []int64{0, maxScore},
		},
		{
			name:  "anti-affinity symmetry",
			pod:   incoming(s2, nil),
			pods:  []*v1.Pod{on("a", "node1", s1, awayFromS2InAz), on("b", "node2", s2, awayFromS1InAz)},
			nodes: []*v1.Node{n("node1", az1), n("node2", az2)},
			want:  []int64{0, maxScore},
		},
		{
			name:  "affinity and anti-affinity",
			pod:   incoming(s1, stayWithS1AwayFromS2),
			pods:  []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", s1, nil)},
			nodes: []*v1.Node{n("node1", china), n("node2", az1)},
			want:  []int64{maxScore, 0},
		},
		{
			name: "affinity and anti-affinity with same-labelled pods",
			pod:  incoming(s1, stayWithS1AwayFromS2),
			pods: []*v1.Pod{
				on("a", "node1", s1, nil), on("b", "node1", s1, nil), on("c", "node2", s1, nil),
				on("d", "node3", s1, nil), on("e", "node3", s1, nil), on("f", "node4", s1, nil), on("g", "node5", s1, nil),
			},
			nodes: []*v1.Node{n("node1", chinaAz1), n("node2", india), n("node3", china), n("node4", china), n("node5", india)},
			want:  []int64{maxScore, 0, maxScore, maxScore, 0},
		},
		{
			name: "affinity, anti-affinity and symmetry",
			pod:  incoming(s1, stayWithS1AwayFromS2),
			pods: []*v1.Pod{
				on("a", "node1", s1, nil), on("b", "node2", s2, nil),
				on("c", "node3", nil, stayWithS1AwayFromS2), on("d", "node4", nil, awayFromS1InAz),
			},
			nodes:   []*v1.Node{n("node1", china), n("node2", az1), n("node3", india), n("node4", az2)},
			wantRaw: []int64{8, -5, 8, -5},
			want:    []int64{maxScore, 0, maxScore, 0},
		},
		{
			name:  "domain partly on nodes without pods with affinity",
			pod:   incoming(s1, nil),
			pods:  []*v1.Pod{on("a", "node1", s1, nil), on("b", "node2", nil, stayWithS1AwayFromS2)},
			nodes: []*v1.Node{n("node1", china), n("node2", china)},
			want:  []int64{0, 0},
		},
		{
			name:    "invalid affinity fails PreScore",
			pod:     incoming(nil, invalidAffinity),
			nodes:   []*v1.Node{n("node1", china), n("node2", china)},
			wantMsg: `failed to parse pod: preferredAffinityTerms: values[0][security]: Invalid value: "{{.bad-value.}}"`,
		},
		{
			name:    "invalid anti-affinity fails PreScore",
			pod:     incoming(nil, invalidAnti),
			nodes:   []*v1.Node{n("node1", china), n("node2", china)},
			wantMsg: `failed to parse pod: preferredAntiAffinityTerms: values[0][security]: Invalid value: "{{.bad-value.}}"`,
		},
		{
			name: "affinity with pods matching the namespaceSelector",
			pod:  incomingNs(affinityNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam1.team2", "node1"), onNs("d", "subteam2.team1", "node2"),
			},
			nodes:   twoRegions,
			wantRaw: []int64{10, 5},
			want:    []int64{maxScore, 0},
		},
		{
			name: "affinity with pods matching namespaceSelector and namespaces",
			pod:  incomingNs(affinityNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam2.team2", "node1"), onNs("d", "subteam2.team1", "node2"),
			},
			nodes:   twoRegions,
			wantRaw: []int64{15, 5},
			want:    []int64{maxScore, 0},
		},
		{
			name: "anti-affinity with pods matching the namespaceSelector",
			pod:  incomingNs(antiAffinityNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam1.team2", "node1"), onNs("d", "subteam2.team1", "node2"),
			},
			nodes: twoRegions,
			want:  []int64{0, maxScore},
		},
		{
			name: "anti-affinity with pods matching namespaceSelector and namespaces",
			pod:  incomingNs(antiAffinityNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam2.team2", "node1"), onNs("d", "subteam2.team1", "node2"),
			},
			nodes: twoRegions,
			want:  []int64{0, maxScore},
		},
		{
			name: "negative namespaceSelector for affinity",
			pod:  incomingNs(affinityNegNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam1.team2", "node2"),
			},
			nodes: twoRegions,
			want:  []int64{0, maxScore},
		},
		{
			name: "negative namespaceSelector for anti-affinity",
			pod:  incomingNs(antiAffinityNegNsSel),
			pods: []*v1.Pod{
				onNs("a", "subteam1.team1", "node1"), onNs("b", "subteam1.team1", "node1"),
				onNs("c", "subteam1.team2", "node2"),
			},
			nodes: twoRegions,
			want:  []int64{maxScore, 0},
		},
		{
			name:       "ignorePreferredTermsOfExistingPods: pod without preferred terms skips",
			pod:        incoming(s2, nil),
			pods:       []*v1.Pod{on("a", "node1", s1, stayWithS1AwayFromS2), on("b", "node2", s2, stayWithS2InRegion)},
			nodes:      twoRegions,
			args:       withIgnore,
			wantStatus: skip,
		},
		{
			name:  "existing pods' preferred terms are scored by default",
			pod:   incoming(s2, nil),
			pods:  []*v1.Pod{on("a", "node1", s1, stayWithS1AwayFromS2), on("b", "node2", s2, stayWithS2InRegion)},
			nodes: twoRegions,
			want:  []int64{0, maxScore},
		},
		{
			name:       "no nodes: Skip",
			pod:        incoming(s2, nil),
			wantStatus: skip,
		},
	})
}

// Cases of upstream's TestPreferredAffinityWithHardPodAffinitySymmetricWeight.
func TestHardPodAffinityWeight(t *testing.T) {
	hard := mkPod("").reqAff(nsTerm("region", sel(in("service", "S1")), []string{"", "subteam2.team2"}, sel(in("team", "team1")))).obj().Spec.Affinity
	svc := map[string]string{"service": "S1"}
	pods := []*v1.Pod{
		mkPod("a").node("node1").withAffinity(hard).obj(),
		mkPod("b").node("node2").withAffinity(hard).obj(),
	}
	nodes := []*v1.Node{
		mkNode("node1", map[string]string{"region": "China"}),
		mkNode("node2", map[string]string{"region": "India"}),
		mkNode("node3", map[string]string{"az": "az1"}),
	}
	weight := func(w int32) *configv1.InterPodAffinityArgs {
		return &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(w)}
	}
	skip := framework.NewStatus(framework.Skip)
	runScoreCases(t, []scoreCase{
		{
			name: "default weight", pod: mkPod("p").labels(svc).obj(), pods: pods, nodes: nodes,
			args: weight(1), wantRaw: []int64{1, 1, 0}, want: []int64{maxScore, maxScore, 0},
		},
		{
			name: "zero weight", pod: mkPod("p").labels(svc).obj(), pods: pods, nodes: nodes,
			args: weight(0), wantStatus: skip,
		},
		{
			name: "no matching namespace", pod: mkPod("p").ns("subteam1.team2").labels(svc).obj(), pods: pods, nodes: nodes,
			wantStatus: skip,
		},
		{
			name: "matching namespaceSelector", pod: mkPod("p").ns("subteam1.team1").labels(svc).obj(), pods: pods, nodes: nodes,
			want: []int64{maxScore, maxScore, 0},
		},
		{
			name: "matching namespaces", pod: mkPod("p").ns("subteam2.team2").labels(svc).obj(), pods: pods, nodes: nodes,
			want: []int64{maxScore, maxScore, 0},
		},
		{
			name: "weight 7 adds to preferred weights",
			pod:  mkPod("p").labels(svc).obj(),
			pods: []*v1.Pod{
				mkPod("a").node("node1").withAffinity(hard).prefAff(3, term("region", sel(in("service", "S1")))).obj(),
				mkPod("b").node("node2").withAffinity(hard).prefAnti(20, term("region", sel(in("service", "S1")))).obj(),
			},
			nodes: nodes, args: weight(7),
			wantRaw: []int64{10, -13, 0},
			// (0+13)/23*100 = 56.52 and (10+13)/23*100 = 100.
			want: []int64{maxScore, 0, 56},
		},
	})
}

// PreScore's choices beyond upstream's test cases.
func TestPreScoreScope(t *testing.T) {
	zone := func(name, z string) *v1.Node { return mkNode(name, map[string]string{"zone": z}) }
	runScoreCases(t, []scoreCase{
		{
			name:       "all snapshot nodes count, not only the ones being scored",
			pod:        mkPod("p").prefAff(10, term("zone", sel(in("app", "db")))).obj(),
			pods:       []*v1.Pod{mkPod("db").label("app", "db").node("full").obj()},
			nodes:      []*v1.Node{zone("full", "z1"), zone("a", "z1"), zone("b", "z2")},
			scoreNodes: []string{"a", "b"},
			wantRaw:    []int64{10, 0},
			want:       []int64{maxScore, 0},
		},
		{
			name:       "pods on a node without labels are not scored",
			pod:        mkPod("p").prefAff(10, term("zone", sel(in("app", "db")))).obj(),
			pods:       []*v1.Pod{mkPod("db").label("app", "db").node("bare").obj()},
			nodes:      []*v1.Node{mkNode("bare", nil), zone("a", "z1")},
			wantStatus: framework.NewStatus(framework.Skip),
		},
		{
			name: "weights that cancel out still count as accumulated",
			pod: mkPod("p").prefAff(5, term("zone", sel(in("app", "db")))).
				prefAnti(5, term("zone", sel(in("app", "db")))).obj(),
			pods:    []*v1.Pod{mkPod("db").label("app", "db").node("a").obj()},
			nodes:   []*v1.Node{zone("a", "z1"), zone("b", "z2")},
			wantRaw: []int64{0, 0},
			want:    []int64{0, 0},
		},
		{
			name: "ignorePreferredTermsOfExistingPods does not apply when the pod has preferred terms",
			pod:  mkPod("p").label("app", "web").prefAnti(1, term("zone", sel(in("app", "none")))).obj(),
			pods: []*v1.Pod{
				mkPod("e").label("app", "x").node("a").prefAff(4, term("zone", sel(in("app", "web")))).obj(),
			},
			nodes:   []*v1.Node{zone("a", "z1"), zone("b", "z2")},
			args:    &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(1), IgnorePreferredTermsOfExistingPods: true},
			wantRaw: []int64{4, 0},
			want:    []int64{maxScore, 0},
		},
		{
			name: "existing pods' required anti-affinity is not scored",
			pod:  mkPod("p").label("app", "web").obj(),
			pods: []*v1.Pod{
				mkPod("e").node("a").reqAnti(term("zone", sel(in("app", "web")))).obj(),
			},
			nodes:      []*v1.Node{zone("a", "z1"), zone("b", "z2")},
			wantStatus: framework.NewStatus(framework.Skip),
		},
	})
}

func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		topo    scoreMap
		in, out []int64
	}{
		// Ratio first, then scaled and truncated: 0.29*100 is 28.999...
		{"float truncation", scoreMap{"k": {"v": 1}}, []int64{0, 29, 100}, []int64{0, 28, 100}},
		{"negative scores", scoreMap{"k": {"v": 1}}, []int64{-5, 0, 3}, []int64{0, 62, 100}},
		{"all equal", scoreMap{"k": {"v": 1}}, []int64{-7, -7}, []int64{0, 0}},
		{"nothing accumulated leaves scores", scoreMap{}, []int64{3, 9}, []int64{3, 9}},
		{"no nodes", scoreMap{"k": {"v": 1}}, nil, nil},
	}
	pl, _ := setup(t, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state := framework.NewCycleState()
			state.Write(preScoreStateKey, &preScoreState{topologyScore: tc.topo})
			var list framework.NodeScoreList
			for i, s := range tc.in {
				list = append(list, framework.NodeScore{Name: string(rune('a' + i)), Score: s})
			}
			if st := pl.NormalizeScore(ctx, state, nil, list); !st.IsSuccess() {
				t.Fatal(st)
			}
			var got []int64
			for _, s := range list {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tc.out) {
				t.Errorf("got %v, want %v", got, tc.out)
			}
		})
	}
}

func TestScoreWithoutPreScore(t *testing.T) {
	pl, h := setup(t, nil, []*v1.Node{mkNode("n", nil)})
	want := `failed to read "PreScoreInterPodAffinity" from cycleState: not found`
	if _, st := pl.Score(ctx, framework.NewCycleState(), &v1.Pod{}, nodeInfo(t, h, "n")); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("Score = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
	if st := pl.NormalizeScore(ctx, framework.NewCycleState(), &v1.Pod{}, nil); st.Code() != framework.Error || st.Message() != want {
		t.Errorf("NormalizeScore = %v %q, want Error %q", st.Code(), st.Message(), want)
	}
}
