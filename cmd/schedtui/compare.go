package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/compare"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/testdata"
	"github.com/schedtui/schedtui/tui"
)

const sideHelp = `A side is one of:
  (omitted), defaults      kube-scheduler v1.37 with its defaults; --left omitted is
                           the scheduler run would use (--config, the snapshot's;
                           --emulated-version, --feature-gates)
  FILE                     a KubeSchedulerConfiguration file, as kube-scheduler takes it
  demo-packing             the demo's second configuration (MostAllocated, a higher
                           PodTopologySpread weight); ./demo-packing is a file
  "--FLAG=VALUE ..."       kube-scheduler's own flags, quoted as one argument:
                           --config=FILE --emulated-version=X.Y
                           --min-compatibility-version=X.Y --feature-gates=A=true,B=false
On the demo, a side that names no --feature-gates runs with the demo's
kube-scheduler's (` + testdata.DemoFeatureGates + `: its training job is a gang).`

func newCompareCommand() *cobra.Command {
	var src sourceFlags
	var left, right, output string
	var until time.Duration
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Schedule the same cluster with two configurations, versions or gate sets, and compare",
		Long: `compare runs the scheduler twice from the same starting state, each side with
its own queue engine, as run does (until quiescent, or --until of virtual time),
and prints per pod each side's outcome, node and attempt count; for every pod
placed differently, the first of its attempts where the sides diverged and the
plugin whose Filter verdict or weighted score made the difference, with the
numbers; then per side the pods scheduled and pending, preemptions and victims,
the nodes used and a histogram of requested/allocatable per resource, and the
skew of each spread-constrained workload per topology key.

` + sideHelp + `

-o json prints one object (the schema is in docs/commands.md).

` + sourceHelp,
		Example: `  schedtui compare --demo --right demo-packing
  schedtui compare --snapshot cluster.yaml --right packing.yaml -o json
  schedtui compare --snapshot cluster.yaml --left "--emulated-version=1.35" --right defaults
  schedtui compare --left "--config=a.yaml --feature-gates=SchedulerAsyncPreemption=false" --right a.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return err
			}
			if until < 0 {
				return errors.New("--until must not be negative")
			}
			if (src.config != "" || src.gates.given()) && cmd.Flags().Changed("left") {
				return errors.New("--config, --emulated-version, --min-compatibility-version and --feature-gates give the left side, as --left does: " +
					"give one or the other (--left \"--config=FILE --emulated-version=X.Y ...\")")
			}
			src.compare = true
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			l, err := s.leftSide(cmd.Flags().Changed("left"), left, src.config)
			if err != nil {
				return err
			}
			r, err := resolveSide("--right", right, sideGates(s.demo), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			rep, err := s.compare(l, r, until)
			if err != nil {
				return err
			}
			if output == "json" {
				b, err := json.Marshal(compareOutput{Source: s.demoSource(), JSON: rep.JSON()})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			s.demoLine(cmd.OutOrStdout(), "source: ")
			return printCompare(cmd.OutOrStdout(), rep)
		},
	}
	src.register(cmd)
	cmd.Flags().StringVar(&left, "left", "", "the left side (see above; default: the configuration run would use)")
	cmd.Flags().StringVar(&right, "right", "", "the right side (see above; default: kube-scheduler v1.37's defaults)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().DurationVar(&until, "until", 0, "run each side for this much virtual time (e.g. 10m) instead of until quiescent")
	return cmd
}

// compareOutput is compare -o json's answer: the report, with source
// (the text's "source:" line) on the embedded demo.
type compareOutput struct {
	Source string `json:"source,omitempty"`
	compare.JSON
}

// namedConfigs are the configurations a side may name.
var namedConfigs = []compare.Named{{Name: testdata.DemoPackingName, Data: testdata.DemoPacking}}

// resolveSide parses and resolves a side given to flag; a side naming no
// --feature-gates gets gates (the demo's, see sideGates). The
// configuration's warnings and the gates' notes go to w.
func resolveSide(flag, raw, gates string, w io.Writer) (*compare.Resolved, error) {
	spec, err := compare.ParseSpec(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if spec.FeatureGates == "" && gates != "" {
		spec.FeatureGates = demoGatesAt(spec.EmulatedVersion, spec.MinCompatibilityVersion)
	}
	r, err := spec.Resolve(namedConfigs)
	if r != nil {
		printReport(w, r.Report)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	for _, n := range r.Gates.Notes {
		fmt.Fprintf(w, "%s: note: %s\n", flag, n)
	}
	return r, nil
}

// sideGates are the gates of a side that names none: on the demo, its
// kube-scheduler's (its training job is a gang, see demoGatesAt), else
// the version's defaults.
func sideGates(demo bool) string {
	if demo {
		return testdata.DemoFeatureGates
	}
	return ""
}

// demoGatesAt are the demo's kube-scheduler's gates at a version: none
// where they do not exist (GenericWorkload is 1.35's): there the training
// job's workers are ordinary pods.
func demoGatesAt(emulatedVersion, minCompatibilityVersion string) string {
	if _, err := features.Resolve(emulatedVersion, minCompatibilityVersion, testdata.DemoFeatureGates); err != nil {
		return ""
	}
	return testdata.DemoFeatureGates
}

// leftSide is --left, or without it the scheduler run would use: the
// configuration (--config, the snapshot's, or the defaults) and the
// version and gates (the flags, what the snapshot says of the cluster's
// scheduler, or v1.37's defaults).
func (s *session) leftSide(given bool, raw, configFlag string) (*compare.Resolved, error) {
	if given {
		return resolveSide("--left", raw, sideGates(s.demo), s.stderr)
	}
	spec := compare.Spec{Config: configFlag}
	if configFlag == "" && s.cfg != nil {
		spec.Config = "the snapshot's configuration"
	}
	spec.Raw = spec.Config
	gates := s.resolved()
	return &compare.Resolved{Spec: spec, Config: s.cfg, Features: gates.Features, Gates: gates}, nil
}

// compare runs both sides over the session's cluster, as run runs one.
func (s *session) compare(left, right *compare.Resolved, until time.Duration) (*compare.Report, error) {
	runs := make([]compare.Run, 2)
	for i, side := range []*compare.Resolved{left, right} {
		e, err := s.sideRun(side, until)
		if err != nil {
			return nil, fmt.Errorf("%s side (%s): %w", [2]string{"left", "right"}[i], side.Spec.Label(), err)
		}
		runs[i] = compare.Run{Side: side, Engine: e}
	}
	return compare.Compare(runs[0], runs[1]), nil
}

// sideRun runs one side: the session with the side's configuration and
// gates.
func (s *session) sideRun(side *compare.Resolved, until time.Duration) (*engine.Engine, error) {
	c := *s
	c.cfg, c.gates = side.Config, side.Gates
	return c.run(until)
}

// printCompare prints the comparison as text.
func printCompare(w io.Writer, r *compare.Report) error {
	fmt.Fprintf(w, "left:  %s\nright: %s\n\n", r.Left.Describe, r.Right.Describe)
	row := func(name string, l, r any) { fmt.Fprintf(w, "%-14s %-22v %v\n", name, l, r) }
	row("", "LEFT", "RIGHT")
	row("scheduled", r.Left.Scheduled, r.Right.Scheduled)
	row("pending", r.Left.Pending, r.Right.Pending)
	row("preemptions", r.Left.Preemptions, r.Right.Preemptions)
	row("victims", r.Left.Victims, r.Right.Victims)
	row("nodes used", fmt.Sprintf("%d/%d", r.Left.Packing.NodesUsed, r.Left.Packing.Nodes),
		fmt.Sprintf("%d/%d", r.Right.Packing.NodesUsed, r.Right.Packing.Nodes))

	fmt.Fprintf(w, "\n%-40s %-36s %-36s %s\n", "POD", "LEFT", "RIGHT", "DIVERGED")
	for _, p := range r.Pods {
		mark := ""
		if d := p.Divergence; d != nil {
			mark = fmt.Sprintf("attempt %d: %s", d.Attempt, orDash(d.Plugin))
		}
		fmt.Fprintf(w, "%-40s %-36s %-36s %s\n", p.Pod, resultText(p.Left), resultText(p.Right), mark)
	}
	if diverged := r.Diverged(); len(diverged) > 0 {
		fmt.Fprintln(w, "\nWhere they diverged:")
		for _, p := range diverged {
			d := p.Divergence
			by := "no plugin"
			if d.Plugin != "" {
				by = d.Plugin
			}
			fmt.Fprintf(w, "%s, attempt %d: decided by %s (%s)\n", p.Pod, d.Attempt, by, d.Kind)
			for _, l := range d.Lines {
				fmt.Fprintf(w, "    %s\n", l)
			}
			if n := len(d.Earlier); n > 0 {
				fmt.Fprintf(w, "    the clusters already differed: %d pod(s) placed differently before (%s)\n", n, strings.Join(d.Earlier[max(0, n-3):], ", "))
			}
		}
	}

	fmt.Fprintf(w, "\nPacking: nodes by requested/allocatable, in 10%% buckets (0-9%% ... 90-100%%)\n")
	for i, h := range r.Left.Packing.Resources {
		fmt.Fprintf(w, "  %-20s left  %s\n", h.Resource, histogramText(h))
		if i < len(r.Right.Packing.Resources) && r.Right.Packing.Resources[i].Resource == h.Resource {
			fmt.Fprintf(w, "  %-20s right %s\n", "", histogramText(r.Right.Packing.Resources[i]))
		}
	}
	for _, h := range r.Right.Packing.Resources[min(len(r.Left.Packing.Resources), len(r.Right.Packing.Resources)):] {
		fmt.Fprintf(w, "  %-20s right %s\n", h.Resource, histogramText(h))
	}

	if len(r.Left.Spread)+len(r.Right.Spread) > 0 {
		fmt.Fprintln(w, "\nSpread: skew of each spread-constrained workload (most matching pods in a domain minus the fewest)")
		for _, s := range spreadRows(r) {
			fmt.Fprintf(w, "  %-30s %-40s left %-10s right %s\n", s.key, s.workload, s.left, s.right)
		}
	}
	return nil
}

func resultText(r compare.Result) string {
	s := r.Outcome
	if r.Node != "" {
		s += " " + r.Node
	}
	return fmt.Sprintf("%s (%d)", s, r.Attempts)
}

func histogramText(h compare.Histogram) string {
	parts := make([]string, len(h.Nodes))
	for i, n := range h.Nodes {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

type spreadRow struct{ key, workload, left, right string }

// spreadRows pairs the two sides' workloads by topology key and name.
func spreadRows(r *compare.Report) []spreadRow {
	var rows []spreadRow
	index := map[[2]string]int{}
	add := func(list []compare.Spread, right bool) {
		for _, s := range list {
			k := [2]string{s.TopologyKey, s.Workload}
			i, ok := index[k]
			if !ok {
				i = len(rows)
				index[k] = i
				rows = append(rows, spreadRow{key: s.TopologyKey, workload: s.Workload, left: "-", right: "-"})
			}
			v := fmt.Sprintf("%d/%d", s.Skew, s.MaxSkew)
			if right {
				rows[i].right = v
			} else {
				rows[i].left = v
			}
		}
	}
	add(r.Left.Spread, false)
	add(r.Right.Spread, true)
	return rows
}

// compareMode sets up the debugger's compare mode: the second side of
// --compare-with, and the C dialog's builder. Both sides start from the
// same state, so a live cluster (whose state keeps moving under the
// first) and a recording in shadow mode (where schedtui schedules
// nothing) offer none: the mode says so (modeOf refuses --compare-with
// there).
func compareMode(opts *tui.Options, src *source, f *sourceFlags, replays []tui.Replay, w io.Writer) error {
	if !src.mode.compares() {
		return nil
	}
	build := func(raw string) (*tui.Comparison, error) {
		side, err := resolveSide("compare with", raw, sideGates(src.demo), io.Discard)
		if err != nil {
			return nil, err
		}
		b, err := tui.NewBackend(src.name+" · "+side.Spec.Label(), src.cluster,
			scheduler.Options{Config: side.Config, Features: &side.Features, Registry: plugins.NewInTreeRegistry(), Seed: f.seed}, replays...)
		if err != nil {
			return nil, fmt.Errorf("building the second side: %w", err)
		}
		return &tui.Comparison{Backend: b, Label: side.Spec.Label(), Describe: side.Describe()}, nil
	}
	opts.NewComparison = build
	if f.compareWith == "" {
		return nil
	}
	// Report the side's warnings and notes before the screen is taken.
	if _, err := resolveSide("--compare-with", f.compareWith, sideGates(src.demo), w); err != nil {
		return err
	}
	cmp, err := build(f.compareWith)
	if err != nil {
		return fmt.Errorf("--compare-with: %w", err)
	}
	opts.Compare = cmp
	opts.Backend.Name += " ⇄ " + cmp.Label
	return nil
}
