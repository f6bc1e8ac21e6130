package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodUsesClaim(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: v1.PodSpec{Volumes: []v1.Volume{
		{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data-claim"}}},
		{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
		{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
	}}}
	claim := func(ns, name string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	tests := []struct {
		claim *v1.PersistentVolumeClaim
		want  bool
	}{
		{claim("ns", "data-claim"), true},
		{claim("ns", "web-scratch"), true}, // generic ephemeral: <pod>-<volume>
		{claim("other", "data-claim"), false},
		{claim("ns", "web-tmp"), false},
		{claim("ns", "unrelated"), false},
	}
	for _, tc := range tests {
		if got := PodUsesClaim(pod, tc.claim); got != tc.want {
			t.Errorf("%s/%s: got %v, want %v", tc.claim.Namespace, tc.claim.Name, got, tc.want)
		}
	}
}
