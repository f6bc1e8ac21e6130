package interpodaffinity

import (
	"errors"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

type filterCase struct {
	name          string
	pod           *v1.Pod
	pods          []*v1.Pod
	nodes         []*v1.Node
	objs          []any
	wantPreFilter *framework.Status
	// wantFilter is per node, in nodes' order; ignored unless PreFilter
	// succeeds.
	wantFilter []*framework.Status
}

func runFilterCases(t *testing.T, tests []filterCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, h := setup(t, tc.pods, tc.nodes, tc.objs...)
			state := framework.NewCycleState()
			_, st := pl.PreFilter(ctx, state, tc.pod, h.Snap.List())
			if !sameStatus(st, tc.wantPreFilter) {
				t.Fatalf("PreFilter = %v %q, want %v %q", st.Code(), st.Reasons(), tc.wantPreFilter.Code(), tc.wantPreFilter.Reasons())
			}
			if !st.IsSuccess() {
				return
			}
			if len(tc.wantFilter) != len(tc.nodes) {
				t.Fatalf("test has %d filter results for %d nodes", len(tc.wantFilter), len(tc.nodes))
			}
			for i, n := range tc.nodes {
				got := pl.Filter(ctx, state, tc.pod, nodeInfo(t, h, n.Name))
				if !sameStatus(got, tc.wantFilter[i]) {
					t.Errorf("Filter(%s) = %v %q, want %v %q", n.Name, got.Code(), got.Reasons(), tc.wantFilter[i].Code(), tc.wantFilter[i].Reasons())
				}
			}
		})
	}
}

var (
	skip        = framework.NewStatus(framework.Skip)
	affFail     = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	antiFail    = framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	existFail   = framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	badValueErr = `values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
)

// Cases of upstream's TestRequiredAffinitySingleNode.
func TestRequiredAffinitySingleNode(t *testing.T) {
	podLabel := map[string]string{"service": "securityscan"}
	podLabel2 := map[string]string{"security": "S1"}
	existing := mkPod("existing").labels(podLabel).node("node1").obj()
	node1 := mkNode("node1", map[string]string{"region": "r1", "zone": "z11"})
	one := func(s *framework.Status) []*framework.Status { return []*framework.Status{s} }
	team1 := sel(in("team", "team1"))
	svcIn := sel(in("service", "securityscan", "value2"))

	tests := []filterCase{
		{
			name:          "no required pod affinity, no existing pods: Skip",
			pod:           &v1.Pod{},
			wantPreFilter: skip,
		},
		{
			name: "affinity In matches the existing pod",
			pod:  mkPod("p").labels(podLabel2).reqAff(term("region", svcIn)).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(nil),
		},
		{
			name: "affinity NotIn matches the existing pod",
			pod:  mkPod("p").labels(podLabel2).reqAff(term("region", sel(notIn("service", "securityscan3", "value3")))).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(nil),
		},
		{
			name:       "affinity in another namespace does not match",
			pod:        mkPod("p").labels(podLabel2).reqAff(nsTerm("", svcIn, []string{"DiffNameSpace"}, nil)).obj(),
			pods:       []*v1.Pod{mkPod("e").ns("ns").label("service", "securityscan").node("node1").obj()},
			wantFilter: one(affFail),
		},
		{
			name: "affinity selector does not match the existing pod",
			pod:  mkPod("p").labels(podLabel).reqAff(term("", sel(in("service", "antivirusscan", "value2")))).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(affFail),
		},
		{
			name: "several affinity terms with different operators all match",
			pod: mkPod("p").labels(podLabel2).
				reqAff(term("region", sel(exists("service"), doesNotExist("wrongkey")))).
				reqAff(term("region", sel(in("service", "securityscan"), notIn("service", "WrongValue")))).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(nil),
		},
		{
			name: "match expressions are ANDed: one fails",
			pod: mkPod("p").labels(podLabel2).
				reqAff(term("region", sel(exists("service"), doesNotExist("wrongkey")))).
				reqAff(term("region", sel(in("service", "securityscan2"), notIn("service", "WrongValue")))).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(affFail),
		},
		{
			name: "affinity and anti-affinity both satisfied",
			pod: mkPod("p").labels(podLabel2).reqAff(term("region", svcIn)).
				reqAnti(term("node", sel(in("service", "antivirusscan", "value2")))).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(nil),
		},
		{
			name: "affinity, anti-affinity and existing anti-affinity satisfied",
			pod: mkPod("p").labels(podLabel2).reqAff(term("region", svcIn)).
				reqAnti(term("node", sel(in("service", "antivirusscan", "value2")))).obj(),
			pods: []*v1.Pod{mkPod("e").node("node1").labels(podLabel).
				reqAnti(term("node", sel(in("service", "antivirusscan", "value2")))).obj()},
			wantFilter: one(nil),
		},
		{
			name: "affinity satisfied, anti-affinity violated",
			pod: mkPod("p").labels(podLabel2).reqAff(term("region", svcIn)).
				reqAnti(term("zone", svcIn)).obj(),
			pods: []*v1.Pod{existing}, wantFilter: one(antiFail),
		},
		{
			name: "affinity and anti-affinity satisfied, existing pod's anti-affinity violated",
			pod: mkPod("p").labels(podLabel).reqAff(term("region", svcIn)).
				reqAnti(term("node", sel(in("service", "antivirusscan", "value2")))).obj(),
			pods:       []*v1.Pod{mkPod("e").labels(podLabel).node("node1").reqAnti(term("zone", svcIn)).obj()},
			wantFilter: one(existFail),
		},
		{
			name: "pod does not match its own affinity and the only match is on a missing node",
			pod: mkPod("p").labels(podLabel).
				reqAff(term("region", sel(notIn("service", "securityscan", "value2")))).obj(),
			pods:       []*v1.Pod{mkPod("e").label("service", "securityscan").node("node2").obj()},
			wantFilter: one(affFail),
		},
		{
			name:       "existing anti-affinity applies to a pod without terms",
			pod:        mkPod("p").labels(podLabel).obj(),
			pods:       []*v1.Pod{mkPod("e").node("node1").labels(podLabel).reqAnti(term("zone", svcIn)).obj()},
			wantFilter: one(existFail),
		},
		{
			name:          "existing anti-affinity not matching a pod without terms: Skip",
			pod:           mkPod("p").labels(podLabel).obj(),
			pods:          []*v1.Pod{mkPod("e").node("node1").labels(podLabel).reqAnti(term("zone", sel(notIn("service", "securityscan", "value2")))).obj()},
			wantPreFilter: skip,
		},
		{
			name: "incoming anti-affinity matched, existing pod's not",
			pod: mkPod("p").labels(podLabel).
				reqAnti(term("region", sel(exists("service")))).reqAnti(term("region", sel(exists("security")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("node1").labels(podLabel2).reqAnti(term("zone", sel(exists("security")))).obj()},
			wantFilter: one(antiFail),
		},
		{
			name: "symmetry a1: incoming anti-affinity is checked before existing",
			pod: mkPod("p").labels(podLabel).
				reqAnti(term("zone", sel(exists("service")))).reqAnti(term("zone", sel(exists("security")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("node1").labels(podLabel2).reqAnti(term("zone", sel(exists("security")))).obj()},
			wantFilter: one(antiFail),
		},
		{
			name: "symmetry a2: only the existing pod's anti-affinity matches",
			pod:  mkPod("p").labels(podLabel2).reqAnti(term("zone", sel(exists("security")))).obj(),
			pods: []*v1.Pod{mkPod("e").node("node1").labels(podLabel).
				reqAnti(term("zone", sel(exists("service")))).reqAnti(term("zone", sel(exists("security")))).obj()},
			wantFilter: one(existFail),
		},
		{
			name: "symmetry b1",
			pod: mkPod("p").label("abc", "").label("xyz", "").
				reqAnti(term("zone", sel(exists("abc")))).reqAnti(term("zone", sel(exists("def")))).obj(),
			pods: []*v1.Pod{mkPod("e").node("node1").label("def", "").label("xyz", "").
				reqAnti(term("zone", sel(exists("abc")))).reqAnti(term("zone", sel(exists("def")))).obj()},
			wantFilter: one(antiFail),
		},
		{
			name: "symmetry b2",
			pod: mkPod("p").label("def", "").label("xyz", "").
				reqAnti(term("zone", sel(exists("abc")))).reqAnti(term("zone", sel(exists("def")))).obj(),
			pods: []*v1.Pod{mkPod("e").node("node1").label("abc", "").label("xyz", "").
				reqAnti(term("zone", sel(exists("abc")))).reqAnti(term("zone", sel(exists("def")))).obj()},
			wantFilter: one(antiFail),
		},
		{
			name: "invalid affinity label value fails PreFilter",
			pod: mkPod("p").labels(podLabel).
				reqAff(term("region", sel(in("service", "{{.bad-value.}}")))).
				reqAff(term("node", sel(in("service", "antivirusscan", "value2")))).obj(),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, "parsing pod: requiredAffinityTerms: "+badValueErr),
		},
		{
			name: "invalid value in a later affinity term fails PreFilter",
			pod: mkPod("p").labels(podLabel).
				reqAff(term("region", sel(in("service", "foo")))).
				reqAff(term("node", sel(in("service", "{{.bad-value.}}")))).obj(),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, "parsing pod: requiredAffinityTerms: "+badValueErr),
		},
		{
			name: "invalid affinity and anti-affinity: aggregated like upstream",
			pod: mkPod("p").
				reqAff(term("region", sel(in("service", "{{.bad-value.}}")))).
				reqAnti(term("region", sel(in("service", "{{.bad-value.}}")))).obj(),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable,
				"parsing pod: [requiredAffinityTerms: "+badValueErr+", requiredAntiAffinityTerms: "+badValueErr+"]"),
		},
		{
			name:          "invalid preferred term also fails PreFilter",
			pod:           mkPod("p").prefAnti(1, term("zone", sel(in("service", "{{.bad-value.}}")))).obj(),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, "parsing pod: preferredAntiAffinityTerms: "+badValueErr),
		},
		{
			name:          "empty affinity structs: Skip",
			pod:           mkPod("p").withAffinity(&v1.Affinity{PodAffinity: &v1.PodAffinity{}, PodAntiAffinity: &v1.PodAntiAffinity{}}).obj(),
			wantPreFilter: skip,
		},
		{
			name: "affinity with a matching namespaceSelector",
			pod:  mkPod("p").labels(podLabel2).reqAff(nsTerm("region", svcIn, nil, team1)).obj(),
			pods: []*v1.Pod{mkPod("e").ns("subteam1.team1").labels(podLabel).node("node1").obj()},
			objs: teamNamespaces(), wantFilter: one(nil),
		},
		{
			name: "affinity with a non-matching namespaceSelector",
			pod:  mkPod("p").labels(podLabel2).reqAff(nsTerm("region", svcIn, nil, team1)).obj(),
			pods: []*v1.Pod{mkPod("e").ns("subteam1.team2").labels(podLabel).node("node1").obj()},
			objs: teamNamespaces(), wantFilter: one(affFail),
		},
		{
			name: "anti-affinity with a matching namespaceSelector",
			pod:  mkPod("p").ns("subteam1.team1").labels(podLabel2).reqAnti(nsTerm("zone", svcIn, nil, team1)).obj(),
			pods: []*v1.Pod{mkPod("e").ns("subteam2.team1").labels(podLabel).node("node1").obj()},
			objs: teamNamespaces(), wantFilter: one(antiFail),
		},
		{
			name: "anti-affinity with an empty namespaceSelector matches all namespaces",
			pod:  mkPod("p").ns("subteam1.team1").labels(podLabel2).reqAnti(nsTerm("zone", svcIn, nil, &metav1.LabelSelector{})).obj(),
			pods: []*v1.Pod{mkPod("e").ns("subteam2.team1").labels(podLabel).node("node1").obj()},
			objs: teamNamespaces(), wantFilter: one(antiFail),
		},
		{
			name: "anti-affinity with a non-matching namespaceSelector",
			pod:  mkPod("p").ns("subteam1.team1").labels(podLabel2).reqAnti(nsTerm("zone", svcIn, nil, team1)).obj(),
			pods: []*v1.Pod{mkPod("e").ns("subteam1.team2").labels(podLabel).node("node1").obj()},
			objs: teamNamespaces(), wantFilter: one(nil),
		},
	}
	for i := range tests {
		tests[i].nodes = []*v1.Node{node1}
		if tests[i].objs == nil {
			tests[i].objs = teamNamespaces()
		}
	}
	runFilterCases(t, tests)
}

// Cases of upstream's TestRequiredAffinityMultipleNodes (default path).
func TestRequiredAffinityMultipleNodes(t *testing.T) {
	china := map[string]string{"region": "China"}
	chinaAz1 := map[string]string{"region": "China", "az": "az1"}
	india := map[string]string{"region": "India"}
	rz := func(name, zone string) *v1.Node {
		return mkNode(name, map[string]string{"region": "r1", "zone": zone, "hostname": name})
	}
	threeRegions := func(a, b, c string) []*v1.Node {
		return []*v1.Node{mkNode(a, china), mkNode(b, chinaAz1), mkNode(c, india)}
	}
	st := func(s ...*framework.Status) []*framework.Status { return s }

	tests := []filterCase{
		{
			name:       "all nodes in the domain of a matching pod fit",
			pod:        mkPod("p").reqAff(term("region", sel(in("foo", "bar")))).obj(),
			pods:       []*v1.Pod{mkPod("p1").node("node1").label("foo", "bar").obj()},
			nodes:      threeRegions("node1", "node2", "node3"),
			wantFilter: st(nil, nil, affFail),
		},
		{
			name: "first pod of a self-affine group fits any node with the keys",
			pod: mkPod("p").label("foo", "bar").label("service", "securityscan").
				reqAff(term("zone", sel(in("foo", "bar")))).reqAff(term("zone", sel(in("service", "securityscan")))).obj(),
			pods: []*v1.Pod{mkPod("p1").node("nodeA").label("foo", "bar").obj()},
			nodes: []*v1.Node{
				mkNode("nodeA", map[string]string{"zone": "az1", "hostname": "h1"}),
				mkNode("nodeB", map[string]string{"zone": "az2", "hostname": "h2"}),
			},
			wantFilter: st(nil, nil),
		},
		{
			name: "first pod of a group still needs the topology keys",
			pod: mkPod("p").label("foo", "bar").label("service", "securityscan").
				reqAff(term("zone", sel(in("foo", "bar")))).reqAff(term("zone", sel(in("service", "securityscan")))).obj(),
			pods: []*v1.Pod{mkPod("p1").node("nodeA").label("foo", "bar").obj()},
			nodes: []*v1.Node{
				mkNode("nodeA", map[string]string{"zoneLabel": "az1", "hostname": "h1"}),
				mkNode("nodeB", map[string]string{"zoneLabel": "az2", "hostname": "h2"}),
			},
			wantFilter: st(affFail, affFail),
		},
		{
			name:       "anti-affinity repels the whole domain",
			pod:        mkPod("p").reqAnti(term("region", sel(in("foo", "abc")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("nodeA").label("foo", "abc").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z1")},
			wantFilter: st(antiFail, antiFail),
		},
		{
			name: "any anti-affinity term suffices",
			pod: mkPod("p").reqAnti(term("region", sel(in("foo", "abc")))).
				reqAnti(term("zone", sel(in("service", "securityscan")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("nodeA").label("foo", "abc").label("service", "securityscan").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(antiFail, antiFail),
		},
		{
			name:       "anti-affinity leaves other domains",
			pod:        mkPod("p").reqAnti(term("region", sel(in("foo", "abc")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("nodeA").label("foo", "abc").obj()},
			nodes:      threeRegions("nodeA", "nodeB", "nodeC"),
			wantFilter: st(antiFail, antiFail, nil),
		},
		{
			name: "existing anti-affinity in another namespace does not apply",
			pod:  mkPod("p").ns("NS1").label("foo", "123").reqAnti(term("region", sel(in("foo", "bar")))).obj(),
			pods: []*v1.Pod{
				mkPod("e1").node("nodeA").ns("NS1").label("foo", "bar").obj(),
				mkPod("e2").node("nodeC").ns("NS2").reqAnti(term("region", sel(in("foo", "123")))).obj(),
			},
			nodes:      threeRegions("nodeA", "nodeB", "nodeC"),
			objs:       []any{mkNamespace("NS1", nil)},
			wantFilter: st(antiFail, antiFail, nil),
		},
		{
			name:          "existing term whose topology key no node has: Skip",
			pod:           mkPod("p").label("foo", "").obj(),
			pods:          []*v1.Pod{mkPod("e").node("nodeA").reqAnti(term("invalid-node-label", sel(exists("foo")))).obj()},
			nodes:         []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z1")},
			wantPreFilter: skip,
		},
		{
			name:       "incoming anti-affinity needs the topology key too",
			pod:        mkPod("p").node("nodeA").reqAnti(term("invalid-node-label", sel(exists("foo")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("nodeA").label("foo", "").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z1")},
			wantFilter: st(nil, nil),
		},
		{
			name: "pod violates existing pods' terms on every node",
			pod:  mkPod("p").label("foo", "").label("bar", "").obj(),
			pods: []*v1.Pod{
				mkPod("e1").node("nodeA").reqAnti(term("zone", sel(exists("foo")))).obj(),
				mkPod("e2").node("nodeA").reqAnti(term("region", sel(exists("bar")))).obj(),
			},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(existFail, existFail),
		},
		{
			name: "pod's anti-affinity violated on every node",
			pod:  mkPod("p").reqAnti(term("zone", sel(exists("foo")))).reqAnti(term("region", sel(exists("bar")))).obj(),
			pods: []*v1.Pod{
				mkPod("e1").node("nodeA").label("foo", "").obj(),
				mkPod("e2").node("nodeB").label("bar", "").obj(),
			},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(antiFail, antiFail),
		},
		{
			name: "existing term counts only with its topology key",
			pod:  mkPod("p").label("foo", "").label("bar", "").obj(),
			pods: []*v1.Pod{mkPod("e").node("nodeA").
				reqAnti(term("invalid-node-label", sel(exists("foo")))).reqAnti(term("zone", sel(exists("bar")))).obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(existFail, nil),
		},
		{
			name: "incoming term counts only with its topology key",
			pod: mkPod("p").reqAnti(term("invalid-node-label", sel(exists("foo")))).
				reqAnti(term("zone", sel(exists("bar")))).obj(),
			pods:       []*v1.Pod{mkPod("podA").node("nodeA").label("foo", "").label("bar", "").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(antiFail, nil),
		},
		{
			name: "existing terms with valid keys",
			pod:  mkPod("p").label("foo", "").label("bar", "").obj(),
			pods: []*v1.Pod{mkPod("e").node("nodeA").
				reqAnti(term("region", sel(exists("foo")))).reqAnti(term("zone", sel(exists("bar")))).obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(existFail, existFail),
		},
		{
			name: "incoming terms with valid keys",
			pod: mkPod("p").reqAnti(term("region", sel(exists("foo")))).
				reqAnti(term("zone", sel(exists("bar")))).obj(),
			pods:       []*v1.Pod{mkPod("e").node("nodeA").label("foo", "").label("bar", "").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(antiFail, antiFail),
		},
		{
			name: "existing pods on two nodes each repel the pod",
			pod:  mkPod("p").label("foo", "").label("bar", "").obj(),
			pods: []*v1.Pod{
				mkPod("e1").node("nodeA").reqAnti(term("zone", sel(exists("foo")))).reqAnti(term("zone", sel(exists("labelA")))).obj(),
				mkPod("e2").node("nodeB").reqAnti(term("zone", sel(exists("bar")))).reqAnti(term("zone", sel(exists("labelB")))).obj(),
			},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2"), rz("nodeC", "z3")},
			wantFilter: st(existFail, existFail, nil),
		},
		{
			name: "one pod matching all affinity terms satisfies every domain it is in",
			pod: mkPod("p").reqAff(term("region", sel(exists("foo")))).
				reqAff(term("zone", sel(exists("bar")))).obj(),
			pods:       []*v1.Pod{mkPod("pod1").node("nodeA").label("foo", "").label("bar", "").obj()},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z1")},
			wantFilter: st(nil, nil),
		},
		{
			name: "affinity terms must be satisfied by the same pod",
			pod: mkPod("p").reqAff(term("region", sel(exists("foo")))).
				reqAff(term("zone", sel(exists("bar")))).obj(),
			pods: []*v1.Pod{
				mkPod("pod1").node("nodeA").label("foo", "").obj(),
				mkPod("pod2").node("nodeB").label("bar", "").obj(),
			},
			nodes:      []*v1.Node{rz("nodeA", "z1"), rz("nodeB", "z2")},
			wantFilter: st(affFail, affFail),
		},
		{
			name: "hostname affinity",
			pod:  mkPod("p").reqAff(term(v1.LabelHostname, sel(exists("foo")))).obj(),
			pods: []*v1.Pod{mkPod("pod1").node("nodeA").label("foo", "").obj()},
			nodes: []*v1.Node{
				mkNode("nodeA", map[string]string{v1.LabelHostname: "nodeA"}),
				mkNode("nodeB", map[string]string{v1.LabelHostname: "nodeB"}),
			},
			wantFilter: st(nil, affFail),
		},
		{
			name: "hostname anti-affinity",
			pod:  mkPod("p").reqAnti(term(v1.LabelHostname, sel(exists("foo")))).obj(),
			pods: []*v1.Pod{mkPod("pod1").node("nodeA").label("foo", "").obj()},
			nodes: []*v1.Node{
				mkNode("nodeA", map[string]string{v1.LabelHostname: "nodeA"}),
				mkNode("nodeB", map[string]string{v1.LabelHostname: "nodeB"}),
			},
			wantFilter: st(antiFail, nil),
		},
		// Cases of upstream's TestMultipleAffinityTermsRequireSingleMatchingPod.
		{
			name: "two hostname terms: node-1 has one pod per term, node-3 one pod for both",
			pod: mkPod("pod-1").ns("default").reqAff(term(v1.LabelHostname, sel(in("foo", "bar")))).
				reqAff(term(v1.LabelHostname, sel(in("baz", "qux")))).obj(),
			pods: []*v1.Pod{
				mkPod("podA").ns("default").label("foo", "bar").node("node-1").obj(),
				mkPod("podB").ns("default").label("baz", "qux").node("node-1").obj(),
				mkPod("podC").ns("default").label("foo", "bar").label("baz", "qux").node("node-3").obj(),
			},
			nodes:      hostNodes("node-1", "node-2", "node-3"),
			objs:       []any{mkNamespace("default", map[string]string{})},
			wantFilter: st(affFail, affFail, nil),
		},
		{
			name: "two hostname terms, no pod matches both, pod matches itself",
			pod: mkPod("pod-1").ns("default").label("foo", "bar").label("baz", "qux").
				reqAff(term(v1.LabelHostname, sel(in("foo", "bar")))).
				reqAff(term(v1.LabelHostname, sel(in("baz", "qux")))).obj(),
			pods: []*v1.Pod{
				mkPod("podA").ns("default").label("foo", "bar").node("node-1").obj(),
				mkPod("podB").ns("default").label("baz", "qux").node("node-1").obj(),
			},
			nodes:      hostNodes("node-1", "node-2", "node-3"),
			objs:       []any{mkNamespace("default", map[string]string{})},
			wantFilter: st(nil, nil, nil),
		},
	}
	runFilterCases(t, tests)
}

func hostNodes(names ...string) []*v1.Node {
	var out []*v1.Node
	for _, n := range names {
		out = append(out, mkNode(n, map[string]string{v1.LabelHostname: n}))
	}
	return out
}

// Cases of upstream's TestFastTrackInterPodAffinity (run on the default
// path) and of namespaces without a Namespace object.
func TestNamespaces(t *testing.T) {
	zone := "topology.kubernetes.io/zone"
	nodes := []*v1.Node{
		mkNode("node-1", map[string]string{v1.LabelHostname: "node-1", zone: "zone-a"}),
		mkNode("node-2", map[string]string{v1.LabelHostname: "node-2", zone: "zone-b"}),
	}
	background := []*v1.Pod{
		mkPod("foo").ns("default").label("app", "foo").node("node-1").obj(),
		mkPod("blocked").ns("blue-ns").label("app", "blocked").label("team", "blue").node("node-1").obj(),
		mkPod("bar").ns("default").label("app", "bar").node("node-2").obj(),
	}
	nss := []any{
		mkNamespace("default", map[string]string{}),
		mkNamespace("other", map[string]string{}),
		mkNamespace("blue-ns", map[string]string{"team": "blue"}),
	}
	noTeam := sel(doesNotExist("team"))
	st := func(s ...*framework.Status) []*framework.Status { return s }

	tests := []filterCase{
		{
			name:       "zone anti-affinity",
			pod:        mkPod("pod-1").ns("default").label("app", "foo").reqAnti(term(zone, sel(in("app", "foo")))).obj(),
			wantFilter: st(antiFail, nil),
		},
		{
			name:       "hostname anti-affinity",
			pod:        mkPod("pod-2").ns("default").label("app", "bar").reqAnti(term(v1.LabelHostname, sel(in("app", "bar")))).obj(),
			wantFilter: st(nil, antiFail),
		},
		{
			name:       "namespaceSelector DoesNotExist excludes a labelled namespace",
			pod:        mkPod("pod-3").ns("other").label("app", "baz").reqAnti(nsTerm(zone, sel(in("app", "blocked")), nil, noTeam)).obj(),
			wantFilter: st(nil, nil),
		},
		{
			name: "incoming selector: a namespace without an object is never selected",
			pod:  mkPod("p").ns("default").reqAnti(nsTerm(zone, sel(in("app", "ghost")), nil, noTeam)).obj(),
			pods: []*v1.Pod{mkPod("g").ns("ghost").label("app", "ghost").node("node-2").obj()},
			// DoesNotExist would match the ghost namespace's (nil) labels, but
			// only namespaces that exist are folded into the term.
			wantFilter: st(nil, nil),
		},
		{
			name:       "incoming empty selector: matches a namespace without an object",
			pod:        mkPod("p").ns("default").reqAnti(nsTerm(zone, sel(in("app", "ghost")), nil, &metav1.LabelSelector{})).obj(),
			pods:       []*v1.Pod{mkPod("g").ns("ghost").label("app", "ghost").node("node-2").obj()},
			wantFilter: st(nil, antiFail),
		},
		{
			name:       "existing selector DoesNotExist: matches an incoming pod whose namespace has no object",
			pod:        mkPod("p").ns("ghost").label("app", "x").obj(),
			pods:       []*v1.Pod{mkPod("e").ns("default").node("node-2").reqAnti(nsTerm(zone, sel(in("app", "x")), nil, noTeam)).obj()},
			wantFilter: st(nil, existFail),
		},
		{
			name:          "existing selector In: cannot match an incoming pod whose namespace has no object",
			pod:           mkPod("p").ns("ghost").label("app", "x").obj(),
			pods:          []*v1.Pod{mkPod("e").ns("default").node("node-2").reqAnti(nsTerm(zone, sel(in("app", "x")), nil, sel(in("team", "blue")))).obj()},
			wantPreFilter: skip,
		},
		{
			name:       "existing selector In: matches the incoming pod's namespace labels",
			pod:        mkPod("p").ns("blue-ns").label("app", "x").obj(),
			pods:       []*v1.Pod{mkPod("e").ns("default").node("node-2").reqAnti(nsTerm(zone, sel(in("app", "x")), nil, sel(in("team", "blue")))).obj()},
			wantFilter: st(nil, existFail),
		},
		{
			name: "namespaces list and selector are ORed",
			pod: mkPod("p").ns("default").
				reqAff(nsTerm(zone, sel(in("app", "bar", "blocked")), []string{"default"}, sel(in("team", "blue")))).obj(),
			// app=blocked in blue-ns (zone-a) and app=bar in default (zone-b).
			wantFilter: st(nil, nil),
		},
	}
	for i := range tests {
		tests[i].nodes = nodes
		tests[i].pods = append(append([]*v1.Pod{}, background...), tests[i].pods...)
		tests[i].objs = nss
	}
	runFilterCases(t, tests)
}

// The three checks run in a fixed order and the first failure is the whole
// status, with one reason.
func TestFilterCheckOrder(t *testing.T) {
	node := mkNode("n", map[string]string{"zone": "z"})
	st := func(s *framework.Status) []*framework.Status { return []*framework.Status{s} }
	tests := []filterCase{
		{
			name: "affinity failure wins over anti-affinity and existing anti-affinity",
			pod: mkPod("p").label("app", "x").reqAff(term("zone", sel(in("app", "nowhere")))).
				reqAnti(term("zone", sel(in("app", "y")))).obj(),
			pods:       []*v1.Pod{mkPod("e").label("app", "y").node("n").reqAnti(term("zone", sel(in("app", "x")))).obj()},
			wantFilter: st(affFail),
		},
		{
			name:       "anti-affinity failure wins over existing anti-affinity",
			pod:        mkPod("p").label("app", "x").reqAnti(term("zone", sel(in("app", "y")))).obj(),
			pods:       []*v1.Pod{mkPod("e").label("app", "y").node("n").reqAnti(term("zone", sel(in("app", "x")))).obj()},
			wantFilter: st(antiFail),
		},
		{
			name: "self-affinity exception does not apply once any pod matches elsewhere",
			pod:  mkPod("p").label("app", "x").reqAff(term("zone", sel(in("app", "x")))).obj(),
			pods: []*v1.Pod{mkPod("e").label("app", "x").node("other").obj()},
			// "other" is in zone w, so counts are non-empty but not for z.
			wantFilter: st(affFail),
		},
	}
	for i := range tests {
		tests[i].nodes = []*v1.Node{node}
	}
	tests[2].nodes = []*v1.Node{node, mkNode("other", map[string]string{"zone": "w"})}
	tests[2].wantFilter = []*framework.Status{affFail, nil}
	runFilterCases(t, tests)
}

func TestFilterWithoutPreFilter(t *testing.T) {
	pl, h := setup(t, nil, []*v1.Node{mkNode("n", nil)})
	st := pl.Filter(ctx, framework.NewCycleState(), &v1.Pod{}, nodeInfo(t, h, "n"))
	if st.Code() != framework.Error || !errors.Is(st.Err(), framework.ErrNotFound) {
		t.Fatalf("Filter without PreFilter = %v %v, want Error wrapping ErrNotFound", st.Code(), st.Err())
	}
	want := `error reading "PreFilterInterPodAffinity" from cycleState: not found`
	if st.Message() != want {
		t.Errorf("message %q, want %q", st.Message(), want)
	}
	for _, f := range []func() *framework.Status{
		func() *framework.Status {
			return pl.AddPod(ctx, framework.NewCycleState(), nil, framework.NewPodInfo(&v1.Pod{}), nil)
		},
		func() *framework.Status {
			return pl.RemovePod(ctx, framework.NewCycleState(), nil, framework.NewPodInfo(&v1.Pod{}), nil)
		},
	} {
		if st := f(); st.Code() != framework.Error || st.Message() != want {
			t.Errorf("extension without PreFilter = %v %q", st.Code(), st.Message())
		}
	}
}

// Cases of upstream's TestPreFilterStateAddRemovePod: AddPod must give the
// state PreFilter would compute with the pod present, RemovePod must undo it.
func TestPreFilterStateAddRemovePod(t *testing.T) {
	label1 := map[string]string{"region": "r1", "zone": "z11"}
	label2 := map[string]string{"region": "r1", "zone": "z12"}
	label3 := map[string]string{"region": "r2", "zone": "z21"}
	fooBar := term("region", sel(in("foo", "bar")))
	complex1 := term("region", sel(in("foo", "bar", "buzz")))
	complex2 := term("zone", sel(notIn("service", "bar", "security", "test")))
	threeNodes := []*v1.Node{mkNode("nodeA", label1), mkNode("nodeB", label2), mkNode("nodeC", label3)}

	tests := []struct {
		name              string
		pending, added    *v1.Pod
		existing          []*v1.Pod
		nodes             []*v1.Node
		wantAnti, wantAff topologyToMatchedTermCount
	}{
		{
			name:    "anti-affinity counts",
			pending: mkPod("pending").label("foo", "bar").reqAnti(fooBar).obj(),
			existing: []*v1.Pod{
				mkPod("p1").label("foo", "bar").node("nodeA").obj(),
				mkPod("p2").node("nodeC").reqAnti(fooBar).obj(),
			},
			added:    mkPod("addedPod").label("foo", "bar").node("nodeB").reqAnti(fooBar).obj(),
			nodes:    threeNodes,
			wantAnti: topologyToMatchedTermCount{{"region", "r1"}: 2},
			wantAff:  topologyToMatchedTermCount{},
		},
		{
			name:    "anti-affinity counts, two terms",
			pending: mkPod("pending").label("foo", "bar").reqAnti(complex1).reqAnti(complex2).obj(),
			existing: []*v1.Pod{
				mkPod("p1").label("foo", "bar").node("nodeA").obj(),
				mkPod("p2").node("nodeC").reqAnti(fooBar).obj(),
			},
			added: mkPod("addedPod").label("foo", "bar").node("nodeA").reqAnti(complex1).reqAnti(complex2).obj(),
			nodes: threeNodes,
			wantAnti: topologyToMatchedTermCount{
				{"region", "r1"}: 2, {"zone", "z11"}: 2, {"zone", "z21"}: 1,
			},
			wantAff: topologyToMatchedTermCount{},
		},
		{
			name:    "affinity counts",
			pending: mkPod("pending").label("foo", "bar").reqAff(complex1).reqAff(complex2).obj(),
			existing: []*v1.Pod{
				mkPod("p1").label("foo", "bar").node("nodeA").obj(),
				mkPod("p2").node("nodeC").reqAnti(fooBar).reqAff(complex1).reqAff(complex2).obj(),
			},
			added:    mkPod("addedPod").label("foo", "bar").node("nodeA").reqAnti(complex1).reqAnti(complex2).obj(),
			nodes:    threeNodes,
			wantAnti: topologyToMatchedTermCount{},
			wantAff:  topologyToMatchedTermCount{{"region", "r1"}: 2, {"zone", "z11"}: 2},
		},
		{
			name:     "hostname and region anti-affinity terms of the added pod",
			pending:  mkPod("pending").label("foo", "bar").reqAnti(fooBar).obj(),
			existing: []*v1.Pod{mkPod("p1").label("foo", "bar").node("nodeA").obj()},
			added: mkPod("addedPod").label("foo", "bar").node("nodeA").
				reqAnti(fooBar).reqAnti(term(v1.LabelHostname, sel(in("foo", "bar")))).obj(),
			nodes: []*v1.Node{
				mkNode("nodeA", map[string]string{"region": "r1", "zone": "z11", v1.LabelHostname: "nodeA"}),
				mkNode("nodeB", map[string]string{"region": "r1", "zone": "z12", v1.LabelHostname: "nodeB"}),
			},
			wantAnti: topologyToMatchedTermCount{{"region", "r1"}: 2},
			wantAff:  topologyToMatchedTermCount{},
		},
	}
	prefilter := func(t *testing.T, pending *v1.Pod, pods []*v1.Pod, nodes []*v1.Node) (*InterPodAffinity, *framework.CycleState, *preFilterState) {
		t.Helper()
		pl, h := setup(t, pods, nodes)
		state := framework.NewCycleState()
		if _, st := pl.PreFilter(ctx, state, pending, h.Snap.List()); !st.IsSuccess() {
			t.Fatalf("PreFilter: %v", st)
		}
		s, err := getPreFilterState(state)
		if err != nil {
			t.Fatal(err)
		}
		return pl, state, s
	}
	sameCounts := func(a, b *preFilterState) bool {
		return maps.Equal(a.existingAntiAffinityCounts, b.existingAntiAffinityCounts) &&
			maps.Equal(a.affinityCounts, b.affinityCounts) &&
			maps.Equal(a.antiAffinityCounts, b.antiAffinityCounts)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := append(append([]*v1.Pod{}, tc.existing...), tc.added)
			_, _, allState := prefilter(t, tc.pending, all, tc.nodes)
			pl, state, s := prefilter(t, tc.pending, tc.existing, tc.nodes)
			original := s.Clone().(*preFilterState)

			node := tc.nodes[0]
			for _, n := range tc.nodes {
				if n.Name == tc.added.Spec.NodeName {
					node = n
				}
			}
			ni := framework.NewNodeInfo()
			ni.SetNode(node)
			if st := pl.AddPod(ctx, state, tc.pending, framework.NewPodInfo(tc.added), ni); !st.IsSuccess() {
				t.Fatalf("AddPod: %v", st)
			}
			if !maps.Equal(s.antiAffinityCounts, tc.wantAnti) {
				t.Errorf("anti-affinity counts %v, want %v", s.antiAffinityCounts, tc.wantAnti)
			}
			if !maps.Equal(s.affinityCounts, tc.wantAff) {
				t.Errorf("affinity counts %v, want %v", s.affinityCounts, tc.wantAff)
			}
			if !sameCounts(s, allState) {
				t.Errorf("after AddPod %+v, want PreFilter with the pod %+v", s, allState)
			}
			if st := pl.RemovePod(ctx, state, tc.pending, framework.NewPodInfo(tc.added), ni); !st.IsSuccess() {
				t.Fatalf("RemovePod: %v", st)
			}
			if !sameCounts(s, original) {
				t.Errorf("after RemovePod %+v, want %+v", s, original)
			}

			pl2, state2, s2 := prefilter(t, tc.pending, all, tc.nodes)
			if st := pl2.RemovePod(ctx, state2, tc.pending, framework.NewPodInfo(tc.added), ni); !st.IsSuccess() {
				t.Fatalf("RemovePod: %v", st)
			}
			if !sameCounts(s2, original) {
				t.Errorf("RemovePod from the full state %+v, want %+v", s2, original)
			}
		})
	}
}

// Upstream's TestRemovePodHostScopedAffinityCount: removing the only
// matching pod re-enables the self-affinity exception everywhere.
func TestRemovePodReenablesSelfAffinity(t *testing.T) {
	pending := mkPod("pending").label("foo", "bar").reqAff(term(v1.LabelHostname, sel(in("foo", "bar")))).obj()
	existing := mkPod("existing").node("nodeA").label("foo", "bar").obj()
	pl, h := setup(t, []*v1.Pod{existing}, hostNodes("nodeA", "nodeB"))
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, pending, h.Snap.List()); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	a, b := nodeInfo(t, h, "nodeA"), nodeInfo(t, h, "nodeB")
	if st := pl.Filter(ctx, state, pending, a); !st.IsSuccess() {
		t.Errorf("nodeA before removal: %v", st)
	}
	if st := pl.Filter(ctx, state, pending, b); !sameStatus(st, affFail) {
		t.Errorf("nodeB before removal: %v", st)
	}
	if st := pl.RemovePod(ctx, state, pending, framework.NewPodInfo(existing), a); !st.IsSuccess() {
		t.Fatal(st)
	}
	for _, ni := range []*framework.NodeInfo{a, b} {
		if st := pl.Filter(ctx, state, pending, ni); !st.IsSuccess() {
			t.Errorf("%s after removal: %v", ni.Name(), st)
		}
	}
}

// A nominated pod added through AddPod can satisfy affinity, another can
// bring anti-affinity against the pod; the original state is untouched.
func TestAddPodOnClonedState(t *testing.T) {
	nodes := []*v1.Node{mkNode("a", map[string]string{"zone": "z1"}), mkNode("b", map[string]string{"zone": "z2"})}
	pending := mkPod("p").label("app", "web").reqAff(term("zone", sel(in("app", "db")))).obj()
	pl, h := setup(t, []*v1.Pod{mkPod("db").label("app", "db").node("a").obj()}, nodes)
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, pending, h.Snap.List()); !st.IsSuccess() {
		t.Fatal(st)
	}
	b := nodeInfo(t, h, "b")
	if st := pl.Filter(ctx, state, pending, b); !sameStatus(st, affFail) {
		t.Fatalf("b before AddPod: %v", st)
	}
	clone := state.Clone()
	db2 := mkPod("db2").label("app", "db").obj()
	if st := pl.AddPod(ctx, clone, pending, framework.NewPodInfo(db2), b); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, clone, pending, b); !st.IsSuccess() {
		t.Errorf("b after adding a matching pod: %v", st)
	}
	guard := mkPod("guard").reqAnti(term("zone", sel(in("app", "web")))).obj()
	if st := pl.AddPod(ctx, clone, pending, framework.NewPodInfo(guard), b); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, clone, pending, b); !sameStatus(st, existFail) {
		t.Errorf("b after adding a repelling pod: %v", st)
	}
	if st := pl.Filter(ctx, state, pending, b); !sameStatus(st, affFail) {
		t.Errorf("original state changed by AddPod on the clone: %v", st)
	}
}

func TestPreFilterStateClone(t *testing.T) {
	src := &preFilterState{
		existingAntiAffinityCounts: topologyToMatchedTermCount{{"name", "node1"}: 1},
		affinityCounts:             topologyToMatchedTermCount{{"name", "nodeA"}: 1},
		antiAffinityCounts:         topologyToMatchedTermCount{{"name", "nodeN"}: 3},
	}
	c := src.Clone().(*preFilterState)
	c.existingAntiAffinityCounts[topologyPair{"name", "node2"}] = 1
	c.affinityCounts[topologyPair{"name", "nodeA"}] = 5
	delete(c.antiAffinityCounts, topologyPair{"name", "nodeN"})
	if len(src.existingAntiAffinityCounts) != 1 || src.affinityCounts[topologyPair{"name", "nodeA"}] != 1 || len(src.antiAffinityCounts) != 1 {
		t.Errorf("Clone shares maps with the source: %+v", src)
	}
	var nilState *preFilterState
	if nilState.Clone() != nil {
		t.Errorf("Clone of nil state is not nil")
	}
}

// Upstream's TestGetTPMapMatchingIncomingAffinityAntiAffinity.
func TestIncomingAffinityCounts(t *testing.T) {
	newPod := func(labels ...string) *v1.Pod {
		b := mkPod("normal").node("nodeA")
		for _, l := range labels {
			b.label(l, "")
		}
		return b.obj()
	}
	hn := v1.LabelHostname
	nodeA := []*v1.Node{mkNode("nodeA", map[string]string{hn: "nodeA"})}
	one := topologyToMatchedTermCount{{hn, "nodeA"}: 1}
	tests := []struct {
		name              string
		existing          []*v1.Pod
		pod               *v1.Pod
		wantAff, wantAnti topologyToMatchedTermCount
	}{
		{"nil test", nil, mkPod("aaa-normal").obj(), topologyToMatchedTermCount{}, topologyToMatchedTermCount{}},
		{"no terms", []*v1.Pod{newPod("aaa")}, mkPod("aaa-normal").obj(), topologyToMatchedTermCount{}, topologyToMatchedTermCount{}},
		{
			"no pod matches", []*v1.Pod{newPod("bbb")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAnti(term(hn, sel(exists("aaa")))).obj(),
			topologyToMatchedTermCount{}, topologyToMatchedTermCount{},
		},
		{
			"single term", []*v1.Pod{newPod("aaa")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAnti(term(hn, sel(exists("aaa")))).obj(),
			one, one,
		},
		{
			"two affinity terms count twice", []*v1.Pod{newPod("aaa", "bbb")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAff(term(hn, sel(exists("bbb")))).reqAnti(term(hn, sel(exists("aaa")))).obj(),
			topologyToMatchedTermCount{{hn, "nodeA"}: 2}, one,
		},
		{
			"affinity needs all terms, anti-affinity any", []*v1.Pod{newPod("aaa")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAff(term(hn, sel(exists("bbb")))).
				reqAnti(term(hn, sel(exists("aaa")))).reqAnti(term(hn, sel(exists("bbb")))).obj(),
			topologyToMatchedTermCount{}, one,
		},
		{
			"partial anti-affinity match case 1", []*v1.Pod{newPod("aaa", "bbb")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAff(term(hn, sel(exists("ccc")))).
				reqAnti(term(hn, sel(exists("aaa")))).reqAnti(term(hn, sel(exists("ccc")))).obj(),
			topologyToMatchedTermCount{}, one,
		},
		{
			"partial anti-affinity match case 2", []*v1.Pod{newPod("bbb")},
			mkPod("p").reqAff(term(hn, sel(exists("aaa")))).reqAff(term(hn, sel(exists("bbb")))).
				reqAnti(term(hn, sel(exists("aaa")))).reqAnti(term(hn, sel(exists("bbb")))).obj(),
			topologyToMatchedTermCount{}, one,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, h := setup(t, tc.existing, nodeA)
			pi := framework.NewPodInfo(tc.pod)
			s := &preFilterState{podInfo: pi, clusterWideAffinityTerms: pi.RequiredAffinityTerms, clusterWideAntiAffinityTerms: pi.RequiredAntiAffinityTerms}
			aff, anti := pl.memo.incomingAffinityCounts(s, h.Snap.List())
			if !maps.Equal(aff, tc.wantAff) || !maps.Equal(anti, tc.wantAnti) {
				t.Errorf("got %v / %v, want %v / %v", aff, anti, tc.wantAff, tc.wantAnti)
			}
		})
	}
}

// A NodeInfo without a node, or a nil one, must not panic: it has no
// labels, so no domain.
func TestNodeWithoutNodeObject(t *testing.T) {
	pod := mkPod("p").label("app", "x").reqAff(term("zone", sel(in("app", "y")))).obj()
	pl, h := setup(t, []*v1.Pod{mkPod("y").label("app", "y").node("n").obj()}, []*v1.Node{mkNode("n", map[string]string{"zone": "z"})})
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, pod, h.Snap.List()); !st.IsSuccess() {
		t.Fatal(st)
	}
	for _, ni := range []*framework.NodeInfo{framework.NewNodeInfo(), nil} {
		if st := pl.Filter(ctx, state, pod, ni); !sameStatus(st, affFail) {
			t.Errorf("Filter on a node-less NodeInfo: %v", st)
		}
		if st := pl.AddPod(ctx, state, pod, framework.NewPodInfo(mkPod("y2").label("app", "y").obj()), ni); !st.IsSuccess() {
			t.Errorf("AddPod on a node-less NodeInfo: %v", st)
		}
	}
}
