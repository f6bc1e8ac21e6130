package snapshot

// The loader at scale (issues 4 and 13): a snapshot of 15,000 nodes and
// 300,000 pods (internal/scalegen) must load in at most 1.5× the time it
// takes to decode the same JSON into typed objects. BenchmarkLoadScale measures both on the same bytes and
// reports them, and their ratio, as metrics:
//
//	go test -run='^$' -bench=LoadScale -benchtime=1x ./snapshot
//
// SCHEDTUI_BENCH_NODES and SCHEDTUI_BENCH_PODS override the sizes (e.g. 500
// and 15000 for a quick run). At full size the snapshot is 2.4 GiB of JSON
// and the benchmark needs about 11 GiB of memory.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/internal/scalegen"
)

func benchSize(env string, def int) int {
	if s := os.Getenv(env); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return def
}

var (
	scaleOnce sync.Once
	scaleSnap *scalegen.Snapshot
)

func getScaleSnapshot(b *testing.B) *scalegen.Snapshot {
	scaleOnce.Do(func() {
		nodes := benchSize("SCHEDTUI_BENCH_NODES", 15000)
		pods := benchSize("SCHEDTUI_BENCH_PODS", 300000)
		start := time.Now()
		h := Header{CapturedAt: time.Date(2025, 11, 3, 9, 12, 44, 0, time.UTC), Context: "prod-eu-west-1",
			Source: "https://api.prod.example.com", ServerVersion: "v1.37.1", SchedtuiVersion: "dev"}
		s, err := scalegen.Generate(nodes, pods, h.annotations())
		if err != nil {
			b.Fatal(err)
		}
		scaleSnap = s
		b.Logf("generated %d nodes, %d pods, %d objects: %.1f MiB of JSON in %v",
			nodes, pods, len(s.Kinds), float64(len(s.Data))/(1<<20), time.Since(start).Round(time.Millisecond))
	})
	if scaleSnap == nil {
		b.Fatal("no snapshot")
	}
	return scaleSnap
}

// BenchmarkLoadScale reports, per run: typed-decode-s, the baseline (see
// typedDecode); load-s, Load of the same bytes; and ratio = load / typed
// decode (the budget is 1.5).
func BenchmarkLoadScale(b *testing.B) {
	s := getScaleSnapshot(b)
	var typedTotal, loadTotal time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		n, err := typedDecode(s.Data, s.Kinds)
		typed := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if n != len(s.Kinds) {
			b.Fatalf("typed decode: %d objects, want %d", n, len(s.Kinds))
		}

		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		t0 = time.Now()
		c, r, err := Load("scale.json", s.Data)
		load := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(c.Nodes) != s.Nodes || len(c.Pods) != s.Pods || r.HasErrors() {
			b.Fatalf("loaded %d nodes, %d pods (want %d, %d); problems:\n%s", len(c.Nodes), len(c.Pods), s.Nodes, s.Pods, firstLines(r.String(), 20))
		}
		c, r = nil, nil
		b.StartTimer()

		typedTotal += typed
		loadTotal += load
		b.Logf("%d nodes, %d pods, %.0f MiB: typed decode %.3fs, load %.3fs, ratio %.2f (budget 1.5)",
			s.Nodes, s.Pods, float64(len(s.Data))/(1<<20), typed.Seconds(), load.Seconds(), load.Seconds()/typed.Seconds())
	}
	b.ReportMetric(typedTotal.Seconds()/float64(b.N), "typed-decode-s")
	b.ReportMetric(loadTotal.Seconds()/float64(b.N), "load-s")
	b.ReportMetric(loadTotal.Seconds()/typedTotal.Seconds(), "ratio")
}

func firstLines(s string, lines int) string {
	for i, n := 0, 0; i < len(s); i++ {
		if s[i] == '\n' {
			if n++; n == lines {
				return s[:i+1] + "...\n"
			}
		}
	}
	return s
}

// typedDecode is the baseline: what it costs to turn the bytes into typed
// objects and nothing else, the plain way. It splits the List into its
// items with one encoding/json pass (json.RawMessage items, as a
// corev1.List's RawExtensions would hold them), then decodes every item
// into a new object of its Go type with sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, the non-strict decode apimachinery's
// JSON serializer does (about as fast as encoding/json; Load decodes
// strictly, which costs about the same).
//
// To keep the baseline a lower bound it is told each item's kind (the
// generator knows them) instead of reading apiVersion and kind from the
// item as any real decoder must, and it keeps nothing but the objects: no
// defaulting, validation, de-duplication, line tracking or admission.
// It runs on one goroutine, as a plain decode does; Load decodes a List's
// items on GOMAXPROCS goroutines. Run the benchmark with GOMAXPROCS=1 to
// compare the two on one core. About a third of the baseline is the
// encoding/json split, which Load does with its own scanner.
func typedDecode(data []byte, kinds []string) (int, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return 0, err
	}
	if len(list.Items) != len(kinds) {
		return 0, fmt.Errorf("%d items, want %d", len(list.Items), len(kinds))
	}
	objs := make([]k8sruntime.Object, len(list.Items))
	for i, it := range list.Items {
		ki := supportedKinds[kinds[i]]
		obj := ki.newObj()
		if err := kjson.UnmarshalCaseSensitivePreserveInts(it, obj); err != nil {
			return 0, fmt.Errorf("item %d (%s): %w", i, kinds[i], err)
		}
		objs[i] = obj
	}
	runtime.KeepAlive(objs)
	return len(objs), nil
}

// TestLoadParallelItems checks that decoding a large List's items on
// several goroutines changes nothing: the same objects and the same
// problems, in the same order, as one goroutine.
func TestLoadParallelItems(t *testing.T) {
	var items []string
	for i := 0; i < 300; i++ {
		switch i % 15 {
		case 0:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"5x"}}}]}}`, i))
		case 1:
			items = append(items, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup"},"spec":{"containers":[{"name":"c","image":"i"}]},"bogus":1}`)
		case 2:
			items = append(items, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)
		case 3:
			items = append(items, `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"gen-"},"spec":{"containers":[{"name":"c","image":"i"}]}}`)
		case 4:
			items = append(items, `null`, `7`, `{"kind":"Node"}`, `{"apiVersion":"v2","kind":"Node","metadata":{"name":"x"}}`)
		case 5:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"ln%d"}},{"metadata":{"name":"ln%d","namespace":"x"},"status":{"capacity":{"cpu":"-1"}}}]}`, i, i+1))
		case 6:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","Kind":"Pod","kind":"Pod","metadata":{"name":"k%d"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, i))
		case 7:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n%d"},"spec":{"nodeName":"missing","priorityClassName":"nope","containers":[{"name":"c","image":"i"}]}}`, i))
		case 8:
			items = append(items, fmt.Sprintf(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc%d"},"value":%d,"globalDefault":true}`, i, i))
		default:
			items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d","labels":{"a":"b"}},
  "status":{"capacity":{"cpu":"4","memory":"8Gi"}}}`, i))
		}
	}
	data := []byte("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n" + strings.Join(items, ",\n") + "\n]}\n")
	load := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c, r, err := Load("big.json", data)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(r.String())
		for _, o := range c.Objects() {
			j, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		return b.String()
	}
	serial, parallel := load(1), load(4)
	if serial != parallel {
		t.Fatalf("parallel decoding changed the result:\n--- one goroutine\n%s\n--- several\n%s", serial, parallel)
	}
	for _, want := range []string{
		"big.json:2: Pod default/p0: spec.containers[0].resources.requests.cpu:",
		"big.json:27: Pod default/dup: metadata.name: pods \"dup\" already exists (first defined at big.json:3)",
		"big.json:3: warning: Pod default/dup: bogus: unknown field (ignored)",
		"big.json:10: warning: items[1]: Node x/ln6: metadata.namespace: Node is cluster-scoped", // both items of the NodeList are on line 10
		"kind ConfigMap (apiVersion v1) is not read by schedtui: 20 objects skipped",
		"big.json:6: document is not an object",
	} {
		if !strings.Contains(serial, want) {
			t.Errorf("missing %q in\n%s", want, firstLines(serial, 40))
		}
	}
}

// BenchmarkOpenYAML opens a generated YAML snapshot of about 20 MiB (one
// List, as WriteFile writes it): convert-s, reading it into documents
// (converting the YAML to JSON); open-s, all of OpenReporting; and
// convert-share, the first of the second (loadMeter's yamlConversionShare).
func BenchmarkOpenYAML(b *testing.B) {
	s, err := scalegen.Generate(125, 4000, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, _, err := Load("scale.json", s.Data)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "scale.yaml")
	if _, err := WriteFile(path, c, Header{}); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	c = nil
	var convert, open time.Duration
	b.ResetTimer()
	// timed is how long f takes, the garbage of the previous run collected
	// first.
	timed := func(f func() error) time.Duration {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for i := 0; i < b.N; i++ {
		convert += timed(func() error {
			_, err := docread.ReadDocuments(path, data)
			return err
		})
		open += timed(func() error {
			_, err := OpenReporting(path, progress.Func(func(int64, int64) {}))
			return err
		})
	}
	b.ReportMetric(float64(len(data))/(1<<20), "MiB")
	b.ReportMetric(convert.Seconds()/float64(b.N), "convert-s")
	b.ReportMetric(open.Seconds()/float64(b.N), "open-s")
	b.ReportMetric(convert.Seconds()/open.Seconds(), "convert-share")
}
