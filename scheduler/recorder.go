package scheduler

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// recorder fills an Attempt as the cycle runs, interning statuses so that
// nodes rejected the same way share one entry.
type recorder struct {
	a     *record.Attempt
	index map[string]uint16
}

func (r *recorder) phase(p record.Phase, st *framework.Status) {
	r.a.Phases[p] = record.PhaseStatus{Code: record.Code(st.Code()), Plugin: st.Plugin(), Message: st.Message()}
}

func (r *recorder) intern(st *framework.Status) uint16 {
	reasons := st.Reasons()
	key := st.Code().String() + "\x00" + st.Plugin() + "\x00" + strings.Join(reasons, "\x00")
	if i, ok := r.index[key]; ok {
		return i
	}
	i := uint16(len(r.a.Statuses))
	r.a.Statuses = append(r.a.Statuses, record.Status{Code: record.Code(st.Code()), Plugin: st.Plugin(), Reasons: reasons})
	r.index[key] = i
	return i
}

func (r *recorder) diagnosis(d framework.Diagnosis) {
	r.a.Rejected = r.a.Rejected[:0]
	d.NodeToStatus.ForEachExplicitNode(func(name string, st *framework.Status) {
		r.a.Rejected = append(r.a.Rejected, record.NodeStatus{Node: r.a.Nodes.Index(name), Status: r.intern(st)})
	})
	if abs := d.NodeToStatus.AbsentNodesStatus(); len(abs.Reasons()) > 0 {
		r.a.AbsentStatus = int32(r.intern(abs))
	}
	r.a.UnschedulablePlugins = sets.List(d.UnschedulablePlugins)
	r.a.PendingPlugins = sets.List(d.PendingPlugins)
}

// rejectedAt records the plugin that rejected the pod after Filter
// (Reserve, Permit), as upstream's FitError for those phases does.
func (r *recorder) rejectedAt(st *framework.Status) {
	if st.IsRejected() && st.Plugin() != "" {
		r.a.UnschedulablePlugins = []string{st.Plugin()}
	}
}

func (r *recorder) narrowed(nodes []*framework.NodeInfo) {
	r.a.PreFilterNarrowed = make([]int32, len(nodes))
	for i, ni := range nodes {
		r.a.PreFilterNarrowed[i] = r.a.Nodes.Index(ni.Name())
	}
}

func (r *recorder) feasible(nodes []*framework.NodeInfo) {
	r.a.Feasible = make([]int32, len(nodes))
	for i, ni := range nodes {
		r.a.Feasible[i] = r.a.Nodes.Index(ni.Name())
	}
}

// scores stores one column per plugin that ran, in feasible order (which
// is the order RunScorePlugins was given).
func (r *recorder) scores(fwk *runtime.Framework, scores []framework.NodePluginScores) {
	r.a.Scored = true
	if len(scores) == 0 {
		return
	}
	cols := make([]record.ScoreColumn, len(scores[0].Scores))
	for p, ps := range scores[0].Scores {
		cols[p] = record.ScoreColumn{Plugin: ps.Name, Weight: int32(fwk.ScoreWeight(ps.Name))}
		if sp, ok := fwk.Plugin(ps.Name).(framework.ScorePlugin); ok && sp.ScoreExtensions() != nil {
			cols[p].Normalized = make([]uint8, 0, len(scores))
		}
	}
	for _, nps := range scores {
		for p, ps := range nps.Scores {
			cols[p].AppendScore(ps.Raw)
			if cols[p].Normalized != nil {
				cols[p].Normalized = append(cols[p].Normalized, uint8(ps.Normalized))
			}
		}
	}
	r.a.Scores = cols
}
