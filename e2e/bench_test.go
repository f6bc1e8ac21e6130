package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/schedtui/schedtui/e2e/kubecluster"
	"github.com/schedtui/schedtui/internal/gcpace"
	"github.com/schedtui/schedtui/snapshot/live"
)

// envInt reads a size override (SCHEDTUI_BENCH_NODES=500 for a quick run).
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// The environment of BenchmarkLiveSync's child processes (this test
// binary run again, see run): benchChildEnv says which ("etcd" or
// "sync"), the others what it needs.
const (
	benchChildEnv      = "SCHEDTUI_E2E_BENCH_CHILD"
	benchEtcdDirEnv    = "SCHEDTUI_E2E_BENCH_ETCD_DIR"
	benchKubeconfigEnv = "SCHEDTUI_E2E_BENCH_KUBECONFIG"
	// benchCPUProfileEnv, set by the user, makes the sync write a CPU
	// profile of schedtui's side there.
	benchCPUProfileEnv = "SCHEDTUI_BENCH_CPUPROFILE"
	// benchHeapProfileEnv, set by the user, makes the benchmark write
	// heap profiles of the API server (this process) there, with
	// ".ready" (the cluster filled) and ".synced" (after the sync) added.
	benchHeapProfileEnv = "SCHEDTUI_BENCH_HEAPPROFILE"
)

// apiServerMemoryLimit is the Go memory limit of the benchmark's process,
// the API server's (see BenchmarkLiveSync).
const apiServerMemoryLimit = 8 << 30

// benchAPIServerFlags cut the benchmark's API server's memory, which at
// 500,000 pods was 5.4 GiB live, without changing what the sync receives.
// --watch-cache=false: no watch cache, which held every object decoded
// from etcd, converted to the internal version, with its selectable
// fields (3.6 GiB of the 5.4). Lists, and the sync's watch lists
// (sendInitialEvents), are then served from etcd a page at a time and
// streamed to the client as before. Only here: the fidelity tests run the
// server as clusters do. The API server's own pod informer (the service
// account token authenticator's and PodSecurity's, 1.6 GiB) stays: no
// flag removes it.
var benchAPIServerFlags = []string{"--watch-cache=false"}

// BenchmarkLiveSync measures schedtui's initial sync of a live cluster of
// 50,000 nodes and 500,000 pods (a third pending) from a real API server
// (issues 4, 13 and 27; a million pods was measured too, see
// docs/performance.md): every kind listed and held by informers,
// loaded into the cluster state the scheduler starts from. etcd, the API
// server (this process) and the sync each run in a process of their own;
// besides the sync's time (sync-s) it reports each one's peak RSS and the
// CPU each spent during the sync, and the sync's heap still in use after
// it (what the synced cluster holds). SCHEDTUI_BENCH_NODES and
// SCHEDTUI_BENCH_PODS change the size.
func BenchmarkLiveSync(b *testing.B) {
	nodes, pods := envInt("SCHEDTUI_BENCH_NODES", 50000), envInt("SCHEDTUI_BENCH_PODS", 500000)
	etcd := startEtcdProcess(b)
	// With its watch cache, the API server held about 10 KB an object;
	// serving a watch list of 500,000 pods, it grew from 4.3 to over 12
	// GiB of mostly garbage before its collector caught up. A soft limit
	// keeps the shared machine's memory for the sync, as GOMEMLIMIT would
	// a real server's.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(apiServerMemoryLimit))
	s := startAPIServerOn(b, etcd.url, benchAPIServerFlags...)
	start := time.Now()
	fill(b, s, etcd.url, nodes, pods)
	fillTime := time.Since(start)
	b.Logf("filled %d nodes and %d pods in %s (%.0f objects/s), API server ready", nodes, pods, fillTime.Round(time.Millisecond), float64(nodes+pods)/fillTime.Seconds())
	fmt.Printf("API server ready: RSS %d MiB (peak %d MiB)\n", rss("self")>>20, peakRSS("self")>>20)
	writeHeapProfile(b, ".ready")

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		apiCPU, etcdCPU := selfCPU(), etcd.cpu()
		r := syncInChild(b, s.Kubeconfig(readerUser))
		apiCPU, etcdCPU = selfCPU()-apiCPU, etcd.cpu()-etcdCPU
		if r.Nodes != nodes || r.Pods != pods {
			b.Fatalf("synced %d nodes and %d pods, want %d and %d", r.Nodes, r.Pods, nodes, pods)
		}
		writeHeapProfile(b, ".synced")
		b.ReportMetric(r.Seconds, "sync-s")
		b.ReportMetric(r.CPU.Seconds(), "schedtui-cpu-s")
		b.ReportMetric(float64(r.PeakRSS)/(1<<20), "schedtui-peak-MiB")
		b.ReportMetric(float64(r.HeapInUse)/(1<<20), "schedtui-heap-MiB")
		b.ReportMetric(apiCPU.Seconds(), "apiserver-cpu-s")
		b.ReportMetric(etcdCPU.Seconds(), "etcd-cpu-s")
		fmt.Printf("live sync of %d nodes and %d pods: %s wall, schedtui %s CPU, peak RSS %d MiB, %d MiB heap in use after; API server %s CPU, etcd %s CPU; load average %s\n",
			nodes, pods, time.Duration(r.Seconds*float64(time.Second)).Round(time.Millisecond), r.CPU.Round(time.Millisecond),
			r.PeakRSS>>20, r.HeapInUse>>20, apiCPU.Round(time.Millisecond), etcdCPU.Round(time.Millisecond), loadAverage())
	}
	b.StopTimer()
	apiPeak := peakRSS("self")
	// The API server first: stopped etcd would make it complain.
	s.Stop()
	etcdPeak := etcd.stop(b)
	b.ReportMetric(float64(apiPeak)/(1<<20), "apiserver-peak-MiB")
	b.ReportMetric(float64(etcdPeak)/(1<<20), "etcd-peak-MiB")
	b.ReportMetric(float64(nodes+pods)/fillTime.Seconds(), "fill-objects/s")
	fmt.Printf("peak RSS: API server (this process, with the fill) %d MiB, etcd %d MiB; fill %s (%.0f objects/s)\n",
		apiPeak>>20, etcdPeak>>20, fillTime.Round(time.Millisecond), float64(nodes+pods)/fillTime.Seconds())
}

// fill makes the cluster: node-00000, and pod-000000 (pending) and
// pod-000001 (bound), are created through the API server; the other
// nodes and pods are copies of them written straight into etcd (see
// kubecluster.WriteCopies), every third pod pending, the bound ones
// spread over the nodes, while the API server is stopped (its watches
// would otherwise decode and buffer every copy). Started again, its own
// informers list them from etcd as a server holding them would; fill
// returns once it is ready (/readyz: those informers synced).
func fill(b *testing.B, s *apiServer, etcdURL string, nodes, pods int) {
	ctx := context.Background()
	c := s.admin
	n := node("node-00000", "zone-0", "32", "128Gi")
	created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	must(b, err)
	created.Status = n.Status
	_, err = c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	must(b, err)
	for i := 0; i < min(2, pods); i++ {
		var opts []func(*v1.Pod)
		if i%3 != 0 {
			opts = append(opts, onNode(fmt.Sprintf("node-%05d", i%nodes)))
		}
		_, err := c.CoreV1().Pods("default").Create(ctx, pod("default", fmt.Sprintf("pod-%06d", i), "100m", "128Mi", append(opts, app(fmt.Sprintf("app-%d", i%200)))...), metav1.CreateOptions{})
		must(b, err)
	}
	s.Stop()
	progress := func(what string, n int) func(int) {
		return func(written int) { fmt.Fprintf(os.Stderr, "fill: %d of %d %s\n", written, n, what) }
	}
	err = kubecluster.WriteCopies(ctx, etcdURL, []string{s.prefix + "/minions/node-00000"}, 1, nodes, func(i int, t []kruntime.Object) int {
		n := t[0].(*v1.Node)
		n.Name = fmt.Sprintf("node-%05d", i)
		n.Labels["kubernetes.io/hostname"] = n.Name
		n.Labels["topology.kubernetes.io/zone"] = fmt.Sprintf("zone-%d", i%3)
		return 0
	}, progress("nodes", nodes))
	must(b, err)
	if pods > 2 {
		templates := []string{s.prefix + "/pods/default/pod-000000", s.prefix + "/pods/default/pod-000001"}
		err = kubecluster.WriteCopies(ctx, etcdURL, templates, 2, pods, func(i int, t []kruntime.Object) int {
			which := 1
			if i%3 == 0 {
				which = 0
			}
			p := t[which].(*v1.Pod)
			p.Name = fmt.Sprintf("pod-%06d", i)
			p.Labels["app"] = fmt.Sprintf("app-%d", i%200)
			if which == 1 {
				p.Spec.NodeName = fmt.Sprintf("node-%05d", i%nodes)
			}
			return which
		}, progress("pods", pods))
		must(b, err)
	}
	s.slowStart = true
	s.Start()
	// Ready once the server's own informers (its pod informer among them)
	// have listed everything from etcd: the sync then has the server to
	// itself.
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Hour, true, func(ctx context.Context) (bool, error) {
		return c.CoreV1().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil, nil
	})
	must(b, err)
}

// syncResult is what the sync's child process reports.
type syncResult struct {
	Seconds    float64
	Nodes      int
	Pods       int
	HeapInUse  uint64
	PeakRSS    int64
	CPU        time.Duration `json:"-"`
	ErrMessage string        `json:",omitempty"`
}

// syncInChild runs one sync in a child process, its progress on stderr,
// and returns what it reported with its CPU time.
func syncInChild(b *testing.B, kubeconfig string) syncResult {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchChildEnv+"=sync", benchKubeconfigEnv+"="+kubeconfig)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var r syncResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		b.Fatalf("sync process: %v (%v), output %q", jerr, err, out)
	}
	if r.ErrMessage != "" {
		b.Fatalf("sync process: %s", r.ErrMessage)
	}
	must(b, err)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return r
}

// syncOnce is the sync's child process: it syncs the cluster of the
// kubeconfig in benchKubeconfigEnv once and writes a syncResult to
// stdout; progress goes to stderr.
func syncOnce() int {
	var r syncResult
	defer func() { _ = json.NewEncoder(os.Stdout).Encode(r) }()
	if path := os.Getenv(benchCPUProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			r.ErrMessage = err.Error()
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			r.ErrMessage = err.Error()
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	lc, err := live.Connect(live.Options{Kubeconfig: os.Getenv(benchKubeconfigEnv)})
	if err != nil {
		r.ErrMessage = err.Error()
		return 1
	}
	last := time.Now()
	src := live.NewSource(lc.Name, lc.Client, func(st live.Status) {
		// One line per kind listed, and one per 10 seconds while waiting.
		if st.Message != "" && (st.Synced > 0 || time.Since(last) > 10*time.Second) {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "sync [%d/%d] %s\n", st.Synced, st.Total, st.Message)
		}
	})
	// The debugger syncs with the collector paced as it builds its state
	// (gcpace.Growing, cmd/schedtui's openTUI): off, and the heap bounded
	// to what the last collection found live plus a gibibyte.
	restorePace := gcpace.Growing()
	t0 := time.Now()
	c, _, err := src.Sync(context.Background())
	r.Seconds = time.Since(t0).Seconds()
	restorePace()
	if err != nil {
		r.ErrMessage = err.Error()
		return 1
	}
	r.Nodes, r.Pods = len(c.Nodes), len(c.Pods)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapInUse = ms.HeapInuse
	r.PeakRSS = peakRSS("self")
	runtime.KeepAlive(c)
	src.Stop()
	return 0
}

// etcdProcess is etcd in a child process (serveEtcd).
type etcdProcess struct {
	url   string
	cmd   *exec.Cmd
	stdin io.Closer
}

// startEtcdProcess starts etcd in a child process storing under a
// temporary directory; stop ends it (also on the benchmark's cleanup).
func startEtcdProcess(b *testing.B) *etcdProcess {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchChildEnv+"=etcd", benchEtcdDirEnv+"="+filepath.Join(b.TempDir(), "etcd"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(b, err)
	stdout, err := cmd.StdoutPipe()
	must(b, err)
	must(b, cmd.Start())
	e := &etcdProcess{cmd: cmd, stdin: stdin}
	b.Cleanup(func() { e.stop(b) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("etcd process: %v", err)
	}
	e.url = strings.TrimSpace(line)
	return e
}

// cpu is the CPU time etcd spent so far.
func (e *etcdProcess) cpu() time.Duration { return procCPU(strconv.Itoa(e.cmd.Process.Pid)) }

// stop ends etcd (closing its stdin) and returns its peak RSS in bytes
// (0 after the first stop).
func (e *etcdProcess) stop(b *testing.B) int64 {
	if e.cmd.ProcessState != nil {
		return 0
	}
	peak := peakRSS(strconv.Itoa(e.cmd.Process.Pid))
	e.stdin.Close()
	if err := e.cmd.Wait(); err != nil {
		b.Errorf("etcd process: %v", err)
	}
	return peak
}

// serveEtcd is etcd's child process: it serves the etcd storing in
// benchEtcdDirEnv, writes its client URL on a line of stdout, and stops
// when stdin closes (the parent stopped it, or died).
func serveEtcd() int {
	url, stop, err := kubecluster.StartEtcd(os.Getenv(benchEtcdDirEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting etcd:", err)
		return 1
	}
	fmt.Println(url)
	_, _ = io.Copy(io.Discard, os.Stdin)
	stop()
	return 0
}

// selfCPU is the CPU time this process spent so far.
func selfCPU() time.Duration { return procCPU("self") }

// procCPU is the user and system time of process pid ("self" for this
// one), from /proc; 0 where there is none.
func procCPU(pid string) time.Duration {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command (in parentheses, which may hold
	// spaces): utime and stime are the 12th and 13th, in clock ticks
	// (100 a second on Linux).
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100)
}

// writeHeapProfile writes this process's heap profile (the API server's,
// after a collection) where benchHeapProfileEnv says, with suffix added.
func writeHeapProfile(b *testing.B, suffix string) {
	path := os.Getenv(benchHeapProfileEnv)
	if path == "" {
		return
	}
	f, err := os.Create(path + suffix)
	must(b, err)
	defer f.Close()
	runtime.GC()
	must(b, pprof.WriteHeapProfile(f))
}

// peakRSS is the peak RSS in bytes of process pid ("self" for this one),
// from /proc (VmHWM); 0 where there is none. A child's rusage will not
// do: Linux counts in its maxrss the parent's RSS when it was forked.
func peakRSS(pid string) int64 { return procStatusBytes(pid, "VmHWM:") }

// rss is the RSS in bytes of process pid ("self" for this one), from
// /proc; 0 where there is none.
func rss(pid string) int64 { return procStatusBytes(pid, "VmRSS:") }

// procStatusBytes reads a field in kB of /proc/pid/status, in bytes.
func procStatusBytes(pid, field string) int64 {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib << 10
		}
	}
	return 0
}

// loadAverage is the machine's load averages (1, 5, 15 minutes), or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
