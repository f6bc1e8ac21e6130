package why

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// group is the nodes one Filter plugin rejected for one reason.
type group struct {
	plugin, reason string
	nodes          []string
}

// groups groups an attempt's rejected nodes by plugin and reason, largest
// first: the FitError message's grouping.
func groups(a *record.Attempt) []group {
	if a == nil || a.Nodes == nil {
		return nil
	}
	idx := map[string]int{}
	var out []group
	add := func(n int32, st record.Status) {
		reasons := st.Reasons
		if len(reasons) == 0 {
			reasons = []string{st.Code.String()}
		}
		for _, r := range reasons {
			k := st.Plugin + "\x00" + r
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, group{plugin: st.Plugin, reason: r})
			}
			out[i].nodes = append(out[i].nodes, a.Nodes.Names[n])
		}
	}
	seen := make([]bool, len(a.Nodes.Names))
	for _, r := range a.Rejected {
		seen[r.Node] = true
		add(r.Node, a.Statuses[r.Status])
	}
	for _, f := range a.Feasible {
		seen[f] = true
	}
	if a.AbsentStatus >= 0 {
		for i := range seen {
			if !seen[i] {
				add(int32(i), a.Statuses[a.AbsentStatus])
			}
		}
	}
	// Largest first; equal sizes keep the order found.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j].nodes) > len(out[j-1].nodes); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Verdict says in a few lines why the attempt ended as it did: the
// outcome, what preemption did, and for each group of rejected nodes
// (plugin and reason, as the FitError groups them) the objects involved.
func Verdict(in Input) (out []string) {
	a := in.Attempt
	if a == nil {
		return []string{"No attempt yet. Press n to schedule the first pod in activeQ, s to step into it phase by phase."}
	}
	switch a.Outcome {
	case record.Scheduled:
		top := a.Top()
		switch {
		case len(a.Feasible) == 1:
			out = append(out, fmt.Sprintf("Scheduled on %s: the only node that passed every Filter plugin (nothing to score).", a.Node))
		case len(top) > 1:
			var tied []string
			for _, t := range top {
				tied = append(tied, a.Nodes.Names[t])
			}
			out = append(out, fmt.Sprintf("Scheduled on %s: %d feasible nodes, %d tied at the top score (%s); upstream's pick among them is not fixed.",
				a.Node, len(a.Feasible), len(tied), Names(tied)))
		default:
			out = append(out, fmt.Sprintf("Scheduled on %s: highest total score among %d feasible nodes%s.", a.Node, len(a.Feasible), see(in.Refs.Scores)))
		}
		if a.NominatedFastPath {
			out = append(out, "It was nominated there, so that node was tried first and fit.")
		}
		return out
	case record.Skipped:
		return []string{"Not attempted: " + a.Message}
	case record.Waiting:
		return []string{fmt.Sprintf("Assumed on %s, not bound yet: PreBind is %s (a device's binding conditions); the binding cycle ends when they are met, one fails, or bindingTimeout passes.", a.Node, a.Message)}
	}
	// Preemption's outcome comes first: at 80×24 only a few lines fit, and
	// "it will run on X once Y is evicted" is the answer most want.
	p := a.Preemption
	switch {
	case p != nil && p.Eligible && p.Chosen >= 0 && p.Chosen < len(p.Candidates):
		// Not stuck: the pod's own preemption nominated it, and it is
		// retried when the victims' deletion frees the node.
		c := p.Candidates[p.Chosen]
		out = append(out,
			fmt.Sprintf("Waiting for victims to leave: no node fits now (%s); preemption nominated the pod to %s, where it fits once they are gone%s.",
				plural(len(a.Nodes.Names), "node", "nodes"), c.Node, see(in.Refs.Preemption)),
			"Victims: "+victims(in, c)+".")
	case podRejected(a):
		out = append(out, fmt.Sprintf("Stuck: PreFilter %s rejected the pod itself, before any node was considered.", a.Phases[record.PhasePreFilter].Plugin))
	default:
		out = append(out, fmt.Sprintf("Stuck: no node fits (%s).", plural(len(a.Nodes.Names), "node", "nodes")))
		switch {
		case p == nil:
		case !p.Eligible:
			out = append(out, "Preemption: not attempted: "+p.Reason)
		default:
			out = append(out, "Preemption cannot help: no node where evicting lower-priority pods would make the pod fit.")
		}
	}
	for _, g := range groups(a) {
		plugin := g.plugin
		if e := a.RejectingExtender(g.nodes[0]); e != "" && e == plugin {
			plugin = "extender " + e
		}
		if podRejected(a) {
			// One rejection of the pod, not one per node.
			out = append(out, fmt.Sprintf("• %s (%s)%s", g.reason, plugin, detail(in, g)))
			continue
		}
		out = append(out, fmt.Sprintf("• %d × %s (%s)%s", len(g.nodes), g.reason, plugin, detail(in, g)))
	}
	if s := postFilterTail(a); s != "" {
		out = append(out, s)
	}
	for _, g := range alsoGroups(in) {
		out = append(out, fmt.Sprintf("• also on %s: %s (%s, behind the first rejection)%s", Names(g.nodes), g.reason, g.plugin, detail(in, g)))
	}
	return out
}

// podRejected reports whether a PreFilter plugin rejected the pod itself:
// every node carries its status, none was considered (not a PreFilter
// result narrowing the nodes).
func podRejected(a *record.Attempt) bool {
	pre := a.Phases[record.PhasePreFilter]
	return a.AbsentStatus >= 0 && len(a.Rejected) == 0 && len(a.Feasible) == 0 && !a.AbsentFromPreFilterResult() &&
		pre.Code != record.CodeSuccess && pre.Code != record.CodeNotRun
}

// postFilterTail explains the " not found" that ends the message when
// PreFilter rejected the pod: DynamicResources' PostFilter reads the state
// its PreFilter writes, which never ran, and upstream puts the read error
// in the message.
func postFilterTail(a *record.Attempt) string {
	pf := a.Phases[record.PhasePostFilter]
	if !podRejected(a) || pf.Code != record.CodeError || pf.Plugin != names.DynamicResources || pf.Message != "not found" {
		return ""
	}
	return fmt.Sprintf("The message's trailing \"not found\" is DynamicResources' PostFilter: PreFilter stopped at %s before DynamicResources' PreFilter ran, so its PostFilter found no state of its own to read (upstream's message; nothing to fix there).",
		a.Phases[record.PhasePreFilter].Plugin)
}

// victims lists a preemption candidate's victims, each with its grace
// period (how long it keeps its resources once deleted: the API's default
// when unset) and the PDBs its eviction violates. Those violating a PDB
// come first, and the PDBs of any left out of the short list are named
// still: a violated budget is never hidden.
func victims(in Input, c record.Candidate) string {
	vs := slices.Clone(c.Victims)
	slices.SortStableFunc(vs, func(a, b record.Victim) int {
		switch {
		case len(a.PDBs) > 0 && len(b.PDBs) == 0:
			return -1
		case len(a.PDBs) == 0 && len(b.PDBs) > 0:
			return 1
		}
		return 0
	})
	list := make([]string, len(vs))
	for i, v := range vs {
		var notes []string
		if in.Sched != nil {
			ns, name, _ := strings.Cut(v.Pod, "/")
			if pod, err := in.Sched.Objects().Pod(ns, name); err == nil {
				grace := int64(v1.DefaultTerminationGracePeriodSeconds)
				if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
					grace = *g
				}
				notes = append(notes, fmt.Sprintf("grace %ds", grace))
			}
		}
		if len(v.PDBs) > 0 {
			notes = append(notes, "violates PDB "+strings.Join(v.PDBs, ", "))
		}
		list[i] = v.Pod
		if len(notes) > 0 {
			list[i] += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	s := Names(list)
	shown := map[string]bool{}
	var rest []string
	for i, v := range vs {
		for _, pdb := range v.PDBs {
			switch {
			case i < namesShown:
				shown[pdb] = true
			case !shown[pdb] && !slices.Contains(rest, pdb):
				rest = append(rest, pdb)
			}
		}
	}
	if len(rest) > 0 {
		s += "; the others violate PDB " + strings.Join(rest, ", ")
	}
	return s
}

// alsoGroups are the rejections the full diagnosis finds behind each
// node's first failing plugin (upstream stops at the first): what would
// still reject the node once the first is cleared. Empty without Diag.
func alsoGroups(in Input) []group {
	a, d := in.Attempt, in.Diag
	if d == nil || len(d.Cells) == 0 || a.Nodes == nil {
		return nil
	}
	first := map[string]string{}
	for _, r := range a.Rejected {
		first[a.Nodes.Names[r.Node]] = a.Statuses[r.Status].Plugin
	}
	idx := map[string]int{}
	var out []group
	for n, name := range d.Nodes.Names {
		firstSeen := false
		for p, plugin := range d.Plugins {
			st := d.Cell(n, p)
			if d.SkippedPlugins[p] || st.Code == record.CodeSuccess {
				continue
			}
			if !firstSeen && (first[name] == plugin || first[name] == "") {
				// The first rejection is already in the attempt's groups
				// (or the node was not evaluated: say nothing new).
				firstSeen = true
				continue
			}
			firstSeen = true
			for _, r := range st.Reasons {
				k := plugin + "\x00" + r
				i, ok := idx[k]
				if !ok {
					i = len(out)
					idx[k] = i
					out = append(out, group{plugin: plugin, reason: r})
				}
				out[i].nodes = append(out[i].nodes, name)
			}
		}
	}
	return out
}

// detail names the objects behind a group of rejected nodes, as ": ..."
// to follow the group; "." when there is nothing to name.
func detail(in Input, g group) string {
	if in.Pod == nil || in.Sched == nil {
		return seeFilter(in)
	}
	var s string
	if e := explainers[g.plugin]; e.detail != nil {
		s = e.detail(in, g)
	}
	if s == "" {
		return seeFilter(in)
	}
	return ": " + s
}

// seeFilter ends a group line that names nothing: ": see Filter." where
// the caller shows the Filter table, else ".".
func seeFilter(in Input) string {
	if in.Refs.Filter == "" {
		return "."
	}
	return ": see " + in.Refs.Filter + "."
}

// Names lists up to four names, then how many more (kubectl's way with
// long lists): a line stays short whatever the cluster's size.
func Names(list []string) string {
	if len(list) <= namesShown {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:namesShown], ", "), len(list)-namesShown)
}

// namesShown is how many names Names shows.
const namesShown = 4

// byValue groups nodes under a description, in first-seen order, as
// "desc (node, node); desc (node)".
type byValue struct {
	order []string
	nodes map[string][]string
}

func (b *byValue) add(desc, node string) {
	if b.nodes == nil {
		b.nodes = map[string][]string{}
	}
	if _, ok := b.nodes[desc]; !ok {
		b.order = append(b.order, desc)
		b.nodes[desc] = nil
	}
	if node != "" {
		b.nodes[desc] = append(b.nodes[desc], node)
	}
}

func (b *byValue) String() string {
	var parts []string
	for i, d := range b.order {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(b.order)-i))
			break
		}
		if ns := b.nodes[d]; len(ns) > 0 {
			d += " (" + Names(ns) + ")"
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

func podRef(p *v1.Pod) string { return key(p) }
