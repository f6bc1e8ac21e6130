package storage

import (
	"errors"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func claimWithClass(class *string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}},
		Spec:       v1.PersistentVolumeClaimSpec{StorageClassName: class},
	}
}

// classGetter looks classes up in a map, answering NotFound as the
// framework's object store (and client-go's listers) do.
func classGetter(classes ...*storagev1.StorageClass) StorageClassGetter {
	byName := map[string]*storagev1.StorageClass{}
	for _, c := range classes {
		byName[c.Name] = c
	}
	return func(name string) (*storagev1.StorageClass, error) {
		if c, ok := byName[name]; ok {
			return c, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclass"}, name)
	}
}

// Cases from upstream's TestDelayBindingMode, plus error texts and a
// lookup failure other than NotFound.
func TestIsDelayBindingMode(t *testing.T) {
	str := func(s string) *string { return &s }
	immediate := storagev1.VolumeBindingImmediate
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	class := func(name string, mode *storagev1.VolumeBindingMode) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, VolumeBindingMode: mode}
	}
	getter := classGetter(
		class("no-mode", nil),
		class("immediate-mode", &immediate),
		class("wait-mode", &wait),
	)
	boom := errors.New("boom")
	failing := func(string) (*storagev1.StorageClass, error) { return nil, boom }

	tests := []struct {
		name      string
		pvc       *v1.PersistentVolumeClaim
		getter    StorageClassGetter
		wantDelay bool
		wantErr   string
	}{
		{name: "nil-class", pvc: claimWithClass(nil)},
		{name: "empty-class", pvc: claimWithClass(str(""))},
		{name: "class-not-found", pvc: claimWithClass(str("not-here"))},
		{name: "no-mode-class", pvc: claimWithClass(str("no-mode")), wantErr: `VolumeBindingMode not set for StorageClass "no-mode"`},
		{name: "immediate-mode-class", pvc: claimWithClass(str("immediate-mode"))},
		{name: "wait-mode-class", pvc: claimWithClass(str("wait-mode")), wantDelay: true},
		{
			name: "beta-annotation-class",
			pvc: &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
				Annotations: map[string]string{v1.BetaStorageClassAnnotation: "wait-mode"},
			}},
			wantDelay: true,
		},
		{name: "lookup-error", pvc: claimWithClass(str("wait-mode")), getter: failing, wantErr: "boom"},
		{name: "no-lookup-without-class", pvc: claimWithClass(nil), getter: failing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := getter
			if tc.getter != nil {
				g = tc.getter
			}
			delay, err := IsDelayBindingMode(tc.pvc, g)
			if tc.wantErr == "" && err != nil {
				t.Errorf("IsDelayBindingMode() error = %v", err)
			}
			if tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("IsDelayBindingMode() error = %v, want %q", err, tc.wantErr)
			}
			if delay != tc.wantDelay {
				t.Errorf("IsDelayBindingMode() = %v, want %v", delay, tc.wantDelay)
			}
		})
	}
}

func TestIsDelayBindingProvisioning(t *testing.T) {
	c := &v1.PersistentVolumeClaim{}
	if IsDelayBindingProvisioning(c) {
		t.Error("claim without annotation reported as provisioning")
	}
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, AnnSelectedNode, "")
	if !IsDelayBindingProvisioning(c) {
		t.Error("claim with empty selected-node annotation not reported as provisioning")
	}
}

func testClaim(name, ns, uid string) *v1.PersistentVolumeClaim {
	c := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: "7"}}
	c.UID = typesUID(uid)
	return c
}

func TestIsVolumeBoundToClaim(t *testing.T) {
	claim := testClaim("c", "ns", "uid-1")
	tests := []struct {
		name string
		ref  *v1.ObjectReference
		want bool
	}{
		{name: "no claimRef"},
		{name: "other name", ref: &v1.ObjectReference{Name: "d", Namespace: "ns"}},
		{name: "other namespace", ref: &v1.ObjectReference{Name: "c", Namespace: "other"}},
		{name: "pre-bound without uid", ref: &v1.ObjectReference{Name: "c", Namespace: "ns"}, want: true},
		{name: "same uid", ref: &v1.ObjectReference{Name: "c", Namespace: "ns", UID: "uid-1"}, want: true},
		{name: "other uid", ref: &v1.ObjectReference{Name: "c", Namespace: "ns", UID: "uid-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pv := &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{ClaimRef: tc.ref}}
			if got := IsVolumeBoundToClaim(pv, claim); got != tc.want {
				t.Errorf("IsVolumeBoundToClaim() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestGetBindVolumeToClaim(t *testing.T) {
	// What reference.GetReference(scheme.Scheme, claim) yields for testClaim.
	fullRef := &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Name: "c", Namespace: "ns", UID: "uid-1", ResourceVersion: "7"}
	pv := func(ref *v1.ObjectReference, ann map[string]string) *v1.PersistentVolume {
		return &v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv", Annotations: ann},
			Spec:       v1.PersistentVolumeSpec{ClaimRef: ref},
		}
	}
	boundByController := map[string]string{AnnBoundByController: "yes"}

	tests := []struct {
		name      string
		pv        *v1.PersistentVolume
		claim     *v1.PersistentVolumeClaim
		wantRef   *v1.ObjectReference
		wantAnn   map[string]string
		wantDirty bool
	}{
		{
			name:      "unbound volume",
			pv:        pv(nil, nil),
			claim:     testClaim("c", "ns", "uid-1"),
			wantRef:   fullRef,
			wantAnn:   boundByController,
			wantDirty: true,
		},
		{
			// Pre-bound by the user without UID: the ref is completed, and
			// no bound-by-controller annotation is added.
			name:      "pre-bound without uid",
			pv:        pv(&v1.ObjectReference{Name: "c", Namespace: "ns"}, nil),
			claim:     testClaim("c", "ns", "uid-1"),
			wantRef:   fullRef,
			wantDirty: true,
		},
		{
			name:    "already bound",
			pv:      pv(&v1.ObjectReference{Name: "c", Namespace: "ns", UID: "uid-1"}, nil),
			claim:   testClaim("c", "ns", "uid-1"),
			wantRef: &v1.ObjectReference{Name: "c", Namespace: "ns", UID: "uid-1"},
		},
		{
			name:      "bound to another uid is rebound",
			pv:        pv(&v1.ObjectReference{Name: "c", Namespace: "ns", UID: "uid-0"}, nil),
			claim:     testClaim("c", "ns", "uid-1"),
			wantRef:   fullRef,
			wantAnn:   boundByController,
			wantDirty: true,
		},
		{
			name:      "annotation kept as is",
			pv:        pv(nil, map[string]string{AnnBoundByController: "no", "x": "y"}),
			claim:     testClaim("c", "ns", "uid-1"),
			wantRef:   fullRef,
			wantAnn:   map[string]string{AnnBoundByController: "no", "x": "y"},
			wantDirty: true,
		},
		{
			name: "claim TypeMeta is used when set",
			pv:   pv(nil, nil),
			claim: func() *v1.PersistentVolumeClaim {
				c := testClaim("c", "ns", "uid-1")
				c.TypeMeta = metav1.TypeMeta{Kind: "Claim", APIVersion: "example.com/v2"}
				return c
			}(),
			wantRef:   &v1.ObjectReference{Kind: "Claim", APIVersion: "example.com/v2", Name: "c", Namespace: "ns", UID: "uid-1", ResourceVersion: "7"},
			wantAnn:   boundByController,
			wantDirty: true,
		},
		{
			name: "claim TypeMeta with kind only",
			pv:   pv(nil, nil),
			claim: func() *v1.PersistentVolumeClaim {
				c := testClaim("c", "ns", "uid-1")
				c.Kind = "PersistentVolumeClaim"
				return c
			}(),
			wantRef:   &v1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "c", Namespace: "ns", UID: "uid-1", ResourceVersion: "7"},
			wantAnn:   boundByController,
			wantDirty: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := tc.pv.DeepCopy()
			got, dirty, err := GetBindVolumeToClaim(tc.pv, tc.claim)
			if err != nil {
				t.Fatalf("GetBindVolumeToClaim() error = %v", err)
			}
			if dirty != tc.wantDirty {
				t.Errorf("dirty = %v, want %v", dirty, tc.wantDirty)
			}
			if !reflect.DeepEqual(got.Spec.ClaimRef, tc.wantRef) {
				t.Errorf("claimRef = %+v, want %+v", got.Spec.ClaimRef, tc.wantRef)
			}
			if !reflect.DeepEqual(got.Annotations, tc.wantAnn) {
				t.Errorf("annotations = %v, want %v", got.Annotations, tc.wantAnn)
			}
			if !reflect.DeepEqual(tc.pv, orig) {
				t.Errorf("input volume modified: %+v", tc.pv)
			}
			if got == tc.pv {
				t.Error("returned the input volume, want a copy")
			}
		})
	}
}
