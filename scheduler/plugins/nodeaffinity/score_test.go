package nodeaffinity

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func preferred(weight int32, r ...v1.NodeSelectorRequirement) v1.PreferredSchedulingTerm {
	return v1.PreferredSchedulingTerm{Weight: weight, Preference: v1.NodeSelectorTerm{MatchExpressions: r}}
}

func preferredPod(terms ...v1.PreferredSchedulingTerm) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: terms,
	}}}}
}

func TestScore(t *testing.T) {
	label1 := map[string]string{"foo": "bar"}
	label2 := map[string]string{"key": "value"}
	label3 := map[string]string{"az": "az1"}
	label4 := map[string]string{"abc": "az11", "def": "az22"}
	label5 := map[string]string{"foo": "bar", "key": "value", "az": "az1"}
	fooBar := req("foo", v1.NodeSelectorOpIn, "bar")
	keyValue := req("key", v1.NodeSelectorOpIn, "value")
	azAz1 := req("az", v1.NodeSelectorOpIn, "az1")
	affinity1 := []v1.PreferredSchedulingTerm{preferred(2, fooBar)}
	affinity2 := []v1.PreferredSchedulingTerm{preferred(2, fooBar), preferred(4, keyValue), preferred(5, fooBar, keyValue, azAz1)}
	type node struct {
		name   string
		labels map[string]string
	}
	tests := []struct {
		name          string
		pod           *v1.Pod
		nodes         []node
		args          *configv1.NodeAffinityArgs
		skipPreScore  bool
		wantPreScore  statusWant
		wantRaw       []int64
		wantPreScored framework.NodeScoreList
	}{
		{
			name:          "all nodes same priority as NodeAffinity is nil (PreScore not run)",
			pod:           &v1.Pod{},
			nodes:         []node{{"node1", label1}, {"node2", label2}, {"node3", label3}},
			skipPreScore:  true,
			wantRaw:       []int64{0, 0, 0},
			wantPreScored: framework.NodeScoreList{{Name: "node1"}, {Name: "node2"}, {Name: "node3"}},
		},
		{
			name:         "Skip in PreScore when NodeAffinity is nil",
			pod:          &v1.Pod{},
			nodes:        []node{{"node1", label1}},
			wantPreScore: skip,
		},
		{
			name:         "PreScore error on a broken preferred term",
			pod:          preferredPod(preferred(2, req("invalid key", v1.NodeSelectorOpIn, "bar"))),
			nodes:        []node{{"node1", label1}},
			wantPreScore: statusWant{framework.Error, `[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		},
		{
			name:          "no node matches preferred terms: all zero",
			pod:           preferredPod(affinity1...),
			nodes:         []node{{"node1", label4}, {"node2", label2}, {"node3", label3}},
			wantRaw:       []int64{0, 0, 0},
			wantPreScored: framework.NodeScoreList{{Name: "node1"}, {Name: "node2"}, {Name: "node3"}},
		},
		{
			name:          "only node1 matches",
			pod:           preferredPod(affinity1...),
			nodes:         []node{{"node1", label1}, {"node2", label2}, {"node3", label3}},
			wantRaw:       []int64{2, 0, 0},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 100}, {Name: "node2"}, {Name: "node3"}},
		},
		{
			name:          "all nodes match with different priorities",
			pod:           preferredPod(affinity2...),
			nodes:         []node{{"node1", label1}, {"node5", label5}, {"node2", label2}},
			wantRaw:       []int64{2, 11, 4},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 18}, {Name: "node5", Score: 100}, {Name: "node2", Score: 36}},
		},
		{
			name:          "added affinity",
			pod:           &v1.Pod{},
			nodes:         []node{{"node1", label1}, {"node2", label2}},
			args:          &configv1.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: affinity1}},
			wantRaw:       []int64{2, 0},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 100}, {Name: "node2"}},
		},
		{
			name:          "added affinity and pod affinity add up",
			pod:           preferredPod(affinity1...),
			nodes:         []node{{"node1", label1}, {"node2", label2}, {"node3", label5}},
			args:          &configv1.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{preferred(3, keyValue)}}},
			wantRaw:       []int64{2, 3, 5},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 40}, {Name: "node2", Score: 60}, {Name: "node3", Score: 100}},
		},
		{
			name:          "scores correct even if PreScore is not called",
			pod:           preferredPod(affinity2...),
			nodes:         []node{{"node1", label1}, {"node5", label5}, {"node2", label2}},
			skipPreScore:  true,
			wantRaw:       []int64{2, 11, 4},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 18}, {Name: "node5", Score: 100}, {Name: "node2", Score: 36}},
		},
		{
			name:          "empty non-nil preferred list: no Skip, all zero",
			pod:           preferredPod([]v1.PreferredSchedulingTerm{}...),
			nodes:         []node{{"node1", label1}},
			wantRaw:       []int64{0},
			wantPreScored: framework.NodeScoreList{{Name: "node1"}},
		},
		{
			name:          "weight-0 and empty terms are ignored",
			pod:           preferredPod(preferred(0, fooBar), preferred(7), preferred(1, fooBar)),
			nodes:         []node{{"node1", label1}, {"node2", label2}},
			wantRaw:       []int64{1, 0},
			wantPreScored: framework.NodeScoreList{{Name: "node1", Score: 100}, {Name: "node2"}},
		},
		{
			name: "matchFields in a preferred term",
			pod: preferredPod(v1.PreferredSchedulingTerm{Weight: 3, Preference: v1.NodeSelectorTerm{
				MatchFields: []v1.NodeSelectorRequirement{nameIn("node2")},
			}}),
			nodes:         []node{{"node1", nil}, {"node2", nil}},
			wantRaw:       []int64{0, 3},
			wantPreScored: framework.NodeScoreList{{Name: "node1"}, {Name: "node2", Score: 100}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			var args any
			if tt.args != nil {
				args = tt.args
			}
			p, err := New(asObject(args), nil)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			pl := p.(*NodeAffinity)
			cs := framework.NewCycleState()
			if !tt.skipPreScore {
				s := pl.PreScore(ctx, cs, tt.pod, nil)
				checkStatus(t, "PreScore", s, tt.wantPreScore)
				if !s.IsSuccess() {
					return
				}
			}
			var got framework.NodeScoreList
			var raw []int64
			for _, n := range tt.nodes {
				ni := framework.NewNodeInfo()
				ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: n.labels}})
				score, s := pl.Score(ctx, cs, tt.pod, ni)
				if !s.IsSuccess() {
					t.Fatalf("Score: %v", s)
				}
				raw = append(raw, score)
				got = append(got, framework.NodeScore{Name: n.name, Score: score})
			}
			if !reflect.DeepEqual(raw, tt.wantRaw) {
				t.Errorf("raw = %v, want %v", raw, tt.wantRaw)
			}
			if s := pl.ScoreExtensions().NormalizeScore(ctx, cs, tt.pod, got); !s.IsSuccess() {
				t.Fatalf("NormalizeScore: %v", s)
			}
			if !reflect.DeepEqual(got, tt.wantPreScored) {
				t.Errorf("normalized = %v, want %v", got, tt.wantPreScored)
			}
		})
	}
}
