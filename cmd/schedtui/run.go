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
cordoned, pods deleted...); --until counts from the recording's start.

-o text prints one line per attempt plus preemptions, evictions, cluster changes
and what is left pending; -o json prints one JSON object per line: attempts,
queue moves, preemptions, evictions and cluster changes (the schema is
documented in the README).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output must be text or json, not %q", output)
			}
			if until < 0 {
				return fmt.Errorf("--until must not be negative")
			}
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			e, err := s.engine()
			if err != nil {
				return err
			}
			if until > 0 {
				e.RunUntil(until)
			} else {
				e.RunToQuiescence()
			}
			if output == "json" {
				return printJSON(cmd.OutOrStdout(), e)
			}
			return printText(cmd.OutOrStdout(), e)
		},
	}
	src.register(cmd)
	src.registerBind(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().DurationVar(&until, "until", 0, "run for this much virtual time (e.g. 10m) instead of until quiescent")
	return cmd
}

// engine builds the queue engine over the loaded cluster.
func (s *session) engine() (*engine.Engine, error) {
	e, err := engine.New(s.cluster.Nodes, s.cluster.Pods, s.cluster.SchedulerObjects(), engine.Options{
		Config: s.cfg, Registry: plugins.NewInTreeRegistry(), Seed: s.seed, Bind: s.bind, Start: s.replay.startTime(),
	})
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	s.replay.apply(e, s.stderr)
	return e, nil
}

// printJSON prints the timeline as JSON lines: attempts in the AttemptJSON
// schema, queue moves, preemptions and evictions.
func printJSON(w io.Writer, e *engine.Engine) error {
	attempts := e.Attempts()
	for _, ev := range e.Timeline() {
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
func printText(w io.Writer, e *engine.Engine) error {
	attempts := e.Attempts()
	for _, ev := range e.Timeline() {
		at := offset(ev.Time.Sub(e.Start()))
		switch ev.Kind {
		case engine.EventAttempt:
			if err := printAttempt(w, at, attempts[ev.Attempt]); err != nil {
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
			fmt.Fprintf(w, "%-8s   observed: %s: the cluster → %s, schedtui → %s: %s (%s)\n", at, ev.Pod, actual, predicted, ev.Reason, ev.Message)
		}
	}
	q := e.Queue()
	for _, list := range [][]engine.QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
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

func printAttempt(w io.Writer, at string, a *record.Attempt) error {
	node := a.Node
	if node == "" {
		node = "-"
	}
	line := fmt.Sprintf("%-8s %-40s %-13s %s", at, a.Pod, a.Outcome, node)
	if a.Outcome != record.Scheduled && a.Message != "" {
		line += "  " + a.Message
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
