package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
)

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
		{in: "group=default/llm-train-workers", want: engine.Breakpoint{Group: "default/llm-train-workers"}},
		{in: "Group=llm-*", want: engine.Breakpoint{Group: "*/llm-*"}},
		{in: "group=", wantErr: true},
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

// TestBreakpointsDialogHelp: the editor's help (f1) gives its syntax,
// group=GLOB included.
func TestBreakpointsDialogHelp(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.keys("b")
	hs.send(tea.KeyPressMsg{Code: tea.KeyF1})
	hs.contains("keys of the breakpoints editor",
		"Breakpoints: pod=GLOB, group=GLOB, node=NAME, unschedulable, preemption.",
		"group=GLOB stops at the members of a matching PodGroup (its group cycle)")
}
