package tui

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/record"
)

// reasonGroup is the nodes one Filter plugin rejected for one reason.
type reasonGroup struct {
	plugin, reason string
	nodes          []string
}

// rejectionGroups groups an attempt's rejected nodes by plugin and reason,
// largest first: the same grouping as the FitError message.
func rejectionGroups(a *record.Attempt) []reasonGroup {
	if a == nil || a.Nodes == nil {
		return nil
	}
	idx := map[string]int{}
	var out []reasonGroup
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
				out = append(out, reasonGroup{plugin: st.Plugin, reason: r})
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
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].nodes) > len(out[j].nodes) })
	return out
}

// whySummary says in a few lines why the attempt ended as it did and what
// would change it: the part a newcomer reads first.
func whySummary(a *record.Attempt, f *forkResult, w *world) (out []string) {
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
			var names []string
			for _, t := range top {
				names = append(names, a.Nodes.Names[t])
			}
			out = append(out, fmt.Sprintf("Scheduled on %s: %d feasible nodes, %s tied at the top score; the tie is broken at random upstream.", a.Node, len(a.Feasible), strings.Join(names, ", ")))
		default:
			out = append(out, fmt.Sprintf("Scheduled on %s: highest total score among %d feasible nodes (see Scores).", a.Node, len(a.Feasible)))
		}
		if a.NominatedFastPath {
			out = append(out, "It was nominated there, so that node was tried first and fit.")
		}
		return out
	case record.Skipped:
		return []string{"Not attempted: " + a.Message}
	}
	out = append(out, fmt.Sprintf("Stuck: no node fits (%d nodes).", len(a.Nodes.Names)))
	var pod *v1.Pod
	if f != nil {
		pod = f.pod
	}
	// Preemption's outcome comes first: at 80×24 only a few lines fit, and
	// "it will run on X once Y is evicted" is the answer most want.
	groups := out[:0:0]
	for _, g := range rejectionGroups(a) {
		groups = append(groups, fmt.Sprintf("• %d × %s (%s): %s", len(g.nodes), g.reason, orNone(g.plugin), hint(g, pod, f)))
	}
	defer func() { out = append(out, groups...) }()
	if p := a.Preemption; p != nil {
		switch {
		case !p.Eligible:
			out = append(out, "Preemption: not attempted: "+p.Reason)
		case p.Chosen >= 0 && p.Chosen < len(p.Candidates):
			c := p.Candidates[p.Chosen]
			out = append(out, fmt.Sprintf("Preemption: evicting %s on %s makes room; the pod is nominated there and fits once they are gone (see Preempt).", strings.Join(a.Victims, ", "), c.Node))
		default:
			out = append(out, "Preemption cannot help: no node where evicting lower-priority pods would make the pod fit.")
		}
	}
	return out
}

// hint is what would make a group of nodes fit.
func hint(g reasonGroup, pod *v1.Pod, f *forkResult) string {
	if pod == nil || f == nil {
		return "see Filter"
	}
	switch {
	case strings.HasPrefix(g.reason, "Insufficient "):
		res := v1.ResourceName(strings.TrimPrefix(g.reason, "Insufficient "))
		req := podRequests(pod).Resource
		want := resourceAmounts(&req, res)
		best, bestNode := int64(-1<<62), ""
		for _, n := range g.nodes {
			ni := f.nodeInfo(n)
			if ni == nil {
				continue
			}
			nom := nominatedRequests(pod, nomineesOf(f, n))
			free := resourceAmounts(ni.Allocatable, res) - resourceAmounts(ni.Requested, res) - resourceAmounts(&nom, res)
			if free > best {
				best, bestNode = free, n
			}
		}
		if bestNode == "" {
			return "see Filter"
		}
		return fmt.Sprintf("asks %s; most free on these nodes is %s (%s, counting higher-priority nominated pods). Lower the request or free %s there.",
			qty(string(res), want), qty(string(res), max(best, 0)), bestNode, qty(string(res), want-max(best, 0)))
	case g.plugin == "TaintToleration":
		taints := map[string]bool{}
		for _, n := range g.nodes {
			if ni := f.nodeInfo(n); ni != nil {
				for i := range ni.Node().Spec.Taints {
					t := &ni.Node().Spec.Taints[i]
					if t.Effect != v1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, t, false) {
						taints[t.ToString()] = true
					}
				}
			}
		}
		return "untolerated " + strings.Join(sortedKeys(taints), ", ") + "; add a toleration to use them."
	case g.plugin == "NodeAffinity":
		var sel []string
		for _, k := range sortedKeys(pod.Spec.NodeSelector) {
			sel = append(sel, k+"="+pod.Spec.NodeSelector[k])
		}
		if len(sel) > 0 {
			return "nodeSelector " + strings.Join(sel, ",") + " excludes them."
		}
		return "required node affinity excludes them."
	case g.plugin == "InterPodAffinity":
		return "pod (anti-)affinity with pods already there; see Filter, e on a cell."
	case g.plugin == "PodTopologySpread":
		return "placing it there would exceed maxSkew; see Filter, e on a cell."
	case g.plugin == "NodeUnschedulable":
		return "cordoned; uncordon them or tolerate node.kubernetes.io/unschedulable."
	}
	return "see Filter."
}
