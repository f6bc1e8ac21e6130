package volumerestrictions

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

func TestEventsToRegister(t *testing.T) {
	events, err := (&VolumeRestrictions{}).EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Delete},
		{Resource: framework.Node, ActionType: framework.Add},
		{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i := range want {
		if events[i].Event != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, events[i].Event, want[i])
		}
	}
	if events[1].QueueingHintFn != nil {
		t.Error("Node/Add must have no hint (always Queue)")
	}
}

func TestIsSchedulableAfterAssignedPodDeleted(t *testing.T) {
	gce := func(pd string) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: pd}}}
	}
	ebs := func(id string) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}}
	}
	rbd := func(mons ...string) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{RBD: &v1.RBDVolumeSource{CephMonitors: mons, RBDPool: "foo", RBDImage: "bar"}}}
	}
	iscsi := func(iqn string) v1.Volume {
		return v1.Volume{VolumeSource: v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "127.0.0.1:3260", IQN: iqn}}}
	}
	otherNS := podWith("e", gce("foo"))
	otherNS.Namespace = "other"
	tests := []struct {
		name    string
		pod     *v1.Pod
		oldObj  any
		want    framework.QueueingHint
		wantErr bool
	}{
		{name: "gce disk conflict", pod: podWith("p", gce("foo")), oldObj: podWith("e", gce("foo")), want: framework.Queue},
		{name: "gce disk no conflict", pod: podWith("p", gce("foo")), oldObj: podWith("e", gce("bar")), want: framework.QueueSkip},
		{name: "aws disk conflict", pod: podWith("p", ebs("foo")), oldObj: podWith("e", ebs("foo")), want: framework.Queue},
		{name: "aws disk no conflict", pod: podWith("p", ebs("foo")), oldObj: podWith("e", ebs("bar")), want: framework.QueueSkip},
		{name: "rbd disk conflict", pod: podWith("p", rbd("a", "b")), oldObj: podWith("e", rbd("a", "b")), want: framework.Queue},
		{name: "rbd disk no conflict", pod: podWith("p", rbd("a", "b")), oldObj: podWith("e", rbd("c", "d")), want: framework.QueueSkip},
		{name: "iscsi disk conflict", pod: podWith("p", iscsi("iqn.2016")), oldObj: podWith("e", iscsi("iqn.2016")), want: framework.Queue},
		{name: "iscsi disk no conflict", pod: podWith("p", iscsi("iqn.2016")), oldObj: podWith("e", iscsi("iqn.2017")), want: framework.QueueSkip},
		{name: "same claim", pod: podWith("p", pvcVol("claim-rwop")), oldObj: podWith("e", pvcVol("claim-rwop")), want: framework.Queue},
		{name: "different claim", pod: podWith("p", pvcVol("claim-1-rwop")), oldObj: podWith("e", pvcVol("claim-2-rwop")), want: framework.QueueSkip},
		{name: "other namespace", pod: podWith("p", gce("foo")), oldObj: otherNS, want: framework.QueueSkip},
		{name: "wrong type", pod: podWith("p"), oldObj: "not a pod", want: framework.Queue, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&VolumeRestrictions{}).isSchedulableAfterAssignedPodDeleted(tc.pod, tc.oldObj, nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIsSchedulableAfterPersistentVolumeClaimAdded(t *testing.T) {
	pvc := func(ns, name string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	twoPVCs := podWith("p", pvcVol("claim-with-rwx-1"), pvcVol("claim-with-rwx-2"))
	onePVC := podWith("p", pvcVol("claim-with-rwx-1"))
	systemNS := podWith("p", pvcVol("claim-with-rwx-1"))
	systemNS.Namespace = "kube-system"
	tests := []struct {
		name    string
		pod     *v1.Pod
		newObj  any
		want    framework.QueueingHint
		wantErr bool
	}{
		{name: "claim of the pod", pod: twoPVCs, newObj: pvc("default", "claim-with-rwx-1"), want: framework.Queue},
		{name: "unused claim", pod: onePVC, newObj: pvc("default", "claim-with-rwx-2"), want: framework.QueueSkip},
		{name: "other namespace", pod: systemNS, newObj: pvc("default", "claim-with-rwx-1"), want: framework.QueueSkip},
		{name: "wrong type", pod: onePVC, newObj: "x", want: framework.Queue, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&VolumeRestrictions{}).isSchedulableAfterPersistentVolumeClaimAdded(tc.pod, nil, tc.newObj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
