package storage

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAnnotationKeys pins the keys: other components (the PV controller,
// external provisioners) read them, so they must match upstream exactly.
func TestAnnotationKeys(t *testing.T) {
	for got, want := range map[string]string{
		AnnBindCompleted:                    "pv.kubernetes.io/bind-completed",
		AnnBoundByController:                "pv.kubernetes.io/bound-by-controller",
		AnnSelectedNode:                     "volume.kubernetes.io/selected-node",
		NotSupportedProvisioner:             "kubernetes.io/no-provisioner",
		AnnDynamicallyProvisioned:           "pv.kubernetes.io/provisioned-by",
		AnnMigratedTo:                       "pv.kubernetes.io/migrated-to",
		AnnStorageProvisioner:               "volume.kubernetes.io/storage-provisioner",
		AnnBetaStorageProvisioner:           "volume.beta.kubernetes.io/storage-provisioner",
		PVDeletionProtectionFinalizer:       "external-provisioner.volume.kubernetes.io/finalizer",
		PVDeletionInTreeProtectionFinalizer: "kubernetes.io/pv-controller",
	} {
		if got != want {
			t.Errorf("constant = %q, want %q", got, want)
		}
	}
}

var testNodeLabels = map[string]string{
	"test-key1": "test-value1",
	"test-key2": "test-value2",
}

func inTerm(key string, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
}

func requiredTerms(terms ...[]v1.NodeSelectorRequirement) *v1.VolumeNodeAffinity {
	sel := &v1.NodeSelector{}
	for _, exprs := range terms {
		sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: exprs})
	}
	return &v1.VolumeNodeAffinity{Required: sel}
}

func pvWithAffinity(affinity *v1.VolumeNodeAffinity) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "test-constraints"},
		Spec:       v1.PersistentVolumeSpec{NodeAffinity: affinity},
	}
}

// Cases from upstream's TestCheckVolumeNodeAffinity, plus error texts.
func TestCheckNodeAffinity(t *testing.T) {
	tests := []struct {
		name    string
		pv      *v1.PersistentVolume
		wantErr string // "" means match
	}{
		{name: "valid-nil", pv: pvWithAffinity(nil)},
		{name: "valid-no-constraints", pv: pvWithAffinity(&v1.VolumeNodeAffinity{})},
		{
			name:    "select-nothing",
			pv:      pvWithAffinity(&v1.VolumeNodeAffinity{Required: &v1.NodeSelector{}}),
			wantErr: "no matching NodeSelectorTerms",
		},
		{
			name:    "select-nothing-empty-terms",
			pv:      pvWithAffinity(requiredTerms([]v1.NodeSelectorRequirement{})),
			wantErr: "no matching NodeSelectorTerms",
		},
		{
			name: "valid-multiple-terms",
			pv: pvWithAffinity(requiredTerms(
				[]v1.NodeSelectorRequirement{inTerm("test-key3", "test-value1", "test-value3")},
				[]v1.NodeSelectorRequirement{inTerm("test-key2", "test-value0", "test-value2")},
			)),
		},
		{
			name: "valid-multiple-match-expressions",
			pv: pvWithAffinity(requiredTerms([]v1.NodeSelectorRequirement{
				inTerm("test-key1", "test-value1", "test-value3"),
				inTerm("test-key2", "test-value0", "test-value2"),
			})),
		},
		{
			name: "invalid-multiple-match-expressions-key",
			pv: pvWithAffinity(requiredTerms([]v1.NodeSelectorRequirement{
				inTerm("test-key1", "test-value1", "test-value3"),
				inTerm("test-key3", "test-value0", "test-value2"),
			})),
			wantErr: "no matching NodeSelectorTerms",
		},
		{
			name: "invalid-multiple-match-expressions-values",
			pv: pvWithAffinity(requiredTerms([]v1.NodeSelectorRequirement{
				inTerm("test-key1", "test-value3", "test-value4"),
				inTerm("test-key2", "test-value0", "test-value2"),
			})),
			wantErr: "no matching NodeSelectorTerms",
		},
		{
			name: "invalid-multiple-terms",
			pv: pvWithAffinity(requiredTerms(
				[]v1.NodeSelectorRequirement{inTerm("test-key3", "test-value1", "test-value3")},
				[]v1.NodeSelectorRequirement{inTerm("test-key2", "test-value0", "test-value1")},
			)),
			wantErr: "no matching NodeSelectorTerms",
		},
		{
			// An unparsable term is reported as the selector's own error.
			name: "bad-operator",
			pv: pvWithAffinity(requiredTerms([]v1.NodeSelectorRequirement{
				{Key: "test-key1", Operator: "Bogus", Values: []string{"x"}},
			})),
			wantErr: `nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Bogus": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNodeAffinity(tc.pv, testNodeLabels)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("CheckNodeAffinity() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("CheckNodeAffinity() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestStorageClassNames(t *testing.T) {
	empty, gold := "", "gold"
	tests := []struct {
		name      string
		pvc       *v1.PersistentVolumeClaim
		wantHas   bool
		wantClass string
	}{
		{name: "no storage class", pvc: &v1.PersistentVolumeClaim{}},
		{
			name:    "storage class set on annotation",
			pvc:     &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.BetaStorageClassAnnotation: ""}}},
			wantHas: true,
		},
		{
			name:    "storage class set on spec",
			pvc:     &v1.PersistentVolumeClaim{Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &empty}},
			wantHas: true,
		},
		{
			name:      "named class on spec",
			pvc:       &v1.PersistentVolumeClaim{Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &gold}},
			wantHas:   true,
			wantClass: "gold",
		},
		{
			name: "annotation wins over spec",
			pvc: &v1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.BetaStorageClassAnnotation: "silver"}},
				Spec:       v1.PersistentVolumeClaimSpec{StorageClassName: &gold},
			},
			wantHas:   true,
			wantClass: "silver",
		},
		{
			name: "empty annotation wins over spec",
			pvc: &v1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.BetaStorageClassAnnotation: ""}},
				Spec:       v1.PersistentVolumeClaimSpec{StorageClassName: &gold},
			},
			wantHas: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PersistentVolumeClaimHasClass(tc.pvc); got != tc.wantHas {
				t.Errorf("PersistentVolumeClaimHasClass() = %v, want %v", got, tc.wantHas)
			}
			if got := GetPersistentVolumeClaimClass(tc.pvc); got != tc.wantClass {
				t.Errorf("GetPersistentVolumeClaimClass() = %q, want %q", got, tc.wantClass)
			}
		})
	}

	pvTests := []struct {
		name string
		pv   *v1.PersistentVolume
		want string
	}{
		{name: "none", pv: &v1.PersistentVolume{}},
		{name: "spec", pv: &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{StorageClassName: "gold"}}, want: "gold"},
		{
			name: "annotation wins",
			pv: &v1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1.BetaStorageClassAnnotation: ""}},
				Spec:       v1.PersistentVolumeSpec{StorageClassName: "gold"},
			},
			want: "",
		},
	}
	for _, tc := range pvTests {
		t.Run("pv/"+tc.name, func(t *testing.T) {
			if got := GetPersistentVolumeClass(tc.pv); got != tc.want {
				t.Errorf("GetPersistentVolumeClass() = %q, want %q", got, tc.want)
			}
		})
	}
}
