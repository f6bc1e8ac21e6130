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
// holds beyond what is kept until the next one.
package gcpace

import (
	"os"
	"runtime/debug"
	"sync"
)

// GrowingPercent is the GC target while the heap grows (GOGC=400).
const GrowingPercent = 400

var (
	mu     sync.Mutex
	depth  int
	before int
)

// Growing sets the GC target to GrowingPercent until the returned function
// is called, which puts back the previous one. Nested calls keep the
// outermost's setting. A GOGC set in the environment is the user's choice
// and is left alone.
func Growing() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	if depth == 0 {
		before = debug.SetGCPercent(GrowingPercent)
	}
	depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if depth--; depth == 0 {
				debug.SetGCPercent(before)
			}
		})
	}
}
