package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/plugins"
	"github.com/schedtui/schedtui/scheduler/record"
)

func newRunCommand() *cobra.Command {
	var src sourceFlags
	var ns namespaceFlags
	var output string
	var until time.Duration
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
is documented in the README).`,
		Example: `  schedtui run
  schedtui run --snapshot cluster.yaml -n team-b -o wide
  schedtui run --snapshot recording.yaml --until 45m -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "wide", "json"); err != nil {
				return err
			}
			if err := ns.validate(cmd); err != nil {
				return err
			}
			if until < 0 {
				return fmt.Errorf("--until must not be negative")
			}
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			e, err := s.run(until)
			if err != nil {
				return err
			}
			keep := func(engine.Event) bool { return true }
			if ns.explicit(cmd) {
				keep = func(ev engine.Event) bool { return eventInNamespace(ev, ns.namespace) }
			}
			if output == "json" {
				return printJSON(cmd.OutOrStdout(), e, keep)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "scheduler: %s\n", s.resolved().Summary())
			return printText(cmd.OutOrStdout(), e, keep, output == "wide")
		},
	}
	src.register(cmd)
	src.registerBind(cmd)
	src.registerSimulate(cmd)
	ns.register(cmd, "print only the lines about pods of this namespace")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, wide or json")
	cmd.Flags().DurationVar(&until, "until", 0, "run for this much virtual time (e.g. 10m) instead of until quiescent")
	return cmd
}

// run builds the queue engine and runs it as run and explain do: until
// quiescent, or for until of virtual time.
func (s *session) run(until time.Duration) (*engine.Engine, error) {
	e, err := s.engine()
	if err != nil {
		return nil, err
	}
	if until > 0 {
		e.RunUntil(until)
	} else {
		e.RunToQuiescence()
	}
	return e, nil
}

// eventInNamespace reports whether a timeline event is about a pod (the
// pod, a preemptor or a victim) or an object of namespace ns, or about a
// cluster-scoped object.
func eventInNamespace(ev engine.Event, ns string) bool {
	if inNamespace(ev.Pod, ns) || ev.Preemptor != "" && inNamespace(ev.Preemptor, ns) {
		return true
	}
	for _, v := range ev.Victims {
		if inNamespace(v, ns) {
			return true
		}
	}
	if ev.Kind == engine.EventCluster && ev.Pod == "" {
		// Object is "Kind name" or "Kind namespace/name".
		_, name, _ := strings.Cut(ev.Object, " ")
		return !strings.Contains(name, "/") || inNamespace(name, ns)
	}
	return false
}

// engine builds the queue engine over the loaded cluster.
func (s *session) engine() (*engine.Engine, error) {
	start := s.replay.startTime()
	if s.resume != nil {
		start = s.start
	}
	e, err := engine.New(s.cluster.Nodes, s.cluster.Pods, s.cluster.SchedulerObjects(), engine.Options{
		Config: s.cfg, Registry: plugins.NewInTreeRegistry(), Seed: s.seed, Bind: s.bind, Start: start, Resume: s.resume,
		Shadow: s.replay.shadowing(), Features: &s.resolved().Features,
	})
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	s.replay.apply(e, s.stderr)
	return e, nil
}

// printJSON prints the timeline as JSON lines: attempts in the AttemptJSON
// schema, queue moves, preemptions and evictions.
func printJSON(w io.Writer, e *engine.Engine, keep func(engine.Event) bool) error {
	attempts := e.Attempts()
	for _, ev := range e.Timeline() {
		if !keep(ev) {
			continue
		}
		var v any
		if ev.Kind == engine.EventAttempt {
			v = attempts[ev.Attempt].JSON()
		} else if j, ok := engine.EventJSON(ev); ok {
			v = j
		} else {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}

// printText prints attempts, preemptions and evictions with their virtual
// time, then the pods left pending.
func printText(w io.Writer, e *engine.Engine, keep func(engine.Event) bool, wide bool) error {
	attempts := e.Attempts()
	for _, ev := range e.Timeline() {
		if !keep(ev) {
			continue
		}
		at := offset(ev.Time.Sub(e.Start()))
		switch ev.Kind {
		case engine.EventAttempt:
			if err := printAttempt(w, at, attempts[ev.Attempt], wide); err != nil {
				return err
			}
		case engine.EventPreemption:
			fmt.Fprintf(w, "%-8s   preemption: %s nominated to %s, victims: %s\n", at, ev.Pod, ev.Node, strings.Join(ev.Victims, ", "))
		case engine.EventEviction:
			fmt.Fprintf(w, "%-8s   eviction: %s left %s (preempted by %s)\n", at, ev.Pod, ev.Node, ev.Preemptor)
		case engine.EventCluster:
			printCluster(w, at, ev)
		case engine.EventObserved:
			predicted := ev.Predicted
			if predicted == "" {
				predicted = "no node"
			}
			actual := ev.Node
			if actual == "" {
				actual = "unschedulable"
			}
			fmt.Fprintf(w, "%-8s   observed: %s: the cluster → %s, schedtui → %s: %s (%s)%s\n", at, ev.Pod, actual, predicted, ev.Reason, ev.Message, judgedText(ev))
		}
	}
	q := e.Queue()
	for _, list := range [][]engine.QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
			if !keep(engine.Event{Pod: p.Pod}) {
				continue
			}
			why := strings.Join(p.UnschedulablePlugins, ", ")
			if p.Queue == engine.Gated {
				why = p.GatingPlugin + ": " + p.GatingMessage
			}
			fmt.Fprintf(w, "pending  %-40s %-13s %s\n", p.Pod, p.Queue, why)
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
func judgedText(ev engine.Event) string {
	j := ev.Judged
	if j == nil {
		return ""
	}
	s := fmt.Sprintf(" · judged on %d bound pod(s)", j.Bound)
	if len(j.InFlight) > 0 {
		s += ", in flight: " + strings.Join(j.InFlight, ", ")
	}
	if ev.Uncertain != "" {
		s += " · uncertain: " + ev.Uncertain
	}
	return s
}
