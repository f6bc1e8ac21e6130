// Package gcpace paces the garbage collector while schedtui builds a large
// state whose allocations it mostly keeps: a snapshot's objects decoded, the
// scheduler's cache and queue built over them.
//
// With Go's default target (GOGC=100) a collection starts each time the
// heap doubles and marks everything kept so far: in all, about as much as
// the heap finally holds (half of it, a quarter, ...), and the last one may
// start anywhere, also at the very end; collecting with GOGC=400 cost 3 s
// of an 11 s first screen at 300,000 pods. With the collector off instead,
// everything the load drops (a decoded pod's parts once shared with its
// siblings', a decoder's scratch) stays until the end: at a million
// SchedulingBasic pods the heap grew to several times what it kept. So
// while the state grows (Growing) the collector runs when the heap has
// grown a headroom past what the last collection found live (Bounded),
// and not before it reaches a floor (Floor): few collections while the
// heap is small, one each headroom once it is large, and a peak of the
// floor or of what is kept plus the headroom, whichever is more.
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

// growingHeadroom is how far the heap may grow past what the last
// collection found live before the next collection, while the state
// grows (Bounded's headroom): at a million pods a gibibyte of headroom
// means a collection about every gibibyte allocated, against a peak of
// the live heap plus the headroom. availableShare of the memory the
// machine has available bounds it on a small machine.
var growingHeadroom int64 = 1 << 30

// floorTarget is the memory limit below which the collector does not run
// while the state grows (Floor). Below it Bounded's headroom would collect
// each gibibyte (or each doubling) though memory is to spare; above it,
// it would raise the peak of a state that needs the headroom. It is the
// 4 GiB issue 27 allows the debugger at a million SchedulingBasic pods
// less what the limit does not count: the snapshot file's pages, mapped
// outside the heap until its items are added. Measured on the first
// screen (BenchmarkFirstScreen, two cores, 27 November): at a million
// SchedulingBasic pods a floor of 3 GiB peaked at 3593 to 3600 MiB of
// RSS and 3.5 GiB at 4047 MiB (without one: 3191 to 3222), so 3.5 GiB
// leaves no margin; at 3 GiB the first screen there collected 8 times
// instead of 16. At 15,000 nodes and 300,000 scalegen pods the first
// screen now allocates less than the floor (2.65 GiB of peak RSS, 28
// November) and makes no collection at all before the first frame.
var floorTarget int64 = 3 << 30

// Floor is the memory limit below which a growing state is not
// collected: floorTarget, or availableShare of the memory the machine has
// available if that is less (0 where that is not known, and no floor).
func Floor() int64 {
	avail, ok := availableMemory()
	if !ok {
		return 0
	}
	return min(floorTarget, int64(float64(avail)*availableShare))
}

// availableShare is how much of the memory the machine has available when
// the growth starts the headroom may take at most.
const availableShare = 0.75

var (
	mu          sync.Mutex
	depth       int
	percent     int
	memoryLimit int64
	unbound     func()
)

// Growing turns the GC target off (GrowingPercent) and bounds the heap
// (Bounded) to what the last collection found live plus a headroom
// (growingHeadroom, or availableShare of the memory available if that is
// less) but not below the floor (Floor), the first limit the heap so far
// plus the headroom or the floor, until the returned function is called, which puts back the previous target and
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
		share := int64(float64(avail) * availableShare)
		headroom, floor := min(growingHeadroom, share), min(floorTarget, share)
		percent = debug.SetGCPercent(GrowingPercent)
		// Bounded first: it keeps the limit before the first one as its
		// ceiling, and sets one from the last collection, which the heap
		// so far replaces.
		memoryLimit = debug.SetMemoryLimit(-1)
		unbound = Bounded(floor, headroom)
		debug.SetMemoryLimit(max(floor, heapBytes()+headroom))
	}
	depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if depth--; depth == 0 {
				unbound()
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
