package live

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedtui/schedtui/internal/scalegen"
	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
)

// BenchmarkLiveChurn measures what a live session holds once every object
// it synced has changed once: scalegen's cluster (500 nodes, 10,000 pods;
// SCHEDTUI_BENCH_NODES/SCHEDTUI_BENCH_PODS change it) synced from the
// fake API server, an engine built on it as the debugger builds one, then
// every pod annotated and every node's heartbeat renewed through the API
// server, each change watched into the engine. It reports the heap in
// use after a collection once synced (sync-heap-MiB) and once every
// change is applied (churn-heap-MiB), and what the changes added a
// changed object (churn-B/object: the objects the informers and the
// engine hold now, and what the engine keeps of each change, its timeline
// event and its entry in the op log rewind replays; the fake API server's
// copies replace the ones it had). Budget 4096 B/object: with each
// changed object deep-copied for the engine, as before, it was 22,300.
// SCHEDTUI_BENCH_HEAPPROFILE=FILE writes the heap profiles after the sync
// (FILE.sync) and after the changes (FILE).
func BenchmarkLiveChurn(b *testing.B) {
	nodes, pods := benchSize("SCHEDTUI_BENCH_NODES", 500), benchSize("SCHEDTUI_BENCH_PODS", 10000)
	var objs []k8sruntime.Object
	var podKeys [][2]string
	var nodeNames []string
	if err := scalegen.Objects(nodes, pods, func(o k8sruntime.Object) error {
		switch t := o.(type) {
		case *v1.Pod:
			podKeys = append(podKeys, [2]string{t.Namespace, t.Name})
		case *v1.Node:
			nodeNames = append(nodeNames, t.Name)
		}
		objs = append(objs, o)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for range b.N {
		c := fake.NewClientset(objs...)
		s := NewSource("bench", c, nil)
		cl, r, err := s.Sync(ctx)
		if err != nil || r.HasErrors() {
			b.Fatalf("sync: %v %v", err, r)
		}
		e, err := engine.New(cl.Nodes, cl.Pods, cl.SchedulerObjects(), engine.Options{Registry: plugins.NewInTreeRegistry()})
		if err != nil {
			b.Fatal(err)
		}
		// The fake API server keeps a copy of every request it served.
		c.ClearActions()
		syncHeap := liveHeap()
		if f := os.Getenv("SCHEDTUI_BENCH_HEAPPROFILE"); f != "" {
			writeHeapProfile(b, f+".sync")
		}

		var applied atomic.Int64
		wctx, cancel := context.WithCancel(ctx)
		watched := make(chan error, 1)
		go func() {
			watched <- s.Watch(wctx, func(ch change.Change) error {
				ch.At = time.Time{}
				err := e.Apply(ch)
				applied.Add(1)
				return err
			})
		}()
		core := c.CoreV1()
		for _, k := range podKeys {
			p, err := core.Pods(k[0]).Get(ctx, k[1], metav1.GetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			metav1.SetMetaDataAnnotation(&p.ObjectMeta, "churn", "1")
			p.ResourceVersion += "-churned" // the fake API server leaves it
			if _, err := core.Pods(k[0]).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		beat := metav1.NewTime(time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC))
		for _, name := range nodeNames {
			n, err := core.Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for i := range n.Status.Conditions {
				n.Status.Conditions[i].LastHeartbeatTime = beat
			}
			n.ResourceVersion += "-churned"
			if _, err := core.Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		changed := int64(len(podKeys) + len(nodeNames))
		for deadline := time.Now().Add(10 * time.Minute); applied.Load() < changed; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d changes applied", applied.Load(), changed)
			}
		}
		c.ClearActions()
		churnHeap := liveHeap()
		if f := os.Getenv("SCHEDTUI_BENCH_HEAPPROFILE"); f != "" {
			writeHeapProfile(b, f)
		}
		perObject := float64(churnHeap-syncHeap) / float64(changed)
		b.ReportMetric(float64(syncHeap)/(1<<20), "sync-heap-MiB")
		b.ReportMetric(float64(churnHeap)/(1<<20), "churn-heap-MiB")
		b.ReportMetric(perObject, "churn-B/object")
		cancel()
		<-watched
		s.Stop()
		runtime.KeepAlive(e)
		runtime.KeepAlive(cl)
		if perObject > 4096 {
			b.Errorf("the changes added %.0f B a changed object, budget 4096", perObject)
		}
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// writeHeapProfile writes the heap profile to file (in use after the
// last collection).
func writeHeapProfile(b *testing.B, file string) {
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

func benchSize(env string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
		return v
	}
	return def
}
