package nodevolumelimits

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

const (
	ebsDriver       = csimigration.AWSEBSDriverName
	gceDriver       = csimigration.GCEPDDriverName
	ebsInTree       = csimigration.AWSEBSInTreePluginName
	hostpathInTree  = "kubernetes.io/hostpath"
	testNodeName    = "node-for-max-pd-test-1"
	testClassName   = "csi-sc"
	noLimit         = "csinode-with-no-limit"
	withLimit       = "csinode"
	noDriversOnNode = "no-csi-driver"
)

func statusString(s *framework.Status) string {
	if s == nil {
		return "<nil>"
	}
	return s.Code().String() + ": " + s.Message()
}

func podWithVolumes(ns, name, uid string, vols ...v1.Volume) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}, Spec: v1.PodSpec{Volumes: vols}}
}

func claimVol(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
}

var podSeq int

// pvcPod is a pod (namespace "") using the named claims.
func pvcPod(claims ...string) *v1.Pod {
	podSeq++
	var vols []v1.Volume
	for _, c := range claims {
		vols = append(vols, claimVol(c))
	}
	return podWithVolumes("", fmt.Sprintf("pod-%d", podSeq), fmt.Sprintf("uid-%d", podSeq), vols...)
}

func ebsInline(id string) v1.Volume {
	return v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}}
}

func ephemeralVol(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}
}

// fixtures builds upstream's fake listers: per driver four PVs and claims
// "csi-<driver>-<i>" (in-tree EBS and hostpath drivers get in-tree PVs),
// the unbound claim csi-4, the class-less csi-5, csi-6 bound to a missing
// PV, a class provisioned by the first driver, vaCount attachments per
// driver on the test node, and a CSINode per limitSource.
func fixtures(limitSource string, limit int32, vaCount int, drivers ...string) []any {
	var objs []any
	for _, d := range drivers {
		for j := 0; j < 4; j++ {
			name := fmt.Sprintf("csi-%s-%d", d, j)
			pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
			switch d {
			case ebsInTree:
				pv.Spec.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: name}
			case hostpathInTree:
				pv.Spec.HostPath = &v1.HostPathVolumeSource{Path: "/tmp"}
			default:
				pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: d, VolumeHandle: name}
			}
			objs = append(objs, pv, &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeClaimSpec{VolumeName: name}})
		}
		for j := 0; j < vaCount; j++ {
			pvName := fmt.Sprintf("csi-%s-%d", d, j)
			objs = append(objs, &storagev1.VolumeAttachment{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("va-%s-%d", d, j)},
				Spec:       storagev1.VolumeAttachmentSpec{NodeName: testNodeName, Attacher: d, Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName}},
			})
		}
	}
	sc := testClassName
	objs = append(objs,
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "csi-4"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &sc}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "csi-5"}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "csi-6"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &sc, VolumeName: "missing-in-action"}},
	)
	if len(drivers) > 0 {
		objs = append(objs, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: testClassName}, Provisioner: drivers[0]})
	}
	if limitSource == "" {
		return objs
	}
	csiNode := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: testNodeName}}
	if limitSource != noDriversOnNode {
		for _, d := range drivers {
			nd := storagev1.CSINodeDriver{Name: d, NodeID: testNodeName}
			if limitSource == withLimit {
				nd.Allocatable = &storagev1.VolumeNodeResources{Count: ptrTo(limit)}
			}
			csiNode.Spec.Drivers = append(csiNode.Spec.Drivers, nd)
		}
	}
	return append(objs, csiNode)
}

func testNode(pods ...*v1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: testNodeName}})
	return ni
}

func ownedClaim(pod *v1.Pod, vol string, owned bool) *v1.PersistentVolumeClaim {
	sc := testClassName
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name + "-" + vol},
		Spec:       v1.PersistentVolumeClaimSpec{StorageClassName: &sc},
	}
	if owned {
		c.OwnerReferences = []metav1.OwnerReference{{Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptrTo(true)}}
	}
	return c
}

func TestCSILimits(t *testing.T) {
	running := pvcPod("csi-" + ebsDriver + "-3")
	pending := pvcPod("csi-4")
	pending2 := pvcPod("csi-4")
	missingPV := pvcPod("csi-6")
	noSC := pvcPod("csi-5")
	gceTwo := pvcPod("csi-"+gceDriver+"-1", "csi-"+gceDriver+"-2")
	inTreeOne := pvcPod("csi-" + ebsInTree + "-0")
	inTreeTwo := pvcPod("csi-"+ebsInTree+"-1", "csi-"+ebsInTree+"-2")
	ebsOne := pvcPod("csi-" + ebsDriver + "-0")
	ebsTwo := pvcPod("csi-"+ebsDriver+"-1", "csi-"+ebsDriver+"-2")
	nonMigratable := pvcPod("csi-" + hostpathInTree + "-0")
	inline := podWithVolumes("", "inline", "inline", ebsInline("aws-inline1"))
	inlineSameID := podWithVolumes("", "inline2", "inline2", ebsInline("csi-"+ebsDriver+"-1"))
	configAndSecret := []v1.Volume{{VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}, {VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{}}}}
	onlyConfig := podWithVolumes("", "cm", "cm", configAndSecret...)
	pvcWithConfig := podWithVolumes("", "cm2", "cm2", append(append([]v1.Volume{}, configAndSecret...), claimVol("csi-"+ebsDriver+"-0"))...)
	inlineWithConfig := podWithVolumes("", "cm3", "cm3", append(append([]v1.Volume{}, configAndSecret...), ebsInline("aws-inline1"))...)

	eph := podWithVolumes("test", "abc", "12345", ephemeralVol("xyz"))
	ephWithConfig := podWithVolumes("test", "abc", "12345", append(append([]v1.Volume{}, configAndSecret...), ephemeralVol("xyz"))...)
	ephTwo := podWithVolumes("test", "abc", "12345II", ephemeralVol("x"), ephemeralVol("y"))
	ephClaim, conflicting := ownedClaim(eph, "xyz", true), ownedClaim(eph, "xyz", false)
	ephClaimX, ephClaimY := ownedClaim(ephTwo, "x", true), ownedClaim(ephTwo, "y", true)

	exceeded := framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
	tests := []struct {
		name          string
		pod           *v1.Pod
		existing      []*v1.Pod
		extra         []any
		maxVols       int32
		vaCount       int
		drivers       []string
		limitSource   string
		wantPreFilter *framework.Status
		want          *framework.Status
	}{
		{name: "counts VolumeAttachments when no pods exist", pod: ebsOne, maxVols: 2, vaCount: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "VolumeAttachments within the limit", pod: ebsOne, maxVols: 2, vaCount: 1, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "fits when node volume limit >= new pods CSI volume", pod: ebsOne, existing: []*v1.Pod{running, ebsTwo}, maxVols: 4, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "doesn't when node volume limit <= pods CSI volume", pod: ebsOne, existing: []*v1.Pod{running, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "driver without limit", pod: ebsOne, existing: []*v1.Pod{running, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: noLimit},
		{name: "count pending PVCs", pod: ebsOne, existing: []*v1.Pod{pending, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "two pods sharing a pending PVC count once", pod: ebsOne, existing: []*v1.Pod{pending, pending2, ebsTwo}, maxVols: 4, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "count PVCs with invalid PV name but valid SC", pod: ebsOne, existing: []*v1.Pod{missingPV, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "don't count PVCs with missing SC", pod: ebsOne, existing: []*v1.Pod{running, noSC}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "count pvcs with the same type", pod: ebsOne, existing: []*v1.Pod{gceTwo, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver, gceDriver}, limitSource: withLimit, want: exceeded},
		{name: "don't count pvcs with different type", pod: gceTwo, existing: []*v1.Pod{ebsTwo, running}, maxVols: 2, drivers: []string{ebsDriver, gceDriver}, limitSource: withLimit},
		{name: "count in-tree volumes", pod: inTreeOne, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "nil csi node", pod: inline, existing: []*v1.Pod{inTreeTwo}, drivers: []string{ebsInTree, ebsDriver}},
		{name: "count unbound in-tree volumes", pod: pending, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "no limit reported for the in-tree driver", pod: inTreeOne, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: noLimit},
		{name: "don't count non-migratable in-tree volumes", pod: nonMigratable, existing: []*v1.Pod{ebsTwo}, maxVols: 2, drivers: []string{hostpathInTree, ebsDriver}, limitSource: withLimit},
		{name: "count in-tree inline volumes", pod: inline, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "in-tree and csi volumes (scheduling in-tree)", pod: inTreeOne, existing: []*v1.Pod{ebsTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "in-tree, inline and csi volumes", pod: inline, existing: []*v1.Pod{ebsTwo, inTreeOne}, maxVols: 3, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "inline volume with the same handle counts once", pod: inlineSameID, existing: []*v1.Pod{ebsTwo, inTreeOne}, maxVols: 3, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit},
		{name: "in-tree and csi volumes (scheduling csi)", pod: ebsOne, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "ephemeral volume missing", pod: eph, drivers: []string{ebsDriver}, limitSource: noLimit,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, `looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found`)},
		{name: "ephemeral volume not owned", pod: eph, extra: []any{conflicting}, drivers: []string{ebsDriver}, limitSource: noLimit,
			want: framework.NewStatus(framework.Error, "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")},
		{name: "ephemeral volume unbound", pod: eph, extra: []any{ephClaim}, drivers: []string{ebsDriver}, limitSource: noLimit},
		{name: "ephemeral over the limit", pod: eph, extra: []any{ephClaim}, existing: []*v1.Pod{running, ebsTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "existing ephemeral volumes count", pod: ebsOne, extra: []any{ephClaimX, ephClaimY}, existing: []*v1.Pod{running, ephTwo}, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "ephemeral plus persistent over the limit", pod: ebsOne, extra: []any{ephClaim}, existing: []*v1.Pod{running, eph, ebsTwo}, maxVols: 3, drivers: []string{ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "ephemeral plus persistent within the limit", pod: ebsOne, extra: []any{ephClaim}, existing: []*v1.Pod{running, eph, ebsTwo}, maxVols: 5, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "skip Filter for secrets and configmaps only", pod: onlyConfig, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit, wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "don't skip Filter when the pod has pvcs", pod: pvcWithConfig, maxVols: 2, drivers: []string{ebsDriver}, limitSource: withLimit},
		{name: "don't skip Filter for ephemeral volumes", pod: ephWithConfig, drivers: []string{ebsDriver}, limitSource: noLimit,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, `looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found`)},
		{name: "don't skip Filter for inline migratable volumes", pod: inlineWithConfig, existing: []*v1.Pod{inTreeTwo}, maxVols: 2, drivers: []string{ebsInTree, ebsDriver}, limitSource: withLimit, want: exceeded},
		{name: "invalid inline EBS id", pod: podWithVolumes("", "bad", "bad", ebsInline("aws://zone/not-a-volume")), drivers: []string{ebsDriver}, limitSource: withLimit, maxVols: 2,
			want: framework.NewStatus(framework.Error, "converting volume() from inline to csi: failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://zone/not-a-volume)")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(fixtures(tc.limitSource, tc.maxVols, tc.vaCount, tc.drivers...), tc.extra...)
			p, err := New(nil, frameworktest.NewHandle(nil, nil, objs...))
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*CSILimits)
			state := framework.NewCycleState()
			_, got := pl.PreFilter(context.Background(), state, tc.pod, nil)
			if statusString(got) != statusString(tc.wantPreFilter) {
				t.Fatalf("PreFilter = %s, want %s", statusString(got), statusString(tc.wantPreFilter))
			}
			if got.IsSkip() {
				return
			}
			// With PreFilter's state (the pod's volumes worked out once,
			// asked twice) and without it (worked out on the spot).
			for i, st := range []*framework.CycleState{state, state, framework.NewCycleState()} {
				got = pl.Filter(context.Background(), st, tc.pod, testNode(tc.existing...))
				if statusString(got) != statusString(tc.want) {
					t.Errorf("Filter #%d = %s, want %s", i, statusString(got), statusString(tc.want))
				}
			}
		})
	}
}

func TestVolumeLimitScaling(t *testing.T) {
	pod := pvcPod("csi-" + ebsDriver + "-0")
	driver := func(prevent *bool) *storagev1.CSIDriver {
		return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: ebsDriver}, Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: prevent}}
	}
	tests := []struct {
		name        string
		gate        bool
		limitSource string
		limit       int32
		csiDriver   *storagev1.CSIDriver
		want        *framework.Status
	}{
		{name: "driver object without opt-in", gate: true, limitSource: noDriversOnNode, csiDriver: driver(nil)},
		{name: "opt-in explicitly false", gate: true, limitSource: noDriversOnNode, csiDriver: driver(ptrTo(false))},
		{name: "not installed with opt-in", gate: true, limitSource: noDriversOnNode, csiDriver: driver(ptrTo(true)),
			want: framework.NewStatus(framework.Unschedulable, ebsDriver+" CSI driver is not installed on the node")},
		{name: "no CSINode with opt-in", gate: true, csiDriver: driver(ptrTo(true)),
			want: framework.NewStatus(framework.Unschedulable, ebsDriver+" CSI driver is not installed on the node")},
		{name: "gate off", gate: false, limitSource: noDriversOnNode, csiDriver: driver(ptrTo(true))},
		{name: "installed within the limit", gate: true, limitSource: withLimit, limit: 2, csiDriver: driver(ptrTo(true))},
		{name: "no CSIDriver object", gate: true, limitSource: noDriversOnNode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := fixtures(tc.limitSource, tc.limit, 0, ebsDriver)
			if tc.csiDriver != nil {
				objs = append(objs, tc.csiDriver)
			}
			h := frameworktest.NewHandle(nil, nil, objs...)
			h.Gates.EnableVolumeLimitScaling = tc.gate
			p, _ := New(nil, h)
			pl := p.(*CSILimits)
			if _, s := pl.PreFilter(context.Background(), nil, pod, nil); s.IsSkip() {
				t.Fatal("unexpected PreFilter Skip")
			}
			if got := pl.Filter(context.Background(), nil, pod, testNode()); statusString(got) != statusString(tc.want) {
				t.Errorf("Filter = %s, want %s", statusString(got), statusString(tc.want))
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestAttachedCacheFollowsChanges checks that Filter's per-node memory of
// the volumes attached there follows the node's pods and the claims: a
// claim moved to another driver's volume, a pod leaving the node and a
// CSIDriver added each change Filter's answer on the next call.
func TestAttachedCacheFollowsChanges(t *testing.T) {
	h := frameworktest.NewHandle(nil, nil, fixtures(withLimit, 2, 0, ebsDriver, gceDriver)...)
	h.Gates.EnableVolumeLimitScaling = true
	p, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*CSILimits)
	pod, existing := pvcPod("csi-"+ebsDriver+"-0"), pvcPod("csi-"+ebsDriver+"-1", "csi-"+ebsDriver+"-2")
	node := testNode(existing)
	filter := func(want *framework.Status) {
		t.Helper()
		if got := pl.Filter(context.Background(), nil, pod, node); statusString(got) != statusString(want) {
			t.Fatalf("Filter = %s, want %s", statusString(got), statusString(want))
		}
	}
	exceeded := framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
	filter(exceeded)
	filter(exceeded)

	// One of the existing pod's claims now names another driver's volume.
	h.Store.Add(&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "csi-" + ebsDriver + "-2"}, Spec: v1.PersistentVolumeClaimSpec{VolumeName: "csi-" + gceDriver + "-0"}})
	filter(nil)

	// Back on the node's driver, then the pod leaves the node.
	h.Store.Add(&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "csi-" + ebsDriver + "-2"}, Spec: v1.PersistentVolumeClaimSpec{VolumeName: "csi-" + ebsDriver + "-2"}})
	filter(exceeded)
	if err := node.RemovePod(existing); err != nil {
		t.Fatal(err)
	}
	filter(nil)

	// A CSIDriver that must be installed, on a node whose CSINode lacks it.
	h.Store.Add(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: testNodeName}})
	filter(nil)
	h.Store.Add(&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: ebsDriver}, Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: ptrTo(true)}})
	filter(framework.NewStatus(framework.Unschedulable, ebsDriver+" CSI driver is not installed on the node"))
}

// TestPodVolumesPerCSINodePresence: one cycle's Filter on a node without
// a CSINode object (an in-tree volume does not count there) and then on
// one with it (it counts, and the limit of 1 is reached) gives each its
// own answer, though the pod's volumes are worked out once per cycle.
func TestPodVolumesPerCSINodePresence(t *testing.T) {
	objs := fixtures(withLimit, 1, 0, ebsDriver)
	p, err := New(nil, frameworktest.NewHandle(nil, nil, objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*CSILimits)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "inline", UID: "inline"}, Spec: v1.PodSpec{Volumes: []v1.Volume{ebsInline("vol-new")}}}
	running := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "running", UID: "running"}, Spec: v1.PodSpec{Volumes: []v1.Volume{ebsInline("vol-old")}}}
	without := framework.NewNodeInfo(running)
	without.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "no-csinode"}})
	with := testNode(running)

	state := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), state, pod, nil); !st.IsSuccess() {
		t.Fatalf("PreFilter: %s", statusString(st))
	}
	for _, c := range []struct {
		ni   *framework.NodeInfo
		want string
	}{
		{without, "<nil>"},
		{with, "Unschedulable: " + ErrReasonMaxVolumeCountExceeded},
		{without, "<nil>"},
	} {
		if got := statusString(pl.Filter(context.Background(), state, pod, c.ni)); got != c.want {
			t.Errorf("Filter on %s = %s, want %s", c.ni.Name(), got, c.want)
		}
	}
}
