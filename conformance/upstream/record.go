package upstream

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// cycleRecorder wraps a profile's framework and is what the harness hands to
// sched.SchedulePod. Every call is delegated unchanged to upstream; the
// wrapper only keeps a copy of what went in and came out of the framework
// calls SchedulePod makes, because SchedulePod returns just the chosen node
// (and, on failure, a FitError):
//
//   - RunPreFilterPlugins: the PreFilterResult and the plugins that narrowed
//     the node set, to rebuild the absent-nodes status of a successful cycle;
//   - RunFilterPluginsWithNominatedPods: each node's Filter status, to rebuild
//     the per-node rejections of a successful cycle;
//   - RunPreScorePlugins: the feasible nodes that were handed to scoring;
//   - RunScorePlugins: the per-plugin raw and weighted scores upstream used to
//     pick the node.
//
// Plugins reach the framework through their own fwk.Handle (the unwrapped
// framework), so calls made by preemption's dry run are not recorded.
type cycleRecorder struct {
	framework.Framework

	mu sync.Mutex
	// PreFilter
	preFilterRan     bool
	preFilterResult  *fwk.PreFilterResult
	preFilterStatus  *fwk.Status
	preFilterPlugins sets.Set[string]
	// Filter, in call order
	filterCalls []filterCall
	// PreScore / Score
	preScoreNodes []string
	scores        []fwk.NodePluginScores
	scored        bool
}

type filterCall struct {
	node   string
	status *fwk.Status
}

func newCycleRecorder(f framework.Framework) *cycleRecorder {
	return &cycleRecorder{Framework: f}
}

func (r *cycleRecorder) RunPreFilterPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, sets.Set[string]) {
	res, st, plugins := r.Framework.RunPreFilterPlugins(ctx, state, pod)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.preFilterRan = true
	r.preFilterResult = res
	r.preFilterStatus = st
	r.preFilterPlugins = sets.New(sets.List(plugins)...)
	return res, st, plugins
}

func (r *cycleRecorder) RunFilterPluginsWithNominatedPods(ctx context.Context, state fwk.CycleState, pod *v1.Pod, info fwk.NodeInfo) *fwk.Status {
	st := r.Framework.RunFilterPluginsWithNominatedPods(ctx, state, pod, info)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.filterCalls = append(r.filterCalls, filterCall{node: info.Node().Name, status: st})
	return st
}

func (r *cycleRecorder) RunPreScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.Node().Name)
	}
	r.mu.Lock()
	r.preScoreNodes = names
	r.mu.Unlock()
	return r.Framework.RunPreScorePlugins(ctx, state, pod, nodes)
}

func (r *cycleRecorder) RunScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, *fwk.Status) {
	scores, st := r.Framework.RunScorePlugins(ctx, state, pod, nodes)
	if st.IsSuccess() {
		// SchedulePod heapifies the returned slice in place; keep a copy.
		cp := make([]fwk.NodePluginScores, len(scores))
		for i, s := range scores {
			cp[i] = fwk.NodePluginScores{
				Name:       s.Name,
				RawScores:  append([]fwk.PluginScore(nil), s.RawScores...),
				Scores:     append([]fwk.PluginScore(nil), s.Scores...),
				TotalScore: s.TotalScore,
			}
		}
		r.mu.Lock()
		r.scores = cp
		r.scored = true
		r.mu.Unlock()
	}
	return scores, st
}

// victimRecorder wraps DefaultPreemption's preemption.Interface to keep the
// victims SelectVictimsOnNode chose on every node of the dry run; the
// candidate preemption finally acts on carries exactly the slice returned for
// its node (there are no extenders to rewrite it).
type victimRecorder struct {
	preemption.Interface

	mu      sync.Mutex
	victims map[string][]*v1.Pod
}

func (v *victimRecorder) SelectVictimsOnNode(ctx context.Context, state fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo, allPossibleVictims []*preemption.DomainVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	pods, violations, st := v.Interface.SelectVictimsOnNode(ctx, state, preemptor, nodeInfo, allPossibleVictims, pdbs)
	if st.IsSuccess() {
		v.mu.Lock()
		v.victims[nodeInfo.Node().Name] = append([]*v1.Pod(nil), pods...)
		v.mu.Unlock()
	}
	return pods, violations, st
}

func (v *victimRecorder) reset() {
	v.mu.Lock()
	v.victims = map[string][]*v1.Pod{}
	v.mu.Unlock()
}

func (v *victimRecorder) on(node string) []*v1.Pod {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.victims[node]
}
