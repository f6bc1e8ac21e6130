package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/why"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// whatIfFlags are explain's --with and --without: a what-if on any
// object, re-running the attempt explained on the cluster as it saw it
// with the edits.
type whatIfFlags struct {
	with, without []string
}

func (f *whatIfFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.with, "with", nil, "what-if: re-run the attempt with the objects of this YAML/JSON file added, or replacing those of the same kind and name (repeatable)")
	cmd.Flags().StringArrayVar(&f.without, "without", nil, "what-if: re-run the attempt without this object, KIND/NAMESPACE/NAME or KIND/NAME (repeatable)")
}

func (f *whatIfFlags) set() bool { return len(f.with)+len(f.without) > 0 }

// edits reads the files and the references. The objects are decoded,
// defaulted, validated and admitted as the snapshot loader does with the
// cluster's (priority, runtime and storage classes).
func (f *whatIfFlags) edits(s *session, stderr io.Writer) (why.Edits, error) {
	e := why.Edits{Objects: []any{}, Remove: []why.Ref{}}
	for _, path := range f.with {
		data, err := os.ReadFile(path)
		if err != nil {
			return e, fmt.Errorf("--with: %w", err)
		}
		objs, err := editObjects(path, data, s.cluster, s.resolved().Features, stderr)
		if err != nil {
			return e, err
		}
		e.Objects = append(e.Objects, objs...)
	}
	for _, arg := range f.without {
		r, err := why.ParseRef(arg)
		if err != nil {
			return e, fmt.Errorf("--without %w", err)
		}
		e.Remove = append(e.Remove, r)
	}
	return e, nil
}

// editObjects loads the objects of a what-if file as the snapshot loader
// loads a snapshot's, on top of the cluster's classes (which the file's
// own replace); warnings go to stderr, errors refuse the file.
func editObjects(name string, data []byte, base *snapshot.Cluster, gates features.Features, stderr io.Writer) ([]any, error) {
	// First pass: which objects the file holds, by kind and name.
	own, report, err := snapshot.Load(name, data)
	if err != nil {
		return nil, err
	}
	if err := whatIfFileRefused(name, report); err != nil {
		return nil, err
	}
	inFile := map[why.Ref]bool{}
	var order []why.Ref
	builtIn := map[why.Ref]bool{}
	for _, pc := range apiserver.SystemPriorityClasses() {
		builtIn[why.RefOf(pc)] = true
	}
	for _, o := range own.Objects() {
		// The loader adds the built-in priority classes to every cluster.
		if r := why.RefOf(o); !inFile[r] && !builtIn[r] {
			inFile[r] = true
			order = append(order, r)
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no object to add or replace", name)
	}
	l := snapshot.NewLoader()
	l.ValidateUnder(gates)
	var classes []runtime.Object
	for _, pc := range base.PriorityClasses {
		classes = append(classes, pc)
	}
	for _, rc := range base.RuntimeClasses {
		classes = append(classes, rc)
	}
	for _, sc := range base.StorageClasses {
		classes = append(classes, sc)
	}
	for _, o := range classes {
		if !inFile[why.RefOf(o)] {
			l.AddObject(o.DeepCopyObject(), "", 0)
		}
	}
	if err := l.LoadData(name, data); err != nil {
		return nil, err
	}
	c, report := l.Finish()
	if err := whatIfFileRefused(name, report); err != nil {
		return nil, err
	}
	for _, p := range report.Warnings() {
		fmt.Fprintln(stderr, p.String())
	}
	loaded := map[why.Ref]any{}
	for _, o := range c.Objects() {
		loaded[why.RefOf(o)] = o
	}
	var out []any
	for _, r := range order {
		if o, ok := loaded[r]; ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// whatIfFileRefused is the error of a what-if file with problems the loader
// refuses objects for: each names the file, line, object and field.
func whatIfFileRefused(name string, report *docread.Report) error {
	if !report.HasErrors() {
		return nil
	}
	var lines []string
	for _, p := range report.Errors() {
		lines = append(lines, "  "+p.String())
	}
	return fmt.Errorf("--with %s: refused:\n%s", name, strings.Join(lines, "\n"))
}

// whatIfJSON is explain's what-if (--with, --without): the attempt
// explained re-run on the cluster as it saw it, edited.
type whatIfJSON struct {
	// With lists the objects added or replaced, each KIND/[NAMESPACE/]NAME
	// followed by "(added)" or "(replaced)"; Without the objects removed.
	With    []string `json:"with"`
	Without []string `json:"without"`
	// Before is the attempt explained, After its re-run with the edits.
	Before attemptAnswer `json:"before"`
	After  attemptAnswer `json:"after"`
	// Changed counts the nodes whose verdict changed, Nodes lists them:
	// each node's verdict before and after ("✗ PLUGIN: reasons",
	// "✓ score N", "★ chosen", "not evaluated", "" for a node one side
	// lacks).
	Changed int            `json:"changed"`
	Nodes   []why.NodeDiff `json:"nodes"`
}

// whatIf re-runs the attempt x explains with the edits on a fork.
func whatIf(e *engine.Engine, x explanation, edits why.Edits) (*whatIfJSON, error) {
	if x.attempt == nil {
		return nil, fmt.Errorf("--with/--without re-run an attempt: pod %q was never attempted (%s)", x.Pod, waiting(x.history))
	}
	sched, pod, err := e.Fork(x.attempt.Index)
	if err != nil {
		return nil, fmt.Errorf("replaying to attempt %d of %s: %w", x.attempt.N, x.Pod, err)
	}
	w := &whatIfJSON{Before: answerOf(x.attempt.Attempt.JSON()), Nodes: []why.NodeDiff{}}
	w.With, w.Without = edits.Describe(sched)
	cur, _, err := why.Apply(sched, pod, edits)
	if err != nil {
		return nil, fmt.Errorf("what-if on attempt %d of %s: %w", x.attempt.N, x.Pod, err)
	}
	alt := sched.ScheduleOne(cur)
	w.After = answerOf(alt.JSON())
	rows, changed := why.DiffAttempts(x.attempt.Attempt, alt)
	w.Changed = changed
	for _, r := range rows {
		if r.Changed {
			w.Nodes = append(w.Nodes, r)
		}
	}
	if w.With == nil {
		w.With = []string{}
	}
	if w.Without == nil {
		w.Without = []string{}
	}
	return w, nil
}

// printWhatIf prints the what-if after the explanation.
func printWhatIf(out io.Writer, x explanation) {
	w := x.WhatIf
	if w == nil {
		return
	}
	outcome := func(a attemptAnswer) string {
		s := a.Outcome
		if a.Node != "" {
			s += " on " + a.Node
		}
		if a.NominatedNode != "" {
			s += ", nominated " + a.NominatedNode
		}
		return s
	}
	fmt.Fprintf(out, "\nWhat-if (attempt %d re-run on the cluster as it saw it, edited):\n", x.Attempt)
	if len(w.With) > 0 {
		fmt.Fprintf(out, "  with:     %s\n", strings.Join(w.With, ", "))
	}
	if len(w.Without) > 0 {
		fmt.Fprintf(out, "  without:  %s\n", strings.Join(w.Without, ", "))
	}
	fmt.Fprintf(out, "  before:   %s\n", outcome(w.Before))
	fmt.Fprintf(out, "  after:    %s\n", outcome(w.After))
	if w.After.Message != "" && w.After.Message != w.Before.Message {
		fmt.Fprintf(out, "  message:  %s\n", w.After.Message)
	}
	if len(w.Nodes) == 0 {
		fmt.Fprintln(out, "  no node's verdict changed")
		return
	}
	fmt.Fprintf(out, "  Nodes whose verdict changed (%d):\n", w.Changed)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "    NODE\tBEFORE\tAFTER")
	for _, r := range w.Nodes {
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", r.Node, orDash(r.Before), orDash(r.After))
	}
	tw.Flush()
}
