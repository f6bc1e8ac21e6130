package tui

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/internal/gcpace"
	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/internal/scalegen"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// bigModel is a root model over one synthetic attempt at scale: nodes
// feasible nodes scored by plugins Score plugins, and as many Filter
// plugins, every other node rejected. No scheduler runs: the benchmark
// measures the UI alone.
func bigModel(nodes, plugins int) *Model {
	a := syntheticAttempt("default/big", nodes, func(p, i int) int64 { return int64((i*7 + p*13) % 101) }, plugins)
	a.Statuses = []record.Status{{Code: record.CodeUnschedulable, Plugin: "P3", Reasons: []string{"Insufficient cpu"}}}
	var filterPlugins []string
	for p := 0; p < plugins; p++ {
		filterPlugins = append(filterPlugins, fmt.Sprintf("P%d", p))
	}
	return syntheticModel(a, filterPlugins, 160, 50)
}

// syntheticAttempt is a scheduled attempt of pod over nodes nodes, all
// feasible, each plugin p scoring node i score(p, i); node 0 won.
func syntheticAttempt(pod string, nodes int, score func(p, i int) int64, plugins int) *record.Attempt {
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%05d", i)
	}
	a := &record.Attempt{
		Seq: 1, Pod: pod, Profile: "default-scheduler", Outcome: record.Scheduled, Chosen: 0,
		Nodes: record.NewNodeList(names), AbsentStatus: -1, Scored: true, Node: names[0],
	}
	for i := range a.Phases {
		a.Phases[i].Code = record.CodeSuccess
	}
	for p := 0; p < plugins; p++ {
		col := record.ScoreColumn{Plugin: fmt.Sprintf("Plugin%d", p), Weight: int32(p%3 + 1)}
		for i := 0; i < nodes; i++ {
			col.AppendScore(score(p, i))
		}
		a.Scores = append(a.Scores, col)
	}
	for i := 0; i < nodes; i++ {
		a.Feasible = append(a.Feasible, int32(i))
	}
	return a
}

// syntheticModel is a root model of w×h showing attempt a alone, over
// its nodes; no scheduler runs.
func syntheticModel(a *record.Attempt, filterPlugins []string, width, height int) *Model {
	w := &world{
		attempts: history.AttemptsOf(a), cursor: engine.Cursor{Attempt: 0, Phase: record.PhaseBind},
		cluster: cluster{nodeIdx: map[string]int{}, nominated: map[string][]nominee{}}, pods: map[string]*v1.Pod{},
		filterPlugins: map[string][]string{a.Profile: filterPlugins},
	}
	for i, n := range a.Nodes.Names {
		w.nodes = append(w.nodes, nodeView{node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}})
		w.nodeIdx[n] = i
	}
	m := New(Options{Backend: &Backend{Name: "synthetic"}})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(engineMsg{w: w})
	return m
}

// BenchmarkKeyPress is one key press (j) through Update and View on the
// 15,000-node × 10-plugin score matrix; the frame budget is 16ms.
func BenchmarkKeyPress(b *testing.B) {
	for _, v := range []struct {
		name string
		view viewID
	}{{"scores", viewScores}, {"filter", viewFilter}, {"nodes", viewNodes}} {
		b.Run(fmt.Sprintf("%s_15000x10", v.name), func(b *testing.B) {
			m := bigModel(15000, 10)
			// The switch refreshes the view, outside the timing.
			m.goTo(v.view, false)
			down := tea.KeyPressMsg{Code: 'j', Text: "j"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(down)
				_ = m.View()
			}
		})
	}
}

// The debugger at scale: a snapshot of 15,000 nodes and
// 300,000 pods (internal/scalegen, the loader benchmark's cluster;
// SCHEDTUI_BENCH_NODES and SCHEDTUI_BENCH_PODS change its size). The
// generated JSON is 2.6 GiB and the benchmarks need about 12 GiB of memory.
// SCHEDTUI_BENCH_SHAPE=basic generates SchedulingBasic's cluster instead
// (internal/scenario Throughput: the pods bound, and 1000 pending), and
// SCHEDTUI_BENCH_SNAPSHOT names the protobuf file to open: generated there
// if absent, and kept (the 50,000-node sizes take minutes to generate).

// scaleShown is the first screen's model, which the key presses reuse,
// and scalePods the pods of its snapshot.
var (
	scaleShown *harness
	scalePods  int
)

// scaleSnapshot generates the cluster into a file in dir, as `schedtui
// snapshot -o` writes it (scale.json, or scale.pb in protobuf), and
// returns its path; in protobuf, SCHEDTUI_BENCH_SNAPSHOT's file if set.
func scaleSnapshot(b *testing.B, dir string, protobuf bool) string {
	start := time.Now()
	nodes, pods := benchSize("SCHEDTUI_BENCH_NODES", 15000), benchSize("SCHEDTUI_BENCH_PODS", 300000)
	path := filepath.Join(dir, "scale.json")
	if protobuf {
		path = filepath.Join(dir, "scale.pb")
		if given := os.Getenv("SCHEDTUI_BENCH_SNAPSHOT"); given != "" {
			if _, err := os.Stat(given); err == nil {
				return given
			}
			path = given
		}
	}
	basic := os.Getenv("SCHEDTUI_BENCH_SHAPE") == "basic"
	if basic {
		if err := writeBasicSnapshot(path, nodes, pods); err != nil {
			b.Fatal(err)
		}
	} else if err := writeScaleSnapshot(path, nodes, pods, protobuf); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d nodes, %d pods (SchedulingBasic: %v): %.0f MiB in %s in %v", nodes, pods, basic, float64(fi.Size())/(1<<20), filepath.Base(path), time.Since(start).Round(time.Millisecond))
	return path
}

// writeScaleSnapshot writes scalegen's cluster to path.
func writeScaleSnapshot(path string, nodes, pods int, protobuf bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if protobuf {
		err = writeScaleProtobuf(f, nodes, pods)
	} else {
		_, err = scalegen.Write(f, nodes, pods, nil)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeBasicSnapshot writes SchedulingBasic's cluster of nodes nodes,
// pods bound pods and 1000 pending to path (the format its extension
// names).
func writeBasicSnapshot(path string, nodes, pods int) error {
	sc, err := scenario.Throughput(scenario.WorkloadBasic, scenario.ThroughputSize{Nodes: nodes, InitPods: pods, MeasurePods: 1000})
	if err != nil {
		return err
	}
	_, err = snapshot.WriteFile(path, sc.Cluster, snapshot.Header{Source: "BenchmarkFirstScreen " + sc.Name})
	return err
}

// writeScaleProtobuf writes the cluster as a protobuf snapshot, the
// objects generated one at a time.
func writeScaleProtobuf(w io.Writer, nodes, pods int) error {
	pw, err := snapshot.NewProtobufWriter(snapshot.Header{})
	if err != nil {
		return err
	}
	if err := scalegen.Objects(nodes, pods, pw.Add); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := pw.WriteList(bw); err != nil {
		return err
	}
	return bw.Flush()
}

func benchSize(env string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		return n
	}
	return def
}

// screenParts is the time of each part of the first screen: wall-clock
// and CPU (on a shared machine, and under nice, the wall-clock time
// depends on the neighbours, the CPU time does not).
type screenParts struct {
	load, backend, view, loadCPU, backendCPU, viewCPU time.Duration
	peakRSS                                           uint64 // the process's, to the first frame
}

func (p *screenParts) add(q screenParts) {
	p.load, p.backend, p.view = p.load+q.load, p.backend+q.backend, p.view+q.view
	p.loadCPU, p.backendCPU, p.viewCPU = p.loadCPU+q.loadCPU, p.backendCPU+q.backendCPU, p.viewCPU+q.viewCPU
	p.peakRSS = max(p.peakRSS, q.peakRSS)
}

func (p screenParts) total() time.Duration    { return p.load + p.backend + p.view }
func (p screenParts) totalCPU() time.Duration { return p.loadCPU + p.backendCPU + p.viewCPU }

// firstScreen is what a user waits for from `schedtui --snapshot PATH`
// to the first complete frame: the file read and loaded (snapshot.Open),
// the scheduler and its queue over the cluster (NewBackend), the model,
// the engine's state captured for the views (the session's first Cmd)
// and the frame drawn.
func firstScreen(b *testing.B, path string) (hs *harness, p screenParts) {
	t0, c0 := time.Now(), peakmem.CPUTime()
	// As schedtui does until the first screen (cmd/schedtui's openTUI).
	growing := gcpace.Growing()
	defer growing()
	o, err := snapshot.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if o.Report.HasErrors() {
		b.Fatalf("the snapshot loaded with problems:\n%s", o.Report.String())
	}
	c := o.Cluster
	scalePods = len(c.Pods)
	t1, c1 := time.Now(), peakmem.CPUTime()
	be, err := NewBackend(filepath.Base(path), c, scheduler.Options{Registry: plugins.NewInTreeRegistry(), Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	t2, c2 := time.Now(), peakmem.CPUTime()
	hs = &harness{t: b, m: New(Options{Backend: be, NoColor: true, Notice: "n: next attempt", Shown: growing}), wait: 10 * time.Minute}
	hs.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	hs.run(hs.m.Init())
	frame := hs.m.View().Content
	t3, c3 := time.Now(), peakmem.CPUTime()
	if !strings.Contains(ansi.Strip(frame), "Active (") {
		b.Fatalf("the first screen does not show the queue:\n%s", ansi.Strip(frame))
	}
	return hs, screenParts{load: t1.Sub(t0), backend: t2.Sub(t1), view: t3.Sub(t2), loadCPU: c1 - c0, backendCPU: c2 - c1, viewCPU: c3 - c2}
}

// BenchmarkFirstScreen is the time from opening a snapshot of 15,000
// nodes and 300,000 pods to the TUI's first complete frame (first-screen-s;
// the budget is 10s) and its parts: load-s (snapshot.Open: the file read
// and loaded), backend-s (the scheduler, its cache and queue) and view-s
// (the state captured for the views and the frame drawn); and the CPU
// time of each (cpu-s, load-cpu-s, ...). On two idle cores the wall-clock
// time is between half the CPU time and all of it. protobuf opens the
// snapshot in protobuf (schedtui snapshot -o x.pb), json in JSON.
func BenchmarkFirstScreen(b *testing.B) {
	for _, format := range []string{"protobuf", "json"} {
		b.Run(format, func(b *testing.B) {
			var sum screenParts
			path := scaleSnapshot(b, b.TempDir(), format == "protobuf")
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				scaleShown = nil
				peakmem.Start()
				b.StartTimer()
				hs, p := firstScreen(b, path)
				b.StopTimer()
				p.peakRSS = peakmem.PeakRSS()
				scaleShown = hs
				sum.add(p)
				b.Logf("%s, %d nodes, %d pods: load %.2fs (CPU %.2fs), backend %.2fs (CPU %.2fs), first frame %.2fs (CPU %.2fs): %.2fs in all, CPU %.2fs (budget 10s); peak RSS %.0f MiB",
					format, len(hs.m.c.World.nodes), scalePods, p.load.Seconds(), p.loadCPU.Seconds(),
					p.backend.Seconds(), p.backendCPU.Seconds(), p.view.Seconds(), p.viewCPU.Seconds(), p.total().Seconds(), p.totalCPU().Seconds(), peakmem.MiB(p.peakRSS))
			}
			n := float64(b.N)
			for _, m := range []struct {
				d    time.Duration
				unit string
			}{{sum.load, "load-s"}, {sum.backend, "backend-s"}, {sum.view, "view-s"}, {sum.total(), "first-screen-s"},
				{sum.loadCPU, "load-cpu-s"}, {sum.backendCPU, "backend-cpu-s"}, {sum.viewCPU, "view-cpu-s"}, {sum.totalCPU(), "cpu-s"}} {
				b.ReportMetric(m.d.Seconds()/n, m.unit)
			}
			b.ReportMetric(peakmem.MiB(sum.peakRSS), "peak-rss-MiB")
		})
	}
}

// scaleKeys is how many keys one op of BenchmarkKeyPressScale presses: one
// op is enough at -benchtime=1x, which the first screen needs.
const scaleKeys = 50

// BenchmarkKeyPressScale is key presses (j) through Update and View in
// each view a user visits, on the real model over 15,000 nodes and
// 300,000 pods after its first attempt (n): ms/key on average and
// max-ms/key, the slowest; the frame budget of 16ms is on ms/key (on a
// shared machine the slowest key mostly measures the neighbours).
// pod-refreshed is the Pod view's frame after the state changed (a live
// cluster's capture refreshes the active view every second).
func BenchmarkKeyPressScale(b *testing.B) {
	hs := scaleShown
	if hs == nil {
		hs, _ = firstScreen(b, scaleSnapshot(b, b.TempDir(), true))
		scaleShown = hs
	}
	nodes, pods := len(hs.m.c.World.nodes), scalePods
	hs.t = b
	if hs.m.c.World.attempts.Len() == 0 {
		t0 := time.Now()
		hs.keys("n")
		b.Logf("first attempt: %v", time.Since(t0).Round(time.Millisecond))
	}
	if hs.m.c.focused() == nil {
		b.Fatalf("no attempt after n:\n%s", hs.screen())
	}
	for _, v := range []struct {
		name    string
		view    viewID
		refresh bool // the state changed before the key: the view refreshes
	}{{"pod", viewAttempt, false}, {"pod-refreshed", viewAttempt, true}, {"filter", viewFilter, false}, {"scores", viewScores, false},
		{"nodes", viewNodes, false}, {"queues", viewQueues, false}, {"events", viewEvents, false}} {
		b.Run(fmt.Sprintf("%s_%dx%d", v.name, nodes, pods), func(b *testing.B) {
			hs.t = b
			// The switch refreshes the view, and the data it asks for
			// (the Filter view's full diagnosis) arrives, outside the
			// timing.
			hs.m.goTo(v.view, false)
			hs.send(tea.WindowSizeMsg{Width: 160, Height: 50})
			down := tea.KeyPressMsg{Code: 'j', Text: "j"}
			var worst time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := 0; k < scaleKeys; k++ {
					t0 := time.Now()
					if v.refresh {
						// What a live cluster's capture posts each second.
						hs.m.Update(stateMsg{allViews})
					}
					hs.m.Update(down)
					_ = hs.m.View()
					worst = max(worst, time.Since(t0))
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*scaleKeys), "ms/key")
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/key")
		})
	}
}
