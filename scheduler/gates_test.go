package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// idlePreBind says in its preflight that it has nothing to do, and fails
// if its PreBind runs anyway.
type idlePreBind struct{}

func (idlePreBind) Name() string { return "IdlePreBind" }
func (idlePreBind) PreBindPreFlight(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return framework.NewStatus(framework.Skip)
}
func (idlePreBind) PreBind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return framework.AsStatus(errors.New("PreBind ran"))
}

// With NominatedNodeNameForExpectation the preflights run and a plugin
// that Skips there is not run at PreBind; without the gate upstream never
// asks the preflights, so every PreBind plugin runs.
func TestNominatedNodeNameForExpectationPreflights(t *testing.T) {
	reg := plugins.NewInTreeRegistry()
	reg["IdlePreBind"] = func(runtime.Object, framework.Handle) (framework.Plugin, error) { return idlePreBind{}, nil }
	name := v1.DefaultSchedulerName
	cfg := &configv1.KubeSchedulerConfiguration{Profiles: []configv1.KubeSchedulerProfile{{SchedulerName: &name,
		Plugins: &configv1.Plugins{PreBind: configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "IdlePreBind"}}}}}}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{v1.LabelHostname: "n"}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourcePods: resource.MustParse("10")}}}
	for _, on := range []bool{true, false} {
		gates := features.Default()
		gates.EnableNominatedNodeNameForExpectation = on
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "p"}, Spec: v1.PodSpec{SchedulerName: name}}
		s, err := New([]*v1.Node{node}, []*v1.Pod{pod}, nil, Options{Config: cfg, Registry: reg, Features: &gates})
		if err != nil {
			t.Fatal(err)
		}
		a := s.ScheduleOne(pod)
		if want := map[bool]record.Outcome{true: record.Scheduled, false: record.Error}[on]; a.Outcome != want {
			t.Errorf("NominatedNodeNameForExpectation=%v: %s (%s), want %s", on, a.Outcome, a.Message, want)
		}
	}
}

// A profile whose pods upstream would batch (PodTopologySpread disabled,
// so every plugin signs pods) is refused while OpportunisticBatching is
// on; with the gate off, with the default profile (whose system default
// spreading makes every pod unsignable), or with extenders, it builds.
func TestOpportunisticBatchingRefused(t *testing.T) {
	name := v1.DefaultSchedulerName
	noSpread := &configv1.KubeSchedulerConfiguration{Profiles: []configv1.KubeSchedulerProfile{{SchedulerName: &name,
		Plugins: &configv1.Plugins{MultiPoint: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "PodTopologySpread"}}}}}}}
	// With extenders upstream signs no pod, so nothing is batched.
	withExtender := noSpread.DeepCopy()
	withExtender.Extenders = []configv1.Extender{{URLPrefix: "http://127.0.0.1:1", FilterVerb: "filter", Weight: 1}}
	for _, tc := range []struct {
		cfg     *configv1.KubeSchedulerConfiguration
		on      bool
		wantErr bool
	}{{noSpread, true, true}, {noSpread, false, false}, {nil, true, false}, {withExtender, true, false}} {
		gates := features.Default()
		gates.EnableOpportunisticBatching = tc.on
		_, err := New(nil, nil, nil, Options{Config: tc.cfg, Registry: plugins.NewInTreeRegistry(), Features: &gates})
		if (err != nil) != tc.wantErr {
			t.Errorf("default profile %v, OpportunisticBatching=%v: err = %v", tc.cfg == nil, tc.on, err)
		}
		if err != nil && !strings.Contains(err.Error(), "OpportunisticBatching=true") {
			t.Errorf("error does not name the gate: %v", err)
		}
	}
}
