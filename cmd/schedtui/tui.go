package main

import (
	"bytes"
	"fmt"
	"io"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/testdata"
	"github.com/schedtui/schedtui/tui"
)

// openTUI loads the snapshot and runs the interactive debugger.
//
// A live source (--kubeconfig) plugs in here: build a tui.Source that
// reports connection, sync progress and the last event, and pass it as
// tui.Options.Source; the status line already shows it.
func openTUI(f *sourceFlags, in io.Reader, out, errw io.Writer) error {
	var (
		cluster *snapshot.Cluster
		report  *snapshot.Report
		err     error
		name    = "demo"
	)
	if f.snapshot == "" {
		cluster, report, err = snapshot.Load(testdata.DemoName, testdata.Demo)
	} else {
		name = f.snapshot
		cluster, report, err = snapshot.LoadFile(f.snapshot)
	}
	if err != nil {
		return err
	}
	// Loader problems go to stderr before the screen is taken over, and
	// their count to the status line.
	var problems bytes.Buffer
	printReport(&problems, report)
	if problems.Len() > 0 {
		fmt.Fprint(errw, problems.String())
	}
	var cfg *configv1.KubeSchedulerConfiguration
	if f.config != "" {
		var cfgReport *snapshot.Report
		cfg, cfgReport, err = snapshot.LoadConfig(f.config)
		if err != nil {
			return err
		}
		printReport(errw, cfgReport)
	}
	b, err := tui.NewBackend(name, cluster, scheduler.Options{Config: cfg, Registry: plugins.NewInTreeRegistry(), Seed: f.seed})
	if err != nil {
		return fmt.Errorf("building the scheduler: %w", err)
	}
	notice := "n: next attempt · s: step phase · ?: help"
	if report != nil && len(report.Problems) > 0 {
		notice = fmt.Sprintf("the snapshot loaded with %d problem(s), printed on stderr · ?: help", len(report.Problems))
	}
	return tui.Run(tui.Options{Backend: b, Notice: notice}, in, out)
}
