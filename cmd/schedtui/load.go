package main

import (
	"fmt"
	"io"

	v1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
)

// session is a loaded cluster with its scheduler.
type session struct {
	cluster *snapshot.Cluster
	cfg     *configv1.KubeSchedulerConfiguration
	seed    uint64
	sched   *scheduler.Scheduler
}

// load reads the snapshot (or the embedded demo) and the optional config,
// prints the loader's warnings and errors to w, and builds the scheduler.
func load(f *sourceFlags, w io.Writer) (*session, error) {
	var (
		cluster *snapshot.Cluster
		report  *snapshot.Report
		err     error
	)
	if f.snapshot == "" {
		cluster, report, err = snapshot.Load(testdata.DemoName, testdata.Demo)
	} else {
		cluster, report, err = snapshot.LoadFile(f.snapshot)
	}
	if err != nil {
		return nil, err
	}
	printReport(w, report)
	var cfg *configv1.KubeSchedulerConfiguration
	if f.config != "" {
		var cfgReport *snapshot.Report
		cfg, cfgReport, err = snapshot.LoadConfig(f.config)
		if err != nil {
			return nil, err
		}
		printReport(w, cfgReport)
	}
	s, err := scheduler.New(cluster.Nodes, cluster.Pods, cluster.SchedulerObjects(), scheduler.Options{
		Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: f.seed,
	})
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	return &session{cluster: cluster, cfg: cfg, seed: f.seed, sched: s}, nil
}

func printReport(w io.Writer, r *snapshot.Report) {
	if r == nil {
		return
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.String())
	}
}

// pending lists the pods to schedule, in queue order.
func (s *session) pending() []*v1.Pod { return s.sched.PendingPods(s.cluster.Pods) }
