package tui

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// attemptRef names the attempt an async result (fork, diagnosis, hints,
// what-if) is for: by index, and by identity, since a rewind replaces the
// attempts after it and stepping again makes new ones at the same
// indexes. A result whose attempt is no longer the world's is dropped.
type attemptRef struct {
	i int
	a *record.Attempt // nil: no such attempt
}

// refTo names attempt i of w.
func refTo(w *world, i int) attemptRef {
	if w == nil || i < 0 || i >= len(w.attempts) {
		return attemptRef{i: i}
	}
	return attemptRef{i, w.attempts[i]}
}

// in reports whether attempts (the engine's, or a world's) still hold r's
// attempt at its index.
func (r attemptRef) in(attempts []*record.Attempt) bool {
	return r.a != nil && r.i >= 0 && r.i < len(attempts) && attempts[r.i] == r.a
}

// errReplaced: the attempt a computation was for was undone by a rewind
// before it ran.
var errReplaced = errors.New("a rewind undid the attempt before this ran")

// forkResult is the cluster as one attempt saw it.
type forkResult struct {
	attempt *record.Attempt
	sched   *scheduler.Scheduler
	pod     *v1.Pod
	err     error
	// cluster is sched's nodes, read when the fork was made.
	cluster
}

// newFork replays the cluster for attempt r, nil when a rewind replaced
// it. It must run under the backend lock.
func newFork(b *Backend, r attemptRef) *forkResult {
	if !r.in(b.Attempts()) {
		return nil
	}
	f := &forkResult{attempt: r.a}
	if f.sched, f.pod, f.err = b.Fork(r.i); f.err == nil {
		f.cluster = captureCluster(f.sched)
	}
	return f
}

// nodeInfo returns a node's NodeInfo in the fork.
func (f *forkResult) nodeInfo(name string) *framework.NodeInfo {
	if f == nil {
		return nil
	}
	ni, err := f.sched.Snapshot().Get(name)
	if err != nil {
		return nil
	}
	return ni
}

type diagResult struct {
	attempt *record.Attempt
	d       *record.FullDiagnosis
	err     error
}
