package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/internal/gcpace"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/snapshot"
)

func newSnapshotCommand() *cobra.Command {
	var f sourceFlags
	var output, at string
	var until time.Duration
	var keepEnv bool
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE",
		Short: "Capture a live cluster (read-only) into a snapshot file",
		Long: `snapshot lists every kind the scheduler reads from the live cluster
(--kubeconfig/--context, else $KUBECONFIG, ~/.kube/config or the in-cluster
service account) and writes it as one v1 List: YAML, JSON or the API server's protobuf encoding
by the file's extension (.yaml, .yml, .json, .pb), gzipped when it ends in .gz;
-o - writes YAML to stdout. Protobuf opens several times faster than JSON, for
clusters of hundreds of thousands of pods. A header (a leading comment in YAML,
annotations on the List in JSON, the first item in protobuf) records the capture time, the context, the server's and schedtui's versions,
and, with --config, the scheduler configuration file's content, which
--snapshot then uses; an extender's TLS private key (tlsConfig.keyData) and the
password of a URL (user:password@) are left out of it, and the header says so.
managedFields are left out; Secrets and ConfigMaps are never read. The pods'
environment variables keep their names and valueFrom references, but their
literal values are written empty (scheduling never reads them; they often hold
passwords) unless --keep-env-values. Progress goes to stderr.

With --snapshot it converts a snapshot in any layout --snapshot reads (a
directory, a cluster-info dump, a simulator export) into one List instead.

With --at NAMESPACE/POD[#N] it runs the source as run does (any source: a
snapshot, a recording, the demo, a live cluster; --until as run's) and writes
the cluster exactly as the scheduler saw it at the start of the pod's last
attempt (#N: its Nth, from 1, as explain --attempt N): pods bound by then,
victims still terminating, nominations, volume bindings, every other object.
run over the file attempts that pod first (its header says so) and gives the
same outcome, node, message, nomination and victims.`,
		Example: `  schedtui snapshot -o cluster.yaml
  schedtui snapshot --snapshot dump/ -o cluster.json.gz
  schedtui snapshot --snapshot cluster.json -o cluster.pb
  schedtui snapshot --demo --at default/web-3#1 -o web-3.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if at != "" {
				return captureAt(cmd.Context(), &f, at, until, output, keepEnv, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if cmd.Flags().Changed("until") || cmd.Flags().Changed("seed") || f.demo {
				return fmt.Errorf("--until, --seed and --demo are for --at: without it snapshot captures a live cluster or converts --snapshot")
			}
			return capture(cmd.Context(), &f, output, keepEnv, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.registerLive(cmd)
	f.gates.register(cmd)
	cmd.Flags().StringVar(&f.snapshot, "snapshot", "", "convert this snapshot instead of capturing a live cluster")
	registerMaxSnapshotSize(cmd)
	cmd.Flags().StringVar(&f.config, "config", "", "KubeSchedulerConfiguration file to record in the snapshot (it must be valid)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write: .yaml, .yml, .json or .pb (protobuf), optionally followed by .gz; - for YAML on stdout")
	cmd.Flags().StringVar(&at, "at", "", "write the cluster as the scheduler saw it at the start of this pod's attempt: NAMESPACE/POD (its last) or NAMESPACE/POD#N")
	cmd.Flags().DurationVar(&until, "until", 0, "with --at: run for this much virtual time instead of until quiescent, as run does")
	cmd.Flags().BoolVar(&f.demo, "demo", false, "with --at: the embedded demo")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "with --at: seed of the random source, as run's")
	registerKeepEnvValues(cmd, &keepEnv)
	f.registerSkipExtenders(cmd)
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// outputAndConfig checks what a capture or a recording writes: the
// format from output's name (YAML for -) and the --config file to record
// (valid, or an error with the loader's report on stderr).
func outputAndConfig(f *sourceFlags, output string, stderr io.Writer) (snapshot.OutputFormat, []byte, error) {
	format := snapshot.OutputFormat{YAML: true}
	if output != "-" {
		var err error
		if format, err = snapshot.OutputFormatFor(output); err != nil {
			return format, nil, err
		}
	}
	// The gates given are recorded in the header: refuse bad ones before
	// reading the cluster, and validate --config under them.
	gates, err := f.gates.resolveGiven()
	if err != nil {
		return format, nil, fmt.Errorf("%s: %w", f.gates.names(), err)
	}
	if f.config == "" {
		return format, nil, nil
	}
	data, err := os.ReadFile(f.config)
	if err != nil {
		return format, nil, fmt.Errorf("--config: %w", err)
	}
	if _, r, err := config.LoadData(f.config, data, gates.Features); err != nil {
		printReport(stderr, r)
		return format, nil, err
	}
	return format, data, nil
}

// registerKeepEnvValues adds --keep-env-values to a command that writes
// the cluster's pods.
func registerKeepEnvValues(cmd *cobra.Command, keep *bool) {
	cmd.Flags().BoolVar(keep, "keep-env-values", false, "write the pods' literal environment variable values "+
		"(by default they are written empty: they often hold passwords, and scheduling never reads them)")
}

// envValues is what a header says of the pods' literal environment
// variable values: kept when asked (--keep-env-values), else dropped. A
// snapshot that dropped them (from, the source's header) cannot give
// them back.
func envValues(keep bool, from *snapshot.Header) string {
	if keep && (from == nil || from.EnvValues != snapshot.EnvValuesDropped) {
		return snapshot.EnvValuesKept
	}
	return snapshot.EnvValuesDropped
}

func capture(ctx context.Context, f *sourceFlags, output string, keepEnv bool, stdout, stderr io.Writer) error {
	format, cfgData, err := outputAndConfig(f, output, stderr)
	if err != nil {
		return err
	}
	m, err := f.sourceKind()
	if err != nil {
		return err
	}
	switch m {
	case sourceSnapshot:
	case sourceLive:
	default:
		return errors.New("no cluster to capture: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not running in a cluster; give --kubeconfig or --context (or --snapshot to convert a snapshot)")
	}
	// The configuration is recorded, not used: load without it.
	loadFlags := *f
	loadFlags.config, loadFlags.recordOnly = "", true
	// The cluster is kept until it is written, and writing it makes
	// garbage one object at a time: the collector runs each time the heap
	// has grown by what is live or runHeadroom, whichever is less
	// (gcpace.Bounded), from the load on. With run's pacing while it
	// loads (gcpace.Growing) the first collection after the load came at
	// twice what the load's last one found live (4.0 and 4.4 GiB at a
	// million pods, docs/performance.md), and below Growing's floor of 3
	// GiB, which is for the first screen's time, nothing is collected
	// (a conversion of 100,000 pods from JSON peaked three times higher).
	defer gcpace.Bounded(0, runHeadroom)()
	src, err := loadSource(ctx, &loadFlags, stderr, false)
	if err != nil {
		return err
	}
	h := snapshot.Header{CapturedAt: time.Now().UTC(), SchedtuiVersion: schedtuiVersion()}
	if m == sourceLive {
		h.Context, h.Source, h.ServerVersion = src.name, src.host, src.serverVersion
	} else {
		if src.header != nil {
			// Converting a capture keeps what it recorded.
			h = *src.header
			h.SchedtuiVersion = schedtuiVersion()
		}
		h.Source = f.snapshot
		if cfgData == nil && src.cfgData != nil {
			h.SchedulerConfigFile, h.SchedulerConfig = src.cfgFrom, string(src.cfgData)
			fmt.Fprintf(stderr, "recording the scheduler configuration of the snapshot (%s)\n", src.cfgFrom)
		}
	}
	if cfgData != nil {
		h.SchedulerConfigFile, h.SchedulerConfig = f.config, string(cfgData)
	}
	recordSettings(&h, src.settings)
	h.EnvValues = envValues(keepEnv, src.header)
	c := src.cluster
	n, where, err := writeCluster(output, stdout, c, h, format)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d objects (%d nodes, %d pods) to %s\n", n, len(c.Nodes), len(c.Pods), where)
	return nil
}

// writeCluster writes c to output (- for stdout, in format) and says
// where it went.
func writeCluster(output string, stdout io.Writer, c *snapshot.Cluster, h snapshot.Header, format snapshot.OutputFormat) (n int, where string, err error) {
	if output == "-" {
		n, err = snapshot.Write(stdout, c, h, format)
		return n, "stdout", err
	}
	n, err = snapshot.WriteFile(output, c, h)
	return n, output, err
}
