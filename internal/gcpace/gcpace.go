// Package gcpace paces the garbage collector while schedtui builds a large
// state whose allocations it keeps: a snapshot's objects decoded, the
// scheduler's cache and queue built over them.
//
// With Go's default target (GOGC=100) a collection starts each time the
// heap doubles and marks everything kept so far: in all, about as much as
// the heap finally holds (half of it, a quarter, ...), and the last one may
// start anywhere, also at the very end. Almost everything allocated then is
// kept, so those collections find little to free: at 300,000 pods a
// protobuf snapshot allocates 7.3 GB and keeps 4.2 GB, and collecting
// with GOGC=400 cost 3 s of the first screen's 11 s while lowering the
// peak by 0.8 GB only. So while the state grows the collector runs only
// when a memory limit is near: what is allocated and dropped on the way
// (a file's bytes, a JSON decoder's scratch) stays until then.
package gcpace

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
)

// GrowingPercent is the GC target while the heap grows: off (GOGC=off),
// the memory limit alone starts a collection.
const GrowingPercent = -1

// availableShare is how much of the memory the machine has available when
// the growth starts the heap may take before the garbage collector runs:
// a decoder that drops much (JSON) reaches it, and the collections then
// keep the heap under it.
const availableShare = 0.75

var (
	mu          sync.Mutex
	depth       int
	percent     int
	memoryLimit int64
)

// Growing turns the GC target off (GrowingPercent), with a memory limit of
// the heap so far plus availableShare of the memory available, until the
// returned function is called, which puts back the previous target and
// limit. Nested calls keep the outermost's setting. A GOGC or GOMEMLIMIT
// set in the environment is the user's choice, and where the available
// memory is not known (no /proc/meminfo) nothing changes.
func Growing() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	avail, ok := availableMemory()
	if !ok {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	if depth == 0 {
		limit := heapBytes() + int64(float64(avail)*availableShare)
		memoryLimit = debug.SetMemoryLimit(limit)
		percent = debug.SetGCPercent(GrowingPercent)
	}
	depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if depth--; depth == 0 {
				debug.SetGCPercent(percent)
				debug.SetMemoryLimit(memoryLimit)
			}
		})
	}
}

// heapBytes is the memory the Go runtime holds for the heap now.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64/2))
}

// availableMemory is the machine's MemAvailable (/proc/meminfo) in bytes,
// or less when the process runs in a cgroup (v2) whose memory.max leaves
// it less: in a container /proc/meminfo tells of the host, and a heap
// grown toward the host's memory would have the container killed.
func availableMemory() (int64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	avail, ok := parseMemAvailable(data)
	if !ok {
		return 0, false
	}
	limit, errMax := os.ReadFile("/sys/fs/cgroup/memory.max")
	cur, errCur := os.ReadFile("/sys/fs/cgroup/memory.current")
	if errMax == nil && errCur == nil {
		if left, limited := cgroupLeft(limit, cur); limited {
			avail = min(avail, left)
		}
	}
	return avail, true
}

// cgroupLeft is what a cgroup v2 memory.max leaves beyond memory.current
// (limited false for "max", no limit, or what does not parse).
func cgroupLeft(limit, current []byte) (left int64, limited bool) {
	m, err := strconv.ParseInt(string(bytes.TrimSpace(limit)), 10, 64)
	if err != nil {
		return 0, false
	}
	c, err := strconv.ParseInt(string(bytes.TrimSpace(current)), 10, 64)
	if err != nil {
		return 0, false
	}
	return max(0, m-c), true
}

func parseMemAvailable(data []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemAvailable:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}
