package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/tui"
)

// TestModeOf: the flags and the source give one mode, and the mode
// answers what the commands ask of it.
func TestModeOf(t *testing.T) {
	for _, tc := range []struct {
		name                string
		flags               sourceFlags
		recording, followed bool
		want                runMode
		shadows, binds      bool
		live, compares      bool
		line                string
	}{
		{"a snapshot", sourceFlags{}, false, false, runMode{simulating, fixedState}, false, false, false, true, ""},
		{"a snapshot, --simulate", sourceFlags{simulate: true}, false, false, runMode{simulating, fixedState}, false, false, false, true, ""},
		{"a recording", sourceFlags{}, true, false, runMode{shadowing, recordingReplay}, true, false, false, false, shadowLine},
		{"a recording, --simulate", sourceFlags{simulate: true}, true, false, runMode{simulating, recordingReplay}, false, false, false, true, simulateLine},
		{"a live cluster followed", sourceFlags{}, false, true, runMode{shadowing, liveCluster}, true, false, true, false, shadowLine},
		{"a live cluster followed, --simulate", sourceFlags{simulate: true}, false, true, runMode{simulating, liveCluster}, false, false, true, false, simulateLine},
		{"a live cluster followed, --bind", sourceFlags{bind: true}, false, true, runMode{binding, liveCluster}, false, true, true, false, ""},
		{"--bind --simulate: --bind wins", sourceFlags{bind: true, simulate: true}, false, true, runMode{binding, liveCluster}, false, true, true, false, ""},
		{"a live cluster read once (run)", sourceFlags{}, false, false, runMode{simulating, fixedState}, false, false, false, true, ""},
		{"a live cluster read once, --bind (run)", sourceFlags{bind: true}, false, false, runMode{binding, fixedState}, false, true, false, false, ""},
		{"--compare-with on a snapshot", sourceFlags{compareWith: "defaults"}, false, false, runMode{comparing, fixedState}, false, false, false, true, ""},
		{"--compare-with on a recording, --simulate", sourceFlags{compareWith: "defaults", simulate: true}, true, false, runMode{comparing, recordingReplay}, false, false, false, true, simulateLine},
		{"schedtui compare on a recording", sourceFlags{compare: true}, true, false, runMode{comparing, recordingReplay}, false, false, false, true, simulateLine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := modeOf(&tc.flags, tc.recording, tc.followed)
			if err != nil {
				t.Fatal(err)
			}
			if m != tc.want {
				t.Fatalf("mode %+v, want %+v", m, tc.want)
			}
			if m.shadows() != tc.shadows || m.binds() != tc.binds || m.live() != tc.live || m.compares() != tc.compares {
				t.Errorf("shadows %v binds %v live %v compares %v, want %v %v %v %v",
					m.shadows(), m.binds(), m.live(), m.compares(), tc.shadows, tc.binds, tc.live, tc.compares)
			}
			if m.line() != tc.line {
				t.Errorf("line %q, want %q", m.line(), tc.line)
			}
		})
	}
}

// TestNotice: the debugger's first status line is composed: every
// condition that holds says its part, in a fixed order, and none hides
// another (a live cluster in shadow mode says so and that n forecasts;
// the loader's problems and --skip-extenders show in every mode).
func TestNotice(t *testing.T) {
	const (
		version  = "simulating kube-scheduler 1.37"
		problems = "the snapshot loaded with 2 problem(s), printed on stderr"
		synced   = "the cluster loaded with 2 problem(s), printed on stderr"
		skipped  = "--skip-extenders: 1 extender(s) left out, answers may differ from the cluster's"
		forecast = "n forecasts the next attempt on a copy of the cluster (u returns)"
		shadow   = "shadow mode: the cluster's scheduler decides, schedtui judges each decision (events: 7) · " + forecast
		bind     = "--bind: n binds the next pod in the cluster · s: step phase"
		compare  = "compare mode: n steps both sides · Pod (2) and Scores (4) split left/right · Events (7): ≠ diverged, ]/[ jump"
		keys     = "n: next attempt · s: step phase"
	)
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	rec := &replay{start: start, changes: []change.Change{{At: start.Add(time.Minute)}, {At: start.Add(45 * time.Minute)}}}
	gates, err := features.Resolve("1.35", "", "SchedulerPopFromBackoffQ=false")
	if err != nil {
		t.Fatal(err)
	}
	twoProblems := &docread.Report{Problems: make([]docread.Problem, 2)}
	for _, tc := range []struct {
		name     string
		mode     runMode
		problems bool
		skipped  bool
		gates    *features.Resolved
		resume   bool
		want     string
	}{
		{name: "a snapshot", mode: runMode{simulating, fixedState},
			want: version + " · " + keys + " · ?: help"},
		{name: "a snapshot, gates", mode: runMode{simulating, fixedState}, gates: gates,
			want: version + " · kube-scheduler 1.35 (gates: SchedulerPopFromBackoffQ=false) · " + keys + " · ?: help"},
		{name: "a snapshot, problems, --skip-extenders", mode: runMode{simulating, fixedState}, problems: true, skipped: true,
			want: version + " · " + problems + " · " + skipped + " · " + keys + " · ?: help"},
		{name: "snapshot --at, problems", mode: runMode{simulating, fixedState}, problems: true, resume: true,
			want: version + " · " + problems + " · the state at default/web's attempt (snapshot --at): n makes that attempt again · ?: help"},
		{name: "a recording", mode: runMode{shadowing, recordingReplay},
			want: version + " · shadowing a recording: 2 changes over 45m0s · n: next decision of the cluster's scheduler, judged · ?: help"},
		{name: "a recording, problems, --skip-extenders", mode: runMode{shadowing, recordingReplay}, problems: true, skipped: true,
			want: version + " · " + problems + " · " + skipped + " · shadowing a recording: 2 changes over 45m0s · n: next decision of the cluster's scheduler, judged · ?: help"},
		{name: "a recording, --simulate, gates", mode: runMode{simulating, recordingReplay}, gates: gates,
			want: version + " · kube-scheduler 1.35 (gates: SchedulerPopFromBackoffQ=false) · simulating a recording: schedtui schedules every pod itself; 2 changes over 45m0s · n: next attempt · ?: help"},
		{name: "live, shadow, clean sync", mode: runMode{shadowing, liveCluster},
			want: version + " · " + shadow + " · ?: help"},
		{name: "live, shadow, sync problems", mode: runMode{shadowing, liveCluster}, problems: true,
			want: version + " · " + synced + " · " + shadow + " · ?: help"},
		{name: "live, shadow, --skip-extenders", mode: runMode{shadowing, liveCluster}, skipped: true,
			want: version + " · " + skipped + " · " + shadow + " · ?: help"},
		{name: "live, shadow, sync problems, --skip-extenders", mode: runMode{shadowing, liveCluster}, problems: true, skipped: true,
			want: version + " · " + synced + " · " + skipped + " · " + shadow + " · ?: help"},
		{name: "live, --simulate", mode: runMode{simulating, liveCluster},
			want: version + " · live: " + forecast + " · ?: help"},
		{name: "live, --simulate, sync problems, --skip-extenders", mode: runMode{simulating, liveCluster}, problems: true, skipped: true,
			want: version + " · " + synced + " · " + skipped + " · live: " + forecast + " · ?: help"},
		{name: "live, --bind", mode: runMode{binding, liveCluster},
			want: bind + " · " + version + " · ?: help"},
		{name: "live, --bind, sync problems, --skip-extenders", mode: runMode{binding, liveCluster}, problems: true, skipped: true,
			want: bind + " · " + version + " · " + synced + " · " + skipped + " · ?: help"},
		{name: "compare", mode: runMode{comparing, fixedState}, gates: gates,
			want: compare + " · ?: help"},
		{name: "compare, problems, --skip-extenders", mode: runMode{comparing, recordingReplay}, problems: true, skipped: true,
			want: problems + " · " + skipped + " · " + compare + " · ?: help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &source{mode: tc.mode, settings: snapshot.SchedulerSettings{Version: version}, gates: tc.gates, header: &snapshot.Header{}}
			if tc.mode.source == recordingReplay {
				src.replay = rec
			}
			if tc.problems {
				src.report = twoProblems
			}
			if tc.skipped {
				src.skippedExtenders = 1
			}
			var resume *engine.Resume
			if tc.resume {
				resume = &engine.Resume{First: "default/web"}
			}
			if got := src.notice(resume); got != tc.want {
				t.Errorf("notice\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestTUILiveModes opens the debugger on a (fake) live cluster in each
// mode: the mode reaches the engine, the header and the status line,
// whose parts are all there.
func TestTUILiveModes(t *testing.T) {
	var opts tui.Options
	old := runTUI
	runTUI = func(o tui.Options, _ io.Reader, _ io.Writer) error { opts = o; return nil }
	t.Cleanup(func() { runTUI = old })
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"+
		"- urlPrefix: http://127.0.0.1:1\n  filterVerb: filter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		shadow   = "shadow mode: the cluster's scheduler decides"
		forecast = "n forecasts the next attempt"
		synced   = "the cluster loaded with 1 problem(s)"
		skipped  = "--skip-extenders: 1 extender(s) left out"
		bind     = "--bind: n binds the next pod in the cluster"
	)
	for _, tc := range []struct {
		name string
		// stray adds a pod bound to a node the cluster lacks: the sync
		// reports a problem.
		stray    bool
		flags    sourceFlags
		parts    []string
		notParts []string
		header   string
		shadows  bool
	}{
		{name: "shadow, clean sync", parts: []string{shadow, forecast}, notParts: []string{"problem(s)", skipped}, header: "fake-ctx · shadow", shadows: true},
		{name: "shadow, sync problems", stray: true, parts: []string{synced, shadow, forecast}, header: "fake-ctx · shadow", shadows: true},
		{name: "shadow, --skip-extenders", flags: sourceFlags{config: config, skipExtenders: true}, parts: []string{skipped, shadow, forecast},
			header: "fake-ctx · shadow · extenders skipped", shadows: true},
		{name: "--simulate, sync problems, --skip-extenders", stray: true, flags: sourceFlags{simulate: true, config: config, skipExtenders: true},
			parts: []string{synced, skipped, "live: " + forecast}, notParts: []string{shadow}, header: "fake-ctx · extenders skipped"},
		{name: "--bind, sync problems, --skip-extenders", stray: true, flags: sourceFlags{bind: true, config: config, skipExtenders: true},
			parts: []string{bind, synced, skipped}, notParts: []string{shadow, forecast}, header: "fake-ctx · --bind: binds for real · extenders skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCluster(t)
			existingKubeconfig(t)
			if tc.stray {
				addObject(t, c, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "stray", UID: "u-stray", ResourceVersion: "1"},
					Spec: v1.PodSpec{NodeName: "gone", Containers: []v1.Container{{Name: "c", Image: "x"}}}})
			}
			f := tc.flags
			f.seed = 1
			var errOut lockedBuffer
			if err := openTUI(context.Background(), &f, strings.NewReader(""), io.Discard, &errOut); err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			rest := opts.Notice
			for _, p := range tc.parts {
				i := strings.Index(rest, p)
				if i < 0 {
					t.Fatalf("status line %q lacks %q (or not in this order)", opts.Notice, p)
				}
				rest = rest[i+len(p):]
			}
			for _, p := range tc.notParts {
				if strings.Contains(opts.Notice, p) {
					t.Errorf("status line %q says %q", opts.Notice, p)
				}
			}
			if opts.Backend.Name != tc.header {
				t.Errorf("header %q, want %q", opts.Backend.Name, tc.header)
			}
			if opts.Backend.Shadowing() != tc.shadows {
				t.Errorf("the engine shadows: %v, want %v", opts.Backend.Shadowing(), tc.shadows)
			}
		})
	}
}
