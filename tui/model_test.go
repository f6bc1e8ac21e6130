package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestGolden replays key flows on the demo and compares the screens with
// testdata/TestGolden/*.golden (regenerate with go test ./tui -update).
// Each flow also asserts the lines that matter, so that an -update cannot
// silently bless a wrong screen.
func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		w, h  int
		keys  []string
		typed string
		after []string
		want  []string
	}{
		{name: "queues_start", w: 80, h: 24, want: []string{"Active (20)", "1 default/critical-api", "13 default/llm-train-0"}},
		// At the documented minimum the verdict and its hints come first;
		// the phases are below, one key away.
		{name: "pod_after_next", w: 80, h: 24, keys: []string{"n"}, want: []string{"Waiting for victims to leave: no node fits now (6 nodes)", "Victims: default/web-2 (grace 30s), default/job-0 (grace 30s).", "3 × Insufficient cpu", "asks 3500m; most free is 1500m on"}},
		{name: "pod_phases_scrolled", w: 80, h: 24, keys: []string{"n", "G"}, want: []string{"✗ Filter", "– PreScore", "– Bind"}},
		{name: "pod_gpu_hints", w: 80, h: 24, keys: []string{"n", "n", "n", "n", "n", "n", "2"}, want: []string{"default/gpu-train", "Hint: tolerate nvidia.com/gpu=present:NoSchedule → fits on node-a2 (proven).", "Hint: remove taint nvidia.com/gpu=present:NoSchedule from node-a2 → fits on"}},
		{name: "pod_explain_hint", w: 80, h: 24, keys: []string{"n", "n", "n", "n", "n", "n", "2", "j", "j", "j", "j", "j", "j", "j", "e"}, want: []string{"Explain: Verdict: hint", "Hint: tolerate nvidia.com/gpu=present:NoSchedule → fits on node-a2 (proven).", "\"proven\" means the pod then fits"}},
		{name: "pod_step_phases", w: 80, h: 24, keys: []string{"s", "s", "s", "2"}, want: []string{"✓ PreFilter", "… Filter          not yet stepped", "in progress", "@PreFilter", "Stepping through default/critical-api: at PreFilter"}},
		{name: "filter_hidden_before_filter_phase", w: 80, h: 24, keys: []string{"s", "3"}, want: []string{"Filter has not run yet in this attempt"}},
		{name: "filter_faithful", w: 80, h: 24, keys: []string{"n", "3"}, want: []string{"0/6 nodes are available", "Hint: add a node like node-b1 (2 nodes of this shape, zone demo-1b, empty but", "2 more in the Pod view (2).", "node-a2  rejected node(s) had untolerated taint(s)", "node-b2  rejected ·"}},
		{name: "filter_full", w: 100, h: 24, keys: []string{"n", "3", "f"}, want: []string{"full diagnosis", "node-a2  fails"}},
		{name: "filter_explain_fit", w: 100, h: 40, keys: []string{"n", "3", "l", "e"}, want: []string{"Explain: NodeResourcesFit on node-a1", "cpu: requests 3500m, node has 4000m allocatable, 2500m requested by 3 pods"}},
		{name: "filter_explain_taint", w: 140, h: 30, keys: []string{"n", "3", "j", "j", "e"}, want: []string{"Explain: TaintToleration on node-a2", "NOT tolerated"}},
		{name: "filter_sorted_by_reason", w: 80, h: 24, keys: []string{"n", "3", "o", "o"}, want: []string{"sort: reason"}},
		{name: "scores_frontend", w: 80, h: 24, keys: []string{"n", "n", "4"}, want: []string{"default/frontend-1 · 2 feasible · winner ★ node-a1", "TOTAL", "Fit×1"}},
		{name: "scores_weighted_explain", w: 140, h: 30, keys: []string{"n", "n", "4", "m", "m", "l", "e"}, want: []string{"weighted", "Explain: NodeResourcesFit on", "LeastAllocated", "mean ="}},
		{name: "scores_balanced_explain", w: 140, h: 30, keys: []string{"n", "n", "4", "l", "l", "l", "l", "e"}, want: []string{"Explain: NodeResourcesBalancedAllocation on", "score = 50 + (50 + with - without)/2"}},
		{name: "preemption", w: 80, h: 24, keys: []string{"n", "5"}, want: []string{"Chosen: node-b2. The pod is nominated to node-b2.", "Decided by: latest start time of the highest-priority victims", "★ node-b2", "violates PDB default/batch"}},
		{name: "nodes_from_preemption", w: 80, h: 24, keys: []string{"n", "5", "<enter>"}, want: []string{"node-b2", "nominated here: default/reserved (100)"}},
		{name: "events", w: 80, h: 24, keys: []string{"n", "n", "7"}, want: []string{"preemption default/critical-api nominated to node-b2", "cluster    Preempted default/web-2 on node-b2: Preempted by"}},
		{name: "help", w: 80, h: 30, keys: []string{"?"}, want: []string{"next attempt", "continue to breakpoint", "rewind the last attempt", "compare two configurations", "group=GLOB"}},
		{name: "breakpoint_continue", w: 80, h: 24, keys: []string{"b"}, typed: "pod=web-3", after: []string{"<enter>", "<esc>", "c", "2"}, want: []string{"default/web-3", "breakpoint hit: pod=*/web-3", "● 1 bp"}},
		{name: "rewind", w: 80, h: 24, keys: []string{"n", "n", "n", "u", "2"}, want: []string{"attempt 2/2", "default/frontend-1", "rewound attempt #3 (kube-system/log-agent-b1x7k Scheduled), the engine's last"}},
		{name: "search_queue", w: 80, h: 24, keys: []string{"1", "/"}, typed: "web", after: []string{"<enter>"}, want: []string{"default/web-3", "filter: web"}},
		{name: "jump_to_queued_pod", w: 80, h: 24, keys: []string{"1", "j", "j", "<enter>"}, want: []string{"attempt 3/3", "kube-system/log-agent-b1x7k", "Scheduled on node-b1"}},
		{name: "whatif", w: 100, h: 30, keys: []string{"n", "2", "w", "<ctrl+u>"}, typed: "cpu=1,memory=1Gi", after: []string{"<enter>"}, want: []string{"What-if for default/critical-api", "before: Unschedulable", "after:  Scheduled on"}},
		{name: "whatif_toleration", w: 100, h: 30, keys: []string{"n", "n", "n", "n", "n", "n", "2", "w", "<tab>", "<ctrl+u>"}, typed: "nvidia.com/gpu:NoSchedule", after: []string{"<enter>"}, want: []string{"What-if for default/gpu-train", "after:  Scheduled on node-a2"}},
		{name: "nodes_devices", w: 120, h: 30, keys: []string{"6", "j", "j"}, want: []string{"devices (3, 1 free)", "gpu.example.com node-a2/gpu-0 model=a100 · memory=80Gi", "held by default/gpu-batch-gpus (pod default/gpu-batch)", "gpu.example.com node-a2/gpu-2 model=l4 · memory=24Gi · free"}},
		{name: "filter_explain_dra", w: 140, h: 40, keys: []string{"n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "3", "j", "j", "l", "e"}, want: []string{"Explain: DynamicResources on node-a2", "claim default/gpu-finetune-gpus · request gpus: 2 ×", "on node-a2: 3 device(s) of the class, 2 match the", "selectors, 0 free (2 requested)", "node-a2/gpu-0 (model=a100): taken by claim", "default/gpu-batch-gpus (pod default/gpu-batch)"}},
		{name: "filter_explain_dra_no_model", w: 140, h: 40, keys: []string{"n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "3", "j", "j", "l", "e"}, want: []string{"Explain: DynamicResources on node-a2", "device.attributes[\"gpu.example.com\"].model == \"h100\"", "the request's selector matches none of them", "the models present are a100, l4"}},
		{name: "pod_dra_allocated", w: 120, h: 30, keys: []string{"n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "n", "2"}, want: []string{"default/gpu-inference", "Scheduled → node-a2", "1 × gpu.example.com else l4 1 ×", "allocated gpu/l4 →", "gpu.example.com/node-a2/gpu-2 (choice 2 of"}},
		{name: "too_small", w: 60, h: 20, want: []string{"needs a terminal of at least 80×24"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, tc.w, tc.h)
			hs.keys(tc.keys...)
			hs.typeText(tc.typed)
			hs.keys(tc.after...)
			hs.contains(tc.want...)
			hs.golden(tc.w, tc.h)
		})
	}
}

// TestResizeAndMouse checks live resizing and mouse selection.
func TestResizeAndMouse(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.keys("n")
	hs.send(tea.WindowSizeMsg{Width: 50, Height: 10})
	hs.contains("needs a terminal")
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	hs.contains("Waiting for victims to leave")
	// Click the Filter tab (third), then the fourth node row.
	_, spans := hs.m.header.tabs()
	hs.send(tea.MouseClickMsg{X: spans[viewFilter][0] + 1, Y: 1, Button: tea.MouseLeft})
	if hs.m.c.Active != viewFilter {
		t.Fatalf("click on the Filter tab: active view %d", hs.m.c.Active)
	}
	fv := hs.m.views[viewFilter].(*filterView)
	y := 2 + len(fv.headerLines()) + 1 + 3
	hs.send(tea.MouseClickMsg{X: 1, Y: y, Button: tea.MouseLeft})
	if r := fv.selectedRow(); r == nil || fv.a.Nodes.Names[r.Node] != "node-b2" {
		t.Errorf("click on the fourth row did not select node-b2")
	}
	hs.send(tea.MouseWheelMsg{X: 1, Y: y, Button: tea.MouseWheelUp})
	if fv.g.row != 0 {
		t.Errorf("wheel up: row %d, want 0", fv.g.row)
	}
	hs.keys("q")
	if !hs.quit {
		t.Error("q did not quit")
	}
}

// TestNoColor checks that NO_COLOR leaves no colour escapes in a frame.
func TestNoColor(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		hs := newHarness(t, 100, 30)
		hs.m.noColor = noColor
		hs.send(tea.BackgroundColorMsg{})
		hs.keys("n", "n", "4")
		raw := hs.m.View().Content
		hasColor := strings.Contains(raw, "38;2;") || strings.Contains(raw, "38;5;")
		if hasColor == noColor {
			t.Errorf("noColor=%v: colour escapes present=%v", noColor, hasColor)
		}
	}
}

// TestLightDark checks the theme follows the terminal's background.
func TestLightDark(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.send(tea.BackgroundColorMsg{Color: lightBG{}})
	if hs.m.c.St.Dark {
		t.Error("a white background should give the light theme")
	}
	hs.send(tea.BackgroundColorMsg{Color: darkBG{}})
	if !hs.m.c.St.Dark {
		t.Error("a black background should give the dark theme")
	}
}

type lightBG struct{}

func (lightBG) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

type darkBG struct{}

func (darkBG) RGBA() (r, g, b, a uint32) { return 0, 0, 0, 0xffff }

// TestShownOnceWithTheEngineState: Options.Shown is called once, by the
// first frame drawn with the engine's state, not by the empty one before
// the window size is known.
func TestShownOnceWithTheEngineState(t *testing.T) {
	calls := 0
	m := New(Options{Backend: demoBackend(t), NoColor: true, Shown: func() { calls++ }})
	_ = m.View()
	if calls != 0 {
		t.Fatalf("Shown called %d times before any frame", calls)
	}
	hs := &harness{t: t, m: m}
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	hs.run(hs.m.Init())
	_ = hs.m.View()
	_ = hs.m.View()
	if calls != 1 {
		t.Fatalf("Shown called %d times after the first frames, want 1", calls)
	}
}

// TestTypeAhead: keys pressed while an engine operation runs apply in
// order after it: n then 4 ends on the Scores view (n from the queues
// opens the Pod view first).
func TestTypeAhead(t *testing.T) {
	hs := newHarness(t, 100, 30)
	if hs.m.c.Active != viewQueues {
		t.Fatalf("start on %s", viewTitles[hs.m.c.Active])
	}
	_, running := hs.m.Update(keyMsg("n")) // the engine runs n…
	hs.keys("4", "j")                      // …while these arrive
	hs.run(running)
	if got := hs.m.c.Active; got != viewScores {
		t.Errorf("n then 4 typed ahead: on %s, want Scores", viewTitles[got])
	}
	// Typed-ahead engine keys run in turn, each after the one before.
	_, running = hs.m.Update(keyMsg("n"))
	hs.keys("2", "n")
	hs.run(running)
	if got, n := hs.m.c.Active, hs.m.c.World.attempts.Len(); got != viewAttempt || n != 3 {
		t.Errorf("n 2 n typed ahead: on %s with %d attempts, want Pod with 3", viewTitles[got], n)
	}
}

// TestMouseTypeAhead: clicks and wheel turns arriving while an engine
// operation runs apply in order after it, as keys do: the same as when
// they arrive after it.
func TestMouseTypeAhead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string
		mouse func(hs *harness) tea.Msg
	}{
		// n from the Queues view opens the Pod view; the click then opens
		// the Scores tab.
		{"click on a tab", nil, func(hs *harness) tea.Msg {
			_, spans := hs.m.header.tabs()
			return tea.MouseClickMsg{X: spans[viewScores][0] + 1, Y: 1, Button: tea.MouseLeft}
		}},
		// The Events view follows the newest event; the wheel then moves
		// up from there.
		{"wheel on the events", []string{"n", "7"}, func(*harness) tea.Msg {
			return tea.MouseWheelMsg{X: 1, Y: 5, Button: tea.MouseWheelUp}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after, ahead := newHarness(t, 100, 30), newHarness(t, 100, 30)
			after.keys(tc.setup...)
			after.keys("n")
			after.send(tc.mouse(after))
			ahead.keys(tc.setup...)
			_, running := ahead.m.Update(keyMsg("n")) // the engine runs n…
			ahead.send(tc.mouse(ahead))               // …while the mouse acts
			ahead.run(running)
			if got, want := ahead.m.c.Active, after.m.c.Active; got != want {
				t.Errorf("mouse during n: on %s, want %s", viewTitles[got], viewTitles[want])
			}
			if got, want := ahead.screen(), after.screen(); got != want {
				t.Errorf("mouse during n: screen\n%s\nwant\n%s", got, want)
			}
			// The selection (not visible without colour) as the teaching
			// pane tells it.
			gotT, got := ahead.m.current().Explain()
			wantT, want := after.m.current().Explain()
			if gotT != wantT || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("mouse during n: selection %q %q, want %q %q", gotT, got, wantT, want)
			}
		})
	}
}
