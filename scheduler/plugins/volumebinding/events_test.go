package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
			pod := tc.pod
			if pod == nil {
				pod = makePod("pod-a")
			}
			got, err := fn(pod, tc.oldObj, tc.newObj)
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
	runHints(t, (&VolumeBinding{}).isSchedulableAfterCSINodeChange, []hintCase{
		{name: "unexpected objects", oldObj: new(struct{}), newObj: new(struct{}), want: framework.Queue, wantErr: true},
		{name: "created", newObj: csiNode(""), want: framework.Queue},
		{name: "migrated plugin added", oldObj: csiNode("test1"), newObj: csiNode("test1, test2"), want: framework.Queue},
		{name: "migrated plugin changed", oldObj: csiNode("test1"), newObj: csiNode("test2"), want: framework.Queue},
		{name: "annotation unchanged", oldObj: csiNode("test1"), newObj: csiNode("test1"), want: framework.QueueSkip},
	})
}

func TestIsSchedulableAfterPersistentVolumeClaimChange(t *testing.T) {
	emptyDir := makePod("pod-a")
	emptyDir.Spec.Volumes = []v1.Volume{{VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	otherNS := makePod("pod-a", "pvc-a", "pvc-b")
	otherNS.Namespace = "ns-a"
	eph := withEphemeral(withEphemeral(makePod("pod-a"), "ephemeral-a"), "ephemeral-c")
	eph2 := withEphemeral(withEphemeral(makePod("pod-a"), "ephemeral-a"), "ephemeral-b")
	runHints(t, (&VolumeBinding{}).isSchedulableAfterPersistentVolumeClaimChange, []hintCase{
		{name: "pod has no pvc or ephemeral volumes", pod: emptyDir, oldObj: makePVC("pvc-b", "sc-a"), newObj: makePVC("pvc-b", "sc-a"), want: framework.QueueSkip},
		{name: "same name in another namespace", pod: otherNS, newObj: makePVC("pvc-b", ""), want: framework.QueueSkip},
		{name: "another claim", pod: makePod("pod-a", "pvc-a", "pvc-c"), oldObj: makePVC("pvc-b", ""), newObj: makePVC("pvc-b", ""), want: framework.QueueSkip},
		{name: "another ephemeral claim", pod: eph, oldObj: makePVC("pod-a-ephemeral-b", ""), newObj: makePVC("pod-a-ephemeral-b", ""), want: framework.QueueSkip},
		{name: "pod's claim", pod: makePod("pod-a", "pvc-a", "pvc-b"), oldObj: makePVC("pvc-b", ""), newObj: makePVC("pvc-b", ""), want: framework.Queue},
		{name: "pod's ephemeral claim", pod: eph2, oldObj: makePVC("pod-a-ephemeral-b", ""), newObj: makePVC("pod-a-ephemeral-b", ""), want: framework.Queue},
		{name: "type conversion error", oldObj: new(struct{}), newObj: new(struct{}), want: framework.Queue, wantErr: true},
	})
}

func TestIsSchedulableAfterStorageClassChange(t *testing.T) {
	sc := func(topologies ...v1.TopologySelectorTerm) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc-a"}, AllowedTopologies: topologies}
	}
	term := v1.TopologySelectorTerm{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: v1.LabelHostname, Values: []string{"node-a"}}}}
	runHints(t, (&VolumeBinding{}).isSchedulableAfterStorageClassChange, []hintCase{
		{name: "created", newObj: sc(), want: framework.Queue},
		{name: "allowed topologies changed", oldObj: sc(), newObj: sc(term), want: framework.Queue},
		{name: "unchanged", oldObj: sc(), newObj: sc(), want: framework.QueueSkip},
		{name: "other fields changed", oldObj: sc(term), newObj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc-a", Labels: map[string]string{"a": "b"}},
			AllowedTopologies: []v1.TopologySelectorTerm{term}}, want: framework.QueueSkip},
		{name: "type conversion error", oldObj: new(struct{}), newObj: new(struct{}), want: framework.Queue, wantErr: true},
	})
}

func TestIsSchedulableAfterCSIStorageCapacityChange(t *testing.T) {
	q := func(v int64) *resource.Quantity { return resource.NewQuantity(v, resource.DecimalSI) }
	c := func(capacity, max *resource.Quantity) *storagev1.CSIStorageCapacity {
		return &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: "cap-a"}, Capacity: capacity, MaximumVolumeSize: max}
	}
	runHints(t, (&VolumeBinding{}).isSchedulableAfterCSIStorageCapacityChange, []hintCase{
		{name: "created", newObj: c(nil, nil), want: framework.Queue},
		{name: "capacity set", oldObj: c(nil, nil), newObj: c(q(100), nil), want: framework.Queue},
		{name: "maximumVolumeSize set", oldObj: c(nil, nil), newObj: c(nil, q(100)), want: framework.Queue},
		{name: "capacity increased", oldObj: c(q(50), nil), newObj: c(q(100), nil), want: framework.Queue},
		{name: "maximumVolumeSize unset", oldObj: c(q(100), q(50)), newObj: c(q(100), nil), want: framework.Queue},
		{name: "maximumVolumeSize increased", oldObj: c(q(100), q(50)), newObj: c(q(100), q(60)), want: framework.Queue},
		{name: "unchanged", oldObj: c(q(100), q(50)), newObj: c(q(100), q(50)), want: framework.QueueSkip},
		{name: "capacity equal", oldObj: c(q(100), nil), newObj: c(q(100), nil), want: framework.QueueSkip},
		{name: "maximumVolumeSize unset, equal limit", oldObj: c(q(100), q(50)), newObj: c(q(50), nil), want: framework.QueueSkip},
		{name: "capacity decreased", oldObj: c(q(100), nil), newObj: c(q(90), nil), want: framework.QueueSkip},
		{name: "maximumVolumeSize decreased", oldObj: c(nil, q(100)), newObj: c(nil, q(90)), want: framework.QueueSkip},
		{name: "type conversion error", oldObj: new(struct{}), newObj: new(struct{}), want: framework.Queue, wantErr: true},
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
	runHints(t, (&VolumeBinding{}).isSchedulableAfterCSIDriverChange, []hintCase{
		{name: "pod has no CSI volume", oldObj: driver(nil), newObj: driver(ptrTo(true)), want: framework.QueueSkip},
		{name: "another driver", pod: withCSI("test2"), oldObj: driver(ptrTo(true)), newObj: driver(ptrTo(false)), want: framework.QueueSkip},
		{name: "capacity tracking enabled", pod: withCSI("test1"), oldObj: driver(ptrTo(false)), newObj: driver(ptrTo(true)), want: framework.QueueSkip},
		{name: "capacity tracking disabled", pod: withCSI("test1"), oldObj: driver(ptrTo(true)), newObj: driver(ptrTo(false)), want: framework.Queue},
		{name: "capacity tracking unset", pod: withCSI("test1"), oldObj: driver(ptrTo(true)), newObj: driver(nil), want: framework.Queue},
		{name: "type conversion error", oldObj: new(struct{}), newObj: new(struct{}), want: framework.Queue, wantErr: true},
	})
}
