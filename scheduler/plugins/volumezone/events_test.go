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

func TestEventsToRegister(t *testing.T) {
	events, _ := (&VolumeZone{}).EventsToRegister(context.Background())
	want := []framework.ClusterEvent{
		{Resource: framework.StorageClass, ActionType: framework.Add},
		{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel},
		{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update},
		{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events", len(events))
	}
	for i := range want {
		if events[i].Event != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, events[i].Event, want[i])
		}
	}
}

func TestIsSchedulableAfterPersistentVolumeClaimChange(t *testing.T) {
	claim := func(ns, name, vol string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: v1.PersistentVolumeClaimSpec{VolumeName: vol}}
	}
	frameworktest.RunHints(t, (&VolumeZone{}).isSchedulableAfterPersistentVolumeClaimChange, nil, []frameworktest.HintCase{
		{Name: "wrong new object", Pod: podWithClaims("PVC_1"), NewObj: "not-a-pvc", Want: framework.Queue, WantErr: true},
		{Name: "pod refers no pvc", Pod: podWithClaims(), NewObj: claim("default", "PVC_1", "Vol_1"), Want: framework.QueueSkip},
		{Name: "pod uses a different pvc", Pod: podWithClaims("PVC_2"), NewObj: claim("default", "PVC_1", "Vol_1"), Want: framework.QueueSkip},
		{Name: "same name, other namespace", Pod: podWithClaims("PVC_1"), NewObj: claim("ns1", "PVC_1", "Vol_1"), Want: framework.QueueSkip},
		{Name: "pod's pvc added", Pod: podWithClaims("PVC_1"), NewObj: claim("default", "PVC_1", "Vol_1"), Want: framework.Queue},
		{Name: "pod's pvc updated", Pod: podWithClaims("PVC_1"), OldObj: claim("default", "PVC_1", ""), NewObj: claim("default", "PVC_1", "Vol_1"), Want: framework.Queue},
		{Name: "pvc updated, pod refers none", Pod: podWithClaims(), OldObj: claim("default", "PVC_1", ""), NewObj: claim("default", "PVC_1", "Vol_1"), Want: framework.QueueSkip},
	})
}

func TestIsSchedulableAfterStorageClassAdded(t *testing.T) {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	immediate := storagev1.VolumeBindingImmediate
	frameworktest.RunHints(t, (&VolumeZone{}).isSchedulableAfterStorageClassAdded, nil, []frameworktest.HintCase{
		{Name: "wrong new object", Pod: podWithClaims("PVC_1"), NewObj: "not-a-storageclass", Want: framework.Queue, WantErr: true},
		{Name: "no binding mode", Pod: podWithClaims("PVC_1"), NewObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}}, Want: framework.QueueSkip},
		{Name: "immediate", Pod: podWithClaims("PVC_1"), NewObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}, VolumeBindingMode: &immediate}, Want: framework.QueueSkip},
		{Name: "wait for first consumer", Pod: podWithClaims("PVC_1"), NewObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}, VolumeBindingMode: &wait}, Want: framework.Queue},
	})
}

func TestIsSchedulableAfterPersistentVolumeChange(t *testing.T) {
	zoneA := map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}
	both := map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", v1.LabelTopologyZone: "zone"}
	frameworktest.RunHints(t, (&VolumeZone{}).isSchedulableAfterPersistentVolumeChange, nil, []frameworktest.HintCase{
		{Name: "wrong new object", Pod: podWithClaims("PVC_1"), NewObj: "not-a-pv", Want: framework.Queue, WantErr: true},
		{Name: "wrong old object", Pod: podWithClaims("PVC_1"), OldObj: "not-a-pv", NewObj: pv("Vol_1", nil), Want: framework.Queue, WantErr: true},
		{Name: "new pv", Pod: podWithClaims("PVC_1"), NewObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b"}), Want: framework.Queue},
		{Name: "topology changed", Pod: podWithClaims("PVC_1"), OldObj: pv("Vol_1", zoneA), NewObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b"}), Want: framework.Queue},
		{Name: "topology label added", Pod: podWithClaims("PVC_1"), OldObj: pv("Vol_1", zoneA), NewObj: pv("Vol_1", both), Want: framework.Queue},
		{Name: "topology unchanged", Pod: podWithClaims("PVC_1"), OldObj: pv("Vol_1", both), NewObj: pv("Vol_1", both), Want: framework.QueueSkip},
		{Name: "unrelated label changed", Pod: podWithClaims("PVC_1"), OldObj: pv("Vol_1", zoneA),
			NewObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", "foo": "bar"}), Want: framework.QueueSkip},
		{Name: "same zones reordered", Pod: podWithClaims("PVC_1"), OldObj: pv("Vol_1", map[string]string{v1.LabelTopologyZone: "a__b"}),
			NewObj: pv("Vol_1", map[string]string{v1.LabelTopologyZone: "b__a"}), Want: framework.QueueSkip},
	})
}
