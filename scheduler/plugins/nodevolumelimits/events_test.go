package nodevolumelimits

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
	events, _ := (&CSILimits{}).EventsToRegister(context.Background())
	want := []framework.ClusterEvent{
		{Resource: framework.CSINode, ActionType: framework.Add},
		{Resource: framework.CSINode, ActionType: framework.Update},
		{Resource: framework.AssignedPod, ActionType: framework.Delete},
		{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add},
		{Resource: framework.VolumeAttachment, ActionType: framework.Delete},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events", len(events))
	}
	for i := range want {
		if events[i].Event != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, events[i].Event, want[i])
		}
	}
	if events[0].QueueingHintFn != nil {
		t.Error("CSINode/Add must always queue")
	}
}

func TestIsSchedulableAfterAssignedPodDeleted(t *testing.T) {
	pod := pvcPod("csi-ebs.csi.aws.com-2")
	scheduled := func(p *v1.Pod) *v1.Pod { p.Spec.NodeName = testNodeName; return p }
	nominated := pvcPod("placeholder")
	nominated.Status.NominatedNodeName = testNodeName
	runHints(t, (&CSILimits{}).isSchedulableAfterAssignedPodDeleted, []hintCase{
		{name: "deleted pod has a PVC", pod: pod, oldObj: scheduled(pvcPod("placeholder")), want: framework.Queue},
		{name: "deleted pod has an inline migratable volume", pod: pod,
			oldObj: scheduled(podWithVolumes("", "x", "x", v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{}}})), want: framework.Queue},
		{name: "deleted pod has an ephemeral volume", pod: pod, oldObj: scheduled(podWithVolumes("", "x", "x", ephemeralVol("e"))), want: framework.Queue},
		{name: "deleted pod has no volume", pod: pod, oldObj: scheduled(pvcPod()), want: framework.QueueSkip},
		{name: "deleted pod has only an emptyDir", pod: pod, oldObj: scheduled(podWithVolumes("", "x", "x", v1.Volume{VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})), want: framework.QueueSkip},
		{name: "deleted pod was not scheduled", pod: pod, oldObj: pvcPod("csi-ebs.csi.aws.com-0"), want: framework.QueueSkip},
		{name: "deleted pod was only nominated", pod: pod, oldObj: nominated, want: framework.Queue},
		{name: "wrong type", pod: pod, oldObj: "x", want: framework.Queue, wantErr: true},
	})
}

func TestIsSchedulableAfterPVCAdded(t *testing.T) {
	claim := func(ns, name string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	runHints(t, (&CSILimits{}).isSchedulableAfterPVCAdded, []hintCase{
		{name: "other namespace", pod: podWithVolumes("ns1", "p", "p"), newObj: claim("ns2", "pvc1"), want: framework.QueueSkip},
		{name: "pod's claim", pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), newObj: claim("ns1", "pvc1"), want: framework.Queue},
		{name: "pod's ephemeral claim", pod: podWithVolumes("ns1", "pod1", "p", ephemeralVol("ephemeral")), newObj: claim("ns1", "pod1-ephemeral"), want: framework.Queue},
		{name: "another claim", pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), newObj: claim("ns1", "pvc2"), want: framework.QueueSkip},
		{name: "pod without claims", pod: podWithVolumes("ns1", "p", "p"), newObj: claim("ns1", "pvc2"), want: framework.QueueSkip},
		{name: "wrong type", pod: podWithVolumes("ns1", "p", "p"), newObj: 1, want: framework.Queue, wantErr: true},
	})
}

func TestIsSchedulableAfterVolumeAttachmentDeleted(t *testing.T) {
	pvName := "pv1"
	byPV := &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va1"},
		Spec: storagev1.VolumeAttachmentSpec{NodeName: "fake-node", Attacher: "test.storage.gke.io", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName}}}
	ebsVA := &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va1"},
		Spec: storagev1.VolumeAttachmentSpec{NodeName: "fake-node", Attacher: ebsDriver, Source: storagev1.VolumeAttachmentSource{
			InlineVolumeSpec: &v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: ebsDriver}}}}}}
	gceInline := v1.Volume{VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "test"}}}
	runHints(t, (&CSILimits{}).isSchedulableAfterVolumeAttachmentDeleted, []hintCase{
		{name: "pod has a PVC", pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), oldObj: byPV, want: framework.Queue},
		{name: "inline EBS, EBS attachment", pod: podWithVolumes("ns1", "p", "p", ebsInline("test")), oldObj: ebsVA, want: framework.Queue},
		{name: "inline GCE PD, EBS attachment", pod: podWithVolumes("ns1", "p", "p", gceInline), oldObj: ebsVA, want: framework.QueueSkip},
		{name: "inline EBS and PVC, EBS attachment", pod: podWithVolumes("ns1", "p", "p", ebsInline("test"), claimVol("pvc1")), oldObj: ebsVA, want: framework.Queue},
		{name: "inline EBS and PVC, other attachment", pod: podWithVolumes("ns1", "p", "p", ebsInline("test"), claimVol("pvc1")), oldObj: byPV, want: framework.Queue},
		{name: "no PVC", pod: podWithVolumes("ns1", "p", "p"), oldObj: byPV, want: framework.QueueSkip},
		{name: "ephemeral volumes are not considered", pod: podWithVolumes("ns1", "p", "p", ephemeralVol("e")), oldObj: byPV, want: framework.QueueSkip},
		{name: "untranslatable inline volume", pod: podWithVolumes("ns1", "p", "p", ebsInline("aws://z/bad")), oldObj: byPV, want: framework.Queue, wantErr: true},
	})
}

func TestIsSchedulableAfterCSINodeUpdated(t *testing.T) {
	csiNode := func(count *int32) *storagev1.CSINode {
		d := storagev1.CSINodeDriver{Name: ebsDriver, NodeID: "test-node"}
		if count != nil {
			d.Allocatable = &storagev1.VolumeNodeResources{Count: count}
		}
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "test-node"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{d}}}
	}
	empty := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "test-node"}}
	pod := pvcPod("csi-ebs.csi.aws.com-0")
	runHints(t, (&CSILimits{}).isSchedulableAfterCSINodeUpdated, []hintCase{
		{name: "limit raised", pod: pod, oldObj: csiNode(ptrTo[int32](1)), newObj: csiNode(ptrTo[int32](2)), want: framework.Queue},
		{name: "limit decreased", pod: pod, oldObj: csiNode(ptrTo[int32](2)), newObj: csiNode(ptrTo[int32](1)), want: framework.QueueSkip},
		{name: "limit unchanged", pod: pod, oldObj: csiNode(ptrTo[int32](1)), newObj: csiNode(ptrTo[int32](1)), want: framework.QueueSkip},
		{name: "driver added with a limit", pod: pod, oldObj: empty, newObj: csiNode(ptrTo[int32](1)), want: framework.Queue},
		{name: "driver added without a limit", pod: pod, oldObj: empty, newObj: csiNode(nil), want: framework.QueueSkip},
		{name: "wrong type", pod: pod, oldObj: "x", newObj: csiNode(nil), want: framework.Queue, wantErr: true},
	})
}
