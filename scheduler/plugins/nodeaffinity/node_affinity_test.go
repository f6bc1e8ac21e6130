package nodeaffinity

import (
	"context"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func req(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func nameIn(values ...string) v1.NodeSelectorRequirement {
	return req(metav1.ObjectNameField, v1.NodeSelectorOpIn, values...)
}

// exprs and fields build one NodeSelectorTerm.
func term(exprs []v1.NodeSelectorRequirement, fields ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: exprs, MatchFields: fields}
}

func exprs(r ...v1.NodeSelectorRequirement) []v1.NodeSelectorRequirement { return r }

func requiredPod(terms ...v1.NodeSelectorTerm) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}}}
}

func selectorPod(sel map[string]string) *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{NodeSelector: sel}}
}

func addedRequired(terms ...v1.NodeSelectorTerm) *configv1.NodeAffinityArgs {
	return &configv1.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}
}

func mkNodeInfo(name string, labels map[string]string) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	return ni
}

type statusWant struct {
	code framework.Code
	msg  string
}

var (
	ok        = statusWant{}
	skip      = statusWant{framework.Skip, ""}
	podReject = statusWant{framework.UnschedulableAndUnresolvable, ErrReasonPod}
)

func checkStatus(t *testing.T, what string, got *framework.Status, want statusWant) {
	t.Helper()
	if got.Code() != want.code || got.Message() != want.msg {
		t.Errorf("%s: got (%v, %q), want (%v, %q)", what, got.Code(), got.Message(), want.code, want.msg)
	}
}

func TestPreFilterAndFilter(t *testing.T) {
	withSelector := func(p *v1.Pod, sel map[string]string) *v1.Pod { p.Spec.NodeSelector = sel; return p }
	tests := []struct {
		name          string
		pod           *v1.Pod
		labels        map[string]string
		nodeName      string
		args          *configv1.NodeAffinityArgs
		skipPreFilter bool
		wantPreFilter statusWant
		wantResult    *framework.PreFilterResult
		wantFilter    statusWant
	}{
		{name: "missing labels", pod: selectorPod(map[string]string{"foo": "bar"}), wantFilter: podReject},
		{name: "same labels", pod: selectorPod(map[string]string{"foo": "bar"}), labels: map[string]string{"foo": "bar"}},
		{name: "node labels are superset", pod: selectorPod(map[string]string{"foo": "bar"}), labels: map[string]string{"foo": "bar", "baz": "blah"}},
		{name: "node labels are subset", pod: selectorPod(map[string]string{"foo": "bar", "baz": "blah"}), labels: map[string]string{"foo": "bar"}, wantFilter: podReject},
		{name: "empty non-nil nodeSelector does not skip and matches", pod: selectorPod(map[string]string{})},
		{name: "In matches", pod: requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar", "value2")))), labels: map[string]string{"foo": "bar"}},
		{name: "Gt matches", pod: requiredPod(term(exprs(req("kernel-version", v1.NodeSelectorOpGt, "0204")))), labels: map[string]string{"kernel-version": "0206"}},
		{name: "NotIn matches", pod: requiredPod(term(exprs(req("mem-type", v1.NodeSelectorOpNotIn, "DDR", "DDR2")))), labels: map[string]string{"mem-type": "DDR3"}},
		{name: "Exists matches", pod: requiredPod(term(exprs(req("GPU", v1.NodeSelectorOpExists)))), labels: map[string]string{"GPU": "NVIDIA-GRID-K1"}},
		{name: "affinity not matching labels", pod: requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "value1", "value2")))), labels: map[string]string{"foo": "bar"}, wantFilter: podReject},
		{name: "empty MatchExpressions matches no node", pod: requiredPod(term(exprs())), labels: map[string]string{"foo": "bar"}, wantFilter: podReject},
		{name: "no terms at all matches no node", pod: requiredPod(), labels: map[string]string{"foo": "bar"}, wantFilter: podReject},
		{name: "no affinity: PreFilter skips", pod: &v1.Pod{}, labels: map[string]string{"foo": "bar"}, wantPreFilter: skip},
		{
			name:          "affinity with nil required selector: PreFilter skips",
			pod:           &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}}},
			labels:        map[string]string{"foo": "bar"},
			wantPreFilter: skip,
		},
		{
			name:   "multiple matchExpressions ANDed, matching",
			pod:    requiredPod(term(exprs(req("GPU", v1.NodeSelectorOpExists), req("GPU", v1.NodeSelectorOpNotIn, "AMD", "INTER")))),
			labels: map[string]string{"GPU": "NVIDIA-GRID-K1"},
		},
		{
			name:       "multiple matchExpressions ANDed, not matching",
			pod:        requiredPod(term(exprs(req("GPU", v1.NodeSelectorOpExists), req("GPU", v1.NodeSelectorOpIn, "AMD", "INTER")))),
			labels:     map[string]string{"GPU": "NVIDIA-GRID-K1"},
			wantFilter: podReject,
		},
		{
			name:   "multiple terms ORed",
			pod:    requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar", "value2"))), term(exprs(req("diffkey", v1.NodeSelectorOpIn, "wrong", "value2")))),
			labels: map[string]string{"foo": "bar"},
		},
		{
			name:   "affinity and nodeSelector both satisfied",
			pod:    withSelector(requiredPod(term(exprs(req("foo", v1.NodeSelectorOpExists)))), map[string]string{"foo": "bar"}),
			labels: map[string]string{"foo": "bar"},
		},
		{
			name:       "affinity matches but nodeSelector does not",
			pod:        withSelector(requiredPod(term(exprs(req("foo", v1.NodeSelectorOpExists)))), map[string]string{"foo": "bar"}),
			labels:     map[string]string{"foo": "barrrrrr"},
			wantFilter: podReject,
		},
		{
			name:       "invalid value in affinity term is ignored: matches nothing",
			pod:        requiredPod(term(exprs(req("foo", v1.NodeSelectorOpNotIn, "invalid value: ___@#$%^")))),
			labels:     map[string]string{"foo": "bar"},
			wantFilter: podReject,
		},
		{
			name:       "an invalid term does not stop a valid one from matching",
			pod:        requiredPod(term(exprs(req("foo", "BadOp", "x"))), term(exprs(req("foo", v1.NodeSelectorOpIn, "bar")))),
			labels:     map[string]string{"foo": "bar"},
			wantFilter: ok,
		},
		{
			name:       "matchFields In matching the node",
			pod:        requiredPod(term(nil, nameIn("node1"))),
			nodeName:   "node1",
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1")},
		},
		{
			name:       "matchFields In not matching the node",
			pod:        requiredPod(term(nil, nameIn("node1"))),
			nodeName:   "node2",
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1")},
			wantFilter: podReject,
		},
		{
			name:     "two terms: matchFields conflicting, matchExpressions matching",
			pod:      requiredPod(term(nil, nameIn("node1"), nameIn("node2")), term(exprs(req("foo", v1.NodeSelectorOpIn, "bar")))),
			nodeName: "node2",
			labels:   map[string]string{"foo": "bar"},
		},
		{
			name:       "one term: matchFields not matching, matchExpressions matching",
			pod:        requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar")), nameIn("node1"))),
			nodeName:   "node2",
			labels:     map[string]string{"foo": "bar"},
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1")},
			wantFilter: podReject,
		},
		{
			name:       "one term: both matchFields and matchExpressions match",
			pod:        requiredPod(term(exprs(req("foo", v1.NodeSelectorOpIn, "bar")), nameIn("node1"))),
			nodeName:   "node1",
			labels:     map[string]string{"foo": "bar"},
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1")},
		},
		{
			name:       "two terms: neither matches",
			pod:        requiredPod(term(nil, nameIn("node1")), term(exprs(req("foo", v1.NodeSelectorOpIn, "not-match-to-bar")))),
			nodeName:   "node2",
			labels:     map[string]string{"foo": "bar"},
			wantFilter: podReject,
		},
		{
			name:       "two terms of node name affinity: union",
			pod:        requiredPod(term(nil, nameIn("node1")), term(nil, nameIn("node2"))),
			nodeName:   "node2",
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1", "node2")},
		},
		{
			name:          "two conflicting matchField requirements",
			pod:           requiredPod(term(nil, nameIn("node1"), nameIn("node2"))),
			nodeName:      "node2",
			labels:        map[string]string{"foo": "bar"},
			wantPreFilter: statusWant{framework.UnschedulableAndUnresolvable, ErrReasonConflict},
			wantFilter:    podReject,
		},
		{
			name:          "matchFields In with no values: conflict",
			pod:           requiredPod(term(nil, nameIn())),
			nodeName:      "node1",
			wantPreFilter: statusWant{framework.UnschedulableAndUnresolvable, ErrReasonConflict},
			wantFilter:    podReject,
		},
		{
			name:       "matchFields In with two names: result has both, Filter's parse error matches nothing",
			pod:        requiredPod(term(nil, nameIn("node1", "node2"))),
			nodeName:   "node1",
			wantResult: &framework.PreFilterResult{NodeNames: sets.New("node1", "node2")},
			wantFilter: podReject,
		},
		{
			name:     "matchFields NotIn does not narrow",
			pod:      requiredPod(term(nil, req(metav1.ObjectNameField, v1.NodeSelectorOpNotIn, "node1"))),
			nodeName: "node2",
		},
		{
			name:     "matches added affinity and pod's node affinity",
			pod:      requiredPod(term(exprs(req("zone", v1.NodeSelectorOpIn, "foo")))),
			nodeName: "node2",
			labels:   map[string]string{"zone": "foo"},
			args:     addedRequired(term(nil, nameIn("node2"))),
		},
		{
			name:       "matches added affinity but not pod's node affinity",
			pod:        requiredPod(term(exprs(req("zone", v1.NodeSelectorOpIn, "bar")))),
			nodeName:   "node2",
			labels:     map[string]string{"zone": "foo"},
			args:       addedRequired(term(nil, nameIn("node2"))),
			wantFilter: podReject,
		},
		{
			name:       "doesn't match added affinity",
			pod:        &v1.Pod{},
			nodeName:   "node2",
			labels:     map[string]string{"zone": "foo"},
			args:       addedRequired(term(exprs(req("zone", v1.NodeSelectorOpIn, "bar")))),
			wantFilter: statusWant{framework.UnschedulableAndUnresolvable, ErrReasonEnforced},
		},
		{
			name:       "added affinity is checked before the pod's",
			pod:        selectorPod(map[string]string{"a": "b"}),
			nodeName:   "node2",
			args:       addedRequired(term(exprs(req("zone", v1.NodeSelectorOpIn, "bar")))),
			wantFilter: statusWant{framework.UnschedulableAndUnresolvable, ErrReasonEnforced},
		},
		{
			name:          "node selector matched even if PreFilter is not called",
			pod:           selectorPod(map[string]string{"foo": "bar"}),
			labels:        map[string]string{"foo": "bar", "baz": "blah"},
			skipPreFilter: true,
		},
		{
			name:          "node selector rejected even if PreFilter is not called",
			pod:           selectorPod(map[string]string{"foo": "bar"}),
			skipPreFilter: true,
			wantFilter:    podReject,
		},
		{
			name:          "node affinity matched even if PreFilter is not called",
			pod:           requiredPod(term(exprs(req("GPU", v1.NodeSelectorOpExists), req("GPU", v1.NodeSelectorOpNotIn, "AMD", "INTER")))),
			labels:        map[string]string{"GPU": "NVIDIA-GRID-K1"},
			skipPreFilter: true,
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
			if !tt.skipPreFilter {
				result, s := pl.PreFilter(ctx, cs, tt.pod, nil)
				checkStatus(t, "PreFilter", s, tt.wantPreFilter)
				if !reflect.DeepEqual(result, tt.wantResult) {
					t.Errorf("PreFilterResult = %+v, want %+v", result, tt.wantResult)
				}
			}
			checkStatus(t, "Filter", pl.Filter(ctx, cs, tt.pod, mkNodeInfo(tt.nodeName, tt.labels)), tt.wantFilter)
		})
	}
}

func TestNew(t *testing.T) {
	if _, err := New(&configv1.NodeResourcesFitArgs{}, nil); err == nil || !strings.Contains(err.Error(), "args are not of type NodeAffinityArgs") {
		t.Errorf("wrong args type: err = %v", err)
	}
	var typedNil *configv1.NodeAffinityArgs
	if _, err := New(typedNil, nil); err != nil {
		t.Errorf("typed nil args: %v", err)
	}
	_, err := New(addedRequired(term(exprs(req("foo", "BadOp", "x")))), nil)
	want := `addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "BadOp"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bad added affinity: err = %v, want prefix %q", err, want)
	}
	_, err = New(&configv1.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: term(exprs(req("invalid key", v1.NodeSelectorOpIn, "x")))}},
	}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].key") {
		t.Errorf("bad added preferred term: err = %v", err)
	}
}

func TestFilterWithoutNode(t *testing.T) {
	s := (&NodeAffinity{}).Filter(context.Background(), framework.NewCycleState(), &v1.Pod{}, framework.NewNodeInfo())
	if s.Code() != framework.Error {
		t.Errorf("got %v, want Error", s.Code())
	}
}
