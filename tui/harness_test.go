package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// loadDemo is the demo's cluster as its scheduler's gates
// (testdata.DemoFeatureGates) have it, and those gates.
func loadDemo(t testing.TB) (*snapshot.Cluster, *features.Features) {
	t.Helper()
	r, err := features.Resolve("", "", testdata.DemoFeatureGates)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := snapshot.LoadUnder(testdata.DemoName, testdata.Demo, &r.Features)
	if err != nil {
		t.Fatal(err)
	}
	return c, &r.Features
}

func demoBackend(t testing.TB) *Backend {
	t.Helper()
	c, gates := loadDemo(t)
	b, err := NewBackend("demo", c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1, Features: gates})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// harness drives the root model as the program would, running Cmds
// synchronously and feeding back the package's own messages; terminal
// queries and quit are dropped.
type harness struct {
	t    testing.TB
	m    *Model
	quit bool
	// wait is how long a Cmd may take before it is taken for one that
	// waits (a timer, a terminal reply); 5s when zero.
	wait time.Duration
}

func newHarness(t testing.TB, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, m: New(Options{Backend: demoBackend(t), NoColor: true, Notice: "n: next attempt · s: step phase · ?: help"})}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

func (hs *harness) send(msg tea.Msg) {
	_, cmd := hs.m.Update(msg)
	hs.run(cmd)
}

func (hs *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	wait := hs.wait
	if wait == 0 {
		wait = 5 * time.Second
	}
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(wait):
		// A Cmd that waits (a timer, a terminal reply) is not ours.
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			hs.run(c)
		}
	case tea.QuitMsg:
		hs.quit = true
	case engineMsg, forkMsg, diagMsg, routed, needDiagMsg, openPodMsg, openNodeMsg,
		focusAttemptMsg, toggleBreakpointMsg, openWhatIfMsg, whatIfMsg, sourceMsg, liveMsg, hintsMsg, clockMsg,
		compareWithMsg, comparisonMsg, chunkMsg:
		hs.send(msg)
	}
}

// keys sends each key in turn: single characters, or names in angle
// brackets ("<enter>", "<esc>", "<tab>", "<up>", "<down>", "<ctrl+u>").
func (hs *harness) keys(ks ...string) {
	for _, k := range ks {
		hs.send(keyMsg(k))
	}
}

func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "<enter>":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "<esc>":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "<tab>":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "<up>":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "<down>":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "<ctrl+u>":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "<ctrl+s>", "<ctrl+x>", "<ctrl+n>":
		return tea.KeyPressMsg{Code: rune(k[6]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the frame as the user sees it, without escapes.
func (hs *harness) screen() string {
	return ansi.Strip(hs.m.View().Content)
}

func (hs *harness) contains(want ...string) {
	hs.t.Helper()
	s := hs.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			hs.t.Errorf("screen lacks %q:\n%s", w, s)
		}
	}
}

// golden checks that the frame fills a w×h terminal exactly (no line
// wider than the window, no missing lines) and equals the test's golden
// file.
func (hs *harness) golden(w, h int) {
	hs.t.Helper()
	out := hs.screen()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		hs.t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			hs.t.Errorf("line %d is %d cells wide (> %d): %q", i, lw, w, l)
		}
	}
	golden.RequireEqual(hs.t, []byte(out))
}
