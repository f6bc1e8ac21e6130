package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
)

func TestEventsToRegister(t *testing.T) {
	events, _ := (&VolumeBinding{}).EventsToRegister(context.Background())
	want := []struct {
		ev      framework.ClusterEvent
		hasHint bool
	}{
		{framework.ClusterEvent{Resource: framework.StorageClass, ActionType: framework.Add | framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.PersistentVolumeClaim, ActionType: framework.Add | framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.PersistentVolume, ActionType: framework.Add | framework.Update}, false},
		{framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, false},
		{framework.ClusterEvent{Resource: framework.CSINode, ActionType: framework.Add | framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.CSIDriver, ActionType: framework.Update}, true},
		{framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Add | framework.Update}, true},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events", len(events))
	}
	for i, w := range want {
		if events[i].Event != w.ev || (events[i].QueueingHintFn != nil) != w.hasHint {
			t.Errorf("event %d = %+v (hint %v), want %+v (hint %v)", i, events[i].Event, events[i].QueueingHintFn != nil, w.ev, w.hasHint)
		}
	}
}

func TestIsSchedulableAfterCSINodeChange(t *testing.T) {
	csiNode := func(ann string) *storagev1.CSINode {
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "csinode-a", Annotations: map[string]string{v1.MigratedPluginsAnnotationKey: ann}}}
	}
	frameworktest.RunHints(t, (&VolumeBinding{}).isSchedulableAfterCSINodeChange, makePod("pod-a"), []frameworktest.HintCase{
		{Name: "unexpected objects", OldObj: new(struct{}), NewObj: new(struct{}), Want: framework.Queue, WantErr: true},
		{Name: "created", NewObj: csiNode(""), Want: framework.Queue},
		{Name: "migrated plugin added", OldObj: csiNode("test1"), NewObj: csiNode("test1, test2"), Want: framework.Queue},
		{Name: "migrated plugin changed", OldObj: csiNode("test1"), NewObj: csiNode("test2"), Want: framework.Queue},
		{Name: "annotation unchanged", OldObj: csiNode("test1"), NewObj: csiNode("test1"), Want: framework.QueueSkip},
	})
}

func TestIsSchedulableAfterPersistentVolumeClaimChange(t *testing.T) {
	emptyDir := makePod("pod-a")
	emptyDir.Spec.Volumes = []v1.Volume{{VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	otherNS := makePod("pod-a", "pvc-a", "pvc-b")
	otherNS.Namespace = "ns-a"
	eph := withEphemeral(withEphemeral(makePod("pod-a"), "ephemeral-a"), "ephemeral-c")
	eph2 := withEphemeral(withEphemeral(makePod("pod-a"), "ephemeral-a"), "ephemeral-b")
	frameworktest.RunHints(t, (&VolumeBinding{}).isSchedulableAfterPersistentVolumeClaimChange, makePod("pod-a"), []frameworktest.HintCase{
		{Name: "pod has no pvc or ephemeral volumes", Pod: emptyDir, OldObj: makePVC("pvc-b", "sc-a"), NewObj: makePVC("pvc-b", "sc-a"), Want: framework.QueueSkip},
		{Name: "same name in another namespace", Pod: otherNS, NewObj: makePVC("pvc-b", ""), Want: framework.QueueSkip},
		{Name: "another claim", Pod: makePod("pod-a", "pvc-a", "pvc-c"), OldObj: makePVC("pvc-b", ""), NewObj: makePVC("pvc-b", ""), Want: framework.QueueSkip},
		{Name: "another ephemeral claim", Pod: eph, OldObj: makePVC("pod-a-ephemeral-b", ""), NewObj: makePVC("pod-a-ephemeral-b", ""), Want: framework.QueueSkip},
		{Name: "pod's claim", Pod: makePod("pod-a", "pvc-a", "pvc-b"), OldObj: makePVC("pvc-b", ""), NewObj: makePVC("pvc-b", ""), Want: framework.Queue},
		{Name: "pod's ephemeral claim", Pod: eph2, OldObj: makePVC("pod-a-ephemeral-b", ""), NewObj: makePVC("pod-a-ephemeral-b", ""), Want: framework.Queue},
		{Name: "type conversion error", OldObj: new(struct{}), NewObj: new(struct{}), Want: framework.Queue, WantErr: true},
	})
}

func TestIsSchedulableAfterStorageClassChange(t *testing.T) {
	sc := func(topologies ...v1.TopologySelectorTerm) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc-a"}, AllowedTopologies: topologies}
	}
	term := v1.TopologySelectorTerm{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: v1.LabelHostname, Values: []string{"node-a"}}}}
	frameworktest.RunHints(t, (&VolumeBinding{}).isSchedulableAfterStorageClassChange, makePod("pod-a"), []frameworktest.HintCase{
		{Name: "created", NewObj: sc(), Want: framework.Queue},
		{Name: "allowed topologies changed", OldObj: sc(), NewObj: sc(term), Want: framework.Queue},
		{Name: "unchanged", OldObj: sc(), NewObj: sc(), Want: framework.QueueSkip},
		{Name: "other fields changed", OldObj: sc(term), NewObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc-a", Labels: map[string]string{"a": "b"}},
			AllowedTopologies: []v1.TopologySelectorTerm{term}}, Want: framework.QueueSkip},
		{Name: "type conversion error", OldObj: new(struct{}), NewObj: new(struct{}), Want: framework.Queue, WantErr: true},
	})
}

func TestIsSchedulableAfterCSIStorageCapacityChange(t *testing.T) {
	q := func(v int64) *resource.Quantity { return resource.NewQuantity(v, resource.DecimalSI) }
	c := func(capacity, max *resource.Quantity) *storagev1.CSIStorageCapacity {
		return &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: "cap-a"}, Capacity: capacity, MaximumVolumeSize: max}
	}
	frameworktest.RunHints(t, (&VolumeBinding{}).isSchedulableAfterCSIStorageCapacityChange, makePod("pod-a"), []frameworktest.HintCase{
		{Name: "created", NewObj: c(nil, nil), Want: framework.Queue},
		{Name: "capacity set", OldObj: c(nil, nil), NewObj: c(q(100), nil), Want: framework.Queue},
		{Name: "maximumVolumeSize set", OldObj: c(nil, nil), NewObj: c(nil, q(100)), Want: framework.Queue},
		{Name: "capacity increased", OldObj: c(q(50), nil), NewObj: c(q(100), nil), Want: framework.Queue},
		{Name: "maximumVolumeSize unset", OldObj: c(q(100), q(50)), NewObj: c(q(100), nil), Want: framework.Queue},
		{Name: "maximumVolumeSize increased", OldObj: c(q(100), q(50)), NewObj: c(q(100), q(60)), Want: framework.Queue},
		{Name: "unchanged", OldObj: c(q(100), q(50)), NewObj: c(q(100), q(50)), Want: framework.QueueSkip},
		{Name: "capacity equal", OldObj: c(q(100), nil), NewObj: c(q(100), nil), Want: framework.QueueSkip},
		{Name: "maximumVolumeSize unset, equal limit", OldObj: c(q(100), q(50)), NewObj: c(q(50), nil), Want: framework.QueueSkip},
		{Name: "capacity decreased", OldObj: c(q(100), nil), NewObj: c(q(90), nil), Want: framework.QueueSkip},
		{Name: "maximumVolumeSize decreased", OldObj: c(nil, q(100)), NewObj: c(nil, q(90)), Want: framework.QueueSkip},
		{Name: "type conversion error", OldObj: new(struct{}), NewObj: new(struct{}), Want: framework.Queue, WantErr: true},
	})
}

func TestIsSchedulableAfterCSIDriverChange(t *testing.T) {
	driver := func(capacity *bool) *storagev1.CSIDriver {
		return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "test1"}, Spec: storagev1.CSIDriverSpec{StorageCapacity: capacity}}
	}
	withCSI := func(name string) *v1.Pod {
		p := makePod("pod-a")
		p.Spec.Volumes = []v1.Volume{{VolumeSource: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: name}}}}
		return p
	}
	frameworktest.RunHints(t, (&VolumeBinding{}).isSchedulableAfterCSIDriverChange, makePod("pod-a"), []frameworktest.HintCase{
		{Name: "pod has no CSI volume", OldObj: driver(nil), NewObj: driver(ptrTo(true)), Want: framework.QueueSkip},
		{Name: "another driver", Pod: withCSI("test2"), OldObj: driver(ptrTo(true)), NewObj: driver(ptrTo(false)), Want: framework.QueueSkip},
		{Name: "capacity tracking enabled", Pod: withCSI("test1"), OldObj: driver(ptrTo(false)), NewObj: driver(ptrTo(true)), Want: framework.QueueSkip},
		{Name: "capacity tracking disabled", Pod: withCSI("test1"), OldObj: driver(ptrTo(true)), NewObj: driver(ptrTo(false)), Want: framework.Queue},
		{Name: "capacity tracking unset", Pod: withCSI("test1"), OldObj: driver(ptrTo(true)), NewObj: driver(nil), Want: framework.Queue},
		{Name: "type conversion error", OldObj: new(struct{}), NewObj: new(struct{}), Want: framework.Queue, WantErr: true},
	})
}
