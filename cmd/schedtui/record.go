package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler/change"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/live"
)

func newRecordCommand() *cobra.Command {
	var f sourceFlags
	var output string
	var duration time.Duration
	var keepEnv bool
	cmd := &cobra.Command{
		Use:   "record -o FILE [--for DURATION]",
		Short: "Record a live cluster (read-only): its state, then every change, to replay with --snapshot",
		Long: `record lists every kind the scheduler reads from the live cluster
(--kubeconfig/--context, else $KUBECONFIG, ~/.kube/config or the in-cluster
service account), writes it as schedtui snapshot does, then watches and appends
every change (pods created, bound, deleted; nodes added, cordoned; PVs, claims,
storage classes, services...) with the time it arrived, until --for has passed
or it is interrupted (Ctrl-C, SIGTERM), and ends the file cleanly.

The file (.yaml, .yml or .json, gzipped when it ends in .gz; -o - writes YAML to
stdout) is written as the recording goes: in JSON one line per change, and a
gzipped file is flushed every second, so a recorder that is killed leaves a
readable recording. --snapshot FILE (schedtui, run, explain) opens it at its
start and replays the changes in virtual time: step through what happened to a
pod that was stuck an hour ago. Secrets and ConfigMaps are never read; the
pods' literal environment variable values are written empty unless
--keep-env-values, and the header leaves out the configuration's secrets, as
schedtui snapshot does. Progress goes to stderr.

With a --config that has extenders, schedtui's scheduler judges each decision
of the cluster's scheduler as the recording goes (it only reads; nothing is
bound), and the recording keeps every answer the extenders give it: a replay
answers from them and calls no extender.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return recordCluster(cmd.Context(), &f, output, duration, keepEnv, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.registerLive(cmd)
	f.gates.register(cmd)
	cmd.Flags().StringVar(&f.config, "config", "", "KubeSchedulerConfiguration file to record with the cluster (it must be valid); replays use it")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write: .yaml, .yml or .json, optionally followed by .gz; - for YAML on stdout")
	cmd.Flags().BoolVar(&f.skipExtenders, "skip-extenders", false, "do not ask the configuration's extenders while recording "+
		"(no scheduler runs alongside; the recording keeps no answers and its replays call the extenders)")
	cmd.Flags().DurationVar(&duration, "for", 0, "stop after recording this long (e.g. 1h); default: until interrupted")
	registerKeepEnvValues(cmd, &keepEnv)
	// Accepted only to be refused with a clear message.
	cmd.Flags().StringVar(&f.snapshot, "snapshot", "", "not for record: a recording needs a live cluster")
	cmd.Flags().BoolVar(&f.demo, "demo", false, "not for record: a recording needs a live cluster")
	_ = cmd.Flags().MarkHidden("snapshot")
	_ = cmd.Flags().MarkHidden("demo")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// errRecordNeedsLive answers --snapshot and --demo.
var errRecordNeedsLive = errors.New("record watches a live cluster (--kubeconfig, --context, or $KUBECONFIG); " +
	"--snapshot and --demo have no changes to record. To replay a recording, give it to --snapshot: " +
	"schedtui --snapshot FILE, or schedtui run --snapshot FILE")

func recordCluster(ctx context.Context, f *sourceFlags, output string, duration time.Duration, keepEnv bool, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.snapshot != "" || f.demo {
		return errRecordNeedsLive
	}
	if duration < 0 {
		return errors.New("--for must not be negative")
	}
	format, cfgData, err := outputAndConfig(f, output, stderr)
	if err != nil {
		return err
	}
	if format.Protobuf {
		return fmt.Errorf("%s: a recording is written as YAML or JSON (.yaml, .yml, .json, optionally followed by .gz); protobuf (.pb) is for snapshots", output)
	}
	m, err := f.sourceKind()
	if err != nil {
		return err
	}
	if m != sourceLive {
		return errors.New("no cluster to record: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not running in a cluster; give --kubeconfig or --context")
	}
	// Interrupted (Ctrl-C, SIGTERM), the recording ends cleanly.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	// The configuration is recorded, not used: load without it.
	loadFlags := *f
	loadFlags.config, loadFlags.recordOnly, loadFlags.skipExtenders = "", true, false
	src, err := loadSource(ctx, &loadFlags, stderr, true)
	if err != nil {
		return err
	}
	defer src.stop()
	started := time.Now().UTC()
	h := snapshot.Header{CapturedAt: started, RecordingStarted: started, Context: src.name, Source: src.host,
		ServerVersion: src.serverVersion, SchedtuiVersion: schedtuiVersion(), EnvValues: envValues(keepEnv, nil)}
	if cfgData != nil {
		h.SchedulerConfigFile, h.SchedulerConfig = f.config, string(cfgData)
	}
	recordSettings(&h, src.settings)
	ext, err := newExtenderRecorder(src, f.config, cfgData, started, f.skipExtenders, stderr)
	if err != nil {
		return err
	}
	if ext != nil {
		h.ExtenderAnswers = snapshot.ExtenderAnswersRecorded
	}
	var rw *snapshot.RecordingWriter
	where := output
	if output == "-" {
		where = "stdout"
		rw, err = snapshot.NewRecordingWriter(stdout, src.cluster, h, format)
	} else {
		rw, err = snapshot.CreateRecording(output, src.cluster, h)
	}
	if err != nil {
		return err
	}
	c := src.cluster
	if ext != nil {
		ext.writeTo(rw)
		fmt.Fprintf(stderr, "%s: the configuration has extenders: schedtui's scheduler judges each decision of the cluster's "+
			"alongside, and the recording keeps every answer the extenders give it (replays answer from them)\n", src.name)
	}
	until := "until interrupted (Ctrl-C)"
	if duration > 0 {
		until = "for " + duration.String()
	}
	fmt.Fprintf(stderr, "%s: recording to %s: the initial state, %d objects (%d nodes, %d pods); now watching %s\n",
		src.name, where, rw.Objects(), len(c.Nodes), len(c.Pods), until)

	wctx, cancel := context.WithCancel(ctx)
	if duration > 0 {
		wctx, cancel = context.WithTimeout(ctx, duration)
	}
	defer cancel()
	// The source's own reports: warnings and the connection's state; the
	// changes are reported as they are written.
	src.status.set(func(st live.Status) {
		if st.Warning || st.Err != nil || !isChangeMessage(st.Message) {
			fmt.Fprintf(stderr, "%s: %s\n", src.name, st)
		}
	})
	// Flush the compressor every FlushInterval, so that a killed recorder
	// leaves a readable file.
	flushDone := make(chan struct{})
	var flushWG sync.WaitGroup
	flushWG.Add(1)
	go func() {
		defer flushWG.Done()
		t := time.NewTicker(snapshot.FlushInterval)
		defer t.Stop()
		for {
			select {
			case <-flushDone:
				return
			case <-t.C:
				_ = rw.Flush()
			}
		}
	}()
	var writeErr error
	last := started
	watchErr := src.live.Watch(wctx, func(ch change.Change) error {
		typ, obj := ch.WatchEvent()
		// The time the informer handed the change over, as a live
		// session stamps it (live.Source), not the time it is written:
		// shadow mode measures its windows in arrival time, and a
		// replay is to judge as the live session does.
		at := ch.At
		if at.IsZero() {
			at = time.Now().UTC()
		}
		if at.Before(last) {
			at = last
		}
		last = at
		if err := rw.Add(at, typ, obj); err != nil {
			writeErr = fmt.Errorf("writing the recording to %s: %w", where, err)
			cancel()
			return err
		}
		// The change is written before the engine sees it, as it was
		// delivered; the answers of the attempts it triggers follow it.
		if ext != nil {
			ch.At = at
			if err := ext.change(ch, stderr); err != nil {
				writeErr = fmt.Errorf("writing the recording to %s: %w", where, err)
				cancel()
				return err
			}
		}
		fmt.Fprintf(stderr, "%s: +%s %s (%d changes recorded)\n", src.name, at.Sub(started).Round(time.Millisecond), ch, rw.Changes())
		return nil
	})
	end := time.Now().UTC()
	if end.Before(last) {
		end = last
	}
	if ext != nil && writeErr == nil {
		if err := ext.finish(end); err != nil {
			writeErr = fmt.Errorf("writing the recording to %s: %w", where, err)
		}
	}
	close(flushDone)
	flushWG.Wait()
	closeErr := rw.Close(end)
	switch {
	case writeErr != nil:
		return writeErr
	case closeErr != nil:
		return fmt.Errorf("finishing the recording %s: %w", where, closeErr)
	case watchErr != nil && !errors.Is(watchErr, context.Canceled) && !errors.Is(watchErr, context.DeadlineExceeded):
		return watchErr
	}
	replayHint := ""
	if output != "-" {
		replayHint = " (replay it: schedtui --snapshot " + output + ")"
	}
	fmt.Fprintf(stderr, "%s: recorded %d changes over %s to %s%s\n",
		src.name, rw.Changes(), end.Sub(started).Round(time.Second), where, replayHint)
	return nil
}

// isChangeMessage reports a live source's status about a change it
// delivered ("PodAdd default/web-3 on node-a", "ObjectAdd").
func isChangeMessage(msg string) bool {
	first, _, _ := strings.Cut(msg, " ")
	switch change.Kind(first) {
	case change.NodeAdd, change.NodeUpdate, change.NodeDelete, change.PodAdd, change.PodUpdate, change.PodDelete,
		change.ObjectAdd, change.ObjectUpdate, change.ObjectDelete:
		return true
	}
	return false
}
