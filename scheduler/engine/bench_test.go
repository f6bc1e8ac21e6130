package engine

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// BenchmarkRunToQuiescence schedules a generated cluster of 5000 nodes and
// 10,000 pending pods (9800 small pods, 100 preemptors, 100 pods that fit
// nowhere, retried once by the 5-minute flush) until quiescent, then
// rewinds one attempt, then half of the remaining ones. Run it with
// -benchtime=1x: one iteration is a whole run.
//
//	go test ./scheduler/engine -run '^$' -bench RunToQuiescence -benchtime=1x
func BenchmarkRunToQuiescence(b *testing.B) {
	nodes, pods := genCluster(5000, 10000, 2500, 50, 100)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		peak := base
		sample := func() {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
			}
		}
		startWall := time.Now()
		e, err := New(nodes, pods, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry()})
		if err != nil {
			b.Fatal(err)
		}
		build := time.Since(startWall)
		runStart := time.Now()
		attempts, bound := 0, 0
		for {
			a, ok := e.Step()
			if !ok {
				break
			}
			attempts++
			if a.Outcome == record.Scheduled {
				bound++
			}
			if attempts%500 == 0 {
				sample()
			}
		}
		run := time.Since(runStart)
		virtual := e.Now().Sub(e.Start())
		sample()
		rw := time.Now()
		if err := e.Rewind(1); err != nil {
			b.Fatal(err)
		}
		rewind := time.Since(rw)
		rw = time.Now()
		if err := e.Rewind(e.Attempts().Len() / 2); err != nil {
			b.Fatal(err)
		}
		rewindHalf := time.Since(rw)
		sample()
		b.ReportMetric(float64(attempts)/run.Seconds(), "attempts/s")
		b.ReportMetric(float64(bound)/run.Seconds(), "pods/s")
		b.ReportMetric(float64(attempts), "attempts")
		b.ReportMetric(float64(bound), "bound")
		b.ReportMetric(build.Seconds(), "build-s")
		b.ReportMetric(run.Seconds(), "run-s")
		b.ReportMetric(rewind.Seconds(), "rewind-1-s")
		b.ReportMetric(rewindHalf.Seconds(), "rewind-half-s")
		b.ReportMetric(float64(len(e.checkpoints)), "checkpoints")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(virtual.Seconds(), "virtual-s")
	}
}

// BenchmarkLongReplay feeds a day of generated churn to the engine as a
// live session would (5000 nodes; 10 pods/s arriving, each deleted 10
// minutes later: 864,000 pods, about 1.7 million changes) under the TUI's
// kind of retention: 500 attempts whole, pending pods' last attempts
// pinned, 40 sliding checkpoints every 1024 attempts (an hour is 36,000
// attempts). It reports the peak resident set (VmHWM; the bound is 2 GiB)
// and the live heap, then rewinds to the first attempt of the last hour
// and checks the attempt made again is the one summarized there.
// SCHEDTUI_BENCH_NODES and SCHEDTUI_BENCH_MINUTES shrink it; the whole day
// takes minutes on two idle cores (many times that on a loaded machine),
// and -v prints the figures at each simulated hour; SCHEDTUI_BENCH_HEAPPROFILE writes the live heap's
// profile at the end. Run it with -benchtime=1x.
//
//	go test ./scheduler/engine -run '^$' -bench LongReplay -benchtime=1x -timeout 6h -v
func BenchmarkLongReplay(b *testing.B) {
	nodeCount := benchEnv(b, "SCHEDTUI_BENCH_NODES", 5000)
	minutes := benchEnv(b, "SCHEDTUI_BENCH_MINUTES", 24*60)
	const rate = 10
	nodes, bound := genCluster(nodeCount, 0, 500, 1<<30, 1<<30)
	c := churn{rate: rate, lifetime: 10 * time.Minute, stuckEvery: 997}
	for i := 0; i < b.N; i++ {
		m := peakmem.Start()
		e, err := New(nodes, bound, nil, Options{Seed: 1, Registry: plugins.NewInTreeRegistry(),
			CheckpointInterval: 1024, MaxCheckpoints: 40, Retention: Retention{Detailed: 500, Sliding: true}})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		changes := 0
		for s := 0; s < minutes*60; s++ {
			n, err := c.second(e, s)
			if err != nil {
				b.Fatal(err)
			}
			changes += n
			if s%60 == 0 {
				m.Note()
			}
			if s%3600 == 3599 && testing.Verbose() {
				// The whole day takes long: -v shows how far it got.
				fmt.Fprintf(os.Stderr, "%dh: %d attempts, %+v, peak RSS %.0f MiB, peak heap %.0f MiB, %s\n", (s+1)/3600,
					e.Attempts().Len(), e.Retained(), peakmem.MiB(peakmem.PeakRSS()), peakmem.MiB(m.PeakHeap()), time.Since(start).Round(time.Second))
			}
		}
		run := time.Since(start)
		m.Note()
		writeHeapProfile(b)
		r := e.Retained()
		attempts := e.Attempts()
		hourAgo := e.Now().Add(-time.Hour)
		target := sort.Search(attempts.Len(), func(i int) bool { return !attempts.At(i).Time.Before(hourAgo) })
		if target < r.RewindableFrom {
			b.Fatalf("the last hour starts at attempt %d, rewind reaches back to %d only", target, r.RewindableFrom)
		}
		want := attempts.At(target)
		rw := time.Now()
		if err := e.Rewind(attempts.Len() - target); err != nil {
			b.Fatalf("rewinding to the last hour's first attempt: %v", err)
		}
		rewind := time.Since(rw)
		a, ok := e.Step()
		if !ok || attemptLineOf(a) != attemptLineOf(want) || a.Summarized {
			b.Fatalf("after rewinding an hour, the attempt made again is not the one made then")
		}
		rss := peakmem.PeakRSS()
		b.Logf("%d changes, %d attempts, %+v: peak RSS %.0f MiB, peak heap %.0f MiB; run %s, rewind an hour %s",
			changes, attempts.Len(), r, peakmem.MiB(rss), peakmem.MiB(m.PeakHeap()), run, rewind)
		b.ReportMetric(peakmem.MiB(rss), "peak-rss-MiB")
		b.ReportMetric(peakmem.MiB(m.PeakHeap()), "peak-heap-MiB")
		b.ReportMetric(float64(changes), "changes")
		b.ReportMetric(float64(attempts.Len()), "attempts")
		b.ReportMetric(float64(r.Full), "kept-full")
		b.ReportMetric(float64(r.Checkpoints), "checkpoints")
		b.ReportMetric(run.Seconds(), "run-s")
		b.ReportMetric(rewind.Seconds(), "rewind-1h-s")
		if rss >= 2<<30 {
			b.Errorf("peak RSS %.0f MiB, the bound is 2 GiB", peakmem.MiB(rss))
		}
	}
}

// writeHeapProfile writes the live heap's profile to the file
// SCHEDTUI_BENCH_HEAPPROFILE names, if any, while the engine is still
// held: -memprofile is written once the benchmark let go of it.
func writeHeapProfile(b *testing.B) {
	name := os.Getenv("SCHEDTUI_BENCH_HEAPPROFILE")
	if name == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// attemptLineOf is what a summarized attempt keeps of an attempt.
func attemptLineOf(a *record.Attempt) [5]string {
	return [5]string{a.Pod, a.Outcome.String(), a.Node, a.Message, a.Time.String()}
}

// benchEnv reads a positive integer from the environment, or def.
func benchEnv(b *testing.B, name string, def int) int {
	n, err := peakmem.EnvCount(name, def)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
