// Package why says why a scheduling attempt ended as it did and what would
// change it: the verdict (a few lines naming the objects involved: claims
// and their storage classes, taints, missing node features, the pods that
// block an anti-affinity, a spread constraint's domains and counts, the
// pods holding a host port, nominated pods counted against a node) and
// hints (the smallest changes to the pod, to a node, or removals of pods,
// each proven by re-running the attempt's PreFilter and Filter with the
// change applied before it is shown).
//
// Both work on the cluster as the attempt saw it: a fork from
// engine.Fork. The TUI's Pod view, `schedtui explain` and `explain -o
// json|yaml` all take their verdict and hints from here.
//
// What schedtui says about each plugin is that plugin's explainer
// (explain.go, keyed by the plugins/names constants): its purpose, the
// arithmetic behind a Filter verdict or a score (the TUI's teaching pane),
// the objects behind its rejections (the verdict) and the changes that
// would clear them (the hints' candidates). The Filter matrix the TUI's
// Filter view and `explain --all` render is built here too
// (filter_matrix.go).
package why

import (
	"context"
	"sort"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Input is one attempt and the cluster as it saw it.
type Input struct {
	Attempt *record.Attempt
	// Sched and Pod are the fork of the cluster as the attempt saw it and
	// the pod as it popped it (engine.Fork). With Sched nil the verdict is
	// given without naming objects, and there are no hints.
	Sched *scheduler.Scheduler
	Pod   *v1.Pod
	// Diag is the attempt's full diagnosis (Sched.Diagnose(Pod)); Hints
	// computes it when nil.
	Diag *record.FullDiagnosis
	// Refs name where the caller shows the attempt's details, for the
	// verdict's pointers to them.
	Refs Refs
}

// Refs name where the caller shows an attempt's details: the debugger's
// views ("Preempt"), explain's sections ("Preemption below"). The verdict
// points to them ("(see Scores)"); an empty name leaves the pointer out
// (explain -o json, whose verdict stands alone).
type Refs struct {
	Filter, Scores, Preemption string
}

// see is " (see where)", or "" when where is empty.
func see(where string) string {
	if where == "" {
		return ""
	}
	return " (see " + where + ")"
}

func (in Input) nodeInfo(name string) *framework.NodeInfo {
	if in.Sched == nil {
		return nil
	}
	ni, err := in.Sched.Snapshot().Get(name)
	if err != nil {
		return nil
	}
	return ni
}

// nominatedAgainst lists the pods nominated to node that the two-pass
// Filter counts against pod: priority at least the pod's, not the pod.
func nominatedAgainst(s *scheduler.Scheduler, pod *v1.Pod, node string) []*v1.Pod {
	if s == nil {
		return nil
	}
	prio := corev1helpers.PodPriority(pod)
	var out []*v1.Pod
	for _, pi := range s.Nominator().NominatedPodsForNode(node) {
		if pi.Pod.UID != pod.UID && corev1helpers.PodPriority(pi.Pod) >= prio {
			out = append(out, pi.Pod)
		}
	}
	return out
}

// feasible runs the attempt's PreFilter once and then Filter, nominated
// pods included (the two-pass check), on each of nodes (nil: every node)
// against the fork as it is now, and returns the nodes where pod passes,
// in node-tree order. It is the Filter half of the scheduling cycle
// without the early stop, so every named node is decided.
func feasible(s *scheduler.Scheduler, pod *v1.Pod, nodes []string) []string {
	fwk := s.Profile(pod.Spec.SchedulerName)
	if fwk == nil {
		return nil
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	preRes, st, _ := fwk.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		return nil
	}
	var infos []*framework.NodeInfo
	if nodes == nil {
		infos = s.Snapshot().List()
	} else {
		for _, n := range nodes {
			if ni, err := s.Snapshot().Get(n); err == nil {
				infos = append(infos, ni)
			}
		}
	}
	var out []string
	for _, ni := range infos {
		if !preRes.AllNodes() && !preRes.NodeNames.Has(ni.Name()) {
			continue
		}
		if fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni).IsSuccess() {
			out = append(out, ni.Name())
		}
	}
	// The extenders filter after the plugins: a node they reject is not
	// one the pod fits on (an unreachable extender proves nothing).
	out, err := s.PassExtenders(pod, out)
	if err != nil {
		return nil
	}
	order := s.Nodes()
	sort.SliceStable(out, func(i, j int) bool { return order.Index(out[i]) < order.Index(out[j]) })
	return out
}

func key(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
