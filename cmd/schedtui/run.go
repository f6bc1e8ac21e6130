package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler/record"
)

func newRunCommand() *cobra.Command {
	var src sourceFlags
	var output string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Schedule the pending pods headless and print every attempt",
		Long: `run schedules the snapshot's pending pods in queue order, one attempt each,
and prints every attempt: one line per attempt with -o text, one JSON object
per line with -o json (the schema is documented in the README).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("--output must be text or json, not %q", output)
			}
			s, err := load(&src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, pod := range s.pending() {
				if st := s.sched.PreEnqueue(pod); !st.IsSuccess() {
					// A gated pod never leaves the queue: no attempt.
					if output == "text" {
						fmt.Fprintf(out, "%-40s %-13s %s  %s: %s\n", pod.Namespace+"/"+pod.Name, "Gated", "-", st.Plugin(), st.Message())
					}
					continue
				}
				a := s.sched.ScheduleOne(pod)
				if err := printAttempt(out, output, a); err != nil {
					return err
				}
			}
			return nil
		},
	}
	src.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

func printAttempt(w io.Writer, format string, a *record.Attempt) error {
	if format == "json" {
		b, err := json.Marshal(a.JSON())
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	node := a.Node
	if node == "" {
		node = "-"
	}
	line := fmt.Sprintf("%-40s %-13s %s", a.Pod, a.Outcome, node)
	if a.Outcome != record.Scheduled && a.Message != "" {
		line += "  " + a.Message
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
