package nodedeclaredfeatures

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndftesting "k8s.io/component-helpers/nodedeclaredfeatures/testing"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// Real feature names from the library's registry.
const (
	userNSHostNet  = "UserNamespacesHostNetworkSupport"
	restartAll     = "RestartAllContainersOnContainerExits"
	bindMountOpts  = "VolumeBindMountOptions"
	unknownFeature = "SomethingElse"
)

func hostNetworkUserNSPod() *v1.Pod {
	f := false
	return &v1.Pod{Spec: v1.PodSpec{HostNetwork: true, HostUsers: &f, Containers: []v1.Container{{Name: "c"}}}}
}

func restartAllPod() *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{
		Name:               "c",
		RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers}},
	}}}}
}

func bothPod() *v1.Pod {
	p := hostNetworkUserNSPod()
	p.Spec.Containers = restartAllPod().Spec.Containers
	return p
}

func nodeWith(features ...string) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	n := &v1.Node{}
	n.Name = "n"
	n.Status.DeclaredFeatures = features
	ni.SetNode(n)
	return ni
}

type want struct {
	code framework.Code
	msg  string
}

var reject = want{framework.UnschedulableAndUnresolvable, ErrReasonUnsatisfiedRequirements}

func TestPreFilterAndFilter(t *testing.T) {
	hostUsersTrue := hostNetworkUserNSPod()
	tr := true
	hostUsersTrue.Spec.HostUsers = &tr
	tests := []struct {
		name          string
		pod           *v1.Pod
		node          *framework.NodeInfo
		wantPreFilter want
		wantFilter    want
	}{
		{name: "pod with no requirements skips", pod: &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{}}}}, wantPreFilter: want{framework.Skip, ""}},
		{name: "host network with host users skips", pod: hostUsersTrue, wantPreFilter: want{framework.Skip, ""}},
		{name: "node declares the feature", pod: hostNetworkUserNSPod(), node: nodeWith(userNSHostNet)},
		{name: "node declares more features", pod: hostNetworkUserNSPod(), node: nodeWith(restartAll, userNSHostNet, bindMountOpts)},
		{name: "node declares nothing", pod: hostNetworkUserNSPod(), node: nodeWith(), wantFilter: reject},
		{name: "node declares another feature", pod: restartAllPod(), node: nodeWith(userNSHostNet), wantFilter: reject},
		{name: "pod needs two, node has one", pod: bothPod(), node: nodeWith(userNSHostNet), wantFilter: reject},
		{name: "pod needs two, node has both", pod: bothPod(), node: nodeWith(restartAll, userNSHostNet)},
		{name: "unknown node features are ignored", pod: restartAllPod(), node: nodeWith(restartAll, unknownFeature)},
		{
			// TryMap walks the list assuming it is sorted: an out-of-order
			// name is never reached, so the node looks like it lacks it.
			name: "unsorted node list drops features like upstream", pod: hostNetworkUserNSPod(),
			node: nodeWith(bindMountOpts, userNSHostNet), wantFilter: reject,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, err := New(nil, frameworktest.NewHandle(nil, nil))
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*NodeDeclaredFeatures)
			cs := framework.NewCycleState()
			r, s := pl.PreFilter(ctx, cs, tt.pod, nil)
			if r != nil || s.Code() != tt.wantPreFilter.code || s.Message() != tt.wantPreFilter.msg {
				t.Fatalf("PreFilter = (%v, %v), want (nil, %v)", r, s, tt.wantPreFilter)
			}
			if s.IsSkip() {
				return
			}
			got := pl.Filter(ctx, cs, tt.pod, tt.node)
			if got.Code() != tt.wantFilter.code || got.Message() != tt.wantFilter.msg {
				t.Errorf("Filter = (%v, %q), want %v", got.Code(), got.Message(), tt.wantFilter)
			}
		})
	}
}

func TestFilterWithoutPreFilter(t *testing.T) {
	p, _ := New(nil, frameworktest.NewHandle(nil, nil))
	s := p.(framework.FilterPlugin).Filter(context.Background(), framework.NewCycleState(), &v1.Pod{}, nodeWith())
	wantMsg := `error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found`
	if s.Code() != framework.Error || s.Message() != wantMsg {
		t.Errorf("got (%v, %q), want (Error, %q)", s.Code(), s.Message(), wantMsg)
	}
}

func mockFeature(t *testing.T, name string, infer bool, maxVersion string) *ndftesting.MockFeature {
	m := ndftesting.NewMockFeature(t)
	m.SetName(name)
	m.SetInferForScheduling(func(*ndf.PodInfo) bool { return infer })
	if maxVersion != "" {
		m.SetMaxVersion(version.MustParseSemantic(maxVersion))
	} else {
		m.SetMaxVersion(nil)
	}
	return m
}

func TestPreFilterWithMockFeatures(t *testing.T) {
	tests := []struct {
		name     string
		features []ndf.Feature
		version  string
		wantSkip bool
		wantReqs []string
	}{
		{name: "one required", features: []ndf.Feature{mockFeature(t, "F1", true, ""), mockFeature(t, "F2", false, "")}, version: "1.35.0", wantReqs: []string{"F1"}},
		{name: "two required below max version", features: []ndf.Feature{mockFeature(t, "F1", true, "1.38.0"), mockFeature(t, "F2", true, "1.38.0")}, version: "1.35.0", wantReqs: []string{"F1", "F2"}},
		{name: "none required", features: []ndf.Feature{mockFeature(t, "F1", false, ""), mockFeature(t, "F2", false, "")}, version: "1.35.0", wantSkip: true},
		{name: "not required above max version", features: []ndf.Feature{mockFeature(t, "F1", true, "1.33.0"), mockFeature(t, "F2", false, "")}, version: "1.34.0", wantSkip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw := ndf.New(tt.features)
			pl := &NodeDeclaredFeatures{features: fw, version: version.MustParseSemantic(tt.version), enabled: true}
			cs := framework.NewCycleState()
			_, s := pl.PreFilter(context.Background(), cs, &v1.Pod{}, nil)
			if tt.wantSkip {
				if !s.IsSkip() {
					t.Errorf("status = %v, want Skip", s)
				}
				if _, err := getPreFilterState(cs); err == nil {
					t.Errorf("state written on Skip")
				}
				return
			}
			if !s.IsSuccess() {
				t.Fatalf("status = %v, want success", s)
			}
			st, err := getPreFilterState(cs)
			if err != nil {
				t.Fatal(err)
			}
			if want := fw.MustMapSorted(tt.wantReqs); !st.reqs.Equal(want) {
				t.Errorf("reqs = %v, want %v", st.reqs, want)
			}
		})
	}
}

func TestPreFilterInferenceError(t *testing.T) {
	pl := &NodeDeclaredFeatures{features: ndf.New(nil), enabled: true}
	_, s := pl.PreFilter(context.Background(), framework.NewCycleState(), &v1.Pod{}, nil)
	if s.Code() != framework.Error || s.Message() != "target version cannot be nil" {
		t.Errorf("got (%v, %q)", s.Code(), s.Message())
	}
}

// With the gate off the plugin exists but does nothing: a pod needing a
// feature the node lacks is neither filtered nor given events.
func TestNodeDeclaredFeaturesGate(t *testing.T) {
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle(nil, nil)
		h.Gates.EnableNodeDeclaredFeatures = on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*NodeDeclaredFeatures)
		cs := framework.NewCycleState()
		_, pre := pl.PreFilter(context.Background(), cs, restartAllPod(), nil)
		if pre.IsSkip() == on {
			t.Errorf("gate %v: PreFilter = %v", on, pre)
		}
		if f := pl.Filter(context.Background(), cs, restartAllPod(), nodeWith()); f.IsSuccess() == on {
			t.Errorf("gate %v: Filter = %v", on, f)
		}
		events, _ := pl.EventsToRegister(context.Background())
		if (len(events) > 0) != on {
			t.Errorf("gate %v: %d events registered", on, len(events))
		}
	}
}
