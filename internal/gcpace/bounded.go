package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Bounded is for a process that builds a large state and keeps it
// (`schedtui run`): the collector's default target lets the heap grow to
// twice what the last collection found live, so that a run keeping 2 GB
// peaks past 4 GB, most of it garbage not yet collected. Under Bounded,
// after each collection the memory limit is set to what it found live
// plus at most maxHeadroom (below that, the default target, GOGC=100,
// comes first), but never below floor: the heap grows by maxHeadroom
// between collections once what is kept passes the floor less
// maxHeadroom, at the cost of more of them, and below that it collects
// only when it reaches the floor (Floor says why). The returned function
// puts the previous limit back. A GOGC or GOMEMLIMIT set in the
// environment is the user's choice, and then nothing changes.
func Bounded(floor, maxHeadroom int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	b := &bounded{floor: floor, headroom: maxHeadroom, previous: debug.SetMemoryLimit(-1)}
	// The bound holds from now, from what the last collection found
	// live, not from the end of the next collection: that limit is set
	// by a cleanup, which runs only once the span holding its sentinel
	// is swept, and with a far goal (Kept's target over a large state)
	// sweeping is slow. `run` at a million realistic pods went without
	// a limit from its load's end to 12 to 13.6 GiB before one came.
	debug.SetMemoryLimit(b.limit(liveHeap()))
	b.watch()
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !b.stopped {
			b.stopped = true
			debug.SetMemoryLimit(b.previous)
		}
	}
}

// boundedSlack is room for what the memory limit counts beside the heap's
// objects (the runtime's own structures, stacks, free spans not yet
// returned).
const boundedSlack = 64 << 20

type bounded struct {
	floor, headroom, previous int64
	mu                        sync.Mutex
	stopped                   bool
}

// watch sets the limit after the collection that frees a sentinel, then
// watches for the next one.
func (b *bounded) watch() {
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(b *bounded) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.stopped {
			return
		}
		debug.SetMemoryLimit(b.limit(liveHeap()))
		b.watch()
	}, b)
}

// limit is the memory limit after a collection that found live bytes
// live.
func (b *bounded) limit(live int64) int64 {
	return min(b.previous, max(b.floor, live+min(live, b.headroom)+boundedSlack))
}

// liveHeap is what the last collection found live (the heap's goal is
// computed from it).
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 / 4
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64/4))
}

// KeptPercent is the collector's target while `run` makes its attempts
// over the state it loaded: a collection each time the heap grows to five
// times what the last one found live, not twice. The attempts' garbage is
// small beside the state, and Bounded's limit (the floor, or what is live
// plus the headroom) still caps the heap, so a larger target costs no more
// than that bound allows: at 5000 nodes `run` made 2 or 3 collections
// instead of 3 to 5 and took 0.19 to 0.20 s instead of 0.22 to 0.24 s
// (docs/performance.md).
const KeptPercent = 400

// Kept is Bounded with the collector's target at KeptPercent, for a
// process that has built its state and now works over it; the returned
// function puts both back. A GOGC or GOMEMLIMIT set in the environment is
// the user's choice, and then nothing changes.
func Kept(floor, maxHeadroom int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	unbound := Bounded(floor, maxHeadroom)
	percent := debug.SetGCPercent(KeptPercent)
	return func() {
		debug.SetGCPercent(percent)
		unbound()
	}
}
