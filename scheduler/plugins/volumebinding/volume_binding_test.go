package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

type pluginCase struct {
	name          string
	pod           *v1.Pod
	nodes         []*v1.Node
	objs          []any
	args          *configv1.VolumeBindingArgs
	wantPreFilter *framework.Status
	// wantFilter and wantScores are per node; scores are checked only for
	// nodes that pass Filter (as the framework scores only those).
	wantFilter []*framework.Status
	wantScores []int64
}

func runPluginCase(t *testing.T, tc pluginCase) {
	t.Helper()
	objs := append([]any{immediateSC, waitSC, waitHDDSC, waitSCCap, driverWithCapacity}, tc.objs...)
	h := frameworktest.NewHandle(tc.nodes, nil, objs...)
	var args any
	if tc.args != nil {
		args = tc.args
	}
	p, err := newWithArgs(args, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	_, got := p.PreFilter(ctx, state, tc.pod, nil)
	if statusString(got) != statusString(tc.wantPreFilter) {
		t.Fatalf("PreFilter = %s, want %s", statusString(got), statusString(tc.wantPreFilter))
	}
	if !got.IsSuccess() && !got.IsSkip() {
		return
	}
	var feasible []*framework.NodeInfo
	for i, n := range tc.nodes {
		ni := nodeInfo(n)
		if got.IsSkip() {
			feasible = append(feasible, ni)
			continue
		}
		s := p.Filter(ctx, state, tc.pod, ni)
		if statusString(s) != statusString(tc.wantFilter[i]) {
			t.Errorf("Filter(%s) = %s, want %s", n.Name, statusString(s), statusString(tc.wantFilter[i]))
		}
		if s.IsSuccess() {
			feasible = append(feasible, ni)
		}
	}
	if s := p.PreScore(ctx, state, tc.pod, feasible); s != nil {
		t.Fatalf("PreScore = %s, want success (StorageCapacityScoring is on)", statusString(s))
	}
	for i, n := range tc.nodes {
		if !got.IsSkip() && !tc.wantFilter[i].IsSuccess() {
			continue
		}
		score, s := p.Score(ctx, state, tc.pod, nodeInfo(n))
		if !s.IsSuccess() {
			t.Errorf("Score(%s) status %s", n.Name, statusString(s))
		}
		want := int64(0)
		if tc.wantScores != nil {
			want = tc.wantScores[i]
		}
		if score != want {
			t.Errorf("Score(%s) = %d, want %d", n.Name, score, want)
		}
	}
}

func newWithArgs(args any, h framework.Handle) (*VolumeBinding, error) {
	var p framework.Plugin
	var err error
	if a, ok := args.(*configv1.VolumeBindingArgs); ok {
		p, err = New(a, h)
	} else {
		p, err = New(nil, h)
	}
	if err != nil {
		return nil, err
	}
	return p.(*VolumeBinding), nil
}

func uu(reasons ...string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
}

var (
	bindConflict = uu(string(ErrReasonBindConflict))
)

func hostPV(name, class, size, host string) *v1.PersistentVolume {
	return makePV(name, class, available, capacity(size), nodeAffinity(v1.LabelHostname, host))
}

func zonalPV(name, size, region, zone string) *v1.PersistentVolume {
	return makePV(name, waitSC.Name, available, capacity(size), nodeAffinity(v1.LabelTopologyRegion, region, v1.LabelTopologyZone, zone))
}

func zonalNodes() []*v1.Node {
	var out []*v1.Node
	for _, z := range []string{"a", "b", "c"} {
		for _, n := range []string{"a", "b"} {
			out = append(out, makeNode("zone-"+z+"-node-"+n, v1.LabelTopologyRegion, "region-"+z, v1.LabelTopologyZone, "zone-"+z))
		}
	}
	return out
}

func capacityNodes() []*v1.Node {
	return []*v1.Node{makeNode("node-a", nodeLabelKey, "node-a"), makeNode("node-b", nodeLabelKey, "node-b"), makeNode("node-c", nodeLabelKey, "node-c")}
}

func TestVolumeBinding(t *testing.T) {
	threeNodes := []*v1.Node{makeNode("node-a"), makeNode("node-b"), makeNode("node-c")}
	localPVs := []any{
		hostPV("pv-a-0", waitSC.Name, "200Gi", "node-a"), hostPV("pv-a-1", waitSC.Name, "200Gi", "node-a"),
		hostPV("pv-b-0", waitSC.Name, "100Gi", "node-b"), hostPV("pv-b-1", waitSC.Name, "100Gi", "node-b"),
	}
	zonalPVs := []any{
		zonalPV("pv-a-0", "200Gi", "region-a", "zone-a"), zonalPV("pv-a-1", "200Gi", "region-a", "zone-a"),
		zonalPV("pv-b-0", "100Gi", "region-b", "zone-b"), zonalPV("pv-b-1", "100Gi", "region-b", "zone-b"),
	}
	capacities := func(a, b, c string) []any {
		return []any{
			makeCapacity("node-a", waitSCCap.Name, "node-a", a, ""),
			makeCapacity("node-b", waitSCCap.Name, "node-b", b, ""),
			makeCapacity("node-c", waitSCCap.Name, "node-c", c, ""),
		}
	}
	dynamicPVC := makePVC("pvc-dynamic", waitSCCap.Name, request("10Gi"))
	tests := []pluginCase{
		{name: "pod has no pvcs", pod: makePod("pod-a"), nodes: []*v1.Node{makeNode("node-a")}, wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "all bound", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs:       []any{makePVC("pvc-a", waitSC.Name, boundTo("pv-a")), makePV("pv-a", waitSC.Name, available)},
			wantFilter: []*framework.Status{nil}},
		{name: "PVC does not exist", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			wantPreFilter: uu(`persistentvolumeclaim "pvc-a" not found`)},
		{name: "part of PVCs do not exist", pod: makePod("pod-a", "pvc-a", "pvc-b"), nodes: []*v1.Node{makeNode("node-a")},
			objs: []any{makePVC("pvc-a", waitSC.Name, boundTo("pv-a"))}, wantPreFilter: uu(`persistentvolumeclaim "pvc-b" not found`)},
		{name: "immediate claims not bound", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs: []any{makePVC("pvc-a", immediateSC.Name)}, wantPreFilter: uu("pod has unbound immediate PersistentVolumeClaims")},
		{name: "unbound claims no matches", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs: []any{makePVC("pvc-a", waitSC.Name)}, wantFilter: []*framework.Status{bindConflict}},
		{name: "bound and unbound unsatisfied", pod: makePod("pod-a", "pvc-a", "pvc-b"), nodes: []*v1.Node{makeNode("node-a", "foo", "barbar")},
			objs: []any{makePVC("pvc-a", waitSC.Name, boundTo("pv-a")), makePVC("pvc-b", waitSC.Name),
				makePV("pv-a", waitSC.Name, available, nodeAffinity("foo", "bar"))},
			wantFilter: []*framework.Status{uu(string(ErrReasonNodeConflict), string(ErrReasonBindConflict))}},
		{name: "pv not found", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs: []any{makePVC("pvc-a", waitSC.Name, boundTo("pv-a"))}, wantFilter: []*framework.Status{uu(ErrReasonPVNotExist)}},
		{name: "pv not found claim lost", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs:          []any{makePVC("pvc-a", waitSC.Name, boundTo("pv-a"), func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimLost })},
			wantPreFilter: uu(`persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"`)},
		{name: "local volumes with close capacity are preferred", pod: makePod("pod-a", "pvc-a"), nodes: threeNodes,
			objs:       append([]any{makePVC("pvc-a", waitSC.Name, request("50Gi"))}, localPVs...),
			wantFilter: []*framework.Status{nil, nil, bindConflict}, wantScores: []int64{75, 50, 0}},
		{name: "local volumes with close capacity are preferred (multiple pvcs)", pod: makePod("pod-a", "pvc-0", "pvc-1"), nodes: threeNodes,
			objs: append([]any{makePVC("pvc-0", waitSC.Name, request("50Gi")), makePVC("pvc-1", waitHDDSC.Name, request("100Gi")),
				hostPV("pv-a-2", waitHDDSC.Name, "200Gi", "node-a"), hostPV("pv-a-3", waitHDDSC.Name, "200Gi", "node-a"),
				hostPV("pv-b-2", waitHDDSC.Name, "100Gi", "node-b"), hostPV("pv-b-3", waitHDDSC.Name, "100Gi", "node-b")}, localPVs...),
			wantFilter: []*framework.Status{nil, nil, bindConflict}, wantScores: []int64{63, 25, 0}},
		{name: "zonal volumes with close capacity are preferred", pod: makePod("pod-a", "pvc-a"), nodes: zonalNodes(),
			objs:       append([]any{makePVC("pvc-a", waitSC.Name, request("50Gi"))}, zonalPVs...),
			wantFilter: []*framework.Status{nil, nil, nil, nil, bindConflict, bindConflict}, wantScores: []int64{75, 75, 50, 50, 0, 0}},
		{name: "zonal volumes with close capacity are preferred (custom shape)", pod: makePod("pod-a", "pvc-a"), nodes: zonalNodes(),
			objs: append([]any{makePVC("pvc-a", waitSC.Name, request("50Gi"))}, zonalPVs...),
			args: &configv1.VolumeBindingArgs{BindTimeoutSeconds: ptrTo[int64](300),
				Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 50, Score: 3}, {Utilization: 100, Score: 5}}},
			wantFilter: []*framework.Status{nil, nil, nil, nil, bindConflict, bindConflict}, wantScores: []int64{15, 15, 30, 30, 0, 0}},
		{name: "storage capacity score", pod: makePod("pod-a", "pvc-dynamic"), nodes: capacityNodes(),
			objs:       append([]any{dynamicPVC}, capacities("100Gi", "50Gi", "10Gi")...),
			wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{90, 80, 0}},
		{name: "storage capacity score with static binds", pod: makePod("pod-a", "pvc-dynamic", "pvc-static"), nodes: capacityNodes(),
			objs: append([]any{dynamicPVC, makePVC("pvc-static", waitSC.Name, request("50Gi")),
				hostPV("pv-static-a", waitSC.Name, "100Gi", "node-a"), hostPV("pv-static-b", waitSC.Name, "100Gi", "node-b"),
				hostPV("pv-static-c", waitSC.Name, "100Gi", "node-c")}, capacities("100Gi", "50Gi", "10Gi")...),
			wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{50, 50, 50}},
		{name: "dynamic provisioning with multiple PVCs of the same StorageClass", pod: makePod("pod-a", "pvc-dynamic-0", "pvc-dynamic-1"),
			nodes: []*v1.Node{makeNode("node-a", nodeLabelKey, "node-a")},
			objs: []any{makePVC("pvc-dynamic-0", waitSCCap.Name, request("50Gi")), makePVC("pvc-dynamic-1", waitSCCap.Name, request("50Gi")),
				makeCapacity("node-a", waitSCCap.Name, "node-a", "100Gi", "")},
			wantFilter: []*framework.Status{nil}, wantScores: []int64{0}},
		{name: "prefer node with least allocatable", pod: makePod("pod-a", "pvc-dynamic"), nodes: capacityNodes(),
			objs:       append([]any{dynamicPVC}, capacities("100Gi", "20Gi", "10Gi")...),
			args:       &configv1.VolumeBindingArgs{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}},
			wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{10, 50, 100}},
		{name: "prefer node with maximum allocatable", pod: makePod("pod-a", "pvc-dynamic"), nodes: capacityNodes(),
			objs:       append([]any{dynamicPVC}, capacities("100Gi", "20Gi", "10Gi")...),
			wantFilter: []*framework.Status{nil, nil, nil}, wantScores: []int64{90, 50, 0}},
		{name: "not enough free storage", pod: makePod("pod-a", "pvc-dynamic"), nodes: capacityNodes(),
			objs:       append([]any{dynamicPVC}, capacities("100Gi", "5Gi", "")...),
			wantFilter: []*framework.Status{nil, uu(ErrReasonNotEnoughSpace), uu(ErrReasonNotEnoughSpace)}, wantScores: []int64{90, 0, 0}},
		{name: "maximumVolumeSize is preferred to capacity", pod: makePod("pod-a", "pvc-dynamic"), nodes: capacityNodes()[:1],
			objs:       []any{dynamicPVC, makeCapacity("node-a", waitSCCap.Name, "node-a", "100Gi", "5Gi")},
			wantFilter: []*framework.Status{uu(ErrReasonNotEnoughSpace)}},
		{name: "claim provisioning for another node", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a"), makeNode("node-b")},
			objs: []any{makePVC("pvc-a", waitSCCap.Name, func(c *v1.PersistentVolumeClaim) {
				metav1.SetMetaDataAnnotation(&c.ObjectMeta, "volume.kubernetes.io/selected-node", "node-b")
			})},
			wantFilter: []*framework.Status{bindConflict, nil}},
		{name: "claim being deleted", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs:          []any{makePVC("pvc-a", waitSC.Name, func(c *v1.PersistentVolumeClaim) { c.DeletionTimestamp = &metav1.Time{} })},
			wantPreFilter: uu(`persistentvolumeclaim "pvc-a" is being deleted`)},
		{name: "ephemeral claim not created yet", pod: withEphemeral(makePod("pod-a"), "eph"), nodes: []*v1.Node{makeNode("node-a")},
			wantPreFilter: uu(`waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-eph"`)},
		{name: "ephemeral claim not owned by the pod", pod: withEphemeral(makePod("pod-a"), "eph"), nodes: []*v1.Node{makeNode("node-a")},
			objs:          []any{makePVC("pod-a-eph", waitSC.Name)},
			wantPreFilter: uu("PVC default/pod-a-eph was not created for pod default/pod-a (pod is not owner)")},
		{name: "class without binding mode", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs:          []any{&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "no-mode"}}, makePVC("pvc-a", "no-mode")},
			wantPreFilter: framework.NewStatus(framework.Error, `VolumeBindingMode not set for StorageClass "no-mode"`)},
		{name: "claim of a missing class binds immediately", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs: []any{makePVC("pvc-a", "missing")}, wantPreFilter: uu("pod has unbound immediate PersistentVolumeClaims")},
		{name: "claim pre-bound by name is immediate", pod: makePod("pod-a", "pvc-a"), nodes: []*v1.Node{makeNode("node-a")},
			objs:          []any{makePVC("pvc-a", waitSC.Name, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv-a" })},
			wantPreFilter: uu("pod has unbound immediate PersistentVolumeClaims")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runPluginCase(t, tc) })
	}
}

func TestNewArgs(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil)
	if _, err := New(&configv1.VolumeBindingArgs{BindTimeoutSeconds: ptrTo[int64](-1)}, h); err == nil ||
		err.Error() != "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value" {
		t.Errorf("negative timeout: %v", err)
	}
	bad := &configv1.VolumeBindingArgs{Shape: []configv1.UtilizationShapePoint{{Utilization: 50, Score: 11}, {Utilization: 10, Score: 1}}}
	if _, err := New(bad, h); err == nil {
		t.Error("an unsorted, out-of-range shape was accepted")
	}
	if _, err := New(&configv1.NodeResourcesFitArgs{}, h); err == nil {
		t.Error("wrong args type accepted")
	}
}
