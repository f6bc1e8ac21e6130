package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/internal/gcpace"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

// runHeadroom is how far run's heap may grow past what the last
// collection found live (gcpace.Bounded): at 50,000 nodes and a million
// pods, 2 GB live, the default target peaked at 5.2 GiB of RSS
// (docs/performance.md).
const runHeadroom = 1 << 30

func newRunCommand() *cobra.Command {
	var src sourceFlags
	var ns namespaceFlags
	var output, detail string
	var until time.Duration
	var prof runProfile
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the scheduling queue headless and print every attempt",
		Long: `run drives the scheduler and its queue through virtual time: pending pods are
popped in queue order, failed pods back off or wait for a cluster event that may
help them, preemption victims terminate after their grace period, and the
periodic flushes retry what is left. Without --until it runs until quiescent:
nothing can move any more except flush retries known to fail the same way.
With --until it runs for that much virtual time (flush retries included).

On a recording (schedtui record) the run starts when the recording started and
replays its changes at the times they happened (pods arriving, nodes added or
cordoned, pods deleted...); --until counts from the recording's start. The
replay is in shadow mode: the recorded cluster's scheduler decides, and each
of its decisions (a binding, or an Unschedulable condition) gets schedtui's
attempt on the state it had and an observed line (agree, tie or disagree, what
it was judged on). --simulate instead lets schedtui schedule every pod itself
from the recording's first state, applying the recorded changes at their times.

The whole cluster is always scheduled; -n NAMESPACE only prints the lines
about pods of that namespace (a preemption or eviction when the preemptor or a
victim is in it; cluster changes of its objects and of cluster-scoped ones).
Without -n every namespace is printed (-A says so explicitly).

-o text prints one line per attempt plus preemptions, evictions, cluster changes
and what is left pending; -o wide adds the nomination, the victims and the
absolute virtual time to each attempt; -o json prints one JSON object per line:
attempts, queue moves, preemptions, evictions and cluster changes (the schema
is documented in docs/commands.md). --detail says how much of each attempt -o json
writes: full (every field), failed (the Filter map of the rejected nodes, not
the feasible nodes' scores) or summary (outcome, node, message, nomination and
victims); the field names stay those of full.

Lines are written as the run makes them, and an attempt is dropped once
written: memory does not grow with the attempts' detail.`,
		Example: `  schedtui run
  schedtui run --snapshot cluster.yaml -n team-b -o wide
  schedtui run --snapshot recording.yaml --until 45m -o json
  schedtui run --snapshot big.yaml -o json --detail summary`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "wide", "json"); err != nil {
				return err
			}
			d, err := record.ParseDetail(detail)
			if err != nil {
				return fmt.Errorf("--detail: %w", err)
			}
			if d != record.DetailFull && output != "json" {
				return fmt.Errorf("--detail %s applies to -o json only (-o %s prints each attempt's line)", detail, output)
			}
			if err := ns.validate(cmd); err != nil {
				return err
			}
			if until < 0 {
				return fmt.Errorf("--until must not be negative")
			}
			if err := prof.begin(); err != nil {
				return err
			}
			// run keeps what it loads: the collector paces as the
			// debugger's does while the cluster is loaded (gcpace.Growing),
			// then, for the attempts, runs less often than its default
			// but keeps the heap bounded (gcpace.Kept): the default
			// doubling would take as much again as the state.
			growing := gcpace.Growing()
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			growing()
			if err != nil {
				return prof.end(err)
			}
			defer gcpace.Kept(gcpace.Floor(), runHeadroom)()
			prof.markLoaded()
			s.profile = &prof
			p := &runPrinter{json: output == "json", wide: output == "wide", detail: d, keep: func(history.Event) bool { return true }}
			if ns.explicit(cmd) {
				p.keep = func(ev history.Event) bool { return eventInNamespace(ev, ns.namespace) }
			}
			return prof.end(s.stream(cmd.OutOrStdout(), until, p))
		},
	}
	src.register(cmd)
	src.registerBind(cmd)
	src.registerSimulate(cmd)
	ns.register(cmd, "print only the lines about pods of this namespace")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, wide or json")
	cmd.Flags().StringVar(&detail, "detail", "full", "how much of each attempt -o json writes: full, failed or summary")
	cmd.Flags().DurationVar(&until, "until", 0, "run for this much virtual time (e.g. 10m) instead of until quiescent")
	prof.register(cmd)
	return cmd
}

// run builds the queue engine and runs it as run and explain do: until
// quiescent, or for until of virtual time. opts adjust the engine's
// options (run streams its output). Its progress goes to stderr as one
// updating line when stderr is a terminal. Once s.ctx is done (Ctrl-C) it
// stops after the attempt in progress and returns the engine as it is
// then, with an error saying how far it got.
func (s *session) run(until time.Duration, opts ...func(*engine.Options)) (*engine.Engine, error) {
	e, err := s.engine(opts...)
	if err != nil {
		return nil, err
	}
	s.profile.markBuilt()
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	show := !s.quietProgress && isTerminal(s.stderr)
	if until > 0 {
		line := progress.NewLine(s.stderr, show, "scheduling", "s of virtual time", progressClock)
		err = e.RunUntilCtx(ctx, until, progress.Func(func(ms, total int64) { line.Report(ms/1000, total/1000) }))
		line.Done()
	} else {
		line := progress.NewLine(s.stderr, show, "scheduling", "attempts", progressClock)
		_, err = e.RunToQuiescenceCtx(ctx, line)
		line.Done()
	}
	if err != nil {
		return e, fmt.Errorf("interrupted after %s attempt(s), at %s of virtual time: %w", progress.Count(int64(e.Attempts().Len())),
			offset(e.Now().Sub(e.Start())), err)
	}
	return e, nil
}

// isTerminal reports whether a command's stdout or stderr is a terminal:
// the progress line is drawn only there (tests replace it).
var isTerminal = progress.IsTerminal

// progressClock times the progress lines (tests replace it).
var progressClock = time.Now

// eventInNamespace reports whether a timeline event is about a pod (the
// pod, a preemptor or a victim) or an object of namespace ns, or about a
// cluster-scoped object.
func eventInNamespace(ev history.Event, ns string) bool {
	if inNamespace(ev.Pod, ns) || ev.Preemptor != "" && inNamespace(ev.Preemptor, ns) {
		return true
	}
	for _, v := range ev.Victims {
		if inNamespace(v, ns) {
			return true
		}
	}
	if ev.Kind == history.EventCluster && ev.Pod == "" {
		// Object is "Kind name" or "Kind namespace/name".
		_, name, _ := strings.Cut(ev.Object, " ")
		return !strings.Contains(name, "/") || inNamespace(name, ns)
	}
	return false
}

// engine builds the queue engine over the loaded cluster; opts adjust its
// options.
func (s *session) engine(opts ...func(*engine.Options)) (*engine.Engine, error) {
	start := s.replay.startTime()
	switch {
	case s.resume != nil:
		start = s.start
	case start.IsZero():
		// A snapshot: its clock goes on from its newest time.
		start = s.clock0
	}
	o := engine.Options{
		Config: s.cfg, Registry: plugins.NewInTreeRegistry(), Seed: s.seed, Bind: s.bind, Start: start, Resume: s.resume,
		Shadow: s.mode.shadows(), Features: &s.resolved().Features, ExtenderAnswers: s.replay.extenderAnswers(),
	}
	for _, f := range opts {
		f(&o)
	}
	e, err := engine.New(s.cluster.Nodes, s.cluster.Pods, s.cluster.SchedulerObjects(), o)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	s.replay.apply(e, s.stderr)
	return e, nil
}

// runPrinter writes run's lines as the engine hands it the events
// (Options.OnEvent), through a buffer; the first write error stops it.
type runPrinter struct {
	w          *bufio.Writer
	json, wide bool
	detail     record.Detail
	keep       func(history.Event) bool
	start      time.Time
	err        error
}

// stream runs the engine headless (as run does, until quiescent or for
// until of virtual time), p writing each line to w as it is made, then the
// pods left pending (text).
func (s *session) stream(w io.Writer, until time.Duration, p *runPrinter) error {
	p.w = bufio.NewWriterSize(w, 64<<10)
	switch {
	case !p.json:
		s.demoLine(p.w, "source: ")
		fmt.Fprintf(p.w, "scheduler: %s\n", s.resolved().Summary())
	case s.demo:
		// The text's source line, as the first JSON line.
		b, err := json.Marshal(sourceJSON{Kind: "source", Demo: true, Source: demoHeader})
		if err != nil {
			return err
		}
		if _, err := p.w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	// The attempts stream to stdout: on a terminal they are the progress.
	s.quietProgress = isTerminal(w)
	e, err := s.run(until, p.headless)
	if e == nil {
		return err
	}
	interrupted := err
	e.Flush()
	if !p.json && p.err == nil && interrupted == nil {
		p.err = printPending(p.w, e, p.keep)
	}
	if err := p.w.Flush(); p.err == nil {
		p.err = err
	}
	if interrupted != nil {
		// Every line written is whole: -o json stays one object per line.
		return fmt.Errorf("%w; the output holds the lines up to there", interrupted)
	}
	return p.err
}

// sourceJSON is run -o json's first line on the embedded demo: the
// text's "source:" line, so that nobody takes its pods for a cluster's.
type sourceJSON struct {
	Kind   string `json:"kind"`
	Demo   bool   `json:"demo"`
	Source string `json:"source"`
}

// headless makes the engine stream to the printer and keep nothing a
// headless run does not need (engine.Retention.Headless).
func (p *runPrinter) headless(o *engine.Options) {
	o.Retention.Headless = true
	// An attempt's line is all -o json --detail summary writes.
	o.Retention.LinesOnly = p.json && p.detail == record.DetailSummary
	o.OnEvent = p.event
	p.start = o.Start
	if p.start.IsZero() {
		p.start = scheduler.Epoch
	}
}

func (p *runPrinter) event(ev history.Event, a *record.Attempt) {
	if p.err != nil || !p.keep(ev) {
		return
	}
	if p.json {
		p.err = writeJSONEvent(p.w, ev, a, p.detail)
	} else {
		p.err = writeTextEvent(p.w, offset(ev.Time.Sub(p.start)), ev, a, p.wide)
	}
}

// writeJSONEvent writes one timeline event as a JSON line: an attempt in
// the AttemptJSON schema at detail d, the other kinds as EventJSON.
func writeJSONEvent(w io.Writer, ev history.Event, a *record.Attempt, d record.Detail) error {
	var b []byte
	var err error
	if ev.Kind == history.EventAttempt {
		b, err = a.MarshalDetail(d)
	} else if j, ok := engine.EventJSON(ev); ok {
		b, err = json.Marshal(j)
	} else {
		return nil
	}
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// writeTextEvent prints one timeline event as text (queue moves print
// nothing).
func writeTextEvent(w io.Writer, at string, ev history.Event, a *record.Attempt, wide bool) error {
	var err error
	switch ev.Kind {
	case history.EventAttempt:
		err = printAttempt(w, at, a, wide)
	case history.EventPreemption:
		_, err = fmt.Fprintf(w, "%-8s   preemption: %s nominated to %s, victims: %s\n", at, ev.Pod, ev.Node, strings.Join(ev.Victims, ", "))
	case history.EventBinding:
		msg := ""
		if ev.Message != "" {
			msg = ": " + ev.Message
		}
		_, err = fmt.Fprintf(w, "%-8s   binding: %s on %s: %s after waiting in PreBind (attempt %d)%s\n", at, ev.Pod, ev.Node, ev.Reason, ev.Attempt+1, msg)
	case history.EventEviction:
		_, err = fmt.Fprintf(w, "%-8s   eviction: %s left %s (preempted by %s)\n", at, ev.Pod, ev.Node, ev.Preemptor)
	case history.EventCluster:
		printCluster(w, at, ev)
	case history.EventObserved:
		predicted := ev.Predicted
		if predicted == "" {
			predicted = "no node"
		}
		actual := ev.Node
		switch {
		case engine.IsPodGroupRef(ev.Pod):
			// A PodGroup's condition, and schedtui's.
			actual, predicted = ev.ClusterMessage, ev.Predicted
			if predicted == "" {
				predicted = "no condition"
			}
		case actual == "":
			actual = "unschedulable"
		}
		_, err = fmt.Fprintf(w, "%-8s   observed: %s: the cluster → %s, schedtui → %s: %s (%s)%s\n", at, ev.Pod, actual, predicted, ev.Reason, ev.Message, judgedText(ev))
	}
	return err
}

// printPending prints the pods left pending when the run ends.
func printPending(w io.Writer, e *engine.Engine, keep func(history.Event) bool) error {
	q := e.Queue()
	for _, list := range [][]engine.QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
			if !keep(history.Event{Pod: p.Pod}) {
				continue
			}
			why := strings.Join(p.UnschedulablePlugins, ", ")
			if p.Queue == history.Gated {
				why = p.GatingPlugin + ": " + p.GatingMessage
			}
			if _, err := fmt.Fprintf(w, "pending  %-40s %-13s %s\n", p.Pod, p.Queue, why); err != nil {
				return err
			}
		}
	}
	return nil
}

// offset renders virtual time since the start: +0s, +30s, +5m30s.
func offset(d time.Duration) string { return "+" + d.String() }

// printAttempt prints an attempt line; wide adds the nomination, the
// victims and the absolute virtual time before the message.
func printAttempt(w io.Writer, at string, a *record.Attempt, wide bool) error {
	line := fmt.Sprintf("%-8s %-40s %-13s %s", at, a.Pod, a.Outcome, orDash(a.Node))
	if wide {
		line = fmt.Sprintf("%-8s %-40s %-13s %-12s %-12s %-30s %s", at, a.Pod, a.Outcome, orDash(a.Node), orDash(a.Nominated),
			orDash(strings.Join(a.Victims, ",")), engine.FormatTime(a.Time))
	}
	if a.Outcome != record.Scheduled && a.Message != "" {
		line += "  " + a.Message
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// judgedText says what a shadow-mode observation was judged on, and why
// that may not be the state the cluster's scheduler had.
func judgedText(ev history.Event) string {
	j := ev.Judged
	if j == nil {
		return ""
	}
	s := fmt.Sprintf(" · judged on %d bound pod(s)", j.Bound)
	if len(j.InFlight) > 0 {
		s += ", in flight: " + strings.Join(j.InFlight, ", ")
	}
	if j.AsOf != "" {
		s += ", as of " + j.AsOf
	}
	if ev.Uncertain != "" {
		s += " · uncertain: " + ev.Uncertain
	}
	return s
}
