package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/engine"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
	"github.com/schedtui/schedtui/scheduler/why"
)

// explain podgroup/NS/NAME: a pod group (GenericWorkload) as its cycles
// saw it: its members and where each went, every group cycle (the
// outcome, how many members were placeable against minCount, the
// PodGroup's condition message), and the last cycle (or --attempt N)
// explained: the group's verdict, the members × nodes matrix and the
// proven hints. explain on a member puts its group's verdict first.

// matrixWidth is the width explain renders the members × nodes matrix
// at: the nodes no member could use fold into one column beyond it.
const matrixWidth = 120

// groupExplanation is explain's answer for a pod group: -o json|yaml
// prints it.
type groupExplanation struct {
	PodGroup string `json:"podGroup"`
	// Kind is CompositePodGroup for a CompositePodGroup (podGroup then
	// names it), "" for a PodGroup.
	Kind string `json:"kind,omitempty"`
	// Hierarchy is the root CompositePodGroup (namespace/name) of the
	// hierarchy the group belongs to (CompositePodGroup), "" for none:
	// the queue holds and tries the hierarchy as one.
	Hierarchy string `json:"hierarchy,omitempty"`
	// Workload is the Workload and template the PodGroup was made from
	// (namespace/name/template), "" when it names none.
	Workload string `json:"workload"`
	// Policy is Gang or Basic; MinCount a gang's minCount (1 for basic).
	Policy   string `json:"policy"`
	MinCount int    `json:"minCount"`
	// Members are the pods naming the group, in name order.
	Members []groupMemberJSON `json:"members"`
	// Queue is where the group waits at the end of the run ("" when not
	// in the queue).
	Queue string `json:"queue"`
	// Cycle is the group cycle explained (from 1; 0 for none), Cycles
	// every cycle of the group.
	Cycle   int         `json:"cycle"`
	Cycles  []cycleJSON `json:"cycles"`
	Verdict []string    `json:"verdict"`
	// Matrix is each member's verdict per node in the cycle explained:
	// "placed", "fits", the rejecting plugin, or "" (not tried).
	Matrix []matrixRowJSON `json:"matrix"`
	// Hints are proven changes that would let the group schedule: each
	// re-run through the group cycle before it is shown.
	Hints        []why.Hint `json:"hints"`
	Simulates    string     `json:"simulates"`
	FeatureGates []string   `json:"featureGates"`

	cycle  *record.GroupAttempt
	cycles []*record.GroupAttempt
	matrix *why.GroupMatrix
	// leaves are the names of the PodGroups whose pods are the members.
	leaves []string
}

type groupMemberJSON struct {
	Pod string `json:"pod"`
	// Node is where the pod is bound at the end of the run ("" if not).
	Node string `json:"node"`
	// Attempts counts its attempts.
	Attempts int `json:"attempts"`
}

type cycleJSON struct {
	Cycle     int    `json:"cycle"`
	Time      string `json:"time"`
	Result    string `json:"result"`
	Placeable int    `json:"placeable"`
	Size      int    `json:"size"`
	Message   string `json:"message"`
}

type matrixRowJSON struct {
	Member string            `json:"member"`
	Node   string            `json:"node"`
	Nodes  map[string]string `json:"nodes"`
}

// explainPodGroup explains the pod group q names.
func explainPodGroup(w io.Writer, s *session, e *engine.Engine, q explainQuery) error {
	key := q.ref.namespace + "/" + q.ref.name
	x, err := groupTargetOf(s, e, q.ref, key)
	if err != nil {
		return err
	}
	x.Members, x.Cycles, x.Verdict, x.Matrix, x.Hints = []groupMemberJSON{}, []cycleJSON{}, []string{}, []matrixRowJSON{}, []why.Hint{}
	x.Simulates, x.FeatureGates = s.resolved().Version(), append([]string{}, s.resolved().NonDefault...)
	attempts := map[string]int{}
	for _, h := range e.Histories() {
		attempts[h.Pod] = len(h.Attempts)
	}
	for _, p := range groupMembers(e, s, q.ref.namespace, x.leaves) {
		k := p.Namespace + "/" + p.Name
		x.Members = append(x.Members, groupMemberJSON{Pod: k, Node: p.Spec.NodeName, Attempts: attempts[k]})
	}
	// The group's cycles: its own, or, for a group below a composite
	// root, those of the root's hierarchy (its line the group's own
	// outcome there).
	var cycles []*record.GroupAttempt
	var mine []cycleJSON
	for _, g := range e.Groups() {
		own := g.Key() == key && g.Composite == q.ref.composite
		child := g.Namespace == q.ref.namespace && why.ChildOf(g, q.ref.name, q.ref.composite) != nil
		if !own && !child {
			continue
		}
		cycles = append(cycles, g)
		c := cycleJSON{Cycle: len(cycles), Time: engine.FormatTime(g.Time), Result: g.Result.String(),
			Placeable: why.Placeable(g), Size: why.GroupSize(g), Message: g.Message}
		if child {
			ch := why.ChildOf(g, q.ref.name, q.ref.composite)
			c.Result, c.Message = ch.Result.String(), ch.Message
			x.Hierarchy = g.Key()
		}
		mine = append(mine, c)
	}
	x.cycles = cycles
	x.Cycles = append(x.Cycles, mine...)
	for _, g := range e.Queue().Groups {
		if queuedAs(g, key, q.ref.composite) {
			x.Queue = string(g.Queue)
		}
	}
	switch n := q.attempt; {
	case n > len(cycles) && len(cycles) == 0:
		return fmt.Errorf("podgroup %q had no group cycle in this run: there is no cycle %d", key, n)
	case n > len(cycles):
		return fmt.Errorf("podgroup %q had %d group cycle(s) in this run: --attempt %d is beyond its last", key, len(cycles), n)
	case n > 0:
		x.cycle, x.Cycle = cycles[n-1], n
	case len(cycles) > 0:
		x.cycle, x.Cycle = cycles[len(cycles)-1], len(cycles)
	}
	if x.cycle != nil {
		in := groupInputOf(e, x.cycle)
		x.Verdict = why.GroupVerdict(in)
		x.matrix = why.NewGroupMatrix(in)
		x.Matrix = matrixJSON(x.matrix)
		res, err := groupHints(s, e, in)
		if err != nil {
			return err
		}
		if res.Note != "" {
			x.Verdict = append(x.Verdict, res.Note)
		}
		x.Hints = append(x.Hints, res.Hints...)
	} else {
		x.Verdict = []string{"No group cycle yet: " + groupWaiting(e, key, q.ref.composite)}
	}
	switch q.output {
	case "json", "yaml":
		return printObject(w, x, q.output)
	}
	s.demoLine(w, "Source:     ")
	printGroupExplanation(w, e, x)
	return nil
}

// groupTargetOf starts the explanation of the group r names (key its
// namespace/name): its kind, policy, Workload, the root of its
// hierarchy, and the PodGroups whose pods are its members.
func groupTargetOf(s *session, e *engine.Engine, r *objectRef, key string) (groupExplanation, error) {
	x := groupExplanation{PodGroup: key}
	objs := e.Scheduler().Objects()
	ref := framework.GroupRef{Composite: r.composite, Namespace: r.namespace, Name: r.name}
	if r.composite {
		cpg, err := objs.CompositePodGroup(r.namespace, r.name)
		if err != nil {
			var known []string
			for _, g := range s.cluster.CompositePodGroups {
				known = append(known, g.Namespace+"/"+g.Name)
			}
			if len(known) == 0 {
				return x, fmt.Errorf("compositepodgroup %q not found: the cluster has no CompositePodGroup (scheduling.k8s.io)", key)
			}
			return x, fmt.Errorf("compositepodgroup %q not found%s", key, didYouMean(key, known))
		}
		x.Kind, x.Policy, x.MinCount = framework.KindCompositePodGroup, framework.PolicyBasic, framework.CompositePodGroupMinGroupCount(cpg)
		if cpg.Spec.SchedulingPolicy.Gang != nil {
			x.Policy = framework.PolicyGang
		}
		if w := cpg.Spec.WorkloadRef; w != nil {
			x.Workload = cpg.Namespace + "/" + w.WorkloadName + "/" + w.TemplateName
		}
		leaves, _ := framework.HierarchyLeaves(objs, ref)
		for _, l := range leaves {
			x.leaves = append(x.leaves, l.Name)
		}
	} else {
		pg := findPodGroup(s, key)
		if pg == nil {
			var known []string
			for _, g := range s.cluster.PodGroups {
				known = append(known, g.Namespace+"/"+g.Name)
			}
			if len(known) == 0 {
				return x, fmt.Errorf("podgroup %q not found: the cluster has no PodGroup (scheduling.k8s.io)", key)
			}
			return x, fmt.Errorf("podgroup %q not found%s", key, didYouMean(key, known))
		}
		x.Policy, x.MinCount, x.leaves = framework.PodGroupPolicy(pg), framework.PodGroupMinCount(pg), []string{pg.Name}
		if w := pg.Spec.WorkloadRef; w != nil {
			x.Workload = pg.Namespace + "/" + w.WorkloadName + "/" + w.TemplateName
		}
	}
	if root, ok, err := framework.GroupRoot(objs, s.resolved().Features.EnableCompositePodGroup, ref); err == nil && ok && root != ref {
		x.Hierarchy = framework.PodGroupKey(root.Namespace, root.Name)
	}
	return x, nil
}

// queuedAs: the queue's group g holds the group key (a composite root's
// entry holds every PodGroup below it).
func queuedAs(g engine.QueuedGroup, key string, composite bool) bool {
	if g.Group == key && g.Composite == composite {
		return true
	}
	return !composite && slices.Contains(g.Groups, key)
}

// findPodGroup is the PodGroup key names, nil if the cluster has none.
func findPodGroup(s *session, key string) *schedulingv1beta1.PodGroup {
	for _, g := range s.cluster.PodGroups {
		if g.Namespace+"/"+g.Name == key {
			return g
		}
	}
	return nil
}

// groupMembers are the pods naming one of the PodGroups of namespace
// (the group's own, or those below a CompositePodGroup), as they are at
// the end of the run (bound or not), in the cluster's order.
func groupMembers(e *engine.Engine, s *session, namespace string, podGroups []string) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range s.cluster.Pods {
		if p.Namespace != namespace || !slices.Contains(podGroups, framework.PodGroupNameOf(p)) {
			continue
		}
		if now := e.Pod(p.Namespace + "/" + p.Name); now != nil {
			p = now
		}
		out = append(out, p)
	}
	return out
}

// groupInputOf is a group cycle with its members' attempts.
func groupInputOf(e *engine.Engine, g *record.GroupAttempt) why.GroupInput {
	log := e.Attempts()
	in := why.GroupInput{Group: g, Members: make([]*record.Attempt, len(g.Members))}
	for i, m := range g.Members {
		if m.Attempt >= 0 && m.Attempt < log.Len() {
			in.Members[i] = log.At(m.Attempt)
		}
	}
	return in
}

// groupHints proves the hints of a group cycle, each on a fork of the
// cluster as the cycle began.
func groupHints(s *session, e *engine.Engine, gi why.GroupInput) (*why.Result, error) {
	first := gi.Group.FirstAttempt
	fork := func() (*scheduler.Scheduler, *v1.Pod, error) { return e.Fork(first) }
	in := why.GroupHintsInput{GroupInput: gi, Fork: fork, DaemonSets: s.cluster.DaemonSets, AdmitDaemonPod: admitter(s.cluster)}
	if gi.Group.Result == record.GroupUnschedulable {
		var err error
		if in.Sched, in.Pod, err = fork(); err != nil {
			return nil, fmt.Errorf("replaying to group cycle %d of %s: %w", gi.Group.Seq, gi.Group.Key(), err)
		}
	}
	return why.GroupHints(in)
}

// groupWaiting says where a group that had no cycle waits.
func groupWaiting(e *engine.Engine, key string, composite bool) string {
	for _, g := range e.Queue().Groups {
		if !queuedAs(g, key, composite) {
			continue
		}
		if g.GatingPlugin != "" {
			return fmt.Sprintf("gated by %s: %s", g.GatingPlugin, g.GatingMessage)
		}
		return "waiting in " + string(g.Queue)
	}
	return "no member of it is in the scheduling queue"
}

// matrixJSON is the matrix as explain -o json prints it.
func matrixJSON(m *why.GroupMatrix) []matrixRowJSON {
	out := []matrixRowJSON{}
	for _, r := range m.Rows {
		row := matrixRowJSON{Member: r.Member, Node: r.Node, Nodes: map[string]string{}}
		for j, c := range r.Cells {
			switch c.State {
			case why.MemberPlaced:
				row.Nodes[m.Nodes[j]] = "placed"
			case why.MemberFits:
				row.Nodes[m.Nodes[j]] = "fits"
			case why.MemberRejected:
				row.Nodes[m.Nodes[j]] = c.Status.Plugin
			}
		}
		out = append(out, row)
	}
	return out
}

// printGroupExplanation prints a pod group's explanation as text.
func printGroupExplanation(w io.Writer, e *engine.Engine, x groupExplanation) {
	if x.Kind == framework.KindCompositePodGroup {
		fmt.Fprintf(w, "CompositePodGroup: %s\n", x.PodGroup)
	} else {
		fmt.Fprintf(w, "PodGroup:   %s\n", x.PodGroup)
	}
	if x.Workload != "" {
		fmt.Fprintf(w, "Workload:   %s\n", x.Workload)
	}
	if x.Hierarchy != "" {
		fmt.Fprintf(w, "Hierarchy:  below CompositePodGroup %s (the queue holds and tries the hierarchy as one)\n", x.Hierarchy)
	}
	if x.Kind == framework.KindCompositePodGroup {
		fmt.Fprintf(w, "Policy:     composite, %s (of the groups directly below it)\n", why.CompositePolicy(x.Policy, x.MinCount))
	} else {
		fmt.Fprintf(w, "Policy:     %s\n", groupPolicyText(x.Policy, x.MinCount))
	}
	simulating := x.Simulates
	if len(x.FeatureGates) > 0 {
		simulating += " (gates: " + strings.Join(x.FeatureGates, ",") + ")"
	}
	fmt.Fprintf(w, "Simulating: %s\n", simulating)
	bound := 0
	for _, m := range x.Members {
		if m.Node != "" {
			bound++
		}
	}
	fmt.Fprintf(w, "Members:    %d, %d bound\n", len(x.Members), bound)
	if x.Queue != "" {
		fmt.Fprintf(w, "Now:        in %s\n", x.Queue)
	}
	if len(x.Cycles) == 0 {
		fmt.Fprintln(w, "Group cycles: none")
	} else {
		fmt.Fprintln(w, "Group cycles:")
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tTIME\tRESULT\tPLACEABLE\tMESSAGE")
		for i, c := range x.Cycles {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d/%d\t%s\n", c.Cycle, offset(x.cycles[i].Time.Sub(e.Start())), c.Result, c.Placeable, c.Size, orDash(c.Message))
		}
		tw.Flush()
	}
	if x.cycle != nil {
		fmt.Fprintf(w, "Cycle %d of %d, at %s:\n", x.Cycle, len(x.Cycles), offset(x.cycle.Time.Sub(e.Start())))
	}
	for _, l := range x.Verdict {
		fmt.Fprintln(w, l)
	}
	for _, h := range x.Hints {
		fmt.Fprintf(w, "Hint: %s → the group schedules (proven: the group cycle re-run with the change)\n", h.Summary)
	}
	if x.matrix != nil {
		for _, l := range x.matrix.Lines(matrixWidth) {
			fmt.Fprintln(w, l)
		}
	}
}

// groupPolicyText is "gang, minCount N" or "basic (each member on its
// own)".
func groupPolicyText(policy string, minCount int) string {
	if policy == framework.PolicyGang {
		return fmt.Sprintf("gang, minCount %d", minCount)
	}
	return "basic (each member on its own)"
}
