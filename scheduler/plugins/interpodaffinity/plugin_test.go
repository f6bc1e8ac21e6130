package interpodaffinity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func TestNew(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil)
	tests := []struct {
		name       string
		args       runtime.Object
		wantWeight int32
		wantIgnore bool
		wantErr    string
	}{
		{name: "nil args take the defaults", args: nil, wantWeight: 1},
		{name: "typed nil args take the defaults", args: (*configv1.InterPodAffinityArgs)(nil), wantWeight: 1},
		{name: "unset weight defaults to 1", args: &configv1.InterPodAffinityArgs{IgnorePreferredTermsOfExistingPods: true}, wantWeight: 1, wantIgnore: true},
		{name: "zero weight is valid", args: &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(0)}, wantWeight: 0},
		{name: "100 is valid", args: &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(100)}, wantWeight: 100},
		{
			name:    "101 is out of range",
			args:    &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(101)},
			wantErr: "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]",
		},
		{
			name:    "negative is out of range",
			args:    &configv1.InterPodAffinityArgs{HardPodAffinityWeight: i32(-1)},
			wantErr: "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]",
		},
		{
			name:    "wrong args type",
			args:    &configv1.NodeAffinityArgs{},
			wantErr: "want args to be of type InterPodAffinityArgs, got *v1.NodeAffinityArgs",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.args, h)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("New error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*InterPodAffinity)
			if pl.Name() != "InterPodAffinity" || pl.hardPodAffinityWeight != tc.wantWeight || pl.ignorePreferredTermsOfExistingPods != tc.wantIgnore {
				t.Errorf("got %s weight %d ignore %v", pl.Name(), pl.hardPodAffinityWeight, pl.ignorePreferredTermsOfExistingPods)
			}
		})
	}
	if _, err := New(nil, nil); err == nil {
		t.Errorf("New without a handle succeeded")
	}
}

func TestEventsToRegister(t *testing.T) {
	pl, _ := setup(t, nil, nil)
	got, err := pl.EventsToRegister(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete},
		{Resource: framework.TargetPod, ActionType: framework.UpdatePodLabel},
		{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Event != want[i] || got[i].QueueingHintFn == nil {
			t.Errorf("event %d: got %+v (hint set: %v), want %+v with a hint", i, got[i].Event, got[i].QueueingHintFn != nil, want[i])
		}
	}
}

// Cases of upstream's Test_isSchedulableAfterAssignedPodChange.
func TestIsSchedulableAfterAssignedPodChange(t *testing.T) {
	affSvc := func() *podBuilder {
		return mkPod("p").reqAff(term("region", sel(in("service", "securityscan", "value2"))))
	}
	antiSvc := func() *podBuilder {
		return mkPod("p").reqAnti(term("region", sel(in("service", "securityscan", "value2"))))
	}
	twoAff := mkPod("p").reqAff(term("hostname", sel(exists("aaa")))).reqAff(term("hostname", sel(exists("bbb")))).obj()
	twoAnti := mkPod("p").reqAnti(term("region", sel(in("service", "securityscan")))).
		reqAnti(term("region", sel(in("app", "web")))).obj()
	other := func() *podBuilder { return mkPod("other").node("fake-node") }

	tests := []struct {
		name           string
		pod            *v1.Pod
		oldPod, newPod *v1.Pod
		want           framework.QueueingHint
	}{
		{"add a pod matching the affinity", affSvc().obj(), nil, other().label("service", "securityscan").obj(), framework.Queue},
		{"add an unscheduled pod", affSvc().obj(), nil, mkPod("other").label("service", "securityscan").obj(), framework.QueueSkip},
		{"add a pod not matching the affinity", affSvc().obj(), nil, other().label("aaa", "a").obj(), framework.QueueSkip},
		{"update from non-match to match", affSvc().obj(), other().label("aaa", "a").obj(), other().label("service", "securityscan").obj(), framework.Queue},
		{"update matching before and after", affSvc().obj(), other().label("service", "value2").obj(), other().label("service", "securityscan").obj(), framework.QueueSkip},
		{"update an unscheduled pod", affSvc().obj(), mkPod("other").label("aaa", "a").obj(), mkPod("other").label("service", "securityscan").obj(), framework.QueueSkip},
		{"update from match to non-match", affSvc().obj(), other().label("service", "securityscan").obj(), other().label("aaa", "a").obj(), framework.QueueSkip},
		{"multiple terms: match to non-match", twoAff, other().label("aaa", "a").obj(), other().label("service", "securityscan").obj(), framework.QueueSkip},
		{"multiple terms: non-match to match", twoAff, other().label("aaa", "a").obj(), other().label("aaa", "").label("bbb", "").obj(), framework.Queue},
		{"anti-affinity: stops matching", antiSvc().obj(), other().label("service", "securityscan").obj(), other().label("service", "aaaa").obj(), framework.Queue},
		{"anti-affinity: starts matching", antiSvc().obj(), other().label("service", "bbb").obj(), other().label("service", "securityscan").obj(), framework.QueueSkip},
		{"delete a pod not matching the anti-affinity", antiSvc().obj(), other().label("aaa", "a").obj(), nil, framework.QueueSkip},
		{"delete a pod matching the anti-affinity", antiSvc().obj(), other().label("service", "securityscan").obj(), nil, framework.Queue},
		{
			"delete a pod whose anti-affinity matches the pending pod",
			mkPod("p").label("service", "securityscan").obj(),
			mkPod("d").node("fake-node").reqAnti(term("region", sel(in("service", "securityscan", "value2")))).obj(), nil, framework.Queue,
		},
		{
			"delete a pod whose anti-affinity does not match the pending pod",
			mkPod("p").label("service", "foo").obj(),
			mkPod("d").node("fake-node").reqAnti(term("region", sel(in("service", "securityscan", "value2")))).obj(), nil, framework.QueueSkip,
		},
		{
			"delete a pod matching neither way",
			antiSvc().label("service", "foo").obj(),
			mkPod("d").node("fake-node").label("service", "foo").reqAnti(term("region", sel(in("service", "securityscan", "value2")))).obj(), nil, framework.QueueSkip,
		},
		{"delete an unscheduled pod matching the anti-affinity", antiSvc().obj(), mkPod("u").label("service", "securityscan").obj(), nil, framework.QueueSkip},
		{"delete a nominated pod not matching the anti-affinity", antiSvc().obj(), mkPod("n").nominated("fake-node").label("aaa", "a").obj(), nil, framework.QueueSkip},
		{"delete a nominated pod matching the anti-affinity", antiSvc().obj(), mkPod("n").nominated("fake-node").label("service", "securityscan").obj(), nil, framework.Queue},
		{"two anti terms: matched one, now none", twoAnti, other().label("service", "securityscan").label("app", "bar").obj(), other().label("service", "foo").label("app", "bar").obj(), framework.Queue},
		{"two anti terms: still matches one", twoAnti, other().label("service", "securityscan").label("app", "bar").obj(), other().label("service", "foo").label("app", "web").obj(), framework.QueueSkip},
		{"two anti terms: delete a pod matching one", twoAnti, other().label("service", "securityscan").obj(), nil, framework.Queue},
		{
			"delete a pod with two anti terms, one matching the pending pod",
			mkPod("p").label("service", "securityscan").obj(),
			other().reqAnti(term("region", sel(in("service", "securityscan")))).reqAnti(term("region", sel(in("app", "web")))).obj(),
			nil, framework.Queue,
		},
	}
	pl, _ := setup(t, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var oldObj, newObj any
			if tc.oldPod != nil {
				oldObj = tc.oldPod
			}
			if tc.newPod != nil {
				newObj = tc.newPod
			}
			got, err := pl.isSchedulableAfterAssignedPodChange(tc.pod, oldObj, newObj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHintErrorsRequeue(t *testing.T) {
	pl, _ := setup(t, nil, nil)
	bad := mkPod("p").reqAff(term("zone", sel(in("k", "{{.bad-value.}}")))).obj()
	badAnti := mkPod("p").reqAnti(term("zone", sel(in("k", "{{.bad-value.}}")))).obj()
	assigned := mkPod("a").node("n").obj()
	node := mkNode("n", map[string]string{"zone": "z"})
	cases := []struct {
		name string
		fn   func() (framework.QueueingHint, error)
	}{
		{"pod hint: wrong type", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterAssignedPodChange(bad, nil, node)
		}},
		{"pod hint: unparsable affinity", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterAssignedPodChange(bad, nil, assigned)
		}},
		{"pod hint: unparsable anti-affinity", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterAssignedPodChange(badAnti, nil, assigned)
		}},
		{"pod hint: unparsable anti-affinity of the deleted pod", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterAssignedPodChange(mkPod("p").obj(), mkPod("d").node("n").reqAnti(term("zone", sel(in("k", "{{.bad-value.}}")))).obj(), nil)
		}},
		{"pod hint: no objects", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterAssignedPodChange(mkPod("p").obj(), nil, nil)
		}},
		{"node hint: wrong type", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterNodeChange(bad, nil, assigned)
		}},
		{"node hint: unparsable affinity", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterNodeChange(bad, nil, node)
		}},
		{"node hint: unparsable anti-affinity", func() (framework.QueueingHint, error) {
			return pl.isSchedulableAfterNodeChange(badAnti, nil, node)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.fn()
			if err == nil || got != framework.Queue {
				t.Errorf("got %v, %v; want Queue with an error", got, err)
			}
		})
	}
	// An unscheduled pod is skipped before the target's terms are parsed.
	if got, err := pl.isSchedulableAfterAssignedPodChange(bad, nil, mkPod("u").obj()); err != nil || got != framework.QueueSkip {
		t.Errorf("unscheduled pod with an unparsable target: %v, %v", got, err)
	}
}

func TestIsSchedulableAfterTargetPodUpdateLabel(t *testing.T) {
	pl, _ := setup(t, nil, nil)
	pod := mkPod("p").label("foo", "baz").obj()
	if got, err := pl.isSchedulableAfterTargetPodUpdateLabel(pod, pod.DeepCopy(), pod.DeepCopy()); err != nil || got != framework.Queue {
		t.Errorf("got %v, %v; want Queue", got, err)
	}
}

// Cases of upstream's Test_isSchedulableAfterNodeChange.
func TestIsSchedulableAfterNodeChange(t *testing.T) {
	aff := func(tk string) *v1.Pod {
		return mkPod("p").reqAff(term(tk, sel(in("service", "securityscan", "value2")))).obj()
	}
	anti := mkPod("p").reqAnti(term("zone", sel(in("another", "label")))).obj()
	node := func(l ...string) *v1.Node {
		m := map[string]string{}
		for i := 0; i+1 < len(l); i += 2 {
			m[l[i]] = l[i+1]
		}
		return mkNode("node-a", m)
	}
	tests := []struct {
		name             string
		pod              *v1.Pod
		oldNode, newNode *v1.Node
		want             framework.QueueingHint
	}{
		{"add a node with the affinity topology key", aff("zone"), nil, node("zone", "zone1"), framework.Queue},
		{"add a node without the affinity topology key", aff("region"), nil, node("zone", "zone1"), framework.QueueSkip},
		{"update a label other than the topology key", aff("zone"), node("aaa", "a"), node("aaa", "b"), framework.QueueSkip},
		{"add an unrelated label", aff("zone"), node("zone", "zone1"), node("zone", "zone1", "unrelated-label", "unrelated"), framework.QueueSkip},
		{"change the affinity topology value", aff("zone"), node("zone", "zone1"), node("zone", "zone2"), framework.Queue},
		{"gain the affinity topology key", aff("zone"), node("aaa", "a"), node("zone", "zone1"), framework.Queue},
		{"add a node with the anti-affinity topology key", anti, nil, node("zone", "zone1"), framework.Queue},
		{"add a node without the anti-affinity topology key", anti, nil, node(), framework.Queue},
		{"anti-affinity: unrelated label", anti, node("zone", "zone1"), node("zone", "zone1", "unrelated-label", "unrelated"), framework.QueueSkip},
		{"change the anti-affinity topology value", anti, node("zone", "zone1"), node("zone", "zone2"), framework.Queue},
		{"gain the anti-affinity topology key", anti, node("aaa", "a"), node("zone", "zone1"), framework.QueueSkip},
		{"lose the anti-affinity topology key", anti, node("zone", "zone1"), node("aaa", "a"), framework.Queue},
		{"lose the affinity topology key", aff("zone"), node("zone", "zone1"), node("aaa", "a"), framework.QueueSkip},
		{"pod without terms", mkPod("p").obj(), nil, node("zone", "zone1"), framework.QueueSkip},
	}
	pl, _ := setup(t, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var oldObj any
			if tc.oldNode != nil {
				oldObj = tc.oldNode
			}
			got, err := pl.isSchedulableAfterNodeChange(tc.pod, oldObj, tc.newNode)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
