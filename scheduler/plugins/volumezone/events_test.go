package volumezone

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

type hintCase struct {
	name           string
	pod            *v1.Pod
	oldObj, newObj any
	want           framework.QueueingHint
	wantErr        bool
}

func runHints(t *testing.T, fn framework.QueueingHintFn, cases []hintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fn(tc.pod, tc.oldObj, tc.newObj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}

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
	runHints(t, (&VolumeZone{}).isSchedulableAfterPersistentVolumeClaimChange, []hintCase{
		{name: "wrong new object", pod: podWithClaims("PVC_1"), newObj: "not-a-pvc", want: framework.Queue, wantErr: true},
		{name: "pod refers no pvc", pod: podWithClaims(), newObj: claim("default", "PVC_1", "Vol_1"), want: framework.QueueSkip},
		{name: "pod uses a different pvc", pod: podWithClaims("PVC_2"), newObj: claim("default", "PVC_1", "Vol_1"), want: framework.QueueSkip},
		{name: "same name, other namespace", pod: podWithClaims("PVC_1"), newObj: claim("ns1", "PVC_1", "Vol_1"), want: framework.QueueSkip},
		{name: "pod's pvc added", pod: podWithClaims("PVC_1"), newObj: claim("default", "PVC_1", "Vol_1"), want: framework.Queue},
		{name: "pod's pvc updated", pod: podWithClaims("PVC_1"), oldObj: claim("default", "PVC_1", ""), newObj: claim("default", "PVC_1", "Vol_1"), want: framework.Queue},
		{name: "pvc updated, pod refers none", pod: podWithClaims(), oldObj: claim("default", "PVC_1", ""), newObj: claim("default", "PVC_1", "Vol_1"), want: framework.QueueSkip},
	})
}

func TestIsSchedulableAfterStorageClassAdded(t *testing.T) {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	immediate := storagev1.VolumeBindingImmediate
	runHints(t, (&VolumeZone{}).isSchedulableAfterStorageClassAdded, []hintCase{
		{name: "wrong new object", pod: podWithClaims("PVC_1"), newObj: "not-a-storageclass", want: framework.Queue, wantErr: true},
		{name: "no binding mode", pod: podWithClaims("PVC_1"), newObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}}, want: framework.QueueSkip},
		{name: "immediate", pod: podWithClaims("PVC_1"), newObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}, VolumeBindingMode: &immediate}, want: framework.QueueSkip},
		{name: "wait for first consumer", pod: podWithClaims("PVC_1"), newObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "SC_1"}, VolumeBindingMode: &wait}, want: framework.Queue},
	})
}

func TestIsSchedulableAfterPersistentVolumeChange(t *testing.T) {
	zoneA := map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a"}
	both := map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", v1.LabelTopologyZone: "zone"}
	runHints(t, (&VolumeZone{}).isSchedulableAfterPersistentVolumeChange, []hintCase{
		{name: "wrong new object", pod: podWithClaims("PVC_1"), newObj: "not-a-pv", want: framework.Queue, wantErr: true},
		{name: "wrong old object", pod: podWithClaims("PVC_1"), oldObj: "not-a-pv", newObj: pv("Vol_1", nil), want: framework.Queue, wantErr: true},
		{name: "new pv", pod: podWithClaims("PVC_1"), newObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b"}), want: framework.Queue},
		{name: "topology changed", pod: podWithClaims("PVC_1"), oldObj: pv("Vol_1", zoneA), newObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-b"}), want: framework.Queue},
		{name: "topology label added", pod: podWithClaims("PVC_1"), oldObj: pv("Vol_1", zoneA), newObj: pv("Vol_1", both), want: framework.Queue},
		{name: "topology unchanged", pod: podWithClaims("PVC_1"), oldObj: pv("Vol_1", both), newObj: pv("Vol_1", both), want: framework.QueueSkip},
		{name: "unrelated label changed", pod: podWithClaims("PVC_1"), oldObj: pv("Vol_1", zoneA),
			newObj: pv("Vol_1", map[string]string{v1.LabelFailureDomainBetaZone: "us-west1-a", "foo": "bar"}), want: framework.QueueSkip},
		{name: "same zones reordered", pod: podWithClaims("PVC_1"), oldObj: pv("Vol_1", map[string]string{v1.LabelTopologyZone: "a__b"}),
			newObj: pv("Vol_1", map[string]string{v1.LabelTopologyZone: "b__a"}), want: framework.QueueSkip},
	})
}
