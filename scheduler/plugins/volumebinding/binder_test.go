package volumebinding

import (
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework/frameworktest"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
	"github.com/schedtui/schedtui/scheduler/plugins/nodevolumelimits/csimigration"
)

// Fixtures of upstream's binder tests: claims in "testns" with UID
// "pvc-uid", PVs with node affinity nodeKey=<node>.
const (
	pvcUnbound = iota
	pvcPrebound
	pvcBound
	pvcSelectedNode
)

const (
	testProvisioner          = "test-provisioner"
	waitClass                = "waitClass"
	immediateClass           = "immediateClass"
	waitClassWithProvisioner = "waitClassWithProvisioner"
	topoMismatchClass        = "topoMismatchClass"
)

func makeTestPVC(name, size, node string, state int, pvName, rv string, class string) *v1.PersistentVolumeClaim {
	fs := v1.PersistentVolumeFilesystem
	pvc := &v1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{Kind: "PersistentVolumeClaim", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "testns", UID: "pvc-uid", ResourceVersion: rv},
		Spec: v1.PersistentVolumeClaimSpec{
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}},
			StorageClassName: ptrTo(class),
			VolumeMode:       &fs,
		},
	}
	switch state {
	case pvcSelectedNode:
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volume.AnnSelectedNode, node)
	case pvcBound:
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volume.AnnBindCompleted, "yes")
		pvc.Spec.VolumeName = pvName
	case pvcPrebound:
		pvc.Spec.VolumeName = pvName
	}
	return pvc
}

func makeTestPV(name, node, size, rv string, boundTo *v1.PersistentVolumeClaim, class string) *v1.PersistentVolume {
	fs := v1.PersistentVolumeFilesystem
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			StorageClassName: class,
			VolumeMode:       &fs,
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	if node != "" {
		nodeAffinity(nodeLabelKey, node)(pv)
	}
	if boundTo != nil {
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: boundTo.Kind, APIVersion: boundTo.APIVersion, ResourceVersion: boundTo.ResourceVersion,
			Name: boundTo.Name, Namespace: boundTo.Namespace, UID: boundTo.UID}
		metav1.SetMetaDataAnnotation(&pv.ObjectMeta, volume.AnnBoundByController, "yes")
	}
	return pv
}

var (
	unboundPVC          = makeTestPVC("unbound-pvc", "1G", "", pvcUnbound, "", "1", waitClass)
	unboundPVC2         = makeTestPVC("unbound-pvc2", "5G", "", pvcUnbound, "", "1", waitClass)
	preboundPVC         = makeTestPVC("prebound-pvc", "1G", "", pvcPrebound, "pv-node1a", "1", waitClass)
	boundPVC            = makeTestPVC("bound-pvc", "1G", "", pvcBound, "pv-bound", "1", waitClass)
	immediateUnboundPVC = makeTestPVC("immediate-unbound-pvc", "1G", "", pvcUnbound, "", "1", immediateClass)
	immediateBoundPVC   = makeTestPVC("immediate-bound-pvc", "1G", "", pvcBound, "pv-bound-immediate", "1", immediateClass)

	provisionedPVC              = makeTestPVC("provisioned-pvc", "1Gi", "", pvcUnbound, "", "1", waitClassWithProvisioner)
	provisionedPVC2             = makeTestPVC("provisioned-pvc2", "1Gi", "", pvcUnbound, "", "1", waitClassWithProvisioner)
	provisionedPVCHigherVersion = makeTestPVC("provisioned-pvc2", "1Gi", "", pvcUnbound, "", "2", waitClassWithProvisioner)
	noProvisionerPVC            = makeTestPVC("no-provisioner-pvc", "1Gi", "", pvcUnbound, "", "1", waitClass)
	topoMismatchPVC             = makeTestPVC("topo-mismatch-pvc", "1Gi", "", pvcUnbound, "", "1", topoMismatchClass)
	selectedNodePVC             = makeTestPVC("provisioned-pvc", "1Gi", "node1", pvcSelectedNode, "", "1", waitClassWithProvisioner)

	pvNode1a              = makeTestPV("pv-node1a", "node1", "5G", "1", nil, waitClass)
	pvNode1b              = makeTestPV("pv-node1b", "node1", "10G", "1", nil, waitClass)
	pvNode2               = makeTestPV("pv-node2", "node2", "1G", "1", nil, waitClass)
	pvBound               = makeTestPV("pv-bound", "node1", "1G", "1", boundPVC, waitClass)
	pvNode1aBound         = makeTestPV("pv-node1a", "node1", "5G", "1", unboundPVC, waitClass)
	pvNode1bBound         = makeTestPV("pv-node1b", "node1", "10G", "1", unboundPVC2, waitClass)
	pvBoundImmediate      = makeTestPV("pv-bound-immediate", "node1", "1G", "1", immediateBoundPVC, immediateClass)
	pvBoundImmediateNode2 = makeTestPV("pv-bound-immediate", "node2", "1G", "1", immediateBoundPVC, immediateClass)

	testNode1 = makeNode("node1", nodeLabelKey, "node1")
)

func binderClasses() []any {
	topo := func(values ...string) []v1.TopologySelectorTerm {
		return []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: nodeLabelKey, Values: values}}}}
	}
	return []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: waitClassWithProvisioner}, VolumeBindingMode: &waitMode,
			Provisioner: testProvisioner, AllowedTopologies: topo("node1", "reference-value")},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: immediateClass}, VolumeBindingMode: &immediateMode},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: waitClass}, VolumeBindingMode: &waitMode, Provisioner: volume.NotSupportedProvisioner},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: topoMismatchClass}, VolumeBindingMode: &waitMode,
			Provisioner: testProvisioner, AllowedTopologies: topo("reference-value")},
	}
}

func newTestBinder(objs ...any) (*binder, *frameworktest.Handle) {
	h := frameworktest.NewHandle(nil, nil, append(binderClasses(), objs...)...)
	return newBinder(h.Store, true), h
}

func testPod(pvcs ...*v1.PersistentVolumeClaim) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", Namespace: "testns"}, Spec: v1.PodSpec{NodeName: "node1"}}
	for i, c := range pvcs {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: fmt.Sprintf("vol%d", i),
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
	return p
}

// findPodVolumes is PreFilter's claim sorting followed by FindPodVolumes,
// failing as PreFilter does on unbound immediate claims.
func findPodVolumes(b *binder, pod *v1.Pod, node *v1.Node) (*PodVolumes, ConflictReasons, error) {
	claims, err := b.GetPodVolumeClaims(pod)
	if err != nil {
		return nil, nil, err
	}
	if len(claims.unboundClaimsImmediate) > 0 {
		return nil, nil, fmt.Errorf("pod has unbound immediate PersistentVolumeClaims")
	}
	return b.FindPodVolumes(pod, claims, node)
}

func binding(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) *BindingInfo {
	return &BindingInfo{pvc: pvc, pv: pv}
}

func checkBindings(t *testing.T, got *PodVolumes, wantBindings []*BindingInfo, wantProvisions []*DynamicProvision) {
	t.Helper()
	var gotB []*BindingInfo
	var gotP []*DynamicProvision
	if got != nil {
		gotB, gotP = got.StaticBindings, got.DynamicProvisions
	}
	if len(gotB) != len(wantBindings) {
		t.Fatalf("got %d bindings, want %d", len(gotB), len(wantBindings))
	}
	for i := range wantBindings {
		if !reflect.DeepEqual(gotB[i].pv, wantBindings[i].pv) || !reflect.DeepEqual(gotB[i].pvc, wantBindings[i].pvc) {
			t.Errorf("binding %d = %s->%s, want %s->%s", i, gotB[i].pvc.Name, gotB[i].pv.Name, wantBindings[i].pvc.Name, wantBindings[i].pv.Name)
		}
	}
	if len(gotP) != len(wantProvisions) {
		t.Fatalf("got %d provisions, want %d", len(gotP), len(wantProvisions))
	}
	for i := range wantProvisions {
		if !reflect.DeepEqual(gotP[i], wantProvisions[i]) {
			t.Errorf("provision %d = %+v, want %+v", i, gotP[i], wantProvisions[i])
		}
	}
}

func reasonsEqual(a, b ConflictReasons) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type findCase struct {
	pvs        []*v1.PersistentVolume
	podPVCs    []*v1.PersistentVolumeClaim
	cachePVCs  []*v1.PersistentVolumeClaim // nil: podPVCs
	pod        *v1.Pod                     // nil: testPod(podPVCs)
	bindings   []*BindingInfo
	provisions []*DynamicProvision
	reasons    ConflictReasons
	shouldFail bool
	// needsCapacity: with a capacity-tracking driver and no capacities,
	// provisioning is blocked.
	needsCapacity bool
}

func runFindCases(t *testing.T, cases map[string]findCase) {
	drivers := map[string]*storagev1.CSIDriver{
		"no CSIDriver":                        nil,
		"CSIDriver with capacity tracking":    {ObjectMeta: metav1.ObjectMeta{Name: testProvisioner}, Spec: storagev1.CSIDriverSpec{StorageCapacity: ptrTo(true)}},
		"CSIDriver without capacity tracking": {ObjectMeta: metav1.ObjectMeta{Name: testProvisioner}, Spec: storagev1.CSIDriverSpec{StorageCapacity: ptrTo(false)}},
	}
	for dname, driver := range drivers {
		for name, tc := range cases {
			t.Run(dname+"/"+name, func(t *testing.T) {
				var objs []any
				for _, pv := range tc.pvs {
					objs = append(objs, pv)
				}
				cache := tc.cachePVCs
				if cache == nil {
					cache = tc.podPVCs
				}
				for _, pvc := range cache {
					objs = append(objs, pvc)
				}
				if driver != nil {
					objs = append(objs, driver)
				}
				b, _ := newTestBinder(objs...)
				pod := tc.pod
				if pod == nil {
					pod = testPod(tc.podPVCs...)
				}
				got, reasons, err := findPodVolumes(b, pod, testNode1)
				if (err != nil) != tc.shouldFail {
					t.Fatalf("err = %v, shouldFail %v", err, tc.shouldFail)
				}
				wantReasons, wantProvisions := tc.reasons, tc.provisions
				if tc.needsCapacity && driver != nil && *driver.Spec.StorageCapacity {
					wantReasons = append(append(ConflictReasons{}, wantReasons...), ErrReasonNotEnoughSpace)
					wantProvisions = nil
				}
				if !reasonsEqual(reasons, wantReasons) {
					t.Errorf("reasons = %v, want %v", reasons, wantReasons)
				}
				checkBindings(t, got, tc.bindings, wantProvisions)
			})
		}
	}
}

func genericEphemeralPVC(owned bool) (*v1.Pod, *v1.PersistentVolumeClaim) {
	pod := testPod()
	pod.UID = "pod-uid"
	pod.Spec.Volumes = []v1.Volume{{Name: "test-volume", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
	pvc := makeTestPVC("test-pod-test-volume", "1G", "", pvcBound, "pv-bound", "1", immediateClass)
	if owned {
		pvc.OwnerReferences = []metav1.OwnerReference{{Name: pod.Name, UID: pod.UID, Controller: ptrTo(true)}}
	}
	return pod, pvc
}

func TestFindPodVolumesWithoutProvisioning(t *testing.T) {
	ephPod, ownedPVC := genericEphemeralPVC(true)
	_, strayPVC := genericEphemeralPVC(false)
	pvBoundGeneric := makeTestPV("pv-bound", "node1", "1G", "1", ownedPVC, waitClass)
	emptyDirPod := testPod()
	emptyDirPod.Spec.Volumes = []v1.Volume{{VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	noSuchEph := testPod()
	noSuchEph.Spec.Volumes = []v1.Volume{{Name: "no-such-pvc", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
	runFindCases(t, map[string]findCase{
		"no-volumes":                    {pod: testPod()},
		"no-pvcs":                       {pod: emptyDirPod},
		"pvc-not-found":                 {cachePVCs: []*v1.PersistentVolumeClaim{}, podPVCs: []*v1.PersistentVolumeClaim{boundPVC}, shouldFail: true},
		"bound-pvc":                     {podPVCs: []*v1.PersistentVolumeClaim{boundPVC}, pvs: []*v1.PersistentVolume{pvBound}},
		"bound-pvc,pv-not-exists":       {podPVCs: []*v1.PersistentVolumeClaim{boundPVC}, reasons: ConflictReasons{ErrReasonPVNotExist}},
		"prebound-pvc":                  {podPVCs: []*v1.PersistentVolumeClaim{preboundPVC}, pvs: []*v1.PersistentVolume{pvNode1aBound}, shouldFail: true},
		"unbound-pvc,pv-same-node":      {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC}, pvs: []*v1.PersistentVolume{pvNode2, pvNode1a, pvNode1b}, bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}},
		"unbound-pvc,pv-different-node": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC}, pvs: []*v1.PersistentVolume{pvNode2}, reasons: ConflictReasons{ErrReasonBindConflict}},
		"two-unbound-pvcs": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, unboundPVC2}, pvs: []*v1.PersistentVolume{pvNode1a, pvNode1b},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a), binding(unboundPVC2, pvNode1b)}},
		"two-unbound-pvcs,order-by-size": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC2, unboundPVC}, pvs: []*v1.PersistentVolume{pvNode1a, pvNode1b},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a), binding(unboundPVC2, pvNode1b)}},
		"two-unbound-pvcs,partial-match": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, unboundPVC2}, pvs: []*v1.PersistentVolume{pvNode1a},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, reasons: ConflictReasons{ErrReasonBindConflict}},
		"one-bound,one-unbound": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, boundPVC}, pvs: []*v1.PersistentVolume{pvBound, pvNode1a},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}},
		"one-bound,one-unbound,no-match": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, boundPVC}, pvs: []*v1.PersistentVolume{pvBound, pvNode2},
			reasons: ConflictReasons{ErrReasonBindConflict}},
		"one-prebound,one-unbound":                   {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, preboundPVC}, pvs: []*v1.PersistentVolume{pvNode1a, pvNode1b}, shouldFail: true},
		"immediate-bound-pvc":                        {podPVCs: []*v1.PersistentVolumeClaim{immediateBoundPVC}, pvs: []*v1.PersistentVolume{pvBoundImmediate}},
		"immediate-bound-pvc-wrong-node":             {podPVCs: []*v1.PersistentVolumeClaim{immediateBoundPVC}, pvs: []*v1.PersistentVolume{pvBoundImmediateNode2}, reasons: ConflictReasons{ErrReasonNodeConflict}},
		"immediate-unbound-pvc":                      {podPVCs: []*v1.PersistentVolumeClaim{immediateUnboundPVC}, shouldFail: true},
		"immediate-unbound-pvc,delayed-mode-bound":   {podPVCs: []*v1.PersistentVolumeClaim{immediateUnboundPVC, boundPVC}, pvs: []*v1.PersistentVolume{pvBound}, shouldFail: true},
		"immediate-unbound-pvc,delayed-mode-unbound": {podPVCs: []*v1.PersistentVolumeClaim{immediateUnboundPVC, unboundPVC}, shouldFail: true},
		"generic-ephemeral,no-pvc":                   {pod: noSuchEph, shouldFail: true},
		"generic-ephemeral,with-pvc":                 {pod: ephPod, cachePVCs: []*v1.PersistentVolumeClaim{ownedPVC}, pvs: []*v1.PersistentVolume{pvBoundGeneric}},
		"generic-ephemeral,wrong-pvc":                {pod: ephPod, cachePVCs: []*v1.PersistentVolumeClaim{strayPVC}, pvs: []*v1.PersistentVolume{pvBoundGeneric}, shouldFail: true},
	})
}

func TestFindPodVolumesWithProvisioning(t *testing.T) {
	runFindCases(t, map[string]findCase{
		"one-provisioned": {podPVCs: []*v1.PersistentVolumeClaim{provisionedPVC}, provisions: []*DynamicProvision{{PVC: provisionedPVC}}, needsCapacity: true},
		"two-unbound-pvcs,one-matched,one-provisioned": {podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, provisionedPVC}, pvs: []*v1.PersistentVolume{pvNode1a},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, provisions: []*DynamicProvision{{PVC: provisionedPVC}}, needsCapacity: true},
		"one-bound,one-provisioned": {podPVCs: []*v1.PersistentVolumeClaim{boundPVC, provisionedPVC}, pvs: []*v1.PersistentVolume{pvBound},
			provisions: []*DynamicProvision{{PVC: provisionedPVC}}, needsCapacity: true},
		"one-binding,one-selected-node": {podPVCs: []*v1.PersistentVolumeClaim{boundPVC, selectedNodePVC}, pvs: []*v1.PersistentVolume{pvBound},
			provisions: []*DynamicProvision{{PVC: selectedNodePVC}}, needsCapacity: true},
		"immediate-unbound-pvc": {podPVCs: []*v1.PersistentVolumeClaim{immediateUnboundPVC}, shouldFail: true},
		"one-immediate-bound,one-provisioned": {podPVCs: []*v1.PersistentVolumeClaim{immediateBoundPVC, provisionedPVC}, pvs: []*v1.PersistentVolume{pvBoundImmediate},
			provisions: []*DynamicProvision{{PVC: provisionedPVC}}, needsCapacity: true},
		"invalid-provisioner":         {podPVCs: []*v1.PersistentVolumeClaim{noProvisionerPVC}, reasons: ConflictReasons{ErrReasonBindConflict}},
		"volume-topology-unsatisfied": {podPVCs: []*v1.PersistentVolumeClaim{topoMismatchPVC}, reasons: ConflictReasons{ErrReasonBindConflict}},
	})
}

func TestFindPodVolumesWithCSIMigration(t *testing.T) {
	boundMigrationPVC := makeTestPVC("pvc-migration-bound", "1G", "", pvcBound, "pv-migration-bound", "1", waitClass)
	migrationPV := makeTestPV("pv-migration-bound", "node1", "1G", "1", boundMigrationPVC, waitClass)
	migrationPV.Spec.NodeAffinity = nil
	migrationPV.Labels = map[string]string{v1.LabelFailureDomainBetaZone: "us-east-1", v1.LabelFailureDomainBetaRegion: "us-east-1a"}
	migrationPV.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: "test-disk", FSType: "ext4"}
	regionalBadPV := migrationPV.DeepCopy()
	regionalBadPV.Labels = map[string]string{v1.LabelTopologyZone: "us-east1-a__bad"}

	csiNode := func(migrated string) *storagev1.CSINode {
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node1", Annotations: map[string]string{v1.MigratedPluginsAnnotationKey: migrated}}}
	}
	zone1 := makeNode("node1", csimigration.GCEPDTopologyKey, "us-east-1")
	zone2 := makeNode("node1", csimigration.GCEPDTopologyKey, "us-east-2")
	tests := []struct {
		name    string
		pv      *v1.PersistentVolume
		node    *v1.Node
		csiNode *storagev1.CSINode
		reasons ConflictReasons
		wantErr string
	}{
		{name: "pvc-bound", pv: migrationPV, node: zone1, csiNode: csiNode(csimigration.GCEPDInTreePluginName)},
		{name: "pvc-bound,csinode-not-migrated", pv: migrationPV, node: zone1, csiNode: csiNode("")},
		{name: "pvc-bound,missing-csinode", pv: migrationPV, node: zone1},
		{name: "pvc-bound,node-different-zone", pv: migrationPV, node: zone2, csiNode: csiNode(csimigration.GCEPDInTreePluginName), reasons: ConflictReasons{ErrReasonNodeConflict}},
		{name: "annotation is split on commas only", pv: migrationPV, node: zone2, csiNode: csiNode("kubernetes.io/aws-ebs, " + csimigration.GCEPDInTreePluginName)},
		{name: "annotation lists several plugins", pv: migrationPV, node: zone2, csiNode: csiNode("kubernetes.io/aws-ebs," + csimigration.GCEPDInTreePluginName), reasons: ConflictReasons{ErrReasonNodeConflict}},
		{name: "untranslatable PV", pv: regionalBadPV, node: zone1, csiNode: csiNode(csimigration.GCEPDInTreePluginName),
			wantErr: "could not translate pv: failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: bad"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := []any{boundMigrationPVC, tc.pv}
			if tc.csiNode != nil {
				objs = append(objs, tc.csiNode)
			}
			b, _ := newTestBinder(objs...)
			_, reasons, err := findPodVolumes(b, testPod(boundMigrationPVC), tc.node)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reasonsEqual(reasons, tc.reasons) {
				t.Errorf("reasons = %v, want %v", reasons, tc.reasons)
			}
		})
	}
}

func TestAssumePodVolumes(t *testing.T) {
	tests := []struct {
		name           string
		podPVCs        []*v1.PersistentVolumeClaim
		storePVCs      []*v1.PersistentVolumeClaim // nil: podPVCs
		pvs            []*v1.PersistentVolume
		bindings       []*BindingInfo
		provisions     []*DynamicProvision
		shouldFail     bool
		wantAllBound   bool
		wantBindings   []*BindingInfo
		wantProvisions []*DynamicProvision
	}{
		{name: "all-bound", podPVCs: []*v1.PersistentVolumeClaim{boundPVC}, pvs: []*v1.PersistentVolume{pvBound}, wantAllBound: true},
		{name: "one-binding", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC}, bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)},
			pvs: []*v1.PersistentVolume{pvNode1a}, wantBindings: []*BindingInfo{binding(unboundPVC, pvNode1aBound)}},
		{name: "two-bindings", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, unboundPVC2},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a), binding(unboundPVC2, pvNode1b)}, pvs: []*v1.PersistentVolume{pvNode1a, pvNode1b},
			wantBindings: []*BindingInfo{binding(unboundPVC, pvNode1aBound), binding(unboundPVC2, pvNode1bBound)}},
		{name: "pv-already-bound", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC}, bindings: []*BindingInfo{binding(unboundPVC, pvNode1aBound)},
			pvs: []*v1.PersistentVolume{pvNode1aBound}, wantBindings: []*BindingInfo{binding(unboundPVC, pvNode1aBound)}},
		{name: "tmpupdate-failed", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a), binding(unboundPVC2, pvNode1b)}, pvs: []*v1.PersistentVolume{pvNode1a}, shouldFail: true},
		{name: "one-binding, one-pvc-provisioned", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, provisionedPVC},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, pvs: []*v1.PersistentVolume{pvNode1a}, provisions: []*DynamicProvision{{PVC: provisionedPVC}},
			wantBindings: []*BindingInfo{binding(unboundPVC, pvNode1aBound)}, wantProvisions: []*DynamicProvision{{PVC: selectedNodePVC}}},
		{name: "one-binding, one-provision-tmpupdate-failed", podPVCs: []*v1.PersistentVolumeClaim{unboundPVC, provisionedPVCHigherVersion},
			bindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, pvs: []*v1.PersistentVolume{pvNode1a},
			provisions: []*DynamicProvision{{PVC: provisionedPVC2}}, shouldFail: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var objs []any
			for _, pvc := range tc.podPVCs {
				objs = append(objs, pvc)
			}
			for _, pv := range tc.pvs {
				objs = append(objs, pv)
			}
			b, _ := newTestBinder(objs...)
			pod := testPod(tc.podPVCs...)
			pv := &PodVolumes{StaticBindings: tc.bindings, DynamicProvisions: tc.provisions}
			allBound, err := b.AssumePodVolumes(pod, "node1", pv)
			if (err != nil) != tc.shouldFail {
				t.Fatalf("err = %v, shouldFail %v", err, tc.shouldFail)
			}
			if allBound != tc.wantAllBound {
				t.Errorf("allBound = %v", allBound)
			}
			if tc.shouldFail {
				// Every assumption was rolled back.
				for _, bi := range tc.bindings {
					if got, err := b.pvCache.Get(bi.pv.Name); err == nil && got.Spec.ClaimRef != nil {
						t.Errorf("PV %s still assumed", bi.pv.Name)
					}
				}
				for _, p := range tc.provisions {
					if got, err := b.pvcCache.Get(pvcKey(p.PVC)); err == nil && got.Annotations[volume.AnnSelectedNode] != "" {
						t.Errorf("claim %s still assumed", p.PVC.Name)
					}
				}
				return
			}
			wantB, wantP := tc.wantBindings, tc.wantProvisions
			if wantB == nil {
				wantB = tc.bindings
			}
			if wantP == nil && tc.wantBindings != nil {
				wantP = []*DynamicProvision{}
			}
			checkBindings(t, pv, wantB, wantP)
			for _, bi := range wantB {
				got, err := b.pvCache.Get(bi.pv.Name)
				if err != nil || got.Spec.ClaimRef == nil || got.Spec.ClaimRef.Name != bi.pvc.Name || got.Spec.ClaimRef.Namespace != bi.pvc.Namespace {
					t.Errorf("PV %s not assumed bound to %s", bi.pv.Name, bi.pvc.Name)
				}
			}
			for _, p := range wantP {
				got, err := b.pvcCache.Get(pvcKey(p.PVC))
				if err != nil || got.Annotations[volume.AnnSelectedNode] != "node1" {
					t.Errorf("claim %s not assumed for node1", p.PVC.Name)
				}
			}
		})
	}
}

func TestRevertAssumedPodVolumes(t *testing.T) {
	b, h := newTestBinder(unboundPVC, provisionedPVC, pvNode1a)
	pod := testPod(unboundPVC, provisionedPVC)
	pv := &PodVolumes{StaticBindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, DynamicProvisions: []*DynamicProvision{{PVC: provisionedPVC}}}
	if allBound, err := b.AssumePodVolumes(pod, "node1", pv); allBound || err != nil {
		t.Fatalf("AssumePodVolumes = %v, %v", allBound, err)
	}
	if got, _ := b.pvCache.Get("pv-node1a"); got.Spec.ClaimRef == nil {
		t.Fatal("PV not assumed")
	}
	b.RevertAssumedPodVolumes(pv)
	stored, _ := h.Store.PersistentVolume("pv-node1a")
	if got, _ := b.pvCache.Get("pv-node1a"); got != stored {
		t.Error("PV assumption not reverted")
	}
	if got, _ := b.pvcCache.Get(pvcKey(provisionedPVC)); got.Annotations[volume.AnnSelectedNode] != "" {
		t.Error("claim assumption not reverted")
	}
}

// TestAssumptionExpiry: an assumption lasts until the store holds another
// object, as the informer's update expires it upstream.
func TestAssumptionExpiry(t *testing.T) {
	b, h := newTestBinder(unboundPVC, pvNode1a)
	pv := &PodVolumes{StaticBindings: []*BindingInfo{binding(unboundPVC, pvNode1a)}, DynamicProvisions: []*DynamicProvision{}}
	if _, err := b.AssumePodVolumes(testPod(unboundPVC), "node1", pv); err != nil {
		t.Fatal(err)
	}
	// A resync of the same object keeps the assumption.
	h.Store.Add(pvNode1a)
	if got, _ := b.pvCache.Get("pv-node1a"); got.Spec.ClaimRef == nil {
		t.Error("assumption lost on a resync")
	}
	// A new version replaces it.
	updated := pvNode1a.DeepCopy()
	updated.ResourceVersion = "2"
	h.Store.Add(updated)
	if got, _ := b.pvCache.Get("pv-node1a"); got != updated {
		t.Error("assumption survived an update")
	}
	// Without resource versions, a new object replaces it too.
	noRV := pvNode2.DeepCopy()
	noRV.ResourceVersion = ""
	b2, h2 := newTestBinder(unboundPVC, noRV)
	pv2 := &PodVolumes{StaticBindings: []*BindingInfo{binding(unboundPVC, noRV)}, DynamicProvisions: []*DynamicProvision{}}
	if _, err := b2.AssumePodVolumes(testPod(unboundPVC), "node2", pv2); err != nil {
		t.Fatal(err)
	}
	if got, _ := b2.pvCache.Get(noRV.Name); got.Spec.ClaimRef == nil {
		t.Fatal("not assumed")
	}
	h2.Store.Add(noRV.DeepCopy())
	if got, _ := b2.pvCache.Get(noRV.Name); got.Spec.ClaimRef != nil {
		t.Error("assumption survived a replaced object")
	}
	if _, err := b2.pvCache.Get("missing"); err == nil || err.Error() != `persistentvolumes "missing" not found` {
		t.Errorf("missing PV error = %v", err)
	}
}

func TestBoundToClaimUID(t *testing.T) {
	// GetBindVolumeToClaim records the claim's UID; a stray UID blocks
	// matching the PV to another claim of the same name.
	other := unboundPVC.DeepCopy()
	other.UID = types.UID("other")
	b, _ := newTestBinder(other, pvNode1aBound)
	_, reasons, err := findPodVolumes(b, testPod(other), testNode1)
	if err != nil || !reasonsEqual(reasons, ConflictReasons{ErrReasonBindConflict}) {
		t.Errorf("reasons = %v, err = %v", reasons, err)
	}
}
