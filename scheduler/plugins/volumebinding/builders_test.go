package volumebinding

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	volume "github.com/schedtui/schedtui/scheduler/plugins/helper/storage"
)

const nodeLabelKey = "nodeKey"

func statusString(s *framework.Status) string {
	if s == nil {
		return "<nil>"
	}
	return s.Code().String() + ": " + s.Message()
}

func ptrTo[T any](v T) *T { return &v }

func makeNode(name string, kv ...string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func nodeInfo(n *v1.Node) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return ni
}

// pvOpt edits a PV under construction.
type pvOpt func(*v1.PersistentVolume)

func makePV(name, class string, opts ...pvOpt) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeSpec{StorageClassName: class}}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func available(pv *v1.PersistentVolume) { pv.Status.Phase = v1.VolumeAvailable }

func capacity(q string) pvOpt {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(q)}
	}
}

// nodeAffinity builds one term of "key In values" requirements, keys in
// the given order.
func nodeAffinity(kv ...string) pvOpt {
	return func(pv *v1.PersistentVolume) {
		var reqs []v1.NodeSelectorRequirement
		for i := 0; i+1 < len(kv); i += 2 {
			reqs = append(reqs, v1.NodeSelectorRequirement{Key: kv[i], Operator: v1.NodeSelectorOpIn, Values: []string{kv[i+1]}})
		}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
	}
}

type pvcOpt func(*v1.PersistentVolumeClaim)

func makePVC(name, class string, opts ...pvcOpt) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceDefault},
		Spec:       v1.PersistentVolumeClaimSpec{StorageClassName: ptrTo(class)},
	}
	for _, o := range opts {
		o(pvc)
	}
	return pvc
}

func boundTo(pv string) pvcOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.VolumeName = pv
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volume.AnnBindCompleted, "true")
	}
}

func request(q string) pvcOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: resource.MustParse(q)}
	}
}

func makePod(name string, claims ...string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceDefault, UID: types.UID("uid-" + name)}}
	for i, c := range claims {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: fmt.Sprintf("vol%d", i),
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
	}
	return p
}

func withEphemeral(p *v1.Pod, vol string) *v1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: vol, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}})
	return p
}

// makeCapacity is a CSIStorageCapacity of class reachable from nodes with
// nodeKey=node (from every node when node is "").
func makeCapacity(name, class, node, capacityStr, maxSize string) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: name}, StorageClassName: class, NodeTopology: &metav1.LabelSelector{}}
	if node != "" {
		c.NodeTopology.MatchLabels = map[string]string{nodeLabelKey: node}
	}
	if capacityStr != "" {
		q := resource.MustParse(capacityStr)
		c.Capacity = &q
	}
	if maxSize != "" {
		q := resource.MustParse(maxSize)
		c.MaximumVolumeSize = &q
	}
	return c
}

var (
	immediateMode = storagev1.VolumeBindingImmediate
	waitMode      = storagev1.VolumeBindingWaitForFirstConsumer
	immediateSC   = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "immediate-sc"}, VolumeBindingMode: &immediateMode}
	waitSC        = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "wait-sc"}, VolumeBindingMode: &waitMode}
	waitHDDSC     = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "wait-hdd-sc"}, VolumeBindingMode: &waitMode}
	waitSCCap     = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "wait-sc-with-storage-capacity"},
		Provisioner: "driver-with-storage-capacity", VolumeBindingMode: &waitMode}
	driverWithCapacity = &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "driver-with-storage-capacity"},
		Spec: storagev1.CSIDriverSpec{StorageCapacity: ptrTo(true)}}
)
