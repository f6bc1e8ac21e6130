package upstream

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"

	"github.com/schedtui/schedtui/scheduler/record"
)

// renderFeasible fills feasible, filter, scores, total and top of a cycle in
// which SchedulePod chose host.
func (h *harness) renderFeasible(a *record.AttemptJSON, pod *v1.Pod, rec *cycleRecorder, host string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()

	// The feasible nodes are those handed to PreScore; without scoring
	// (exactly one feasible node, or the nominated node passed) SchedulePod
	// picked the only one.
	if rec.preScoreNodes != nil {
		a.Feasible = append([]string{}, rec.preScoreNodes...)
		sort.Strings(a.Feasible)
	} else {
		a.Feasible = []string{host}
	}
	feasible := sets.New(a.Feasible...)

	// SchedulePod drops its Diagnosis on success; rebuild it as
	// findNodesThatFitPod built it.
	nts := framework.NewDefaultNodeToStatus()
	nnn := pod.Status.NominatedNodeName
	nominatedFastPath := nnn != "" && len(rec.filterCalls) == 1 && rec.filterCalls[0].node == nnn && rec.filterCalls[0].status.IsSuccess()
	if !nominatedFastPath {
		for _, fc := range rec.filterCalls {
			if !fc.status.IsSuccess() {
				nts.Set(fc.node, fc.status)
			}
		}
		if rec.preFilterResult != nil && !rec.preFilterResult.AllNodes() {
			// findNodesThatFitPod names the plugins of the set PreFilter
			// returned, and that set is the Diagnosis' UnschedulablePlugins:
			// when the nominated node was tried first and rejected, its
			// rejecting plugin was inserted into the same set before the
			// message was built.
			plugins := rec.preFilterPlugins.Clone()
			if nnn != "" && len(rec.filterCalls) > 0 && rec.filterCalls[0].node == nnn {
				if st := rec.filterCalls[0].status; st.IsRejected() && st.Plugin() != "" {
					plugins.Insert(st.Plugin())
				}
			}
			nts.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(plugins))))
		}
		h.applyExtenderFilters(nts)
	}
	h.renderFilter(a, feasible, nts, joinSorted(rec.preFilterPlugins))

	if len(a.Feasible) < 2 || !rec.scored {
		a.Top = []string{host}
		return
	}
	weights := h.weights[pod.Spec.SchedulerName]
	extNames, extRaw, extWeights := h.extenderScores()
	best := int64(math.MinInt64)
	for _, ns := range rec.scores {
		raw := make(map[string]int64, len(ns.RawScores))
		for _, r := range ns.RawScores {
			raw[r.Name] = r.Score
		}
		perPlugin := map[string]record.ScoreJSON{}
		for _, s := range ns.Scores {
			r, ok := raw[s.Name]
			if !ok {
				continue // not a Score plugin (extender)
			}
			w := weights[s.Name]
			if w <= 0 {
				w = 1
			}
			perPlugin[s.Name] = record.ScoreJSON{Raw: r, Normalized: s.Score / w, Final: s.Score}
		}
		total := ns.TotalScore
		for i, name := range extNames {
			r := extRaw[i][ns.Name]
			perPlugin[name] = record.ScoreJSON{Raw: r, Normalized: r, Final: r * extWeights[i]}
			total += r * extWeights[i]
		}
		a.Scores[ns.Name] = perPlugin
		a.Total[ns.Name] = total
		best = max(best, total)
	}
	for node, total := range a.Total {
		if total == best {
			a.Top = append(a.Top, node)
		}
	}
	sort.Strings(a.Top)
}

// renderFilter lists, for every snapshot node outside feasible, its
// effective status in nts when that status is an explicit entry or the
// absent-nodes status carries reasons (PreFilter rejection or PreFilterResult
// narrowing). Nodes the Filter phase never reached are left out.
//
// Upstream's statuses for the nodes a PreFilterResult left out and for the
// nodes an extender rejected name no plugin; the record names them, as
// schedtui's does: narrowedBy (the plugins whose PreFilterResult narrowed
// the nodes, sorted and comma-joined) for the absent-nodes status, and the
// extender's URL prefix for its rejections. A node an extender dropped
// without an entry has no status of its own: it keeps the absent-nodes one.
func (h *harness) renderFilter(a *record.AttemptJSON, feasible sets.Set[string], nts *framework.NodeToStatus, narrowedBy string) {
	explicit := sets.New[string]()
	nts.ForEachExplicitNode(func(node string, _ *fwk.Status) { explicit.Insert(node) })
	rejectedBy := h.extenderRejections()
	absentCounts := len(nts.AbsentNodesStatus().Reasons()) > 0
	nodes, err := h.snap.NodeInfos().List()
	if err != nil {
		return
	}
	for _, ni := range nodes {
		name := ni.Node().Name
		if feasible.Has(name) || (!explicit.Has(name) && !absentCounts) {
			continue
		}
		st := nts.Get(name)
		plugin := st.Plugin()
		switch {
		case plugin != "":
		case explicit.Has(name):
			plugin = rejectedBy[name]
		default:
			plugin = narrowedBy
		}
		a.Filter[name] = record.FilterJSON{Plugin: plugin, Reasons: reasonsOf(st)}
	}
}

// joinSorted is the set's names, sorted and comma-joined.
func joinSorted(names sets.Set[string]) string {
	return strings.Join(sets.List(names), ",")
}

// fixedFitReasons are the NodeResourcesFit reasons upstream always emits
// first and in this order; scalar resources follow in map order, which the
// rendering sorts.
var fixedFitReasons = []string{"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"}

func reasonsOf(st *fwk.Status) []string {
	reasons := append([]string{}, st.Reasons()...)
	if st.Plugin() != noderesources.Name {
		return reasons
	}
	fixed := sets.New(fixedFitReasons...)
	var head, tail []string
	for _, r := range reasons {
		if fixed.Has(r) {
			head = append(head, r)
		} else {
			tail = append(tail, r)
		}
	}
	sort.Strings(tail)
	return append(append([]string{}, head...), tail...)
}
