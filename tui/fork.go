package tui

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/history"
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
	if w == nil || i < 0 || i >= w.attempts.Len() {
		return attemptRef{i: i}
	}
	return attemptRef{i, w.attempts.At(i)}
}

// in reports whether attempts (the engine's, or a world's) still hold r's
// attempt at its index. A summarized attempt comes out of the engine's
// archive a new copy each time: the same line (sequence number, pod, time)
// is the same attempt.
func (r attemptRef) in(attempts history.AttemptLog) bool {
	if r.a == nil || r.i < 0 || r.i >= attempts.Len() {
		return false
	}
	a := attempts.At(r.i)
	return a == r.a || a.Summarized && r.a.Summarized && a.Seq == r.a.Seq && a.PodUID == r.a.PodUID && a.Time.Equal(r.a.Time)
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
