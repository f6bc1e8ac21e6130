package snapshot_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/scenario"
	"github.com/schedtui/schedtui/snapshot"
)

// BenchmarkDecodeJSONObjects decodes the pods and nodes of
// BenchmarkVersusUpstream's SchedulingBasic file at 5000 nodes (5000
// nodes, 3000 pods, 23 MiB of indented JSON) one object at a time, as the
// loader's goroutines do: with the fast path (JSON v2, decode_fast.go)
// and with the strict decoder alone (sigs.k8s.io/json), and reports
// ns/object and B/object allocated. The budget is on the fast path's
// B/object, which the machine's load does not move: 6500 (the strict
// decoder allocates about 8700).
func BenchmarkDecodeJSONObjects(b *testing.B) {
	data := throughputJSON(b, scenario.WorkloadBasic, scenario.ThroughputSize{Nodes: 5000, InitPods: 1000, MeasurePods: 2000})
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &list); err != nil {
		b.Fatal(err)
	}
	type object struct {
		kind string
		data []byte
	}
	var objects []object
	for _, item := range list.Items {
		h, err := docread.ReadHeader(item)
		if err != nil {
			b.Fatal(err)
		}
		if h.Kind == "Pod" || h.Kind == "Node" {
			objects = append(objects, object{h.Kind, item})
		}
	}
	for _, way := range []struct {
		name   string
		strict bool
		budget float64 // B/object
	}{{"fast", false, 6500}, {"strict", true, 0}} {
		b.Run(way.name, func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for b.Loop() {
				for _, o := range objects {
					if !snapshot.DecodeJSONObject(o.kind, o.data, way.strict) {
						b.Fatalf("%s did not decode cleanly", o.kind)
					}
				}
			}
			runtime.ReadMemStats(&after)
			n := float64(b.N * len(objects))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/object")
			perObject := float64(after.TotalAlloc-before.TotalAlloc) / n
			b.ReportMetric(perObject, "B/object")
			if way.budget > 0 && perObject > way.budget {
				b.Errorf("%.0f B allocated an object, over the budget of %.0f", perObject, way.budget)
			}
		})
	}
}
