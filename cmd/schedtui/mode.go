package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedtui/schedtui/scheduler/engine"
)

// runMode is what a command does with the pods: who places them and how
// the cluster changes meanwhile. It is worked out once (modeOf), from the
// flags and the source, and every command and the debugger ask it instead
// of combining --simulate, --bind and the source again.
type runMode struct {
	kind   runKind
	source runSource
}

// runKind says who places the pods.
type runKind int

const (
	// simulating: schedtui schedules every pod itself (a snapshot, the
	// demo, a live cluster read once; a recording or a followed live
	// cluster with --simulate).
	simulating runKind = iota
	// shadowing: the cluster's scheduler decides and schedtui makes no
	// attempt of its own: it judges each decision on the state the
	// cluster's scheduler had (a recording, a live cluster the debugger
	// follows).
	shadowing
	// binding: schedtui is the scheduler of its profiles' pods in a live
	// cluster and binds them for real (--bind).
	binding
	// comparing: schedtui schedules every pod on two sides from the same
	// state (schedtui compare, the debugger's --compare-with).
	comparing
)

// runSource says how the cluster changes besides the scheduler's own
// doing.
type runSource int

const (
	// fixedState: it does not (a snapshot, the demo, a live cluster read
	// once); time is virtual.
	fixedState runSource = iota
	// recordingReplay: a recording's changes are replayed in virtual time,
	// each at the time it happened.
	recordingReplay
	// liveCluster: the debugger follows a live cluster's changes as they
	// happen, in real time.
	liveCluster
)

// Why compare mode is refused: both sides start from one state and only
// schedtui's scheduler may change it.
const (
	liveCompareRefusal   = "--compare-with runs both sides from the same starting state; a live cluster keeps changing: capture it (schedtui snapshot) and compare the snapshot"
	shadowCompareRefusal = "--compare-with on a recording needs --simulate: in shadow mode schedtui schedules nothing itself"
)

// modeOf works out the mode for the flags f, on a source that is a
// recording (its changes replayed) or a live cluster the debugger follows
// (followed). Compare mode on a source it cannot compare is an error.
func modeOf(f *sourceFlags, recording, followed bool) (runMode, error) {
	m := runMode{source: fixedState}
	switch {
	case followed:
		m.source = liveCluster
	case recording:
		m.source = recordingReplay
	}
	switch {
	case f.compare || f.compareWith != "":
		// schedtui compare simulates a recording without being told;
		// the debugger's --compare-with asks for --simulate.
		if m.source == liveCluster {
			return m, errors.New(liveCompareRefusal)
		}
		if m.source == recordingReplay && !f.simulate && !f.compare {
			return m, errors.New(shadowCompareRefusal)
		}
		m.kind = comparing
	case f.bind:
		m.kind = binding
	case f.simulate || m.source == fixedState:
		m.kind = simulating
	default:
		m.kind = shadowing
	}
	return m, nil
}

// shadows reports whether the engine runs in shadow mode
// (engine.Options.Shadow).
func (m runMode) shadows() bool { return m.kind == shadowing }

// binds reports whether the engine binds pods in the live cluster
// (engine.Options.Bind).
func (m runMode) binds() bool { return m.kind == binding }

// live reports whether the engine follows a live cluster in real time
// (tui.NewLiveBackend): its informers keep running.
func (m runMode) live() bool { return m.source == liveCluster }

// forecasts reports whether the debugger's n, s and c run on a forecast
// (a fork of the live mirror) rather than on the engine itself.
func (m runMode) forecasts() bool { return m.live() && !m.binds() }

// compares reports whether the debugger may run a second side beside the
// first (its C dialog, --compare-with): only from a state that nothing
// but schedtui's scheduler changes.
func (m runMode) compares() bool {
	return m.source != liveCluster && (m.kind == simulating || m.kind == comparing)
}

// Mode lines, printed before the work starts: what a replay (or a live
// cluster the debugger follows) does with the pods.
const (
	shadowLine   = "shadow mode: the cluster's scheduler decides; schedtui judges each of its decisions on the state it had (--simulate: schedtui schedules every pod itself)"
	simulateLine = "simulating: schedtui schedules every pod itself"
)

// line is the mode line, "" when the source does not change by itself
// or schedtui binds (--bind says what it does on its own line).
func (m runMode) line() string {
	switch {
	case m.source == fixedState || m.kind == binding:
		return ""
	case m.kind == shadowing:
		return shadowLine
	}
	return simulateLine
}

// label is what the header adds to the source's name.
func (m runMode) label() string {
	switch {
	case m.kind == shadowing:
		return " · shadow"
	case m.kind == binding:
		return " · --bind: binds for real"
	case m.source == recordingReplay:
		return " · simulating"
	}
	return ""
}

// notice is the debugger's first status line. It is composed of parts,
// each there when its condition holds, always in this order:
//
//   - with --bind, that n binds in the cluster: writing to the cluster
//     comes first, whatever else is said;
//   - the kube-scheduler simulated and its gates not at their defaults
//     (not in compare mode, whose sides may simulate different ones: the
//     header names both);
//   - the loader's problems, then the extenders --skip-extenders left
//     out: warnings come before the keys, the part a narrow terminal
//     cuts;
//   - what the mode does and its keys;
//   - "?: help".
//
// resume is the state snapshot --at wrote that the run restarts from, or
// nil.
func (src *source) notice(resume *engine.Resume) string {
	m := src.mode
	var parts []string
	if m.binds() {
		parts = append(parts, "--bind: n binds the next pod in the cluster · s: step phase")
	}
	if m.kind != comparing {
		parts = append(parts, src.settings.Version)
		if src.gates != nil && len(src.gates.NonDefault) > 0 {
			parts = append(parts, src.gates.Summary())
		}
	}
	if n := src.problems(); n > 0 {
		what := "the snapshot"
		if m.live() {
			what = "the cluster"
		}
		parts = append(parts, fmt.Sprintf("%s loaded with %d problem(s), printed on stderr", what, n))
	}
	if n := src.skippedExtenders; n > 0 {
		parts = append(parts, fmt.Sprintf("--skip-extenders: %d extender(s) left out, answers may differ from the cluster's", n))
	}
	parts = append(parts, m.keys(src, resume), "?: help")
	return joinParts(parts)
}

// keys is the notice's part that says what the mode does and what n does
// in it ("" for --bind, which opens the line).
func (m runMode) keys(src *source, resume *engine.Resume) string {
	const forecast = "n forecasts the next attempt on a copy of the cluster (u returns)"
	switch {
	case m.kind == binding:
		return ""
	case m.kind == comparing:
		return "compare mode: n steps both sides · Pod (2) and Scores (4) split left/right · Events (7): ≠ diverged, ]/[ jump"
	case m.forecasts() && m.kind == shadowing:
		return "shadow mode: the cluster's scheduler decides, schedtui judges each decision (events: 7) · " + forecast
	case m.forecasts():
		return "live: " + forecast
	case m.source == recordingReplay && m.kind == shadowing:
		return "shadowing a recording: " + src.replay.span() + " · n: next decision of the cluster's scheduler, judged"
	case m.source == recordingReplay:
		return "simulating a recording: schedtui schedules every pod itself; " + src.replay.span() + " · n: next attempt"
	case resume != nil:
		at := src.header.At
		if at == "" {
			at = resume.First + "'s attempt"
		}
		return fmt.Sprintf("the state at %s (snapshot --at): n makes that attempt again", at)
	}
	return "n: next attempt · s: step phase"
}

// joinParts joins a line's parts with " · ", leaving out empty ones.
func joinParts(parts []string) string {
	kept := parts[:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " · ")
}
