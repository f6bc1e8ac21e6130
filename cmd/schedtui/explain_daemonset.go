package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/snapshot"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

func isDaemonSetKind(kind string) bool {
	switch strings.ToLower(kind) {
	case "daemonset", "daemonsets", "ds", "daemonset.apps", "daemonsets.apps":
		return true
	}
	return false
}

// findDaemonSet resolves NAME or NAMESPACE/NAME.
func findDaemonSet(sets []*appsv1.DaemonSet, ref string) (*appsv1.DaemonSet, error) {
	ns, name, hasNS := strings.Cut(ref, "/")
	if !hasNS {
		name, ns = ns, ""
	}
	var found []*appsv1.DaemonSet
	var known []string
	for _, ds := range sets {
		known = append(known, ds.Namespace+"/"+ds.Name)
		if ds.Name == name && (ns == "" || ds.Namespace == ns) {
			found = append(found, ds)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, fmt.Errorf("daemonset %q is ambiguous; name one of: daemonset/%s/%s, ...", name, found[0].Namespace, name)
	case len(known) == 0:
		return nil, fmt.Errorf("daemonset %q is not in the snapshot (it has no DaemonSets)", ref)
	}
	return nil, fmt.Errorf("daemonset %q is not in the snapshot (it has: %s)", ref, strings.Join(known, ", "))
}

// admitter resolves the priority of a daemon pod as the Priority admission
// plugin would, and adds its RuntimeClass overhead.
func admitter(c *snapshot.Cluster) func(*v1.Pod) (*v1.Pod, error) {
	classes := append([]*schedulingv1.PriorityClass(nil), c.PriorityClasses...)
	have := map[string]bool{}
	for _, pc := range classes {
		have[pc.Name] = true
	}
	for _, pc := range apiserver.SystemPriorityClasses() {
		if !have[pc.Name] {
			classes = append(classes, pc)
		}
	}
	return func(p *v1.Pod) (*v1.Pod, error) {
		name, prio, policy, err := apiserver.ResolvePriority(p.Spec.PriorityClassName, classes)
		if err != nil {
			return nil, err
		}
		p.Spec.PriorityClassName, p.Spec.Priority = name, &prio
		if p.Spec.PreemptionPolicy == nil {
			p.Spec.PreemptionPolicy = policy
		}
		if rc := p.Spec.RuntimeClassName; rc != nil {
			for _, r := range c.RuntimeClasses {
				if r.Name == *rc && r.Overhead != nil && p.Spec.Overhead == nil {
					p.Spec.Overhead = r.Overhead.PodFixed.DeepCopy()
				}
			}
		}
		return p, nil
	}
}

// explainDaemonSet explains a DaemonSet after the run (explainQuery's ref):
// where it should run, where its pods run now, what the run did with each
// of its pods, and why the scheduler refuses the nodes still without one.
func explainDaemonSet(w io.Writer, s *session, e *engine.Engine, q explainQuery) error {
	ref := q.ref.name
	if q.ref.namespace != "" {
		ref = q.ref.namespace + "/" + ref
	}
	ds, err := findDaemonSet(s.cluster.DaemonSets, ref)
	if err != nil {
		return err
	}
	nodes, err := e.Scheduler().ExplainDaemonSet(ds, admitter(s.cluster))
	if err != nil {
		return err
	}
	should, running, refused := 0, 0, 0
	for _, n := range nodes {
		if n.ShouldRun {
			should++
		}
		if len(n.Running) > 0 {
			running++
		}
		if n.Verdict != nil && !n.Verdict.Fits() {
			refused++
		}
	}
	s.demoLine(w, "Source:     ")
	fmt.Fprintf(w, "Simulating: %s\n", s.resolved().Summary())
	fmt.Fprintf(w, "DaemonSet %s/%s after the run: should run on %d of %d nodes; running on %d; the scheduler refuses %d\n\n",
		ds.Namespace, ds.Name, should, len(nodes), running, refused)
	histories := map[string]history.PodHistory{}
	for _, h := range e.Histories() {
		histories[h.Pod] = h
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tSHOULD RUN\tDAEMON POD\tSTATUS")
	for _, n := range nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.Node, shouldRun(n), daemonPod(n), daemonStatus(n, histories))
	}
	tw.Flush()
	// What the run did with the DaemonSet's pods (those that went through
	// the queue), as explain NS/POD prints it.
	for _, n := range nodes {
		for _, pod := range append(append([]string(nil), n.Running...), n.Pending...) {
			if h, ok := histories[pod]; ok {
				fmt.Fprintf(w, "\n%s (for %s):\n", pod, n.Node)
				printHistory(w, e, h, "  ", q.output == "wide")
			}
		}
	}
	for _, n := range nodes {
		if n.Verdict == nil || n.Verdict.Fits() {
			continue
		}
		fmt.Fprintf(w, "\n%s: pod %s/%s (priority %d)\n", n.Node, n.Pod.Namespace, n.Pod.Name, priority(n.Pod))
		if p := n.Verdict.PreFilter; p != nil {
			fmt.Fprintf(w, "  PreFilter %s: %s\n", p.Plugin, strings.Join(p.Reasons, "; "))
			continue
		}
		for _, f := range n.Verdict.Failing {
			mark := " "
			if n.Verdict.First != nil && f.Plugin == n.Verdict.First.Plugin {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %s (%s): %s\n", mark, f.Plugin, f.Code, strings.Join(f.Reasons, "; "))
		}
		if len(n.Verdict.Failing) > 1 {
			fmt.Fprintln(w, "  (* is the plugin kube-scheduler reports: it stops at the first failure)")
		}
	}
	return nil
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

func shouldRun(n scheduler.DaemonSetNode) string {
	switch {
	case n.ShouldRun:
		return "yes"
	case n.ShouldContinueRunning:
		return "no (keeps a running pod)"
	}
	return "no"
}

func daemonPod(n scheduler.DaemonSetNode) string {
	switch {
	case len(n.Running) > 0:
		return strings.Join(n.Running, ", ")
	case len(n.Pending) > 0:
		return strings.Join(n.Pending, ", ")
	case n.Pod != nil:
		return "(not created yet)"
	}
	return "-"
}

// daemonStatus says what happened on a node: the run's answer for a
// daemon pod it attempted, else the Filter verdict on the cluster as the
// run left it.
func daemonStatus(n scheduler.DaemonSetNode, histories map[string]history.PodHistory) string {
	for _, pod := range n.Pending {
		if last := histories[pod].Last(); last != nil {
			s := fmt.Sprintf("pending: attempt %d was %s", last.N, last.Attempt.Outcome)
			if last.Attempt.Nominated != "" {
				s += ", nominated to " + last.Attempt.Nominated
			}
			return s
		}
	}
	switch {
	case !n.ShouldRun:
		return "controller skips the node: " + n.Why
	case len(n.Running) > 0:
		return "running"
	case n.Verdict == nil:
		return "-"
	case n.Verdict.Fits():
		return "fits: the scheduler would bind it here"
	case n.Verdict.PreFilter != nil:
		return fmt.Sprintf("refused at PreFilter %s: %s", n.Verdict.PreFilter.Plugin, strings.Join(n.Verdict.PreFilter.Reasons, "; "))
	}
	f := n.Verdict.First
	if f == nil {
		f = &n.Verdict.Failing[0]
	}
	return fmt.Sprintf("refused by %s: %s", f.Plugin, strings.Join(f.Reasons, "; "))
}
