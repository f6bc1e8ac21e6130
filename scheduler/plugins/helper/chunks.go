package helper

import (
	"runtime"
	"sync"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// MinParallelNodes is the smallest node list walked on more than one
// goroutine: below it the walk costs less than starting the workers.
const MinParallelNodes = 512

// EachNodeChunk splits nodes into one contiguous chunk per CPU, calls each
// on every chunk on its own goroutine, and returns the results in chunk
// order. Upstream's walks over every node in PreFilter and PreScore
// (InterPodAffinity's, PodTopologySpread's) run on the framework's
// parallelizer and merge per-node results; the callers' results are counts
// and weight sums, so how the nodes are split does not change what they add
// up to. A short list is walked on this goroutine. each must only read
// shared state.
func EachNodeChunk[T any](nodes []*framework.NodeInfo, each func([]*framework.NodeInfo) T) []T {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(nodes) < MinParallelNodes {
		return []T{each(nodes)}
	}
	size := (len(nodes) + workers - 1) / workers
	out := make([]T, 0, workers)
	for lo := 0; lo < len(nodes); lo += size {
		out = append(out, *new(T))
	}
	var wg sync.WaitGroup
	for i := range out {
		lo := i * size
		hi := min(lo+size, len(nodes))
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = each(nodes[lo:hi])
		}()
	}
	wg.Wait()
	return out
}
