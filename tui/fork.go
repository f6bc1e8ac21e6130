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
