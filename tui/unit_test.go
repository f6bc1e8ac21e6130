package tui

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
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

func TestParseBreakpoint(t *testing.T) {
	tests := []struct {
		in      string
		want    engine.Breakpoint
		wantErr bool
	}{
		{in: "pod=default/web-*", want: engine.Breakpoint{PodPattern: "default/web-*"}},
		{in: "pod=web-3", want: engine.Breakpoint{PodPattern: "*/web-3"}},
		{in: "node=node-a1", want: engine.Breakpoint{Node: "node-a1"}},
		{in: "unschedulable", want: engine.Breakpoint{Unschedulable: true}},
		{in: " preemption ", want: engine.Breakpoint{Preemption: true}},
		{in: "pod=", wantErr: true},
		{in: "when=later", wantErr: true},
	}
	for _, tc := range tests {
		got, err := parseBreakpoint(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseBreakpoint(%q) = %+v, %v; want %+v, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestBackend checks the engine as the TUI drives it on the demo: stepping
// by phase, continuing to a breakpoint, a deterministic rewind, a fork of
// the first attempt and the gated pod in the queue.
func TestBackend(t *testing.T) {
	b := demoBackend(t)
	if cur := b.StepPhase(); cur.Attempt != 0 || cur.Phase != record.PhasePreEnqueue {
		t.Fatalf("first StepPhase: %+v", cur)
	}
	if cur := b.StepPhase(); cur.Phase != record.PhasePop {
		t.Fatalf("second StepPhase: %+v", cur)
	}
	if i := b.Continue([]engine.Breakpoint{{Node: "node-b1"}}); i != 0 {
		t.Fatalf("Continue: %d", i)
	}
	n := b.Attempts().Len()
	last := b.Attempts().At(n - 1)
	if last.Node != "node-b1" {
		t.Fatalf("stopped at %s on %q", last.Pod, last.Node)
	}
	if err := b.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if b.Attempts().Len() != n-1 {
		t.Fatalf("after rewind: %d attempts, want %d", b.Attempts().Len(), n-1)
	}
	again, _ := b.Step()
	if again.Pod != last.Pod || again.Node != last.Node || again.Message != last.Message {
		t.Errorf("replay after rewind differs: %s %s vs %s %s", again.Pod, again.Node, last.Pod, last.Node)
	}
	_, pod, err := b.Fork(0)
	if err != nil || pod.Name != "critical-api" {
		t.Errorf("Fork(0): %v %v", pod, err)
	}
	if q := b.Queue(); len(q.Gated) != 1 || q.Gated[0].Pod != "default/gated-job" {
		t.Errorf("gated: %+v", q.Gated)
	}
}

// The Nodes view's teaching pane speaks of devices only on a node that
// publishes some (the demo's node-a2).
func TestNodesExplainDevices(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.keys("6")
	v := hs.m.views[viewNodes].(*nodesView)
	for _, step := range []struct {
		node    string
		devices bool
	}{{"node-a1", false}, {"node-b1", false}, {"node-a2", true}} {
		title, lines := v.Explain()
		got := strings.Contains(strings.Join(lines, "\n"), explainDevices)
		if title != step.node || got != step.devices {
			t.Errorf("%s: devices explained %v, want %v (title %s)", step.node, got, step.devices, title)
		}
		hs.keys("j")
	}
}
