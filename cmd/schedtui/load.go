package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/live"
	"github.com/schedtui/schedtui/testdata"
)

// session is a loaded cluster with its scheduler.
type session struct {
	cluster *snapshot.Cluster
	cfg     *configv1.KubeSchedulerConfiguration
	seed    uint64
	// mode says who places the pods (the source's).
	mode runMode
	// bind binds pods in the live cluster when the mode binds (--bind).
	bind engine.BindFunc
	// replay holds a recording's changes (nil for a snapshot); stderr
	// hears of those the engine refuses.
	replay *replay
	stderr io.Writer
	// resume restarts the run where a state written by snapshot --at
	// left it (its header), at start; nil otherwise.
	resume *engine.Resume
	start  time.Time
	// settings are the scheduler version and gate flags in effect, gates
	// what they resolve to.
	settings snapshot.SchedulerSettings
	gates    *features.Resolved
	// ctx stops a run once done (Ctrl-C): run says how far it got.
	ctx context.Context
	// quietProgress leaves out the progress line on stderr (stdout shows
	// the run as it goes).
	quietProgress bool
	// demo: the cluster is the embedded demo (demoHeader).
	demo bool
	// clock0 is the source's (source.clock0).
	clock0 time.Time
	// profile notes when the scheduler is built, for run's hidden
	// --timings (nil: nothing asked).
	profile *runProfile
}

// demoHeader heads every text output made on the embedded demo, so that
// nobody takes its pods for their cluster's.
const demoHeader = "the embedded demo (--demo): made-up nodes and pods, not a cluster's"

// demoLine writes demoHeader after label when the session is the demo's.
func (s *session) demoLine(w io.Writer, label string) {
	if s.demo {
		fmt.Fprintf(w, "%s%s\n", label, demoHeader)
	}
}

// demoSource is demoHeader when the session is the demo's, else "": the
// field -o json and yaml carry where the text has demoLine's line.
func (s *session) demoSource() string {
	if s.demo {
		return demoHeader
	}
	return ""
}

// resolved is the version and gates the session schedules with.
func (s *session) resolved() *features.Resolved {
	if s.gates == nil {
		s.gates = features.Defaults()
	}
	return s.gates
}

// source is the cluster state and scheduler configuration a command works
// on, as read from the demo or a snapshot.
type source struct {
	// name labels the source: "demo", the snapshot's path, the context.
	name string
	// demo: the source is the embedded demo, which every output's header
	// says (demoHeader).
	demo bool
	// clock0 is when the cluster stood as read (clusterTime): the virtual
	// clock starts there on a snapshot, the demo or a live cluster read
	// once; zero on a live cluster followed, whose clock is the wall
	// clock's.
	clock0  time.Time
	cluster *snapshot.Cluster
	report  *docread.Report
	cfg     *configv1.KubeSchedulerConfiguration
	// live is set when the cluster was read from a live cluster and its
	// informers still run (loadSource's watch); status receives its
	// reports (stderr until the caller redirects it).
	live   *live.Source
	status *statusSink
	// host is a live cluster's; serverVersion is its API server's
	// version, or the one a snapshot's header records.
	host, serverVersion string
	// mode says who places the pods and how the cluster changes
	// meanwhile, worked out from the flags once the source is known.
	mode runMode
	// bind binds pods in the live cluster when the mode binds (--bind).
	bind engine.BindFunc
	// header is the capture header of a snapshot; cfgData and cfgFrom the
	// raw configuration it carries.
	header  *snapshot.Header
	cfgData []byte
	cfgFrom string
	// replay holds the changes when the snapshot is a recording.
	replay *replay
	// skippedExtenders counts the extenders --skip-extenders left out.
	skippedExtenders int
	// settings are the scheduler's version and gate flags (the user's
	// over the defaults the source shows), gates what they resolve to;
	// cfgUsed names the scheduler configuration in use ("" for the
	// default one).
	settings snapshot.SchedulerSettings
	gates    *features.Resolved
	cfgUsed  string
}

// stop stops a live source's informers.
func (s *source) stop() {
	if s.live != nil {
		s.live.Stop()
	}
}

// statusSink forwards a live source's status to a replaceable function.
type statusSink struct {
	mu sync.Mutex
	f  func(live.Status)
}

func (s *statusSink) set(f func(live.Status)) {
	s.mu.Lock()
	s.f = f
	s.mu.Unlock()
}

func (s *statusSink) report(st live.Status) {
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	if f != nil {
		f(st)
	}
}

// connectLive connects to a live cluster; tests replace it with a fake.
var connectLive = func(o live.Options) (*live.Cluster, error) { return live.Connect(o) }

// sourceKind says where the cluster comes from (see sourceHelp).
type sourceKind int

const (
	// sourceNone: no flag names a source and no live cluster is
	// configured. Only the debugger opens the demo then; the other
	// commands refuse (errNoCluster) rather than print the demo's pods
	// where an SRE expects their own.
	sourceNone sourceKind = iota
	sourceDemo
	sourceSnapshot
	sourceLive
)

// errNoCluster is the answer of a command given no source where no
// cluster is configured.
var errNoCluster = errors.New("no cluster to read: no $KUBECONFIG, ~/.kube/config or in-cluster service account " +
	"(give --kubeconfig, --snapshot PATH, or --demo for the embedded demo)")

func (f *sourceFlags) sourceKind() (sourceKind, error) {
	liveFlags := f.kubeconfig != "" || f.context != ""
	switch {
	case f.bind && (f.snapshot != "" || f.demo):
		return 0, errors.New("--bind binds pods in a live cluster: it cannot be combined with --snapshot or --demo")
	case f.bind && !liveFlags && !live.Available():
		return 0, errors.New("--bind needs a live cluster: give --kubeconfig (and --context), or set KUBECONFIG")
	case f.snapshot != "" && liveFlags:
		return 0, errors.New("--snapshot reads a snapshot, --kubeconfig and --context a live cluster: give one or the other")
	case f.demo && (liveFlags || f.snapshot != ""):
		return 0, errors.New("--demo cannot be combined with --snapshot, --kubeconfig or --context")
	case f.demo:
		return sourceDemo, nil
	case f.snapshot != "":
		return sourceSnapshot, nil
	case liveFlags || live.Available():
		return sourceLive, nil
	}
	return sourceNone, nil
}

// loadLive syncs a live cluster for mode m, printing progress to w. When
// the mode follows the cluster the informers keep running (the caller
// stops src.live).
func loadLive(ctx context.Context, f *sourceFlags, m runMode, w io.Writer) (*source, error) {
	lc, err := connectLive(live.Options{Kubeconfig: f.kubeconfig, Context: f.context, Bind: m.binds()})
	if err != nil {
		return nil, fmt.Errorf("reading the live cluster: %w (use --snapshot PATH or --demo to work without the cluster)", err)
	}
	sink := &statusSink{}
	printStatus := func(st live.Status) {
		fmt.Fprintf(w, "%s [%d/%d]: %s\n", lc.Name, st.Synced, st.Total, st)
	}
	// On a terminal the sync's progress is one line rewritten in place;
	// warnings and errors still get lines of their own.
	var lineMu sync.Mutex
	line := progress.NewLine(w, isTerminal(w), "syncing "+lc.Name, "kinds", progressClock)
	sink.set(func(st live.Status) {
		lineMu.Lock()
		defer lineMu.Unlock()
		if line != nil && !st.Warning && st.Err == nil {
			line.Report(int64(st.Synced), int64(st.Total))
			return
		}
		line.Done()
		printStatus(st)
	})
	ls := live.NewSource(lc.Name, lc.Client, sink.report)
	// The gates the flags give: whether the scheduler misses the
	// workload kinds when the server does not serve them.
	gates := f.gates.validationGates()
	ls.SetSchedulerGates(map[string]bool{"GenericWorkload": gates.EnableGenericWorkload, "CompositePodGroup": gates.EnableCompositePodGroup})
	if m.binds() {
		fmt.Fprintf(w, "%s: reading %s (read-only except pod bindings: --bind)\n", lc.Name, lc.Host)
	} else {
		fmt.Fprintf(w, "%s: reading %s (read-only)\n", lc.Name, lc.Host)
	}
	c, r, err := ls.Sync(ctx)
	lineMu.Lock()
	line.Done()
	lineMu.Unlock()
	sink.set(printStatus)
	if err != nil {
		ls.Stop()
		return nil, fmt.Errorf("%w (use --snapshot PATH or --demo to work without the cluster)", err)
	}
	fmt.Fprintf(w, "%s: synced %d nodes, %d pods (server %s)\n", lc.Name, len(c.Nodes), len(c.Pods), ls.ServerVersion())
	src := &source{name: lc.Name, cluster: c, report: r, status: sink, host: lc.Host, serverVersion: ls.ServerVersion(), settings: ls.SchedulerSettings(), mode: m}
	if m.binds() {
		src.bind = live.Binder(lc.Client)
	}
	if m.live() {
		src.live = ls
	} else {
		ls.Stop()
	}
	return src, nil
}

// problems counts the loader's findings (for the TUI's status line).
func (s *source) problems() int {
	if s.report == nil {
		return 0
	}
	return len(s.report.Problems)
}

// loadSource reads the cluster (see sourceHelp: a snapshot in any layout
// snapshot.Open detects, a live cluster, or the embedded demo) and the
// scheduler configuration: --config, else the one the snapshot carries,
// else the defaults. The loader's warnings and errors, the live sync's
// progress, and where the configuration came from, are printed to w. With
// watch a live source keeps running (the caller stops it). The source's
// mode is worked out here, once.
func loadSource(ctx context.Context, f *sourceFlags, w io.Writer, watch bool) (*source, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	k, err := f.sourceKind()
	if err != nil {
		return nil, err
	}
	if k == sourceNone {
		return nil, errNoCluster
	}
	s := &source{name: "demo"}
	var embedded *configv1.KubeSchedulerConfiguration
	var embeddedFrom string
	// opened is the snapshot or recording read (sourceSnapshot).
	var opened *snapshot.Opened
	switch k {
	case sourceLive:
		// The mode first: a compare mode it refuses fails before the sync.
		m, err := modeOf(f, false, watch)
		if err != nil {
			return nil, err
		}
		if s, err = loadLive(ctx, f, m, w); err != nil {
			return nil, err
		}
	case sourceDemo:
		s.settings = snapshot.DetectSchedulerSettings(nil, "", snapshot.FromDemo)
		if user := f.gates.values(); f.scenario == nil && user.featureGates == "" {
			if s.settings.FeatureGates = demoGatesAt(user.emulatedVersion, user.minCompatibilityVersion); s.settings.FeatureGates != "" {
				s.settings.Notes = append(s.settings.Notes, "the demo's kube-scheduler runs with --feature-gates="+testdata.DemoFeatureGates+" (its training job is a gang)")
			}
		}
		// Its objects are created as an API server with the gates
		// simulated would (without GenericWorkload, a pod loses
		// spec.schedulingGroup).
		var gates *features.Features
		if simulated, err := resolveGates(mergeSchedulerFlags(s.settings, f.gates.values(), "")); err == nil {
			gates = &simulated.Features
		}
		if f.scenario != nil {
			// schedtui learn's lesson: an embedded scenario of its own,
			// a snapshot or a recording (with the scheduler configuration
			// and the extenders' answers it carries).
			o, err := f.scenario.open(gates)
			if err != nil {
				return nil, err
			}
			s.name, s.cluster, s.report = f.scenario.name, o.Cluster, o.Report
			embedded, embeddedFrom = o.Config, o.ConfigSource
			s.cfgData, s.cfgFrom = o.ConfigData, o.ConfigSource
			opened = o
			s.replay = replayOf(o, w, false)
			s.settings = f.scenario.settings(o.Cluster)
		} else {
			c, r, err := snapshot.LoadUnder(testdata.DemoName, testdata.Demo, gates)
			if err != nil {
				return nil, err
			}
			s.cluster, s.report, s.demo = c, r, true
		}
		if s.mode, err = modeOf(f, s.replay != nil, false); err != nil {
			return nil, err
		}
	case sourceSnapshot:
		o, err := openSnapshot(ctx, f.snapshot, f.gates.validationGates(), w)
		if err != nil {
			return nil, err
		}
		if o, err = underSimulatedGates(ctx, f, o, w); err != nil {
			return nil, err
		}
		s.name, s.cluster, s.report = f.snapshot, o.Cluster, o.Report
		embedded, embeddedFrom = o.Config, o.ConfigSource
		s.header, s.cfgData, s.cfgFrom = o.Header, o.ConfigData, o.ConfigSource
		s.settings = withRecordedFlags(o.SchedulerSettings(), o.Header)
		if o.Header != nil {
			s.serverVersion = o.Header.ServerVersion
		}
		opened = o
		if s.replay = replayOf(o, w, f.recordOnly); f.recordOnly && o.Header.IsRecording() {
			s.header = recordingAsSnapshot(o, w)
		}
		if s.mode, err = modeOf(f, s.replay != nil, false); err != nil {
			return nil, err
		}
	}
	if !s.mode.live() {
		// A live cluster followed runs on the wall clock.
		s.clock0 = clusterTime(s.cluster)
	}
	if line := s.mode.line(); line != "" && !f.recordOnly {
		// (A source only recorded is not scheduled.)
		fmt.Fprintln(w, line)
	}
	printReport(w, s.report)
	switch {
	case f.config != "":
		s.cfgUsed = "--config " + f.config
	case embedded != nil && !f.recordOnly:
		s.cfgUsed = "the scheduler configuration of the snapshot"
	}
	// The version and gates come first: kube-scheduler defaults and
	// validates its configuration under them.
	lines := w
	if f.recordOnly {
		lines = io.Discard
	}
	if s.settings, s.gates, err = resolveSchedulerSettings(s, f, lines); err != nil {
		s.stop()
		return nil, err
	}
	if embedded != nil && s.gates.Features != features.Default() {
		// The snapshot read its configuration under the default gates;
		// kube-scheduler defaults and validates it under its own.
		cfg, cfgReport, err := config.LoadData(embeddedFrom, s.cfgData, s.gates.Features)
		if err != nil {
			printReport(w, cfgReport)
			s.stop()
			return nil, fmt.Errorf("the scheduler configuration of the snapshot under %s: %w", s.gates.Summary(), err)
		}
		embedded = cfg
	}
	switch {
	case f.config != "":
		cfg, cfgReport, err := config.Load(f.config, s.gates.Features)
		if err != nil {
			s.stop()
			return nil, err
		}
		printReport(w, cfgReport)
		s.cfg = cfg
		if embedded != nil {
			fmt.Fprintf(w, "note: --config %s replaces the scheduler configuration of the snapshot (%s)\n", f.config, embeddedFrom)
		}
	case embedded != nil && f.recordOnly:
	case embedded != nil:
		s.cfg = embedded
		fmt.Fprintf(w, "note: using the scheduler configuration of the snapshot (%s)\n", embeddedFrom)
	}
	if f.skipExtenders {
		s.cfg, s.skippedExtenders = withoutExtenders(s.cfg, w)
	}
	if s.replay != nil {
		s.replay.useExtenderAnswers(opened, f.skipExtenders, w)
	}
	if s.mode.binds() {
		fmt.Fprintf(w, "--bind: schedtui binds the pods whose schedulerName is %s, in %s, as it schedules them; "+
			"it never deletes pods, so a preemption it decides is not carried out. If the cluster runs a scheduler under "+
			"the same name, both will race for these pods.\n", strings.Join(profileNames(s.cfg), " or "), s.name)
	}
	return s, nil
}

// openSnapshot opens path, giving up once ctx is done (Ctrl-C while a big
// snapshot loads): the command then ends at once with an error, the load
// left to the process's exit. When w is a terminal, how far the load is
// shows there as one line (MiB of the snapshot's files loaded, see
// snapshot.OpenReporting), cleared before anything else is written.
func openSnapshot(ctx context.Context, path string, gates features.Features, w io.Writer) (*snapshot.Opened, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted before loading %s: %w", path, err)
	}
	// The load reports from its goroutine, which an interrupt leaves
	// running: once the line is cleared it draws nothing more.
	var mu sync.Mutex
	line := progress.NewLine(w, isTerminal(w), "loading "+path, "MiB", progressClock)
	report := progress.Func(func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		line.Report(inMiB(done, total), inMiB(total, total))
	})
	stop := func() {
		mu.Lock()
		defer mu.Unlock()
		line.Done()
		line = nil
	}
	type opened struct {
		o   *snapshot.Opened
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		o, err := snapshot.OpenUnder(path, report, gates)
		ch <- opened{o, err}
	}()
	select {
	case r := <-ch:
		stop()
		return r.o, r.err
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("interrupted while loading %s: %w", path, ctx.Err())
	}
}

// inMiB is n bytes of total in MiB, rounded down but for the whole, which
// is rounded up (a file under 1 MiB is 1, loaded or not).
func inMiB(n, total int64) int64 {
	if n >= total {
		return (total + 1<<20 - 1) >> 20
	}
	return n >> 20
}

// load reads the source (see loadSource); session.run schedules it.
func load(ctx context.Context, f *sourceFlags, w io.Writer) (*session, error) {
	src, err := loadSource(ctx, f, w, false)
	if err != nil {
		return nil, err
	}
	return src.session(ctx, f, w)
}

// session is the source ready to schedule: a state written by snapshot
// --at restarts at its attempt (resumeOf).
func (src *source) session(ctx context.Context, f *sourceFlags, w io.Writer) (*session, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	s := &session{cluster: src.cluster, cfg: src.cfg, seed: f.seed, mode: src.mode, bind: src.bind, replay: src.replay, stderr: w,
		settings: src.settings, gates: src.gates, ctx: ctx, demo: src.demo, clock0: src.clock0}
	var err error
	if s.resume, err = resumeOf(src.header); err != nil {
		return nil, fmt.Errorf("%s: %w", src.name, err)
	}
	if s.resume != nil {
		s.start = src.header.CapturedAt
	}
	return s, nil
}

func printReport(w io.Writer, r *docread.Report) {
	if r == nil {
		return
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.String())
	}
}

// profileNames are the scheduler names of a configuration's profiles.
func profileNames(cfg *configv1.KubeSchedulerConfiguration) []string {
	if cfg == nil || len(cfg.Profiles) == 0 {
		return []string{v1.DefaultSchedulerName}
	}
	var out []string
	for _, p := range cfg.Profiles {
		name := v1.DefaultSchedulerName
		if p.SchedulerName != nil {
			name = *p.SchedulerName
		}
		out = append(out, name)
	}
	return out
}

// withoutExtenders is cfg with its scheduler extenders left out
// (--skip-extenders), saying so on w; cfg itself is not changed.
func withoutExtenders(cfg *configv1.KubeSchedulerConfiguration, w io.Writer) (*configv1.KubeSchedulerConfiguration, int) {
	if cfg == nil || len(cfg.Extenders) == 0 {
		fmt.Fprintln(w, "note: --skip-extenders: the scheduler configuration has no extenders to leave out")
		return cfg, 0
	}
	urls := make([]string, len(cfg.Extenders))
	for i, e := range cfg.Extenders {
		urls[i] = e.URLPrefix
	}
	fmt.Fprintf(w, "--skip-extenders: leaving out %d scheduler extender(s) of the configuration (%s); "+
		"the answers may differ from the cluster's, whose scheduler calls them\n", len(urls), strings.Join(urls, ", "))
	out := cfg.DeepCopy()
	out.Extenders = nil
	return out, len(urls)
}
