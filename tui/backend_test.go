package tui

import (
	"testing"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/record"
)

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
