package volumerestrictions

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func podWith(name string, vols ...v1.Volume) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
		Spec:       v1.PodSpec{Volumes: vols},
	}
}

func pvcVol(claim string) v1.Volume {
	return v1.Volume{Name: claim, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func onNode(p *v1.Pod, node string) *v1.Pod {
	p.Spec.NodeName = node
	return p
}

func statusString(s *framework.Status) string {
	if s == nil {
		return "<nil>"
	}
	return s.Code().String() + ": " + s.Message()
}

func newPlugin(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, objs ...any) *VolumeRestrictions {
	t.Helper()
	p, err := New(nil, frameworktest.NewHandle(nodes, pods, objs...))
	if err != nil {
		t.Fatal(err)
	}
	return p.(*VolumeRestrictions)
}

// diskCase is the shape of upstream's per-source disk conflict tables.
type diskCase struct {
	name          string
	pod           *v1.Pod
	existing      []*v1.Pod
	wantPreFilter *framework.Status
	wantFilter    *framework.Status
}

func runDiskCases(t *testing.T, cases []diskCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, nil, nil)
			state := framework.NewCycleState()
			_, got := p.PreFilter(context.Background(), state, tc.pod, nil)
			if statusString(got) != statusString(tc.wantPreFilter) {
				t.Fatalf("PreFilter = %s, want %s", statusString(got), statusString(tc.wantPreFilter))
			}
			if !got.IsSuccess() {
				return
			}
			got = p.Filter(context.Background(), state, tc.pod, framework.NewNodeInfo(tc.existing...))
			if statusString(got) != statusString(tc.wantFilter) {
				t.Errorf("Filter = %s, want %s", statusString(got), statusString(tc.wantFilter))
			}
		})
	}
}

func diskCases(a, b, aRO v1.Volume) []diskCase {
	conflict := framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)
	skip := framework.NewStatus(framework.Skip)
	return []diskCase{
		{name: "nothing", pod: podWith("p"), wantPreFilter: skip},
		{name: "one state", pod: podWith("p"), existing: []*v1.Pod{podWith("e", a)}, wantPreFilter: skip},
		{name: "same state", pod: podWith("p", a), existing: []*v1.Pod{podWith("e", a)}, wantFilter: conflict},
		{name: "different state", pod: podWith("p", b), existing: []*v1.Pod{podWith("e", a)}},
		{name: "read-only mount of a read-write disk", pod: podWith("p", aRO), existing: []*v1.Pod{podWith("e", a)}, wantFilter: conflict},
		{name: "volume without restriction", pod: podWith("p", v1.Volume{Name: "empty"}), wantPreFilter: skip},
	}
}

func TestGCEDiskConflicts(t *testing.T) {
	gce := func(pd string, ro bool) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: pd, ReadOnly: ro}}}
	}
	cases := diskCases(gce("foo", false), gce("bar", false), gce("foo", true))
	cases = append(cases, diskCase{name: "both read-only", pod: podWith("p", gce("foo", true)), existing: []*v1.Pod{podWith("e", gce("foo", true))}})
	runDiskCases(t, cases)
}

func TestAWSDiskConflicts(t *testing.T) {
	ebs := func(id string, ro bool) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id, ReadOnly: ro}}}
	}
	cases := diskCases(ebs("foo", false), ebs("bar", false), ebs("foo", true))
	// EBS conflicts even when both mounts are read-only.
	cases = append(cases, diskCase{name: "both read-only", pod: podWith("p", ebs("foo", true)), existing: []*v1.Pod{podWith("e", ebs("foo", true))},
		wantFilter: framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)})
	runDiskCases(t, cases)
}

func TestRBDDiskConflicts(t *testing.T) {
	rbd := func(mons []string, ro bool) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{RBD: &v1.RBDVolumeSource{CephMonitors: mons, RBDPool: "foo", RBDImage: "bar", FSType: "ext4", ReadOnly: ro}}}
	}
	cases := diskCases(rbd([]string{"a", "b"}, false), rbd([]string{"c", "d"}, false), rbd([]string{"b", "z"}, true))
	cases = append(cases, diskCase{name: "both read-only", pod: podWith("p", rbd([]string{"a"}, true)), existing: []*v1.Pod{podWith("e", rbd([]string{"a", "b"}, true))}})
	runDiskCases(t, cases)
}

func TestISCSIDiskConflicts(t *testing.T) {
	iscsi := func(iqn string, ro bool) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "127.0.0.1:3260", IQN: iqn, FSType: "ext4", ReadOnly: ro}}}
	}
	cases := diskCases(iscsi("iqn.2016-12.server:storage.target01", false), iscsi("iqn.2017-12.server:storage.target01", false), iscsi("iqn.2016-12.server:storage.target01", true))
	cases = append(cases, diskCase{name: "both read-only", pod: podWith("p", iscsi("iqn.a", true)), existing: []*v1.Pod{podWith("e", iscsi("iqn.a", true))}})
	runDiskCases(t, cases)
}

func claim(name string, mode v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{mode}},
	}
}

func TestAccessModeConflicts(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	withOne := onNode(podWith("pod-with-one-pvc", pvcVol("claim-with-rwop-1")), "node-1")
	withTwo := onNode(podWith("pod-with-two-pvcs", pvcVol("claim-with-rwop-1"), pvcVol("claim-with-rwop-2")), "node-1")
	oneConflict := podWith("pod-with-one-conflict", pvcVol("claim-with-rwop-1"))
	twoConflicts := podWith("pod-with-two-conflicts", pvcVol("claim-with-rwop-1"), pvcVol("claim-with-rwop-2"))
	rwx := onNode(podWith("pod-with-rwx", pvcVol("claim-with-rwx")), "node-1")
	rwop1, rwop2, rwxClaim := claim("claim-with-rwop-1", v1.ReadWriteOncePod), claim("claim-with-rwop-2", v1.ReadWriteOncePod), claim("claim-with-rwx", v1.ReadWriteMany)
	conflict := framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)

	tests := []struct {
		name          string
		pod           *v1.Pod
		existing      []*v1.Pod
		nodes         []*v1.Node
		pvcs          []any
		wantPreFilter *framework.Status
		wantFilter    *framework.Status
	}{
		{name: "nothing", pod: podWith("p"), wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "failed to get PVC", pod: withOne,
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolumeclaim "claim-with-rwop-1" not found`)},
		{name: "no access mode conflict", pod: withOne, existing: []*v1.Pod{rwx}, nodes: []*v1.Node{node},
			pvcs: []any{rwop1, rwxClaim}, wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "access mode conflict, unschedulable", pod: oneConflict, existing: []*v1.Pod{withOne, rwx}, nodes: []*v1.Node{node},
			pvcs: []any{rwop1, rwxClaim}, wantFilter: conflict},
		{name: "two conflicts, unschedulable", pod: twoConflicts, existing: []*v1.Pod{withTwo, rwx}, nodes: []*v1.Node{node},
			pvcs: []any{rwop1, rwop2, rwxClaim}, wantFilter: conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, tc.nodes, tc.existing, tc.pvcs...)
			state := framework.NewCycleState()
			_, got := p.PreFilter(context.Background(), state, tc.pod, nil)
			if statusString(got) != statusString(tc.wantPreFilter) {
				t.Fatalf("PreFilter = %s, want %s", statusString(got), statusString(tc.wantPreFilter))
			}
			if !got.IsSuccess() {
				return
			}
			got = p.Filter(context.Background(), state, tc.pod, framework.NewNodeInfo(tc.existing...))
			if statusString(got) != statusString(tc.wantFilter) {
				t.Errorf("Filter = %s, want %s", statusString(got), statusString(tc.wantFilter))
			}
		})
	}
}

// TestPreFilterExtensions: removing the pod holding the claim (as
// preemption does) clears the conflict; adding it back restores it.
func TestPreFilterExtensions(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	holder := onNode(podWith("holder", pvcVol("rwop")), "node-1")
	other := onNode(podWith("other", pvcVol("rwx")), "node-1")
	pod := podWith("p", pvcVol("rwop"))
	p := newPlugin(t, []*v1.Node{node}, []*v1.Pod{holder, other}, claim("rwop", v1.ReadWriteOncePod), claim("rwx", v1.ReadWriteMany))
	state := framework.NewCycleState()
	if _, s := p.PreFilter(context.Background(), state, pod, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	ni := framework.NewNodeInfo(holder, other)
	ctx := context.Background()
	if s := p.Filter(ctx, state, pod, ni); s.Code() != framework.Unschedulable {
		t.Fatalf("Filter before removal = %v", statusString(s))
	}
	clone := state.Clone()
	if s := p.RemovePod(ctx, clone, pod, framework.NewPodInfo(other), ni); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := p.Filter(ctx, clone, pod, ni); s.Code() != framework.Unschedulable {
		t.Errorf("removing an unrelated pod cleared the conflict: %v", statusString(s))
	}
	if s := p.RemovePod(ctx, clone, pod, framework.NewPodInfo(holder), ni); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := p.Filter(ctx, clone, pod, ni); !s.IsSuccess() {
		t.Errorf("Filter after removing the holder = %v", statusString(s))
	}
	if s := p.Filter(ctx, state, pod, ni); s.Code() != framework.Unschedulable {
		t.Errorf("the clone's change leaked into the original state")
	}
	if s := p.AddPod(ctx, clone, pod, framework.NewPodInfo(holder), ni); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := p.Filter(ctx, clone, pod, ni); s.Code() != framework.Unschedulable {
		t.Errorf("Filter after adding the holder back = %v", statusString(s))
	}
	if s := p.AddPod(ctx, framework.NewCycleState(), pod, framework.NewPodInfo(holder), ni); s.Code() != framework.Error ||
		s.Message() != `cannot read "PreFilterVolumeRestrictions" from cycleState` {
		t.Errorf("AddPod without PreFilter = %v", statusString(s))
	}
}
