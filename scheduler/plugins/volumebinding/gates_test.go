package volumebinding

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

// With VolumeAttributesClass on, a claim of class "gold" binds to the PV
// of class "gold"; off, a claim naming a class is an error.
func TestVolumeAttributesClassGate(t *testing.T) {
	node := makeNode("node-a")
	pvc := makePVC("pvc-a", waitSC.Name, request("1Gi"))
	pvc.Spec.VolumeAttributesClassName = ptrTo("gold")
	pv := hostPV("pv-a", waitSC.Name, "5Gi", "node-a")
	pv.Spec.VolumeAttributesClassName = ptrTo("gold")
	pod := makePod("pod-a", "pvc-a")
	for _, tc := range []struct {
		on   bool
		want string
	}{
		{true, statusString(nil)},
		{false, statusString(framework.AsStatus(errors.New("unsupported volumeAttributesClassName is set on claim default/pvc-a when the feature-gate VolumeAttributesClass is disabled")))},
	} {
		h := frameworktest.NewHandle([]*v1.Node{node}, nil, waitSC, pvc, pv)
		h.Gates.EnableVolumeAttributesClass = tc.on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*VolumeBinding)
		cs := framework.NewCycleState()
		if _, s := pl.PreFilter(context.Background(), cs, pod, nil); !s.IsSuccess() {
			t.Fatalf("PreFilter: %s", statusString(s))
		}
		if got := statusString(pl.Filter(context.Background(), cs, pod, nodeInfo(node))); got != tc.want {
			t.Errorf("VolumeAttributesClass=%v: Filter = %s, want %s", tc.on, got, tc.want)
		}
	}
}

// Without StorageCapacityScoring the plugin has no scorer: PreScore Skips
// even with static bindings, and a configured shape is refused.
func TestStorageCapacityScoringGate(t *testing.T) {
	nodes := capacityNodes()
	objs := []any{waitSC, makePVC("pvc-a", waitSC.Name, request("50Gi")), hostPV("pv-a", waitSC.Name, "100Gi", "node-a")}
	pod := makePod("pod-a", "pvc-a")
	for _, on := range []bool{true, false} {
		h := frameworktest.NewHandle(nodes, nil, objs...)
		h.Gates.EnableStorageCapacityScoring = on
		p, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*VolumeBinding)
		cs := framework.NewCycleState()
		if _, s := pl.PreFilter(context.Background(), cs, pod, nil); !s.IsSuccess() {
			t.Fatalf("PreFilter: %s", statusString(s))
		}
		if s := pl.Filter(context.Background(), cs, pod, nodeInfo(nodes[0])); !s.IsSuccess() {
			t.Fatalf("Filter: %s", statusString(s))
		}
		if got := pl.PreScore(context.Background(), cs, pod, nil).IsSkip(); got == on {
			t.Errorf("StorageCapacityScoring=%v: PreScore skipped = %v", on, got)
		}
		score, _ := pl.Score(context.Background(), cs, pod, nodeInfo(nodes[0]))
		if want := map[bool]int64{true: 50, false: 0}[on]; score != want {
			t.Errorf("StorageCapacityScoring=%v: Score = %d, want %d", on, score, want)
		}
	}
	h := frameworktest.NewHandle(nodes, nil)
	h.Gates.EnableStorageCapacityScoring = false
	_, err := New(&configv1.VolumeBindingArgs{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}}}, h)
	if err == nil || !strings.Contains(err.Error(), "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring") {
		t.Errorf("New with shape, gate off: err = %v", err)
	}
	if _, err := New(&configv1.VolumeBindingArgs{BindTimeoutSeconds: ptrTo[int64](-1)}, h); err == nil {
		t.Error("New with negative bindTimeoutSeconds, gate off: no error")
	}
}
