package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/internal/peakmem"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/snapshot"
)

// TestRunStreamsTodaysOutput: run's streamed output at --detail full, as
// text and wide, is what printing the finished run's timeline gives; the
// lower details keep every line and, in attempt lines, every field but the
// ones they leave out, with the same values.
func TestRunStreamsTodaysOutput(t *testing.T) {
	all := func(history.Event) bool { return true }
	for _, sc := range generatedScenarios(6, 6) {
		s := &session{cluster: sc.Cluster.DeepCopy(), seed: 1, stderr: io.Discard}
		e, err := s.run(0)
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON, wantText, wantWide bytes.Buffer
		if err := printJSON(&wantJSON, e, all); err != nil {
			t.Fatal(err)
		}
		for _, out := range []struct {
			w    *bytes.Buffer
			wide bool
		}{{&wantText, false}, {&wantWide, true}} {
			// Text output opens with what is simulated.
			out.w.WriteString("scheduler: kube-scheduler 1.37\n")
			for _, ev := range e.Timeline().All() {
				var a *record.Attempt
				if ev.Kind == history.EventAttempt {
					a = e.Attempts().At(ev.Attempt)
				}
				if err := writeTextEvent(out.w, offset(ev.Time.Sub(e.Start())), ev, a, out.wide); err != nil {
					t.Fatal(err)
				}
			}
			if err := printPending(out.w, e, all); err != nil {
				t.Fatal(err)
			}
		}
		stream := func(p *runPrinter) string {
			t.Helper()
			p.keep = all
			s := &session{cluster: sc.Cluster.DeepCopy(), seed: 1, stderr: io.Discard}
			var b bytes.Buffer
			if err := s.stream(&b, 0, p); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		if got := stream(&runPrinter{json: true}); got != wantJSON.String() {
			t.Fatalf("%s: -o json streamed differs from the finished run's timeline:\n%s\nwant\n%s", sc.Name, got, wantJSON.String())
		}
		if got := stream(&runPrinter{}); got != wantText.String() {
			t.Fatalf("%s: -o text streamed differs:\n%s\nwant\n%s", sc.Name, got, wantText.String())
		}
		if got := stream(&runPrinter{wide: true}); got != wantWide.String() {
			t.Fatalf("%s: -o wide streamed differs:\n%s\nwant\n%s", sc.Name, got, wantWide.String())
		}
		full := jsonLines(t, wantJSON.String())
		for d, left := range map[record.Detail][]string{
			record.DetailFailed:  {"feasible", "scores", "total"},
			record.DetailSummary: {"feasible", "filter", "scores", "total", "top"},
		} {
			got := jsonLines(t, stream(&runPrinter{json: true, detail: d}))
			if len(got) != len(full) {
				t.Fatalf("%s --detail %s: %d lines, full has %d", sc.Name, d, len(got), len(full))
			}
			for i, m := range got {
				want := map[string]any{}
				for k, v := range full[i] {
					want[k] = v
				}
				if want["kind"] == "attempt" {
					for _, f := range left {
						delete(want, f)
					}
				}
				if !reflect.DeepEqual(m, want) {
					t.Fatalf("%s --detail %s line %d:\n%v\nwant\n%v", sc.Name, d, i, m, want)
				}
			}
		}
	}
}

func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader([]byte(out)))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestRunSummaryAt5000Nodes: on the 5000-node run (1000 bound
// pods, 2000 pending) -o json --detail summary writes under 2 MB, and every
// pending pod got its attempt line.
func TestRunSummaryAt5000Nodes(t *testing.T) {
	if testing.Short() {
		t.Skip("a 5000-node run")
	}
	s := &session{cluster: basicCluster(5000, 1000, 2000), seed: 1, stderr: io.Discard}
	attempts := 0
	p := &runPrinter{json: true, detail: record.DetailSummary, keep: func(ev history.Event) bool {
		if ev.Kind == history.EventAttempt {
			attempts++
		}
		return true
	}}
	var w countingWriter
	if err := s.stream(&w, 0, p); err != nil {
		t.Fatal(err)
	}
	if attempts < 2000 {
		t.Fatalf("%d attempts for 2000 pending pods", attempts)
	}
	t.Logf("--detail summary: %d bytes for %d attempts", w.n, attempts)
	if w.n >= 2<<20 {
		t.Fatalf("--detail summary wrote %d bytes, want under 2 MB", w.n)
	}
}

// basicCluster is a SchedulingBasic-like cluster: identical nodes (4 cpu,
// 32Gi, 110 pods), bound pods spread over them, and pending pods that fit
// anywhere.
func basicCluster(nodes, bound, pending int) *snapshot.Cluster {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &snapshot.Cluster{}
	pod := func(name string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), CreationTimestamp: created}}
		p.Spec.SchedulerName = v1.DefaultSchedulerName
		prio := int32(0)
		p.Spec.Priority = &prio
		policy := v1.PreemptLowerPriority
		p.Spec.PreemptionPolicy = &policy
		p.Spec.Containers = []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi")}}}}
		return p
	}
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi"),
			v1.ResourcePods: resource.MustParse("110")}
		n.Status.Capacity = n.Status.Allocatable
		c.Nodes = append(c.Nodes, n)
	}
	for i := 0; i < bound; i++ {
		p := pod(fmt.Sprintf("bound-%05d", i))
		p.Spec.NodeName = c.Nodes[i%nodes].Name
		p.Status.Phase = v1.PodRunning
		c.Pods = append(c.Pods, p)
	}
	for i := 0; i < pending; i++ {
		c.Pods = append(c.Pods, pod(fmt.Sprintf("pending-%05d", i)))
	}
	return c
}

// BenchmarkRunHeadless is `schedtui run` (text, streamed) on 5000 nodes
// with 1000 bound pods and 20,000 pending ones: it reports the peak
// resident set (VmHWM; the bound is 1 GiB) and the live heap, sampled at
// every attempt line. SCHEDTUI_BENCH_PODS shrinks it. Run it with
// -benchtime=1x.
//
//	go test ./cmd/schedtui -run '^$' -bench RunHeadless -benchtime=1x
func BenchmarkRunHeadless(b *testing.B) {
	pending := 20000
	if v := os.Getenv("SCHEDTUI_BENCH_PODS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("SCHEDTUI_BENCH_PODS=%q: want a positive integer", v)
		}
		pending = n
	}
	c := basicCluster(5000, 1000, pending)
	for i := 0; i < b.N; i++ {
		m := peakmem.Start()
		attempts := 0
		p := &runPrinter{keep: func(ev history.Event) bool {
			if ev.Kind == history.EventAttempt {
				if attempts++; attempts%200 == 0 {
					m.Note()
				}
			}
			return true
		}}
		s := &session{cluster: c, seed: 1, stderr: io.Discard}
		var w countingWriter
		start := time.Now()
		if err := s.stream(&w, 0, p); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		m.Note()
		rss := peakmem.PeakRSS()
		b.ReportMetric(peakmem.MiB(rss), "peak-rss-MiB")
		b.ReportMetric(peakmem.MiB(m.PeakHeap()), "peak-heap-MiB")
		b.ReportMetric(float64(attempts), "attempts")
		b.ReportMetric(float64(attempts)/elapsed.Seconds(), "attempts/s")
		b.ReportMetric(float64(w.n)/(1<<20), "output-MiB")
		if attempts < pending {
			b.Fatalf("%d attempts for %d pending pods", attempts, pending)
		}
		if rss >= 1<<30 {
			b.Errorf("peak RSS %.0f MiB, the bound is 1 GiB", peakmem.MiB(rss))
		}
	}
}
