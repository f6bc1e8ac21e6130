package engine

import (
	"runtime"
	"testing"
	"time"

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
		if err := e.Rewind(len(e.Attempts()) / 2); err != nil {
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
