package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
	"github.com/schedtui/schedtui/snapshot"
)

func newExplainCommand() *cobra.Command {
	var src sourceFlags
	var ns namespaceFlags
	var all bool
	var output string
	var attempt int
	var until time.Duration
	var wi whatIfFlags
	cmd := &cobra.Command{
		Use:   "explain (NAMESPACE/POD | pod/NAMESPACE/NAME | NAME -n NAMESPACE | daemonset/[NAMESPACE/]NAME | podgroup/[NAMESPACE/]NAME | compositepodgroup/[NAMESPACE/]NAME | -A)",
		Short: "Explain what the scheduler did with a pod: every attempt, and why the last one ended as it did",
		Long: `explain runs the same scheduling queue as run (and the debugger): pods are
popped in queue order, back off, wait for cluster events, get gated, preempt
and wait for their victims to leave, until the queue is quiescent (or --until;
on a recording, its changes are replayed as run replays them). It then prints
the pod's history, one line per attempt (when, which queue event brought the
pod back, the outcome), and explains its last attempt (or --attempt N): the
message as kubectl describe shows it, a table of the first failing Filter
plugin per node with its reasons, the score table, and what preemption
considered. With --all it also runs every Filter plugin on every node, on the
cluster as that attempt saw it (the full diagnosis kube-scheduler never
computes). A pod never attempted says where it waits (gated: by what).

explain podgroup/NAME explains a pod group (GenericWorkload): its policy and
minCount, its members and where each is bound, every group cycle (how many
members were placeable against minCount, the PodGroup's condition message),
and the last cycle (or --attempt N, the group's Nth cycle): the group's
verdict, each member's verdict per node (members × nodes) and hints proven by
re-running the group cycle. explain on a member shows its group's verdict
first. explain compositepodgroup/NAME (CompositePodGroup) does the same for a
hierarchy's root: its policy (minGroupCount counts the groups directly below
it), the members of every PodGroup below it, each PodGroup's condition; a
PodGroup below a root shows the root's cycles, with its own outcome.

-A explains every pod that went through the queue; -n NAMESPACE without a pod
every such pod of that namespace.

explain daemonset/NAME lists the nodes where the DaemonSet should run (the
controller's predicate: nodeName, nodeSelector and node affinity, taints with
the daemon tolerations), its pods there after the run, what the run did with
each daemon pod, and for each node that should run it but does not, which
Filter plugin refuses the daemon pod and why.

-o json|yaml prints one object per pod (a List of them for several pods): pod,
outcome, node, message, nominatedNode, victims (as run -o json's attempt line),
attempt (the one explained) and attempts (how many), queue (where the pod waits
now), history, verdict and hints.

--with FILE and --without KIND/NAMESPACE/NAME are a what-if: the attempt
explained is re-run on the cluster as it saw it with the file's objects added
or replacing theirs (any kind the scheduler reads: Node, Pod, PVC, PV,
StorageClass, ResourceClaim, ...) and the objects named removed, and explain
shows the outcome before and after and every node whose verdict changed
(-o json: whatIf).`,
		Example: `  schedtui explain default/web-3
  schedtui explain web-3 -n default --attempt 1
  schedtui explain pod/team-b/batch-116 -o json
  schedtui explain -A -o yaml
  schedtui explain daemonset/kube-system/node-agent
  schedtui explain podgroup/default/llm-train-workers
  schedtui explain default/web-3 --with node-zone-c.yaml --without pod/default/db-0`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := explainQueryOf(cmd, &src, &ns, args, explainQuery{output: output, attempt: attempt, all: all}, until)
			if err != nil {
				return err
			}
			if wi.set() && (q.ref == nil || q.ref.daemonSet || q.ref.podGroup) {
				return fmt.Errorf("--with and --without re-run one pod's attempt: name the pod (NAMESPACE/NAME)")
			}
			s, err := load(cmd.Context(), &src, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if wi.set() {
				ed, err := wi.edits(s, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				q.edits = &ed
			}
			e, err := s.run(until)
			if err != nil {
				return err
			}
			if q.ref != nil && q.ref.daemonSet {
				return explainDaemonSet(cmd.OutOrStdout(), s, e, q)
			}
			if q.ref != nil && q.ref.podGroup {
				return explainPodGroup(cmd.OutOrStdout(), s, e, q)
			}
			return explainPods(cmd.OutOrStdout(), s, e, q)
		},
	}
	src.register(cmd)
	src.registerSimulate(cmd)
	ns.register(cmd, "namespace of a pod named without one; without a pod, explain every pod of it")
	cmd.Flags().BoolVar(&all, "all", false, "run every Filter plugin on every node (full diagnosis)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, wide, json or yaml")
	cmd.Flags().IntVar(&attempt, "attempt", 0, "explain the pod's Nth attempt (from 1) instead of its last")
	cmd.Flags().DurationVar(&until, "until", 0, "run for this much virtual time (e.g. 10m) instead of until quiescent, as run does")
	wi.register(cmd)
	return cmd
}

// explainQuery is what explain was asked.
type explainQuery struct {
	// ref is the pod or DaemonSet named; nil for every pod of namespace
	// ("" is every namespace).
	ref       *objectRef
	namespace string
	// nsExplicit: -n was given (a DaemonSet named without a namespace is
	// otherwise looked up in every namespace).
	nsExplicit bool
	output     string
	attempt    int
	all        bool
	// edits are --with and --without's (nil without them).
	edits *why.Edits
}

// explainQueryOf checks explain's arguments and flags (q holds -o,
// --attempt and --all) and resolves the namespace.
func explainQueryOf(cmd *cobra.Command, src *sourceFlags, ns *namespaceFlags, args []string, q explainQuery, until time.Duration) (explainQuery, error) {
	output, attempt, all := q.output, q.attempt, q.all
	q.nsExplicit = ns.explicit(cmd)
	if err := checkOutput(output, "text", "wide", "json", "yaml"); err != nil {
		return q, err
	}
	if err := ns.validate(cmd); err != nil {
		return q, err
	}
	switch {
	case attempt < 0:
		return q, fmt.Errorf("--attempt counts a pod's attempts from 1, not %d", attempt)
	case until < 0:
		return q, fmt.Errorf("--until must not be negative")
	}
	if len(args) == 0 {
		switch {
		case ns.allNamespaces:
		case q.nsExplicit:
			q.namespace = ns.namespace
		default:
			return q, fmt.Errorf("explain needs a pod (NAMESPACE/NAME, pod/NAMESPACE/NAME, NAME with -n) or daemonset/NAME; " +
				"-A explains every pod, -n NAMESPACE every pod of a namespace")
		}
		if attempt > 0 {
			return q, fmt.Errorf("--attempt %d needs one pod, not every pod of %s", attempt, namespaceLabel(q.namespace))
		}
		return q, nil
	}
	r, err := parseRef(args[0])
	if err != nil {
		return q, err
	}
	switch {
	case ns.allNamespaces:
		return q, fmt.Errorf("-A/--all-namespaces explains every pod: it cannot be combined with %q (drop -A, or the pod)", args[0])
	case r.namespace != "" && q.nsExplicit && r.namespace != ns.namespace:
		return q, fmt.Errorf("%q names namespace %s but -n says %s: give one", args[0], r.namespace, ns.namespace)
	case r.daemonSet && attempt > 0:
		return q, fmt.Errorf("--attempt is for a pod; explain daemonset/%s shows every attempt of its pods", r.name)
	case r.daemonSet && all:
		return q, fmt.Errorf("--all is for a pod: explain daemonset/%s already evaluates every Filter plugin on each node", r.name)
	case r.podGroup && all:
		return q, fmt.Errorf("--all is for a pod: explain %s/%s shows every member's verdict per node; explain a member with --all for its full diagnosis", r.kind(), r.name)
	case r.daemonSet && (output == "json" || output == "yaml"):
		return q, fmt.Errorf("explain daemonset/%s prints text only (-o text or wide); -o %s is for pods", r.name, output)
	}
	if r.namespace == "" && (!r.daemonSet || q.nsExplicit) {
		r.namespace = ns.resolve(cmd, src)
	}
	q.ref, q.namespace = &r, r.namespace
	return q, nil
}

func namespaceLabel(ns string) string {
	if ns == "" {
		return "every namespace"
	}
	return "namespace " + ns
}

// checkOutput refuses an -o value the command does not print.
func checkOutput(output string, allowed ...string) error {
	for _, a := range allowed {
		if output == a {
			return nil
		}
	}
	return fmt.Errorf("--output must be %s or %s, not %q", strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1], output)
}

// explainPods explains the pod asked for, or every pod of the namespace.
func explainPods(w io.Writer, s *session, e *engine.Engine, q explainQuery) error {
	histories := e.Histories()
	var targets []history.PodHistory
	if q.ref != nil {
		h, err := findHistory(s, histories, q.ref.namespace+"/"+q.ref.name)
		if err != nil {
			return err
		}
		targets = []history.PodHistory{h}
	} else {
		for _, h := range histories {
			if inNamespace(h.Pod, q.namespace) {
				targets = append(targets, h)
			}
		}
		if len(targets) == 0 {
			return fmt.Errorf("no pod of %s went through the scheduling queue", namespaceLabel(q.namespace))
		}
	}
	var xs []explanation
	for _, h := range targets {
		x, err := explainHistory(e, h, q.attempt, q.refs(), s.cluster)
		if err != nil {
			return err
		}
		x.Simulates, x.FeatureGates = s.resolved().Version(), append([]string{}, s.resolved().NonDefault...)
		x.Source = s.demoSource()
		if q.edits != nil {
			if x.WhatIf, err = whatIf(e, x, *q.edits); err != nil {
				return err
			}
		}
		xs = append(xs, x)
	}
	switch q.output {
	case "json", "yaml":
		var v any = xs[0]
		if q.ref == nil {
			v = explanationList{Kind: "List", Items: xs}
		}
		return printObject(w, v, q.output)
	}
	for i, x := range xs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		s.demoLine(w, "Source:     ")
		if err := printPodExplanation(w, e, x, q); err != nil {
			return err
		}
		printWhatIf(w, x)
	}
	return nil
}

// findHistory is the history of pod key, or an error that says why there
// is none: not in the cluster (with suggestions), bound before the run,
// finished, or not scheduled by any profile.
func findHistory(s *session, histories []history.PodHistory, key string) (history.PodHistory, error) {
	var known []string
	for _, h := range histories {
		if h.Pod == key {
			return h, nil
		}
		known = append(known, h.Pod)
	}
	for _, p := range s.cluster.Pods {
		k := p.Namespace + "/" + p.Name
		known = append(known, k)
		if k != key {
			continue
		}
		switch {
		case p.Spec.NodeName != "":
			return history.PodHistory{}, fmt.Errorf("pod %q was already bound to node %q when the run started: explain takes a pod the scheduler has to place", key, p.Spec.NodeName)
		case p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed:
			return history.PodHistory{}, fmt.Errorf("pod %q has finished (phase %s): the scheduler never sees it", key, p.Status.Phase)
		}
		return history.PodHistory{}, fmt.Errorf("pod %q is not scheduled by any profile (schedulerName %q)", key, p.Spec.SchedulerName)
	}
	return history.PodHistory{}, fmt.Errorf("pod %q not found%s", key, didYouMean(key, known))
}

// explanation is explain's answer for one pod: -o json|yaml prints it.
// pod, outcome, node, message, nominatedNode and victims are those of run
// -o json's attempt line for the attempt explained.
type explanation struct {
	// Source is demoHeader when the cluster is the embedded demo (the
	// text's "Source:" line), else absent.
	Source string `json:"source,omitempty"`
	Pod    string `json:"pod"`
	// Outcome is NotAttempted when the pod never was; its Message is then
	// the gating plugin's, if it is gated.
	attemptAnswer
	// Attempt is the attempt explained (from 1; 0 for none), Attempts
	// how many the pod had.
	Attempt  int `json:"attempt"`
	Attempts int `json:"attempts"`
	// Queue is where the pod waits at the end of the run ("" when it is
	// not in the queue: bound or deleted).
	Queue   string        `json:"queue"`
	History []historyJSON `json:"history"`
	Verdict []string      `json:"verdict"`
	// Preemption is what the attempt's preemption chose; nil when it
	// chose no node (or did not run).
	Preemption *preemptionJSON `json:"preemption"`
	// Hints are proven changes that would let the pod schedule (see
	// package why): each re-run to a fit on its fitsOn nodes.
	Hints []why.Hint `json:"hints"`
	// PodGroup is the group (namespace/name) whose cycle made the attempt
	// explained (GenericWorkload): the verdict is the group's.
	PodGroup string `json:"podGroup,omitempty"`
	// Simulates is the scheduler simulated ("kube-scheduler 1.37"), and
	// FeatureGates the scheduling gates not at their default there.
	Simulates    string   `json:"simulates"`
	FeatureGates []string `json:"featureGates"`
	// WhatIf is the attempt re-run with --with and --without's edits
	// (absent without them).
	WhatIf *whatIfJSON `json:"whatIf,omitempty"`

	attempt *history.PodAttempt
	history history.PodHistory
}

// attemptAnswer is what run -o json's attempt line says of an attempt.
type attemptAnswer struct {
	// Outcome is Scheduled, Unschedulable, Error or Skipped.
	Outcome       string   `json:"outcome"`
	Node          string   `json:"node"`
	Message       string   `json:"message"`
	NominatedNode string   `json:"nominatedNode"`
	Victims       []string `json:"victims"`
}

func answerOf(j record.AttemptJSON) attemptAnswer {
	return attemptAnswer{Outcome: j.Outcome, Node: j.Node, Message: j.Message, NominatedNode: j.NominatedNode, Victims: j.Victims}
}

// preemptionJSON is the node preemption nominated the pod to, the
// pickOneNodeForPreemption criterion that decided ("single candidate",
// or "" when every criterion tied), and the victims evicted there.
type preemptionJSON struct {
	Node      string       `json:"node"`
	DecidedBy string       `json:"decidedBy"`
	Victims   []victimJSON `json:"victims"`
}

// victimJSON is one victim: its priority and the PodDisruptionBudgets
// (namespace/name) its eviction violates.
type victimJSON struct {
	Pod          string   `json:"pod"`
	Priority     int32    `json:"priority"`
	ViolatesPDBs []string `json:"violatesPDBs"`
}

func preemptionOf(p *record.Preemption) *preemptionJSON {
	if p == nil || p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
		return nil
	}
	c := p.Candidates[p.Chosen]
	out := &preemptionJSON{Node: c.Node, DecidedBy: p.DecidedBy, Victims: []victimJSON{}}
	for _, v := range c.Victims {
		pdbs := v.PDBs
		if pdbs == nil {
			pdbs = []string{}
		}
		out.Victims = append(out.Victims, victimJSON{Pod: v.Pod, Priority: v.Priority, ViolatesPDBs: pdbs})
	}
	return out
}

// historyJSON is one attempt of the pod's history.
type historyJSON struct {
	Attempt int    `json:"attempt"`
	Time    string `json:"time"`
	// Events are the queue moves that led to the attempt (see
	// history.PodAttempt.Events).
	Events []string `json:"events"`
	attemptAnswer
}

type explanationList struct {
	Kind  string        `json:"kind"`
	Items []explanation `json:"items"`
}

// notAttempted is the outcome of a pod the run never attempted.
const notAttempted = "NotAttempted"

// refs point the verdict to the sections the text output prints below
// it; -o json|yaml's verdict stands alone.
func (q explainQuery) refs() why.Refs {
	if q.output == "json" || q.output == "yaml" {
		return why.Refs{}
	}
	return why.Refs{Filter: "Filter below", Scores: "Scores below", Preemption: "Preemption below"}
}

// explainHistory builds the answer for attempt n of a pod (0: its last).
func explainHistory(e *engine.Engine, h history.PodHistory, n int, refs why.Refs, c *snapshot.Cluster) (explanation, error) {
	x := explanation{Pod: h.Pod, Attempts: len(h.Attempts), Queue: string(h.Queue), History: []historyJSON{},
		attemptAnswer: attemptAnswer{Victims: []string{}}, Hints: []why.Hint{}, history: h}
	for _, pa := range h.Attempts {
		events := pa.Events
		if events == nil {
			events = []string{}
		}
		x.History = append(x.History, historyJSON{Attempt: pa.N, Time: engine.FormatTime(pa.Time), Events: events,
			attemptAnswer: answerOf(pa.Attempt.JSON())})
	}
	var err error
	if x.attempt, err = attemptOf(h, n, "--attempt "); err != nil {
		return x, err
	}
	if x.attempt == nil {
		x.Outcome = notAttempted
		if h.GatingPlugin != "" {
			x.Message = h.GatingPlugin + ": " + h.GatingMessage
		}
		x.NominatedNode = h.NominatedNode
	} else {
		x.Attempt = x.attempt.N
		x.attemptAnswer = answerOf(x.attempt.Attempt.JSON())
		x.Preemption = preemptionOf(x.attempt.Attempt.Preemption)
	}
	x.Verdict = verdictLines(x)
	if x.attempt == nil {
		return x, nil
	}
	if x.attempt == h.Last() && x.attempt.Attempt.Outcome == record.Scheduled {
		// The devices its claims hold now, as PreBind wrote them.
		if p := e.Pod(h.Pod); p != nil {
			for _, l := range why.PodClaimAllocations(e.Scheduler(), p) {
				x.Verdict = append(x.Verdict, "Claim:      "+l)
			}
		}
	} else if p := e.Pod(h.Pod); p != nil {
		// A member's claims that are its PodGroup's (DRAWorkloadResourceClaims).
		for _, l := range why.GroupClaimLines(e.Scheduler(), p) {
			x.Verdict = append(x.Verdict, "Claim:      "+l)
		}
	}
	if g, ok := e.GroupOf(x.attempt.Index); ok {
		// The attempt was made in its group's cycle: the group's verdict
		// decides, and its hints are the group's (explain podgroup/).
		x.PodGroup = g.Key()
		policy, ref := groupPolicyText(g.Policy, g.MinCount), "podgroup/"+g.Key()
		if g.Composite {
			policy, ref = "composite, "+why.CompositePolicy(g.Policy, g.MinCount), "compositepodgroup/"+g.Key()
		}
		x.Verdict = append(x.Verdict, fmt.Sprintf("Group:      %s (%s), cycle %d: %s", g.Key(), policy, g.Seq, why.GroupHeadline(g)))
		for _, l := range why.GroupVerdict(groupInputOf(e, g))[1:] {
			x.Verdict = append(x.Verdict, "            "+l)
		}
		for _, l := range why.MemberLines(g, x.attempt.Attempt, nil, refs.Filter) {
			x.Verdict = append(x.Verdict, "            "+l)
		}
		x.Verdict = append(x.Verdict, fmt.Sprintf("            (explain %s: every member × node, and the group's hints)", ref))
		return x, nil
	}
	// A node a hint adds runs the pods the cluster's DaemonSets would
	// create there, admitted as the API server would.
	in := why.Input{Attempt: x.attempt.Attempt, Refs: refs, DaemonSets: c.DaemonSets, AdmitDaemonPod: admitter(c)}
	if o := in.Attempt.Outcome; o == record.Unschedulable || o == record.Error {
		// The verdict names objects and the hints are proven on the
		// cluster as the attempt saw it.
		if in.Sched, in.Pod, err = e.Fork(x.attempt.Index); err != nil {
			return x, fmt.Errorf("replaying to attempt %d of %s: %w", x.attempt.N, h.Pod, err)
		}
		if in.Diag, err = in.Sched.Diagnose(in.Pod); err != nil {
			return x, err
		}
	}
	x.Verdict = append(x.Verdict, why.Verdict(in)...)
	res, err := why.Hints(in, why.Options{})
	if err != nil {
		return x, err
	}
	if res.Note != "" {
		x.Verdict = append(x.Verdict, res.Note)
	}
	x.Hints = append(x.Hints, res.Hints...)
	return x, nil
}

// attemptOf is attempt n of a pod (from 1; 0: its last, nil when it has
// none); flag names the option that asked for n in the error.
func attemptOf(h history.PodHistory, n int, flag string) (*history.PodAttempt, error) {
	switch {
	case n > len(h.Attempts) && len(h.Attempts) == 0:
		return nil, fmt.Errorf("pod %q was never attempted (%s): there is no attempt %d", h.Pod, waiting(h), n)
	case n > len(h.Attempts):
		return nil, fmt.Errorf("pod %q has %d attempt(s) in this run: %s%d is beyond its last", h.Pod, len(h.Attempts), flag, n)
	case n == 0:
		return h.Last(), nil
	}
	return &h.Attempts[n-1], nil
}

// waiting says where a pod never attempted waits.
func waiting(h history.PodHistory) string {
	switch {
	case h.Queue == history.Gated:
		return "gated by " + h.GatingPlugin + ": " + h.GatingMessage
	case h.Queue != "":
		return "waiting in " + string(h.Queue) + ", never popped"
	}
	return "it left the queue without an attempt"
}

// verdictLines are the summary lines of an explanation (its verdict).
func verdictLines(x explanation) []string {
	if x.attempt == nil {
		return []string{"Outcome:    not attempted: " + waiting(x.history)}
	}
	out := []string{"Outcome:    " + x.Outcome}
	if x.Node != "" {
		out = append(out, "Node:       "+x.Node)
	}
	if x.NominatedNode != "" {
		out = append(out, "Nominated:  "+x.NominatedNode)
	}
	if len(x.Victims) > 0 {
		out = append(out, "Victims:    "+strings.Join(x.Victims, ", "))
	}
	return out
}

// printObject prints v as indented JSON or as YAML.
func printObject(w io.Writer, v any, output string) error {
	var b []byte
	var err error
	if output == "yaml" {
		b, err = yaml.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, "", "  ")
		b = append(b, '\n')
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// printPodExplanation prints one pod's explanation as text.
func printPodExplanation(w io.Writer, e *engine.Engine, x explanation, q explainQuery) error {
	a := x.attempt
	fmt.Fprintf(w, "Pod:        %s\n", x.Pod)
	if a != nil {
		fmt.Fprintf(w, "Priority:   %d\n", a.Attempt.Priority)
		fmt.Fprintf(w, "Scheduler:  %s\n", a.Attempt.Profile)
	} else if p := e.Pod(x.Pod); p != nil {
		fmt.Fprintf(w, "Priority:   %d\n", priority(p))
		fmt.Fprintf(w, "Scheduler:  %s\n", p.Spec.SchedulerName)
	}
	simulating := x.Simulates
	if len(x.FeatureGates) > 0 {
		simulating += " (gates: " + strings.Join(x.FeatureGates, ",") + ")"
	}
	fmt.Fprintf(w, "Simulating: %s\n", simulating)
	printHistory(w, e, x.history, "", q.output == "wide")
	if a != nil {
		fmt.Fprintf(w, "Attempt %d of %d, at %s:\n", a.N, len(x.history.Attempts), offset(a.Time.Sub(e.Start())))
	}
	for _, l := range x.Verdict {
		fmt.Fprintln(w, l)
	}
	for _, h := range x.Hints {
		fmt.Fprintf(w, "Hint: %s → fits on %s (proven: re-run with the change)\n", h.Summary, why.Names(h.FitsOn))
	}
	if a == nil {
		if x.history.Queue != "" && x.history.Queue != history.Gated && len(x.history.UnschedulablePlugins) > 0 {
			fmt.Fprintf(w, "Rejected by: %s\n", strings.Join(x.history.UnschedulablePlugins, ", "))
		}
		return nil
	}
	printAttemptDetails(w, a.Attempt)
	if q.all {
		sched, pod, err := e.Fork(a.Index)
		if err != nil {
			return fmt.Errorf("replaying to attempt %d of %s for --all: %w", a.N, x.Pod, err)
		}
		d, err := sched.Diagnose(pod)
		if err != nil {
			return err
		}
		printFullDiagnosis(w, d, a.Attempt)
	}
	return nil
}

// printHistory prints a pod's attempts, one line each: when, the queue
// events that brought it there, the outcome and node (wide: nomination,
// victims and the absolute virtual time too). indent prefixes each line.
func printHistory(w io.Writer, e *engine.Engine, h history.PodHistory, indent string, wide bool) {
	if len(h.Attempts) == 0 {
		fmt.Fprintf(w, "%sHistory:    no attempt\n", indent)
		return
	}
	fmt.Fprintf(w, "%sHistory:\n", indent)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := indent + "  #\tTIME\tAFTER\tOUTCOME\tNODE"
	if wide {
		header += "\tNOMINATED\tVICTIMS\tAT"
	}
	fmt.Fprintln(tw, header)
	for _, pa := range h.Attempts {
		a := pa.Attempt
		after := strings.Join(pa.Events, " → ")
		if after == "" {
			after = "-"
		}
		line := fmt.Sprintf("%s  %d\t%s\t%s\t%s\t%s", indent, pa.N, offset(pa.Time.Sub(e.Start())), after, a.Outcome, orDash(a.Node))
		if !wide && a.Nominated != "" {
			line += " (nominated " + a.Nominated + ")"
		}
		if wide {
			line += fmt.Sprintf("\t%s\t%s\t%s", orDash(a.Nominated), orDash(strings.Join(a.Victims, ",")), engine.FormatTime(pa.Time))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if h.Queue != "" {
		fmt.Fprintf(w, "%sNow:        %s\n", indent, nowWaiting(h))
	}
}

func nowWaiting(h history.PodHistory) string {
	if h.Queue == history.Gated {
		return "Gated (" + h.GatingPlugin + ": " + h.GatingMessage + ")"
	}
	s := "in " + string(h.Queue)
	if h.NominatedNode != "" {
		s += ", nominated to " + h.NominatedNode
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printAttemptDetails prints an attempt as kubectl describe's events
// would, then the Filter verdict per node, the scores and preemption.
func printAttemptDetails(w io.Writer, a *record.Attempt) {
	fmt.Fprintln(w, "Events:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  Type\tReason\tFrom\tMessage")
	fmt.Fprintln(tw, "  ----\t------\t----\t-------")
	switch a.Outcome {
	case record.Scheduled:
		fmt.Fprintf(tw, "  Normal\tScheduled\t%s\tSuccessfully assigned %s to %s\n", a.Profile, a.Pod, a.Node)
	case record.Waiting:
		fmt.Fprintf(tw, "  Normal\tBindingConditionsPending\t%s\t%s\n", a.Profile, a.Message)
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
				if e := a.RejectingExtender(n); e != "" && e == plugin {
					plugin = "extender " + e
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
			if len(v.PDBs) > 0 {
				s += " [violates PDB " + strings.Join(v.PDBs, ", ") + "]"
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
	m := why.NewFilterMatrix(a, why.FilterOptions{Diag: d, AllColumns: true})
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := "  NODE\t"
	for _, c := range m.Columns {
		header += c.Title() + "\t"
	}
	fmt.Fprintln(tw, header)
	for _, r := range m.Rows {
		line := "  " + a.Nodes.Names[r.Node]
		switch r.Verdict {
		case why.Narrowed:
			line += " (narrowed out by PreFilter)"
		case why.NotEvaluated:
			line += " (not evaluated upstream)"
		}
		line += "\t"
		for _, c := range r.Cells {
			switch c.State {
			case why.CellSkip:
				line += "-\t"
			case why.CellPass:
				line += "·\t"
			default:
				line += strings.Join(m.Status(c).Reasons, "; ") + "\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}
