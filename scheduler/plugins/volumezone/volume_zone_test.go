package volumezone

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func podWithClaims(claims ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod_1", Namespace: "default"}}
	for _, c := range claims {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: c, VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
	}
	return p
}

func pv(name string, labels map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func boundPVC(name, volume string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PersistentVolumeClaimSpec{VolumeName: volume}}
}

func node(labels map[string]string) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "host1", Labels: labels}})
	return ni
}

func statusString(s *framework.Status) string {
	if s == nil {
		return "<nil>"
	}
	return s.Code().String() + ": " + s.Message()
}

type zoneCase struct {
	name          string
	pod           *v1.Pod
	nodeLabels    map[string]string
	wantPreFilter *framework.Status
	wantFilter    *framework.Status
}

// runZoneCases runs PreFilter and then Filter whatever PreFilter said, as
// upstream's tables do: Filter falls back to computing the PVs itself.
func runZoneCases(t *testing.T, objs []any, cases []zoneCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(nil, frameworktest.NewHandle(nil, nil, objs...))
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*VolumeZone)
			state := framework.NewCycleState()
			_, got := pl.PreFilter(context.Background(), state, tc.pod, nil)
			if statusString(got) != statusString(tc.wantPreFilter) {
				t.Errorf("PreFilter = %s, want %s", statusString(got), statusString(tc.wantPreFilter))
			}
			got = pl.Filter(context.Background(), state, tc.pod, node(tc.nodeLabels))
			if statusString(got) != statusString(tc.wantFilter) {
				t.Errorf("Filter = %s, want %s", statusString(got), statusString(tc.wantFilter))
			}
		})
	}
}

var conflict = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)

func TestSingleZone(t *testing.T) {
	objs := []any{
		pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}),
		pv("Vol_2", map[string]string{v1.LabelFailureDomainBetaRegion: "us-west1", "uselessLabel": "none"}),
		pv("Vol_3", map[string]string{v1.LabelFailureDomainBetaRegion: "us-west1"}),
		pv("Vol_Stable_1", map[string]string{v1.LabelTopologyZone: "us-west1-a"}),
		pv("Vol_Stable_2", map[string]string{v1.LabelTopologyRegion: "us-west1", "uselessLabel": "none"}),
		pv("Vol_Stable_3", map[string]string{v1.LabelTopologyZone: "us-west1-a", v1.LabelTopologyRegion: "us-west1-a"}),
		pv("Vol_Bad_Label", map[string]string{v1.LabelTopologyZone: "us-west1-a____us-west1-b"}),
		boundPVC("PVC_1", "Vol_1"), boundPVC("PVC_2", "Vol_2"), boundPVC("PVC_3", "Vol_3"),
		boundPVC("PVC_4", "Vol_not_exist"), boundPVC("PVC_Stable_1", "Vol_Stable_1"),
		boundPVC("PVC_Stable_2", "Vol_Stable_2"), boundPVC("PVC_Stable_3", "Vol_Stable_3"),
		boundPVC("PVC_Bad_Label", "Vol_Bad_Label"),
	}
	useless := "uselessLabel"
	runZoneCases(t, objs, []zoneCase{
		{name: "pod without volume", pod: podWithClaims(), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"},
			wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "node without labels", pod: podWithClaims("PVC_1")},
		{name: "beta zone label matched", pod: podWithClaims("PVC_1"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", useless: "none"}},
		{name: "beta region label matched", pod: podWithClaims("PVC_2"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaRegion: "us-west1", useless: "none"}},
		{name: "beta region label doesn't match", pod: podWithClaims("PVC_2"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaRegion: "no_us-west1", useless: "none"}, wantFilter: conflict},
		{name: "beta zone label doesn't match", pod: podWithClaims("PVC_1"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "no_us-west1-a", useless: "none"}, wantFilter: conflict},
		{name: "zone label matched", pod: podWithClaims("PVC_Stable_1"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-a", useless: "none"}},
		{name: "region label matched", pod: podWithClaims("PVC_Stable_2"), nodeLabels: map[string]string{v1.LabelTopologyRegion: "us-west1", useless: "none"}},
		{name: "region label doesn't match", pod: podWithClaims("PVC_Stable_2"), nodeLabels: map[string]string{v1.LabelTopologyRegion: "no_us-west1", useless: "none"}, wantFilter: conflict},
		{name: "zone label doesn't match", pod: podWithClaims("PVC_Stable_1"), nodeLabels: map[string]string{v1.LabelTopologyZone: "no_us-west1-a", useless: "none"}, wantFilter: conflict},
		{name: "pv with zone and region, node with only zone", pod: podWithClaims("PVC_Stable_3"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-a"}, wantFilter: conflict},
		{name: "pv with zone, node with beta zone", pod: podWithClaims("PVC_Stable_1"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}, wantFilter: conflict},
		{name: "pv with beta label, node with ga label, matched", pod: podWithClaims("PVC_1"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-a"}},
		{name: "pv with beta label, node with ga label, don't match", pod: podWithClaims("PVC_1"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-b"}, wantFilter: conflict},
		{name: "pv missing", pod: podWithClaims("PVC_4"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-a"},
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolume "Vol_not_exist" not found`),
			wantFilter:    framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolume "Vol_not_exist" not found`)},
		{name: "pvc missing", pod: podWithClaims("PVC_nope"),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolumeclaim "PVC_nope" not found`),
			wantFilter:    framework.NewStatus(framework.UnschedulableAndUnresolvable, `persistentvolumeclaim "PVC_nope" not found`)},
		{name: "claim without name", pod: podWithClaims(""),
			wantPreFilter: framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name"),
			wantFilter:    framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")},
		{name: "unparsable zone label is ignored", pod: podWithClaims("PVC_Bad_Label"), nodeLabels: map[string]string{v1.LabelTopologyZone: "elsewhere"},
			wantPreFilter: framework.NewStatus(framework.Skip)},
	})
}

func TestMultiZone(t *testing.T) {
	objs := []any{
		pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}),
		pv("Vol_2", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b", "uselessLabel": "none"}),
		pv("Vol_3", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-c__us-west1-a"}),
		pv("Vol_Stable_1", map[string]string{v1.LabelTopologyZone: "us-west1-a"}),
		pv("Vol_Stable_2", map[string]string{v1.LabelTopologyZone: "us-west1-c__us-west1-a"}),
		pv("Vol_Spaced", map[string]string{v1.LabelTopologyZone: " us-west1-c __ us-west1-a "}),
		boundPVC("PVC_1", "Vol_1"), boundPVC("PVC_2", "Vol_2"), boundPVC("PVC_3", "Vol_3"),
		boundPVC("PVC_Stable_1", "Vol_Stable_1"), boundPVC("PVC_Stable_2", "Vol_Stable_2"), boundPVC("PVC_Spaced", "Vol_Spaced"),
	}
	runZoneCases(t, objs, []zoneCase{
		{name: "node without labels", pod: podWithClaims("PVC_3")},
		{name: "beta zone label matched", pod: podWithClaims("PVC_3"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", "uselessLabel": "none"}},
		{name: "beta zone label doesn't match", pod: podWithClaims("PVC_1"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b", "uselessLabel": "none"}, wantFilter: conflict},
		{name: "zone label matched", pod: podWithClaims("PVC_Stable_2"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-a", "uselessLabel": "none"}},
		{name: "zone label doesn't match", pod: podWithClaims("PVC_Stable_1"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-b", "uselessLabel": "none"}, wantFilter: conflict},
		{name: "zones are trimmed", pod: podWithClaims("PVC_Spaced"), nodeLabels: map[string]string{v1.LabelTopologyZone: "us-west1-c"}},
		{name: "every volume must match", pod: podWithClaims("PVC_3", "PVC_2"), nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}, wantFilter: conflict},
	})
}

func TestWithBinding(t *testing.T) {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	class0, classWait, classImmediate := "Class_0", "Class_Wait", "Class_Immediate"
	objs := []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: classImmediate}},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: classWait}, VolumeBindingMode: &wait},
		pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}),
		boundPVC("PVC_1", "Vol_1"),
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "PVC_NoSC", Namespace: "default"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &class0}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "PVC_EmptySC", Namespace: "default"}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "PVC_WaitSC", Namespace: "default"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &classWait}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "PVC_ImmediateSC", Namespace: "default"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &classImmediate}},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "PVC_BetaSC", Namespace: "default",
			Annotations: map[string]string{v1.BetaStorageClassAnnotation: classWait}}},
	}
	labels := map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", "uselessLabel": "none"}
	uu := func(msg string) *framework.Status {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
	}
	runZoneCases(t, objs, []zoneCase{
		{name: "label zone failure domain matched", pod: podWithClaims("PVC_1"), nodeLabels: labels},
		{name: "unbound volume empty storage class", pod: podWithClaims("PVC_EmptySC"), nodeLabels: labels,
			wantPreFilter: uu("PersistentVolumeClaim had no pv name and storageClass name"),
			wantFilter:    uu("PersistentVolumeClaim had no pv name and storageClass name")},
		{name: "unbound volume no storage class", pod: podWithClaims("PVC_NoSC"), nodeLabels: labels,
			wantPreFilter: uu(`storageclass.storage.k8s.io "Class_0" not found`),
			wantFilter:    uu(`storageclass.storage.k8s.io "Class_0" not found`)},
		{name: "unbound volume immediate binding mode", pod: podWithClaims("PVC_ImmediateSC"), nodeLabels: labels,
			wantPreFilter: uu(`VolumeBindingMode not set for StorageClass "Class_Immediate"`),
			wantFilter:    uu(`VolumeBindingMode not set for StorageClass "Class_Immediate"`)},
		{name: "unbound volume wait binding mode", pod: podWithClaims("PVC_WaitSC"), nodeLabels: labels,
			wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "unbound volume, class from beta annotation", pod: podWithClaims("PVC_BetaSC"), nodeLabels: labels,
			wantPreFilter: framework.NewStatus(framework.Skip)},
		{name: "wait claim skipped, bound one still checked", pod: podWithClaims("PVC_WaitSC", "PVC_1"),
			nodeLabels: map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b"}, wantFilter: conflict},
	})
}

func TestImmediateClassIsPVError(t *testing.T) {
	immediate := storagev1.VolumeBindingImmediate
	objs := []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "imm"}, VolumeBindingMode: &immediate},
		&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}, Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &[]string{"imm"}[0]}},
	}
	uu := framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolume had no name")
	runZoneCases(t, objs, []zoneCase{{name: "unbound immediate claim", pod: podWithClaims("c"), wantPreFilter: uu, wantFilter: uu}})
}
