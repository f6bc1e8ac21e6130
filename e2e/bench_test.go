package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/schedtui/schedtui/snapshot/live"
)

// envInt reads a size override (SCHEDTUI_BENCH_NODES=500 for a quick run).
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkLiveSync measures schedtui's initial sync of a live cluster of
// 15,000 nodes and 300,000 pods from a real API server (issues 4 and 13):
// every kind listed and held by informers, loaded into the cluster state
// the scheduler starts from. Progress is printed as the sync reports it.
func BenchmarkLiveSync(b *testing.B) {
	nodes, pods := envInt("SCHEDTUI_BENCH_NODES", 15000), envInt("SCHEDTUI_BENCH_PODS", 300000)
	s := startAPIServer(b)
	start := time.Now()
	fill(b, s.admin, nodes, pods)
	b.Logf("created %d nodes and %d pods in %s", nodes, pods, time.Since(start).Round(time.Millisecond))

	lc, err := live.Connect(live.Options{Kubeconfig: s.Kubeconfig(readerUser)})
	must(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		last := time.Now()
		src := live.NewSource(lc.Name, lc.Client, func(st live.Status) {
			// One line per kind listed, and one per second while waiting.
			if st.Message != "" && (st.Synced > 0 || time.Since(last) > time.Second) {
				last = time.Now()
				b.Logf("sync [%d/%d] %s", st.Synced, st.Total, st.Message)
			}
		})
		t0 := time.Now()
		c, _, err := src.Sync(context.Background())
		d := time.Since(t0)
		src.Stop()
		must(b, err)
		if len(c.Nodes) != nodes || len(c.Pods) != pods {
			b.Fatalf("synced %d nodes and %d pods, want %d and %d", len(c.Nodes), len(c.Pods), nodes, pods)
		}
		b.ReportMetric(d.Seconds(), "sync-s")
		fmt.Printf("live sync of %d nodes and %d pods: %s\n", nodes, pods, d.Round(time.Millisecond))
	}
}

// fill creates nodes and pods (a third of them pending) with many
// parallel requests.
func fill(b *testing.B, c kubernetes.Interface, nodes, pods int) {
	ctx := context.Background()
	var failed atomic.Value
	run := func(what string, n int, create func(i int) error) {
		var wg sync.WaitGroup
		next := int64(-1)
		// Filling takes minutes at scale: say how far it got.
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			t := time.NewTicker(30 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					fmt.Fprintf(os.Stderr, "fill: %d of %d %s\n", min(int(atomic.LoadInt64(&next)), n), n, what)
				}
			}
		}()
		for w := 0; w < 32; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(atomic.AddInt64(&next, 1))
					if i >= n || failed.Load() != nil {
						return
					}
					// A loaded etcd times out now and then: retry.
					var err error
					for try := 0; try < 5; try++ {
						if err = create(i); err == nil || apierrors.IsAlreadyExists(err) {
							err = nil
							break
						}
						time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
					}
					if err != nil {
						failed.Store(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if err := failed.Load(); err != nil {
			b.Fatal(err)
		}
	}
	run("nodes", nodes, func(i int) error {
		n := node(fmt.Sprintf("node-%05d", i), fmt.Sprintf("zone-%d", i%3), "32", "128Gi")
		created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		created.Status = n.Status
		_, err = c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
	run("pods", pods, func(i int) error {
		var opts []func(*v1.Pod)
		if i%3 != 0 {
			opts = append(opts, onNode(fmt.Sprintf("node-%05d", i%nodes)))
		}
		p := pod("default", fmt.Sprintf("pod-%06d", i), "100m", "128Mi", append(opts, app(fmt.Sprintf("app-%d", i%200)))...)
		_, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
		return err
	})
}
