package engine

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/peakmem"
)

// BenchmarkLongShadowReplay is BenchmarkLongReplay in shadow mode, the
// default for a live cluster and a recording: the same churn (5000 nodes;
// 10 pods/s arriving, each deleted 10 minutes later), each pod decided
// about by the cluster's scheduler (shadowChurn: bindings 300ms after
// arrival, one in five nominated for PreBind first, one in twenty lost in
// flight, one in seven to another node than schedtui's, the pods that fit
// nowhere reported unschedulable), judged by schedtui under the TUI's
// retention (500 attempts whole, 40 sliding checkpoints every 1024
// attempts). It reports the peak resident set (the bound is 2 GiB), the
// live heap, and what is kept whole at the end, then rewinds to the first
// attempt of the last hour and checks it comes back whole, the one judged
// then. Each decision is judged on the whole cluster, some several times,
// so a simulated hour takes longer than LongReplay's: it runs two
// simulated hours unless SCHEDTUI_BENCH_MINUTES says otherwise
// (SCHEDTUI_BENCH_NODES shrinks the cluster; -v prints the figures every
// simulated ten minutes). Run it with -benchtime=1x.
//
//	go test ./scheduler/engine -run '^$' -bench LongShadowReplay -benchtime=1x -timeout 6h -v
func BenchmarkLongShadowReplay(b *testing.B) {
	nodeCount := benchEnv(b, "SCHEDTUI_BENCH_NODES", 5000)
	minutes := benchEnv(b, "SCHEDTUI_BENCH_MINUTES", 120)
	for i := 0; i < b.N; i++ {
		m := peakmem.Start()
		e, feed := shadowEngine(b, nodeCount, 1024, 40, Retention{Detailed: 500, Sliding: true})
		feed.c.rate, feed.c.lifetime, feed.c.stuckEvery = 10, 10*time.Minute, 997
		start := time.Now()
		changes := 0
		for s := 0; s < minutes*60; s++ {
			n, err := feed.second(e, s)
			if err != nil {
				b.Fatal(err)
			}
			changes += n
			if s%60 == 0 {
				m.Note()
			}
			if s%600 == 599 && testing.Verbose() {
				fmt.Fprintf(os.Stderr, "%dmin: %d attempts, %+v, %d events whole, peak RSS %.0f MiB, peak heap %.0f MiB, %s\n", (s+1)/60,
					e.Attempts().Len(), e.Retained(), len(e.hist.Tail()), peakmem.MiB(peakmem.PeakRSS()), peakmem.MiB(m.PeakHeap()), time.Since(start).Round(time.Second))
			}
		}
		run := time.Since(start)
		m.Note()
		writeHeapProfile(b)
		r := e.Retained()
		attempts := e.Attempts()
		whole := len(e.hist.Tail())
		hourAgo := e.Now().Add(-time.Hour)
		target := sort.Search(attempts.Len(), func(i int) bool { return !attempts.At(i).Time.Before(hourAgo) })
		target = max(target, r.RewindableFrom+1)
		want := attempts.At(target - 1)
		rw := time.Now()
		if err := e.Rewind(attempts.Len() - target); err != nil {
			b.Fatalf("rewinding to attempt %d: %v", target, err)
		}
		rewind := time.Since(rw)
		if a := e.Attempts().At(target - 1); attemptLineOf(a) != attemptLineOf(want) || a.Summarized {
			b.Fatalf("after rewinding to attempt %d, it is not the one made then, whole", target)
		}
		rss := peakmem.PeakRSS()
		b.Logf("%d changes, %d attempts, %+v, %d events whole: peak RSS %.0f MiB, peak heap %.0f MiB; run %s, rewind %d attempts %s",
			changes, attempts.Len(), r, whole, peakmem.MiB(rss), peakmem.MiB(m.PeakHeap()), run, attempts.Len()-target, rewind)
		b.ReportMetric(peakmem.MiB(rss), "peak-rss-MiB")
		b.ReportMetric(peakmem.MiB(m.PeakHeap()), "peak-heap-MiB")
		b.ReportMetric(float64(changes), "changes")
		b.ReportMetric(float64(attempts.Len()), "attempts")
		b.ReportMetric(float64(whole), "events-whole")
		b.ReportMetric(float64(r.Checkpoints), "checkpoints")
		b.ReportMetric(run.Seconds(), "run-s")
		b.ReportMetric(rewind.Seconds(), "rewind-s")
		if rss >= 2<<30 {
			b.Errorf("peak RSS %.0f MiB, the bound is 2 GiB", peakmem.MiB(rss))
		}
	}
}
