package tui

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestApplyEdit(t *testing.T) {
	base := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{
		{Name: "a", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}},
		{Name: "b", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}}},
	}}}
	tests := []struct {
		name    string
		edit    whatIfEdit
		wantCPU int64
		wantTol int
		wantSel map[string]string
		wantErr string
	}{
		{name: "requests are totals", edit: whatIfEdit{Requests: "cpu=500m"}, wantCPU: 500},
		{name: "toleration exists", edit: whatIfEdit{Requests: "cpu=1", Tolerations: "gpu:NoSchedule, *"}, wantCPU: 1000, wantTol: 2},
		{name: "selector", edit: whatIfEdit{Requests: "cpu=1", NodeSelector: "zone=a, gpu=true"}, wantCPU: 1000, wantSel: map[string]string{"zone": "a", "gpu": "true"}},
		{name: "bad quantity", edit: whatIfEdit{Requests: "cpu=lots"}, wantErr: "requests: cpu"},
		{name: "bad effect", edit: whatIfEdit{Tolerations: "k:Never"}, wantErr: "effect"},
		{name: "bad selector", edit: whatIfEdit{NodeSelector: "zone"}, wantErr: "nodeSelector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyEdit(base, tc.edit)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cpu := podRequests(got).Resource.MilliCPU; cpu != tc.wantCPU {
				t.Errorf("cpu %d, want %d", cpu, tc.wantCPU)
			}
			if len(got.Spec.Tolerations) != tc.wantTol {
				t.Errorf("tolerations %v", got.Spec.Tolerations)
			}
			if len(got.Spec.NodeSelector) != len(tc.wantSel) {
				t.Errorf("nodeSelector %v", got.Spec.NodeSelector)
			}
			for k, v := range tc.wantSel {
				if got.Spec.NodeSelector[k] != v {
					t.Errorf("nodeSelector %v", got.Spec.NodeSelector)
				}
			}
			if podRequests(base).Resource.MilliCPU != 3000 {
				t.Error("applyEdit changed its input")
			}
		})
	}
	// The form's rendering of a pod parses back to the same pod.
	e := editOf(base)
	if got, err := applyEdit(base, e); err != nil || podRequests(got).Resource.MilliCPU != 3000 {
		t.Errorf("round trip %q: %v", e.Requests, err)
	}
}
