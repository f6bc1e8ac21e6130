package snapshot_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/schedtui/schedtui/internal/scalegen"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
)

// BenchmarkLoadProtobufPods loads a protobuf snapshot in memory and
// reports what a pod costs to load (ns/pod, and B/pod allocated: what the
// collector then has to find): SchedulingBasic-shaped pods
// (internal/scenario's Throughput cluster, 1000 nodes and 20,000 bound
// pods), and the production-like pods of internal/scalegen (500 nodes,
// 10,000 pods: status resources, owner references, DaemonSets). Run it
// with GOGC=off to leave the collector's share out of ns/pod. The budget
// is on B/pod, which the machine's load does not move: 6000 and 14,000
// (before the pods' parts were shared by their bytes: 9337 and 24,446;
// see docs/performance.md).
func BenchmarkLoadProtobufPods(b *testing.B) {
	for _, shape := range []struct {
		name   string
		budget float64 // B/pod
		gen    func(b *testing.B) *snapshot.Cluster
	}{
		{"basic", 6000, func(b *testing.B) *snapshot.Cluster {
			sc, err := scenario.Throughput(scenario.WorkloadBasic, scenario.ThroughputSize{Nodes: 1000, InitPods: 20000, MeasurePods: 1})
			if err != nil {
				b.Fatal(err)
			}
			return sc.Cluster
		}},
		{"scalegen", 14000, func(b *testing.B) *snapshot.Cluster {
			s, err := scalegen.Generate(500, 10000, nil)
			if err != nil {
				b.Fatal(err)
			}
			c, _, err := snapshot.Load("scale.json", s.Data)
			if err != nil {
				b.Fatal(err)
			}
			return c
		}},
	} {
		b.Run(shape.name, func(b *testing.B) {
			c := shape.gen(b)
			var buf bytes.Buffer
			if _, err := snapshot.Write(&buf, c, snapshot.Header{}, snapshot.OutputFormat{Protobuf: true}); err != nil {
				b.Fatal(err)
			}
			pods := len(c.Pods)
			data := buf.Bytes()
			c = nil
			runtime.GC()
			var before, after runtime.MemStats
			var took time.Duration
			b.ResetTimer()
			for range b.N {
				runtime.ReadMemStats(&before)
				start := time.Now()
				if _, _, err := snapshot.Load("cluster.pb", data); err != nil {
					b.Fatal(err)
				}
				took += time.Since(start)
				runtime.ReadMemStats(&after)
				perPod := float64(after.TotalAlloc-before.TotalAlloc) / float64(pods)
				b.ReportMetric(perPod, "B/pod")
				if perPod > shape.budget {
					b.Errorf("%.0f B allocated a pod, over the budget of %.0f", perPod, shape.budget)
				}
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N*pods), "ns/pod")
		})
	}
}
