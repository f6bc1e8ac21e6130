package nodevolumelimits

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
	frameworktest.RunHints(t, (&CSILimits{}).isSchedulableAfterAssignedPodDeleted, nil, []frameworktest.HintCase{
		{Name: "deleted pod has a PVC", Pod: pod, OldObj: scheduled(pvcPod("placeholder")), Want: framework.Queue},
		{Name: "deleted pod has an inline migratable volume", Pod: pod,
			OldObj: scheduled(podWithVolumes("", "x", "x", v1.Volume{VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{}}})), Want: framework.Queue},
		{Name: "deleted pod has an ephemeral volume", Pod: pod, OldObj: scheduled(podWithVolumes("", "x", "x", ephemeralVol("e"))), Want: framework.Queue},
		{Name: "deleted pod has no volume", Pod: pod, OldObj: scheduled(pvcPod()), Want: framework.QueueSkip},
		{Name: "deleted pod has only an emptyDir", Pod: pod, OldObj: scheduled(podWithVolumes("", "x", "x", v1.Volume{VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})), Want: framework.QueueSkip},
		{Name: "deleted pod was not scheduled", Pod: pod, OldObj: pvcPod("csi-ebs.csi.aws.com-0"), Want: framework.QueueSkip},
		{Name: "deleted pod was only nominated", Pod: pod, OldObj: nominated, Want: framework.Queue},
		{Name: "wrong type", Pod: pod, OldObj: "x", Want: framework.Queue, WantErr: true},
	})
}

func TestIsSchedulableAfterPVCAdded(t *testing.T) {
	claim := func(ns, name string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	frameworktest.RunHints(t, (&CSILimits{}).isSchedulableAfterPVCAdded, nil, []frameworktest.HintCase{
		{Name: "other namespace", Pod: podWithVolumes("ns1", "p", "p"), NewObj: claim("ns2", "pvc1"), Want: framework.QueueSkip},
		{Name: "pod's claim", Pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), NewObj: claim("ns1", "pvc1"), Want: framework.Queue},
		{Name: "pod's ephemeral claim", Pod: podWithVolumes("ns1", "pod1", "p", ephemeralVol("ephemeral")), NewObj: claim("ns1", "pod1-ephemeral"), Want: framework.Queue},
		{Name: "another claim", Pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), NewObj: claim("ns1", "pvc2"), Want: framework.QueueSkip},
		{Name: "pod without claims", Pod: podWithVolumes("ns1", "p", "p"), NewObj: claim("ns1", "pvc2"), Want: framework.QueueSkip},
		{Name: "wrong type", Pod: podWithVolumes("ns1", "p", "p"), NewObj: 1, Want: framework.Queue, WantErr: true},
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
	frameworktest.RunHints(t, (&CSILimits{}).isSchedulableAfterVolumeAttachmentDeleted, nil, []frameworktest.HintCase{
		{Name: "pod has a PVC", Pod: podWithVolumes("ns1", "p", "p", claimVol("pvc1")), OldObj: byPV, Want: framework.Queue},
		{Name: "inline EBS, EBS attachment", Pod: podWithVolumes("ns1", "p", "p", ebsInline("test")), OldObj: ebsVA, Want: framework.Queue},
		{Name: "inline GCE PD, EBS attachment", Pod: podWithVolumes("ns1", "p", "p", gceInline), OldObj: ebsVA, Want: framework.QueueSkip},
		{Name: "inline EBS and PVC, EBS attachment", Pod: podWithVolumes("ns1", "p", "p", ebsInline("test"), claimVol("pvc1")), OldObj: ebsVA, Want: framework.Queue},
		{Name: "inline EBS and PVC, other attachment", Pod: podWithVolumes("ns1", "p", "p", ebsInline("test"), claimVol("pvc1")), OldObj: byPV, Want: framework.Queue},
		{Name: "no PVC", Pod: podWithVolumes("ns1", "p", "p"), OldObj: byPV, Want: framework.QueueSkip},
		{Name: "ephemeral volumes are not considered", Pod: podWithVolumes("ns1", "p", "p", ephemeralVol("e")), OldObj: byPV, Want: framework.QueueSkip},
		{Name: "untranslatable inline volume", Pod: podWithVolumes("ns1", "p", "p", ebsInline("aws://z/bad")), OldObj: byPV, Want: framework.Queue, WantErr: true},
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
	frameworktest.RunHints(t, (&CSILimits{}).isSchedulableAfterCSINodeUpdated, nil, []frameworktest.HintCase{
		{Name: "limit raised", Pod: pod, OldObj: csiNode(ptrTo[int32](1)), NewObj: csiNode(ptrTo[int32](2)), Want: framework.Queue},
		{Name: "limit decreased", Pod: pod, OldObj: csiNode(ptrTo[int32](2)), NewObj: csiNode(ptrTo[int32](1)), Want: framework.QueueSkip},
		{Name: "limit unchanged", Pod: pod, OldObj: csiNode(ptrTo[int32](1)), NewObj: csiNode(ptrTo[int32](1)), Want: framework.QueueSkip},
		{Name: "driver added with a limit", Pod: pod, OldObj: empty, NewObj: csiNode(ptrTo[int32](1)), Want: framework.Queue},
		{Name: "driver added without a limit", Pod: pod, OldObj: empty, NewObj: csiNode(nil), Want: framework.QueueSkip},
		{Name: "wrong type", Pod: pod, OldObj: "x", NewObj: csiNode(nil), Want: framework.Queue, WantErr: true},
	})
}
