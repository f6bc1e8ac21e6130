// Package peakmem measures a process's memory for the benchmarks that hold
// a memory bound: the kernel's peak resident set (VmHWM), which a
// benchmark resets at its start, and the Go heap's live objects, sampled;
// and its CPU time, for the throughput benchmarks.
package peakmem

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// Meter follows one measured stretch.
type Meter struct {
	heap   uint64
	sample []metrics.Sample
}

// Start collects garbage, returns freed memory to the kernel and resets
// VmHWM to the current resident set (writing 5 to /proc/self/clear_refs),
// so that what ran before in the process is not counted.
func Start() *Meter {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	m := &Meter{sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	m.Note()
	return m
}

// Note samples the live heap.
func (m *Meter) Note() {
	metrics.Read(m.sample)
	if v := m.sample[0].Value.Uint64(); v > m.heap {
		m.heap = v
	}
}

// PeakHeap is the largest live heap sampled, in bytes.
func (m *Meter) PeakHeap() uint64 { return m.heap }

// PeakRSS is the peak resident set since Start (VmHWM), in bytes; 0 where
// /proc is not there.
func PeakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// MiB is bytes in mebibytes, for b.ReportMetric.
func MiB(b uint64) float64 { return float64(b) / (1 << 20) }

// EnvCount is the positive integer in the environment variable name (a
// benchmark's size, SCHEDTUI_BENCH_NODES and the like), or def when it is
// unset.
func EnvCount(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", name, v)
	}
	return n, nil
}
