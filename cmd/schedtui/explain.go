package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"

	"github.com/spf13/cobra"

	"github.com/schedtui/schedtui/scheduler/record"
)

func newExplainCommand() *cobra.Command {
	var src sourceFlags
	var all bool
	cmd := &cobra.Command{
		Use:   "explain NAMESPACE/POD | daemonset/[NAMESPACE/]NAME",
		Short: "Explain one pod's scheduling attempt: the message, the Filter verdict per node, the scores",
		Long: `explain schedules the pending pods in queue order up to the given pod and
explains its attempt: the message as kubectl describe shows it, a table of the
first failing Filter plugin per node with its reasons, and the score table.
With --all it also runs every Filter plugin on every node (the full diagnosis
kube-scheduler never computes).

explain daemonset/NAME lists the nodes where the DaemonSet should run (the
controller's predicate: nodeName, nodeSelector and node affinity, taints with
the daemon tolerations), its pods there, and for each node that should run it
but does not, which Filter plugin refuses the daemon pod and why.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if kind, name, ok := strings.Cut(args[0], "/"); ok && isDaemonSetKind(kind) {
				return explainDaemonSet(cmd.OutOrStdout(), s, name)
			}
			return explainPod(cmd.OutOrStdout(), s, args[0], all)
		},
	}
	src.register(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "run every Filter plugin on every node (full diagnosis)")
	return cmd
}

func explainPod(w io.Writer, s *session, target string, all bool) error {
	if !strings.Contains(target, "/") {
		target = "default/" + target
	}
	var found *v1.Pod
	var known []string
	for _, p := range s.cluster.Pods {
		key := p.Namespace + "/" + p.Name
		if key == target {
			found = p
		}
		known = append(known, key)
	}
	switch {
	case found == nil:
		return fmt.Errorf("pod %q is not in the snapshot", target)
	case found.Spec.NodeName != "":
		return fmt.Errorf("pod %q is already bound to node %q; explain takes a pending pod", target, found.Spec.NodeName)
	}
	for _, pod := range s.pending() {
		if pod.UID != found.UID {
			s.sched.ScheduleOne(pod)
			continue
		}
		var diag *record.FullDiagnosis
		if all {
			d, err := s.sched.Diagnose(pod)
			if err != nil {
				return err
			}
			diag = d
		}
		a := s.sched.ScheduleOne(pod)
		printExplanation(w, a, pod)
		if diag != nil {
			printFullDiagnosis(w, diag, a)
		}
		return nil
	}
	return fmt.Errorf("pod %q is not scheduled by any profile (schedulerName %q)", target, found.Spec.SchedulerName)
}

func printExplanation(w io.Writer, a *record.Attempt, pod *v1.Pod) {
	fmt.Fprintf(w, "Pod:        %s\n", a.Pod)
	fmt.Fprintf(w, "Priority:   %d\n", a.Priority)
	fmt.Fprintf(w, "Scheduler:  %s\n", a.Profile)
	fmt.Fprintf(w, "Outcome:    %s\n", a.Outcome)
	if a.Node != "" {
		fmt.Fprintf(w, "Node:       %s\n", a.Node)
	}
	if a.Nominated != "" {
		fmt.Fprintf(w, "Nominated:  %s\n", a.Nominated)
	}
	fmt.Fprintln(w, "Events:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  Type\tReason\tFrom\tMessage")
	fmt.Fprintln(tw, "  ----\t------\t----\t-------")
	switch a.Outcome {
	case record.Scheduled:
		fmt.Fprintf(tw, "  Normal\tScheduled\t%s\tSuccessfully assigned %s to %s\n", a.Profile, a.Pod, a.Node)
	case record.Skipped:
		fmt.Fprintf(tw, "  Warning\tFailedScheduling\t%s\t%s\n", a.Profile, a.Message)
	default:
		fmt.Fprintf(tw, "  Warning\tFailedScheduling\t%s\t%s\n", a.Profile, a.Message)
	}
	tw.Flush()

	j := a.JSON()
	if len(j.Filter) > 0 {
		fmt.Fprintln(w, "\nFilter (first plugin that rejected each node):")
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tPLUGIN\tREASONS")
		for _, n := range a.Nodes.Names {
			if f, ok := j.Filter[n]; ok {
				plugin := f.Plugin
				if plugin == "" {
					plugin = "(PreFilter result)"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", n, plugin, strings.Join(f.Reasons, "; "))
			}
		}
		tw.Flush()
	}
	if len(j.Feasible) > 0 {
		fmt.Fprintf(w, "\nFeasible nodes (%d): %s\n", len(j.Feasible), strings.Join(j.Feasible, ", "))
	}
	if notEvaluated := len(a.Nodes.Names) - len(j.Feasible) - len(j.Filter); notEvaluated > 0 && a.AbsentStatus < 0 {
		fmt.Fprintf(w, "Not evaluated: %d nodes (the search stopped after finding %d feasible nodes: percentageOfNodesToScore)\n", notEvaluated, a.NodesToFind)
	}
	printScores(w, a, j)
	if p := a.Preemption; p != nil {
		printPreemption(w, p)
	}
}

func printScores(w io.Writer, a *record.Attempt, j record.AttemptJSON) {
	if !a.Scored {
		return
	}
	fmt.Fprintln(w, "\nScores (raw → normalized × weight = final):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	header := "  NODE\t"
	for _, c := range a.Scores {
		header += fmt.Sprintf("%s (×%d)\t", c.Plugin, c.Weight)
	}
	fmt.Fprintln(tw, header+"TOTAL\t")
	nodes := append([]string(nil), j.Feasible...)
	sort.SliceStable(nodes, func(x, y int) bool { return j.Total[nodes[x]] > j.Total[nodes[y]] })
	top := map[string]bool{}
	for _, t := range j.Top {
		top[t] = true
	}
	for _, n := range nodes {
		line := "  " + n
		if n == a.Node {
			line += " ★"
		} else if top[n] {
			line += " ="
		}
		line += "\t"
		for _, c := range a.Scores {
			sc := j.Scores[n][c.Plugin]
			line += fmt.Sprintf("%d → %d = %d\t", sc.Raw, sc.Normalized, sc.Final)
		}
		fmt.Fprintf(tw, "%s%d\t\n", line, j.Total[n])
	}
	tw.Flush()
	if len(j.Top) > 1 {
		fmt.Fprintf(w, "Tied at the top: %s (kube-scheduler picks any of them; ★ is schedtui's pick for this node order)\n", strings.Join(j.Top, ", "))
	}
}

func printPreemption(w io.Writer, p *record.Preemption) {
	fmt.Fprintln(w, "\nPreemption:")
	if !p.Eligible {
		fmt.Fprintf(w, "  not attempted: %s\n", p.Reason)
		return
	}
	if len(p.Candidates) == 0 {
		fmt.Fprintln(w, "  no candidate node: evicting lower-priority pods would not help on any node")
		return
	}
	for i, c := range p.Candidates {
		mark := " "
		if i == p.Chosen {
			mark = "★"
		}
		var victims []string
		for _, v := range c.Victims {
			s := fmt.Sprintf("%s (priority %d)", v.Pod, v.Priority)
			if v.ViolatesPDB {
				s += " [violates PDB]"
			}
			victims = append(victims, s)
		}
		fmt.Fprintf(w, "  %s %s: %d PDB violation(s); victims: %s\n", mark, c.Node, c.PDBViolations, strings.Join(victims, ", "))
	}
	switch {
	case p.DecidedBy != "":
		fmt.Fprintf(w, "  decided by: %s\n", p.DecidedBy)
	case len(p.Tied) > 0:
		fmt.Fprintf(w, "  every criterion tied between %s; kube-scheduler picks any of them\n", strings.Join(p.Tied, ", "))
	}
	if len(p.NominatedPodsCleared) > 0 {
		fmt.Fprintf(w, "  nominations cleared: %s\n", strings.Join(p.NominatedPodsCleared, ", "))
	}
}

func printFullDiagnosis(w io.Writer, d *record.FullDiagnosis, a *record.Attempt) {
	fmt.Fprintln(w, "\nFull diagnosis (every Filter plugin on every node; · passes, - skipped):")
	if d.PreFilter.Code != record.CodeSuccess && d.PreFilter.Code != record.CodeNotRun {
		fmt.Fprintf(w, "  PreFilter %s rejected the pod: %s\n", d.PreFilter.Plugin, d.PreFilter.Message)
		return
	}
	evaluated := map[int32]bool{}
	for _, n := range a.Feasible {
		evaluated[n] = true
	}
	for _, r := range a.Rejected {
		evaluated[r.Node] = true
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := "  NODE\t"
	for _, p := range d.Plugins {
		header += p + "\t"
	}
	fmt.Fprintln(tw, header)
	for n, name := range d.Nodes.Names {
		line := "  " + name
		switch {
		case d.Narrowed[n]:
			line += " (narrowed out by PreFilter)"
		case !evaluated[int32(n)]:
			line += " (not evaluated upstream)"
		}
		line += "\t"
		for p := range d.Plugins {
			c := d.Cell(n, p)
			switch {
			case d.SkippedPlugins[p]:
				line += "-\t"
			case c.Code == record.CodeSuccess:
				line += "·\t"
			default:
				line += strings.Join(c.Reasons, "; ") + "\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}
