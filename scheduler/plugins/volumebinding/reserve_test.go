package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

func TestPreBindPreFlight(t *testing.T) {
	tests := []struct {
		name  string
		state *stateData
		want  string
	}{
		{name: "all bound", state: &stateData{allBound: true}, want: "Skip: "},
		{name: "volume to be bound", state: &stateData{podVolumesByNode: map[string]*PodVolumes{"node-a": {}}}, want: "<nil>"},
		{name: "state is missing", want: "Error: not found"},
		{name: "node is not in podVolumesByNode", state: &stateData{podVolumesByNode: map[string]*PodVolumes{"node-b": {}}},
			want: `Error: no pod volume found for node "node-a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state := framework.NewCycleState()
			if tc.state != nil {
				state.Write(stateKey, tc.state)
			}
			got := (&VolumeBinding{}).PreBindPreFlight(context.Background(), state, &v1.Pod{}, "node-a")
			if statusString(got) != tc.want {
				t.Errorf("PreBindPreFlight = %s, want %s", statusString(got), tc.want)
			}
		})
	}
}

// cycle runs PreFilter, Filter on every node and Reserve on the first
// feasible one, as the framework would; it returns the state and node.
func cycle(t *testing.T, p *VolumeBinding, pod *v1.Pod, nodes []*v1.Node) (*framework.CycleState, string) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, s := p.PreFilter(ctx, state, pod, nil); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreFilter: %s", statusString(s))
	}
	chosen := ""
	for _, n := range nodes {
		if s := p.Filter(ctx, state, pod, nodeInfo(n)); s.IsSuccess() && chosen == "" {
			chosen = n.Name
		}
	}
	if chosen == "" {
		return state, ""
	}
	if s := p.Reserve(ctx, state, pod, chosen); !s.IsSuccess() {
		t.Fatalf("Reserve: %s", statusString(s))
	}
	return state, chosen
}

// TestReserveAndPreBind: a pod's static binding is assumed at Reserve (so
// the next pod cannot take the PV), recorded at PreBind, and applying the
// decision to the store makes it real.
func TestReserveAndPreBind(t *testing.T) {
	nodes := []*v1.Node{makeNode("node-a"), makeNode("node-b")}
	h := frameworktest.NewHandle(nodes, nil, waitSC, waitSCCap,
		makePVC("pvc-1", waitSC.Name, request("1Gi")), makePVC("pvc-2", waitSC.Name, request("1Gi")),
		makePVC("pvc-dyn", waitSCCap.Name, request("1Gi")),
		hostPV("pv-a", waitSC.Name, "5Gi", "node-a"))
	pl, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*VolumeBinding)
	ctx := context.Background()

	pod1 := makePod("pod-1", "pvc-1", "pvc-dyn")
	state1, node := cycle(t, p, pod1, nodes)
	if node != "node-a" {
		t.Fatalf("pod-1 fit on %q", node)
	}
	if s := p.PreBindPreFlight(ctx, state1, pod1, node); !s.IsSuccess() {
		t.Fatalf("PreBindPreFlight: %s", statusString(s))
	}

	// pod-2 wants the same kind of PV: the only one is assumed by pod-1.
	pod2 := makePod("pod-2", "pvc-2")
	if _, n := cycle(t, p, pod2, nodes); n != "" {
		t.Fatalf("pod-2 fit on %q while pv-a is assumed", n)
	}

	if DecisionFromState(state1) != nil {
		t.Error("decision before PreBind")
	}
	if s := p.PreBind(ctx, state1, pod1, node); !s.IsSuccess() {
		t.Fatalf("PreBind: %s", statusString(s))
	}
	d := DecisionFromState(state1)
	if d == nil || d.Node != "node-a" || len(d.Bindings) != 1 || len(d.Provisions) != 1 {
		t.Fatalf("decision = %+v", d)
	}
	b := d.Bindings[0]
	if b.Claim.Name != "pvc-1" || b.Volume.Name != "pv-a" || b.Volume.Spec.ClaimRef == nil || b.Volume.Spec.ClaimRef.Name != "pvc-1" ||
		b.Volume.Annotations[volume.AnnBoundByController] != "yes" {
		t.Errorf("binding = %+v / %+v", b.Claim.ObjectMeta, b.Volume)
	}
	if got := d.Provisions[0]; got.Name != "pvc-dyn" || got.Annotations[volume.AnnSelectedNode] != "node-a" {
		t.Errorf("provision = %+v", got.ObjectMeta)
	}
	// The store is untouched until the engine applies the decision.
	if stored, _ := h.Store.PersistentVolume("pv-a"); stored.Spec.ClaimRef != nil {
		t.Error("PreBind modified the stored PV")
	}

	pvs, pvcs := d.BoundObjects()
	if len(pvs) != 1 || len(pvcs) != 1 || pvs[0].Status.Phase != v1.VolumeBound || pvcs[0].Spec.VolumeName != "pv-a" ||
		pvcs[0].Status.Phase != v1.ClaimBound || pvcs[0].Annotations[volume.AnnBindCompleted] != "yes" {
		t.Fatalf("BoundObjects = %+v, %+v", pvs, pvcs)
	}
	for _, o := range []any{pvs[0], pvcs[0], d.Provisions[0]} {
		h.Store.Add(o)
	}
	// pod-1's claims now look bound (or provisioning) to any new cycle.
	state3, node3 := cycle(t, p, makePod("pod-3", "pvc-1"), nodes)
	if node3 != "node-a" {
		t.Errorf("a pod sharing the now-bound pvc-1 fit on %q", node3)
	}
	if s := p.PreBindPreFlight(ctx, state3, nil, node3); !s.IsSkip() {
		t.Errorf("PreBindPreFlight for bound claims = %s", statusString(s))
	}
	if _, n := cycle(t, p, makePod("pod-4", "pvc-dyn"), nodes); n != "node-a" {
		t.Errorf("a pod sharing pvc-dyn fit on %q, want its selected node", n)
	}
}

func TestUnreserve(t *testing.T) {
	nodes := []*v1.Node{makeNode("node-a")}
	h := frameworktest.NewHandle(nodes, nil, waitSC, makePVC("pvc-1", waitSC.Name, request("1Gi")),
		makePVC("pvc-2", waitSC.Name, request("1Gi")), hostPV("pv-a", waitSC.Name, "5Gi", "node-a"))
	pl, _ := New(nil, h)
	p := pl.(*VolumeBinding)
	pod1 := makePod("pod-1", "pvc-1")
	state, node := cycle(t, p, pod1, nodes)
	if node == "" {
		t.Fatal("pod-1 did not fit")
	}
	p.Unreserve(context.Background(), state, pod1, node)
	if _, n := cycle(t, p, makePod("pod-2", "pvc-2"), nodes); n != "node-a" {
		t.Error("pv-a still taken after Unreserve")
	}
	// Unreserve without state or on another node is a no-op.
	p.Unreserve(context.Background(), framework.NewCycleState(), pod1, node)
	p.Unreserve(context.Background(), state, pod1, "elsewhere")
}

func TestReserveWithoutClaims(t *testing.T) {
	nodes := []*v1.Node{makeNode("node-a")}
	pl, _ := New(nil, frameworktest.NewHandle(nodes, nil))
	p := pl.(*VolumeBinding)
	pod := makePod("pod")
	state, _ := cycle(t, p, pod, nil)
	if s := p.Reserve(context.Background(), state, pod, "node-a"); !s.IsSuccess() {
		t.Fatal(statusString(s))
	}
	if s := p.PreBindPreFlight(context.Background(), state, pod, "node-a"); !s.IsSkip() {
		t.Errorf("PreBindPreFlight = %s, want Skip", statusString(s))
	}
	if s := p.PreBind(context.Background(), state, pod, "node-a"); !s.IsSuccess() || DecisionFromState(state) != nil {
		t.Errorf("PreBind = %s, decision %v", statusString(s), DecisionFromState(state))
	}
	if s := p.Reserve(context.Background(), framework.NewCycleState(), pod, "node-a"); s.Code() != framework.Error {
		t.Errorf("Reserve without state = %s", statusString(s))
	}
}
