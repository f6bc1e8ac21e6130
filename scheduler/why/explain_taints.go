package why

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// TaintToleration and NodeUnschedulable: the node's taints (a cordon is
// one) against the pod's tolerations.

var taintTolerationExplainer = explainer{
	purpose: "Filter: rejects nodes with a NoSchedule/NoExecute taint the pod does not tolerate. Score: counts untolerated PreferNoSchedule taints (fewer is better).",
	short:   "Taint",
	filter: func(in Input, _ record.Status, ni *framework.NodeInfo) []string {
		return explainTaints(in.Pod, ni.Node())
	},
	score:  explainTaintScore,
	detail: taintsDetail,
	fixes:  taintFixes,
}

var nodeUnschedulableExplainer = explainer{
	purpose: "rejects nodes marked unschedulable (kubectl cordon) unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule.",
	filter: func(_ Input, _ record.Status, ni *framework.NodeInfo) []string {
		return []string{fmt.Sprintf("node.spec.unschedulable = %v", ni.Node().Spec.Unschedulable)}
	},
	detail: func(_ Input, g group) string { return "cordoned (spec.unschedulable): " + Names(g.nodes) + "." },
	fixes:  uncordonFixes,
}

// untolerated lists the node's NoSchedule/NoExecute taints pod does not
// tolerate.
func untolerated(pod *v1.Pod, node *v1.Node) []v1.Taint {
	var out []v1.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == v1.TaintEffectPreferNoSchedule {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, &t, false) {
			out = append(out, t)
		}
	}
	return out
}

func taintsDetail(in Input, g group) string {
	var b byValue
	for _, n := range g.nodes {
		if ni := in.nodeInfo(n); ni != nil {
			for _, t := range untolerated(in.Pod, ni.Node()) {
				b.add(t.ToString(), n)
			}
		}
	}
	if len(b.order) == 0 {
		return ""
	}
	return "untolerated taint " + b.String() + "."
}

// taintFixes tolerates the node's untolerated taints, or removes them.
func taintFixes(in Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	pod, node := in.Pod, ni.Name()
	taints := untolerated(pod, ni.Node())
	if len(taints) == 0 {
		return nil
	}
	var ts []string
	for _, t := range taints {
		ts = append(ts, t.ToString())
	}
	list := strings.Join(ts, ", ")
	return [][]change{
		{{desc: "tolerate " + list, pod: func(p *v1.Pod) {
			for _, t := range taints {
				p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: t.Key, Operator: v1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
		}}},
		{{desc: fmt.Sprintf("remove taint %s from %s", list, node), node: node, onNode: func(n *v1.Node) {
			var keep []v1.Taint
			for _, t := range n.Spec.Taints {
				drop := false
				for _, u := range taints {
					drop = drop || t.MatchTaint(&u)
				}
				if !drop {
					keep = append(keep, t)
				}
			}
			n.Spec.Taints = keep
		}}},
	}
}

// uncordonFixes uncordons the node, or tolerates the cordon's taint.
func uncordonFixes(_ Input, _ record.Status, ni *framework.NodeInfo) [][]change {
	node := ni.Name()
	return [][]change{
		{{desc: "uncordon " + node, node: node, onNode: func(n *v1.Node) { n.Spec.Unschedulable = false }}},
		{{desc: "tolerate " + v1.TaintNodeUnschedulable + ":NoSchedule", pod: func(p *v1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
		}}},
	}
}

// explainTaints says which of the node's taints the pod tolerates.
func explainTaints(pod *v1.Pod, node *v1.Node) []string {
	if len(node.Spec.Taints) == 0 {
		return []string{"The node has no taints."}
	}
	out := []string{"Node taints:"}
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		tol := corev1helpers.TolerationsTolerateTaint(noLog, pod.Spec.Tolerations, t, false)
		verdict := "tolerated"
		switch {
		case !tol && t.Effect == v1.TaintEffectPreferNoSchedule:
			verdict = "not tolerated (PreferNoSchedule: lowers the score only)"
		case !tol:
			verdict = "NOT tolerated → rejects the node; add a toleration {key: " + t.Key + ", operator: Exists, effect: " + string(t.Effect) + "}"
		}
		out = append(out, "  "+t.ToString()+": "+verdict)
	}
	if len(pod.Spec.Tolerations) == 0 {
		out = append(out, "The pod has no tolerations.")
	}
	return out
}

// explainTaintScore: the score counts untolerated PreferNoSchedule taints,
// reversed on normalizing (fewer is better).
func explainTaintScore(_ Input, c ScoreCell, _ *framework.NodeInfo) []string {
	out := []string{fmt.Sprintf("raw = number of PreferNoSchedule taints the pod does not tolerate = %d", c.Raw),
		"normalize (reverse): 100 - raw×100/max, max over feasible nodes = " + fmt.Sprint(c.MaxRaw)}
	if c.MaxRaw == 0 {
		return append(out, "max is 0: every node gets 100.")
	}
	return append(out, fmt.Sprintf("= 100 - %d×100/%d = %d", c.Raw, c.MaxRaw, 100-c.Raw*100/c.MaxRaw))
}
