//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
)

// BenchmarkMillionPods is issue 27's memory goal: `schedtui run --snapshot
// FILE -o json --detail summary`, a process of its own as a user runs it,
// on a SchedulingBasic-shaped cluster (internal/scenario's Throughput: nodes
// of 4 cpu and 32Gi, pause pods of 100m and 500Mi) of 50,000 nodes,
// 1,000,000 bound pods and 1000 pending, from JSON and from protobuf. It
// reports the child's peak resident set (its rusage), the load's time, the
// attempts' and their ratio to the load (the scheduler's build, its cache
// and queue over the cluster, is reported apart). Budgets: peak-rss-MiB
// under 4096, attempts÷load at most 0.5. Then snapshot-pb-to-json and
// snapshot-json-to-pb convert each file to the other format with
// `schedtui snapshot --snapshot FILE -o OUT`, a process of its own, and
// report its peak-rss-MiB (budget under 4096, snapshotBudgetMiB: the
// List is written one object at a time, so that the load is the peak),
// cpu-s and wall-s. SCHEDTUI_BENCH_NODES and SCHEDTUI_BENCH_PODS change
// the size (bound pods; pending stay 1000).
// The snapshots are generated once into a temporary directory (a minute or two,
// and far more memory than the run: the whole cluster unshared, 4.3 GiB at
// 200,000 pods), or kept in and reused from SCHEDTUI_BENCH_SNAPSHOTS when
// that names a directory.
//
//	go test ./cmd/schedtui -run '^$' -bench MillionPods -benchtime=1x -timeout 1h
func BenchmarkMillionPods(b *testing.B) {
	size := scenario.ThroughputSize{Nodes: benchEnvInt(b, "SCHEDTUI_BENCH_NODES", 50000),
		InitPods: benchEnvInt(b, "SCHEDTUI_BENCH_PODS", 1000000), MeasurePods: 1000}
	dir := os.Getenv("SCHEDTUI_BENCH_SNAPSHOTS")
	if dir == "" {
		dir = b.TempDir()
	}
	files, err := millionSnapshots(dir, size)
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "schedtui")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("building schedtui: %v\n%s", err, out)
	}
	// Linux starts a child's peak resident set (its rusage's maxrss) at
	// its parent's peak when it execs (os/exec's children share the
	// parent's memory until then): without this reset of this process's
	// peak, generating the snapshots here (many GiB) would be counted as
	// the run's.
	peakmem.Start()
	for _, format := range []string{"json", "pb"} {
		b.Run(format, func(b *testing.B) {
			for range b.N {
				r, err := runMillion(bin, files[format], b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.peakRSSMiB, "peak-rss-MiB")
				b.ReportMetric(r.cpu.Seconds(), "cpu-s")
				b.ReportMetric(r.timings.LoadSeconds, "load-s")
				b.ReportMetric(r.timings.BuildSeconds, "build-s")
				b.ReportMetric(r.timings.ScheduleSeconds, "attempts-s")
				b.ReportMetric(r.timings.ScheduleSeconds/r.timings.LoadSeconds, "attempts÷load")
				if r.attempts < size.MeasurePods {
					b.Errorf("%d attempts for %d pending pods", r.attempts, size.MeasurePods)
				}
				if r.peakRSSMiB >= 4096 {
					b.Errorf("peak RSS %.0f MiB, the budget is 4096", r.peakRSSMiB)
				}
				if ratio := r.timings.ScheduleSeconds / r.timings.LoadSeconds; ratio > 0.5 {
					b.Errorf("the attempts took %.2f× the load's time, the budget is 0.5", ratio)
				}
			}
		})
	}
	for _, conv := range [][2]string{{"pb", "json"}, {"json", "pb"}} {
		b.Run("snapshot-"+conv[0]+"-to-"+conv[1], func(b *testing.B) {
			for range b.N {
				out := filepath.Join(b.TempDir(), "converted."+conv[1])
				c, err := measureChild(exec.Command(bin, "snapshot", "--snapshot", files[conv[0]], "-o", out), io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(c.peakRSSMiB, "peak-rss-MiB")
				b.ReportMetric(c.cpu.Seconds(), "cpu-s")
				b.ReportMetric(c.wall.Seconds(), "wall-s")
				if c.peakRSSMiB >= snapshotBudgetMiB {
					b.Errorf("peak RSS %.0f MiB, the budget is %d", c.peakRSSMiB, snapshotBudgetMiB)
				}
				if want := fmt.Sprintf("(%d nodes, %d pods)", size.Nodes, size.InitPods+size.MeasurePods); !strings.Contains(c.stderr, want) {
					b.Errorf("snapshot did not say it wrote %s:\n%s", want, c.stderr)
				}
			}
		})
	}
}

// snapshotBudgetMiB is the peak resident set `schedtui snapshot` may take
// to convert the million pods, either way: what run may take to load and
// schedule them. Writing holds one object's encoding at a time, so the
// load is the peak.
const snapshotBudgetMiB = 4096

// childUsage is what a child process took: its peak resident set and CPU
// time (its rusage), its wall-clock time, and what it wrote to stderr.
type childUsage struct {
	peakRSSMiB float64
	cpu, wall  time.Duration
	stderr     string
}

// measureChild runs cmd with its output to stdout.
func measureChild(cmd *exec.Cmd, stdout io.Writer) (childUsage, error) {
	var u childUsage
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	u.wall, u.stderr = time.Since(start), stderr.String()
	if err != nil {
		return u, fmt.Errorf("%s: %v\n%s", cmd, err, u.stderr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return u, fmt.Errorf("%s: no rusage", cmd)
	}
	u.peakRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	u.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return u, nil
}

// benchEnvInt is the positive integer in the environment variable name,
// or def when it is unset.
func benchEnvInt(b *testing.B, name string, def int) int {
	n, err := peakmem.EnvCount(name, def)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// millionSnapshots writes the SchedulingBasic cluster of size to dir as
// JSON and as protobuf, as `schedtui snapshot -o` writes them, unless
// files of that size are there already, and returns their paths by
// format.
func millionSnapshots(dir string, size scenario.ThroughputSize) (map[string]string, error) {
	base := filepath.Join(dir, fmt.Sprintf("basic-%d-%d-%d", size.Nodes, size.InitPods, size.MeasurePods))
	files := map[string]string{"json": base + ".json", "pb": base + ".pb"}
	missing := false
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			missing = true
		}
	}
	if !missing {
		return files, nil
	}
	sc, err := scenario.Throughput(scenario.WorkloadBasic, size)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if _, err := snapshot.WriteFile(f, sc.Cluster, snapshot.Header{Source: "BenchmarkMillionPods " + filepath.Base(base)}); err != nil {
			return nil, err
		}
	}
	// The generated cluster is several GiB: give it back before the runs.
	sc = nil
	runtime.GC()
	debug.FreeOSMemory()
	return files, nil
}

// millionRun is one `schedtui run` process: its phases (--timings), its
// peak resident set and CPU time (its rusage), and the attempts it wrote.
type millionRun struct {
	timings    RunTimings
	peakRSSMiB float64
	cpu        time.Duration
	attempts   int
}

// runMillion runs `schedtui run --snapshot file -o json --detail summary`
// with its output to a file in dir.
func runMillion(bin, file, dir string) (millionRun, error) {
	var r millionRun
	outPath, timingsPath := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.json")
	out, err := os.Create(outPath)
	if err != nil {
		return r, err
	}
	defer out.Close()
	c, err := measureChild(exec.Command(bin, "run", "--snapshot", file, "-o", "json", "--detail", "summary", "--timings", timingsPath), out)
	if err != nil {
		return r, err
	}
	r.peakRSSMiB, r.cpu = c.peakRSSMiB, c.cpu
	tb, err := os.ReadFile(timingsPath)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(tb, &r.timings); err != nil {
		return r, fmt.Errorf("%s: %w", timingsPath, err)
	}
	lines, err := os.ReadFile(outPath)
	if err != nil {
		return r, err
	}
	r.attempts, err = countAttempts(lines)
	return r, err
}

// countAttempts counts the attempt lines of run's -o json output.
func countAttempts(output []byte) (int, error) {
	n := 0
	for i, line := range bytes.Split(bytes.TrimSpace(output), []byte("\n")) {
		var l struct{ Kind string }
		if err := json.Unmarshal(line, &l); err != nil {
			return 0, fmt.Errorf("output line %d: %w", i+1, err)
		}
		if l.Kind == "attempt" {
			n++
		}
	}
	return n, nil
}
