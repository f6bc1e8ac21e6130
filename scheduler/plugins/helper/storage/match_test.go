package storage

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func typesUID(s string) types.UID { return types.UID(s) }

func nodeAffinityIn(key, value string) *v1.VolumeNodeAffinity {
	return requiredTerms([]v1.NodeSelectorRequirement{inTerm(key, value)})
}

func makeClaim(name, size string, modes []v1.PersistentVolumeAccessMode, modify func(*v1.PersistentVolumeClaim)) *v1.PersistentVolumeClaim {
	fs := v1.PersistentVolumeFilesystem
	class := "wait"
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "myns"},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      modes,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}},
			StorageClassName: &class,
			VolumeMode:       &fs,
		},
	}
	if modify != nil {
		modify(c)
	}
	return c
}

func makeVolume(uid, name, capacity string, available bool, modify func(*v1.PersistentVolume)) *v1.PersistentVolume {
	fs := v1.PersistentVolumeFilesystem
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name},
		Spec: v1.PersistentVolumeSpec{
			Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)},
			PersistentVolumeSource: v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{}},
			AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany},
			VolumeMode:             &fs,
		},
	}
	if available {
		pv.Status.Phase = v1.VolumeAvailable
	}
	if modify != nil {
		modify(pv)
	}
	return pv
}

func withVAC(name string, in []*v1.PersistentVolume) []*v1.PersistentVolume {
	out := make([]*v1.PersistentVolume, len(in))
	for i, pv := range in {
		out[i] = pv.DeepCopy()
		out[i].Spec.VolumeAttributesClassName = &name
	}
	return out
}

func labelledNode(value string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"key1": value}}}
}

// Scenarios of upstream's TestFindMatchVolumeWithNode (scheduler path).
func TestFindMatchingVolumeWithNode(t *testing.T) {
	gold, silver := "gold", "silver"
	rwo := []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	waitClass := func(pv *v1.PersistentVolume) { pv.Spec.StorageClassName = "wait" }
	volumes := []*v1.PersistentVolume{
		makeVolume("local-small", "local001", "5G", true, nil),
		makeVolume("local-pd-very-large", "local002", "200E", true, func(pv *v1.PersistentVolume) {
			pv.Spec.StorageClassName = "large"
		}),
		makeVolume("affinity-pv", "affinity001", "100G", true, func(pv *v1.PersistentVolume) {
			waitClass(pv)
			pv.Spec.NodeAffinity = nodeAffinityIn("key1", "value1")
		}),
		makeVolume("affinity-pv2", "affinity002", "150G", true, func(pv *v1.PersistentVolume) {
			waitClass(pv)
			pv.Spec.NodeAffinity = nodeAffinityIn("key1", "value1")
		}),
		makeVolume("affinity-prebound", "affinity003", "100G", true, func(pv *v1.PersistentVolume) {
			waitClass(pv)
			pv.Spec.ClaimRef = &v1.ObjectReference{Name: "claim02", Namespace: "myns"}
			pv.Spec.NodeAffinity = nodeAffinityIn("key1", "value1")
		}),
		makeVolume("affinity-pv3", "affinity003", "200G", true, func(pv *v1.PersistentVolume) {
			waitClass(pv)
			pv.Spec.NodeAffinity = nodeAffinityIn("key1", "value3")
		}),
		makeVolume("affinity-pv4", "affinity004", "200G", false, func(pv *v1.PersistentVolume) {
			waitClass(pv)
			pv.Spec.NodeAffinity = nodeAffinityIn("key1", "value4")
		}),
	}
	node1, node2, node3, node4 := labelledNode("value1"), labelledNode("value2"), labelledNode("value3"), labelledNode("value4")
	both := []bool{true, false}

	tests := []struct {
		name       string
		want       string // UID of the expected match, "" for none
		wantErr    string
		claim      *v1.PersistentVolumeClaim
		node       *v1.Node
		volumes    []*v1.PersistentVolume
		excluded   map[string]*v1.PersistentVolume
		vacEnabled []bool
	}{
		{name: "success-match", want: "affinity-pv", volumes: volumes, claim: makeClaim("claim01", "100G", rwo, nil), node: node1, vacEnabled: both},
		{name: "success-prebound", want: "affinity-prebound", volumes: volumes, claim: makeClaim("claim02", "100G", rwo, nil), node: node1, vacEnabled: both},
		{
			name: "success-exclusion", want: "affinity-pv2", volumes: volumes, claim: makeClaim("claim01", "100G", rwo, nil), node: node1,
			excluded: map[string]*v1.PersistentVolume{"affinity001": nil}, vacEnabled: both,
		},
		{
			name: "fail-exclusion", volumes: volumes, claim: makeClaim("claim01", "100G", rwo, nil), node: node1,
			excluded: map[string]*v1.PersistentVolume{"affinity001": nil, "affinity002": nil, "affinity002-vac": nil}, vacEnabled: both,
		},
		{name: "fail-accessmode", volumes: volumes, claim: makeClaim("claim01", "100G", []v1.PersistentVolumeAccessMode{v1.ReadWriteMany}, nil), node: node1, vacEnabled: both},
		{name: "fail-nodeaffinity", volumes: volumes, claim: makeClaim("claim01", "100G", rwo, nil), node: node2, vacEnabled: both},
		{name: "fail-prebound-node-affinity", volumes: volumes, claim: makeClaim("claim02", "100G", rwo, nil), node: node3, vacEnabled: both},
		{name: "fail-nonavaliable", volumes: volumes, claim: makeClaim("claim04", "100G", rwo, nil), node: node4, vacEnabled: both},
		{name: "success-bad-and-good-node-affinity", want: "affinity-pv3", volumes: volumes, claim: makeClaim("claim03", "100G", rwo, nil), node: node3, vacEnabled: both},
		{
			name: "success-match-with-vac", want: "affinity-pv", volumes: withVAC(gold, volumes), node: node1, vacEnabled: []bool{true},
			claim: makeClaim("claim01", "100G", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = &gold }),
		},
		{
			name: "fail-vac", volumes: volumes, node: node1, vacEnabled: []bool{true},
			claim: makeClaim("claim01", "100G", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = &silver }),
		},
		{
			name: "fail-prebound-vac", volumes: withVAC(gold, volumes), node: node1, vacEnabled: []bool{true},
			claim: makeClaim("claim02", "100G", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = &silver }),
		},
		{
			name: "fail-on-error", volumes: volumes, node: node1, vacEnabled: []bool{false},
			claim:   makeClaim("claim01", "100G", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = &gold }),
			wantErr: "unsupported volumeAttributesClassName is set on claim myns/claim01 when the feature-gate VolumeAttributesClass is disabled",
		},
		{name: "fail-volumes-vac", volumes: withVAC(gold, volumes), claim: makeClaim("claim01", "100G", rwo, nil), node: node1, vacEnabled: []bool{false}},
	}
	for _, tc := range tests {
		for _, enabled := range tc.vacEnabled {
			t.Run(fmt.Sprintf("%s/vac=%v", tc.name, enabled), func(t *testing.T) {
				got, err := FindMatchingVolume(tc.claim, tc.volumes, tc.node, tc.excluded, true, enabled)
				checkMatch(t, got, err, tc.want, tc.wantErr)
			})
		}
	}
}

func checkMatch(t *testing.T, got *v1.PersistentVolume, err error, want, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("FindMatchingVolume() error = %v", err)
	case wantErr != "" && (err == nil || err.Error() != wantErr):
		t.Errorf("FindMatchingVolume() error = %v, want %q", err, wantErr)
	}
	switch {
	case want == "" && got != nil:
		t.Errorf("FindMatchingVolume() = %s, want no match", got.UID)
	case want != "" && got == nil:
		t.Errorf("FindMatchingVolume() = nil, want %s", want)
	case want != "" && string(got.UID) != want:
		t.Errorf("FindMatchingVolume() = %s, want %s", got.UID, want)
	}
}

// The remaining rules: the PV controller path (node == nil), selectors,
// volume modes, deletion, phases, classes and tie-breaking.
func TestFindMatchingVolumeRules(t *testing.T) {
	rwo := []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	block := v1.PersistentVolumeBlock
	classed := func(uid, size string, modify func(*v1.PersistentVolume)) *v1.PersistentVolume {
		return makeVolume(uid, uid, size, true, func(pv *v1.PersistentVolume) {
			pv.Spec.StorageClassName = "wait"
			if modify != nil {
				modify(pv)
			}
		})
	}
	prebound := func(pv *v1.PersistentVolume) {
		pv.Spec.ClaimRef = &v1.ObjectReference{Name: "claim", Namespace: "myns"}
	}
	now := metav1.Now()

	tests := []struct {
		name         string
		claim        *v1.PersistentVolumeClaim
		volumes      []*v1.PersistentVolume
		node         *v1.Node
		delayBinding bool
		want         string
		wantErr      string
	}{
		{
			name:    "controller path picks smallest fitting",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("big", "100G", nil), classed("small", "5G", nil), classed("fit", "20G", nil)},
			want:    "fit",
		},
		{
			name:    "first of equal sizes wins",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("a", "20G", nil), classed("b", "20G", nil)},
			want:    "a",
		},
		{
			name:    "equal quantities in other units tie",
			claim:   makeClaim("claim", "1Gi", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("a", "1024Mi", nil), classed("b", "1Gi", nil)},
			want:    "a",
		},
		{
			name:         "controller with delayBinding skips unbound",
			claim:        makeClaim("claim", "10G", rwo, nil),
			volumes:      []*v1.PersistentVolume{classed("fit", "20G", nil)},
			delayBinding: true,
		},
		{
			name:         "controller with delayBinding still returns prebound",
			claim:        makeClaim("claim", "10G", rwo, nil),
			volumes:      []*v1.PersistentVolume{classed("fit", "20G", nil), classed("pre", "50G", prebound)},
			delayBinding: true,
			want:         "pre",
		},
		{
			name:    "prebound wins over smaller and ignores phase, class and access modes",
			claim:   makeClaim("claim", "10G", []v1.PersistentVolumeAccessMode{v1.ReadWriteMany}, nil),
			volumes: []*v1.PersistentVolume{classed("fit", "20G", nil), makeVolume("pre", "pre", "50G", false, prebound)},
			node:    labelledNode("x"),
			want:    "pre",
		},
		{
			name:    "prebound too small is skipped",
			claim:   makeClaim("claim", "100G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("pre", "50G", prebound), classed("fit", "200G", nil)},
			want:    "fit",
		},
		{
			name:    "bound to another claim is skipped",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("other", "20G", func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef = &v1.ObjectReference{Name: "x", Namespace: "myns"} })},
		},
		{
			name:    "volume mode mismatch",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("blk", "20G", func(pv *v1.PersistentVolume) { pv.Spec.VolumeMode = &block })},
		},
		{
			name:    "nil volume modes default to filesystem",
			claim:   makeClaim("claim", "10G", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeMode = nil }),
			volumes: []*v1.PersistentVolume{classed("fs", "20G", func(pv *v1.PersistentVolume) { pv.Spec.VolumeMode = nil })},
			want:    "fs",
		},
		{
			name:    "deleting volume skipped",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("del", "20G", func(pv *v1.PersistentVolume) { pv.DeletionTimestamp = &now; prebound(pv) })},
		},
		{
			name:    "released volume skipped",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("rel", "20G", func(pv *v1.PersistentVolume) { pv.Status.Phase = v1.VolumeReleased })},
		},
		{
			name:    "class mismatch",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("other", "20G", func(pv *v1.PersistentVolume) { pv.Spec.StorageClassName = "gold" })},
		},
		{
			name: "selector filters",
			claim: makeClaim("claim", "10G", rwo, func(c *v1.PersistentVolumeClaim) {
				c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "fast"}}
			}),
			volumes: []*v1.PersistentVolume{
				classed("slow", "20G", func(pv *v1.PersistentVolume) { pv.Labels = map[string]string{"tier": "slow"} }),
				classed("fast", "30G", func(pv *v1.PersistentVolume) { pv.Labels = map[string]string{"tier": "fast"} }),
			},
			want: "fast",
		},
		{
			name: "bad selector",
			claim: makeClaim("claim", "10G", rwo, func(c *v1.PersistentVolumeClaim) {
				c.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Bogus"}}}
			}),
			volumes: []*v1.PersistentVolume{classed("fit", "20G", nil)},
			wantErr: `error creating internal label selector for claim: myns/claim: "Bogus" is not a valid label selector operator`,
		},
		{
			name:    "access modes not checked without node",
			claim:   makeClaim("claim", "10G", []v1.PersistentVolumeAccessMode{v1.ReadWriteMany}, nil),
			volumes: []*v1.PersistentVolume{classed("fit", "20G", nil)},
			want:    "fit",
		},
		{
			name:    "node affinity not checked without node",
			claim:   makeClaim("claim", "10G", rwo, nil),
			volumes: []*v1.PersistentVolume{classed("fit", "20G", func(pv *v1.PersistentVolume) { pv.Spec.NodeAffinity = nodeAffinityIn("key1", "nowhere") })},
			want:    "fit",
		},
		{
			name:    "no storage request matches anything",
			claim:   makeClaim("claim", "1", rwo, func(c *v1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }),
			volumes: []*v1.PersistentVolume{classed("fit", "1", nil)},
			want:    "fit",
		},
	}
	for _, tc := range tests {
		for _, vac := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/vac=%v", tc.name, vac), func(t *testing.T) {
				got, err := FindMatchingVolume(tc.claim, tc.volumes, tc.node, nil, tc.delayBinding, vac)
				checkMatch(t, got, err, tc.want, tc.wantErr)
			})
		}
	}
}

func TestCheckAccessModes(t *testing.T) {
	m := func(modes ...v1.PersistentVolumeAccessMode) []v1.PersistentVolumeAccessMode { return modes }
	tests := []struct {
		claim, volume []v1.PersistentVolumeAccessMode
		want          bool
	}{
		{claim: nil, volume: nil, want: true},
		{claim: m(v1.ReadWriteOnce), volume: nil, want: false},
		{claim: m(v1.ReadWriteOnce), volume: m(v1.ReadOnlyMany, v1.ReadWriteOnce), want: true},
		{claim: m(v1.ReadWriteOnce, v1.ReadWriteMany), volume: m(v1.ReadWriteOnce), want: false},
		{claim: nil, volume: m(v1.ReadWriteOncePod), want: true},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%v in %v", tc.claim, tc.volume)
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			claim := &v1.PersistentVolumeClaim{Spec: v1.PersistentVolumeClaimSpec{AccessModes: tc.claim}}
			pv := &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{AccessModes: tc.volume}}
			if got := CheckAccessModes(claim, pv); got != tc.want {
				t.Errorf("CheckAccessModes() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckVolumeModeMismatches(t *testing.T) {
	fs, blk := v1.PersistentVolumeFilesystem, v1.PersistentVolumeBlock
	tests := []struct {
		claim, volume *v1.PersistentVolumeMode
		want          bool
	}{
		{nil, nil, false},
		{&fs, nil, false},
		{nil, &fs, false},
		{&blk, nil, true},
		{nil, &blk, true},
		{&blk, &blk, false},
		{&fs, &blk, true},
	}
	for i, tc := range tests {
		got := CheckVolumeModeMismatches(&v1.PersistentVolumeClaimSpec{VolumeMode: tc.claim}, &v1.PersistentVolumeSpec{VolumeMode: tc.volume})
		if got != tc.want {
			t.Errorf("case %d: CheckVolumeModeMismatches() = %v, want %v", i, got, tc.want)
		}
	}
}
