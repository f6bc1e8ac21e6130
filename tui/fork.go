package tui

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// forkResult is the cluster as one attempt saw it.
type forkResult struct {
	sched *scheduler.Scheduler
	pod   *v1.Pod
	err   error
	// cluster is sched's nodes, read when the fork was made.
	cluster
}

// newFork replays the cluster for attempt i. It must run under the
// backend lock.
func newFork(b *Backend, i int) *forkResult {
	f := &forkResult{}
	if f.sched, f.pod, f.err = b.Fork(i); f.err == nil {
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
	d   *record.FullDiagnosis
	err error
}
