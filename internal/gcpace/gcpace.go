// Package gcpace paces the garbage collector while schedtui builds a large
// state whose allocations it keeps: a snapshot's objects decoded, the
// scheduler's cache and queue built over them.
//
// With Go's default target (GOGC=100) a collection starts each time the
// heap doubles and marks everything kept so far: in all, about as much as
// the heap finally holds (half of it, a quarter, ...), and the last one may
// start anywhere, also at the very end. With a target of GrowingPercent
// the collections mark about a quarter as much; what is allocated and
// dropped on the way (a file's bytes, a decoder's scratch) is what the heap
// holds beyond what is kept until the next one, up to a memory limit.
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

// GrowingPercent is the GC target while the heap grows (GOGC=400).
const GrowingPercent = 400

// availableShare is how much of the memory the machine has available when
// the growth starts the heap may take before the garbage collector runs
// anyway: a decoder that drops much (JSON) would otherwise grow the heap to
// five times what it keeps.
const availableShare = 0.75

var (
	mu          sync.Mutex
	depth       int
	percent     int
	memoryLimit int64
)

// Growing sets the GC target to GrowingPercent, with a memory limit of
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
