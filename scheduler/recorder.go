package scheduler

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// recorder fills an Attempt as the cycle runs, interning statuses so that
// nodes rejected the same way share one entry.
//
// Upstream's statuses for nodes a PreFilterResult left out, and for nodes
// an extender rejected, name no plugin; the record names who decided, so
// that every rejected node says by whom: the plugins whose PreFilterResult
// narrowed the nodes (sorted, comma-joined), or the extender's URL prefix
// (as its score column is named). The framework's statuses stay upstream's:
// only the record carries the names.
type recorder struct {
	a     *record.Attempt
	index map[string]uint16
	// narrowedBy names the plugins whose PreFilterResult narrowed the
	// nodes ("" when none did).
	narrowedBy string
	// extenderRejected maps a node an extender's Filter rejected to that
	// extender's name.
	extenderRejected map[string]string
	// linesOnly skips the feasible nodes and the scores: the attempt is
	// kept as its line (Scheduler.RecordLinesOnly).
	linesOnly bool
}

func (r *recorder) phase(p record.Phase, st *framework.Status) {
	r.a.Phases[p] = record.PhaseStatus{Code: record.Code(st.Code()), Plugin: st.Plugin(), Message: st.Message()}
}

func (r *recorder) intern(st *framework.Status) uint16 {
	return r.internAs(st, st.Plugin())
}

// internAs interns st as decided by plugin.
func (r *recorder) internAs(st *framework.Status, plugin string) uint16 {
	reasons := st.Reasons()
	key := st.Code().String() + "\x00" + plugin + "\x00" + strings.Join(reasons, "\x00")
	if i, ok := r.index[key]; ok {
		return i
	}
	i := uint16(len(r.a.Statuses))
	r.a.Statuses = append(r.a.Statuses, record.Status{Code: record.Code(st.Code()), Plugin: plugin, Reasons: reasons})
	r.index[key] = i
	return i
}

func (r *recorder) diagnosis(d framework.Diagnosis) {
	r.a.Rejected = r.a.Rejected[:0]
	d.NodeToStatus.ForEachExplicitNode(func(name string, st *framework.Status) {
		plugin := st.Plugin()
		if plugin == "" {
			plugin = r.extenderRejected[name]
		}
		r.a.Rejected = append(r.a.Rejected, record.NodeStatus{Node: r.a.Nodes.Index(name), Status: r.internAs(st, plugin)})
	})
	// An absent-nodes status with reasons is PreFilter's: a plugin's
	// rejection (which names it) or the PreFilterResult's narrowing (which
	// does not, also when the results left no node at all).
	if abs := d.NodeToStatus.AbsentNodesStatus(); len(abs.Reasons()) > 0 {
		plugin := abs.Plugin()
		if plugin == "" {
			plugin = r.narrowedBy
		}
		r.a.AbsentStatus = int32(r.internAs(abs, plugin))
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

// preFilterResultFrom notes the plugins whose PreFilterResult narrowed
// the nodes, before the cycle adds other plugins to the same set (the
// diagnosis' UnschedulablePlugins).
func (r *recorder) preFilterResultFrom(plugins sets.Set[string]) {
	r.narrowedBy = strings.Join(sets.List(plugins), ",")
}

// rejectedByExtender notes that extender's Filter rejected node. A nil
// recorder (extender calls outside any attempt) notes nothing.
func (r *recorder) rejectedByExtender(node, extender string) {
	if r == nil {
		return
	}
	if r.extenderRejected == nil {
		r.extenderRejected = map[string]string{}
	}
	r.extenderRejected[node] = extender
}

func (r *recorder) narrowed(nodes []*framework.NodeInfo) {
	r.a.PreFilterNarrowed = make([]int32, len(nodes))
	for i, ni := range nodes {
		r.a.PreFilterNarrowed[i] = r.a.Nodes.Index(ni.Name())
	}
}

func (r *recorder) feasible(nodes []*framework.NodeInfo) {
	if r.linesOnly {
		return
	}
	r.a.Feasible = make([]int32, len(nodes))
	next := int32(0)
	for i, ni := range nodes {
		idx := indexFrom(r.a.Nodes, ni.Name(), next)
		r.a.Feasible[i] = idx
		next = idx + 1
	}
}

// indexFrom is the node's index in l, looked for first at from and the
// few indices after it: Filter visits nodes in node-list order (rotated
// at the start index), so a feasible node usually follows the previous
// one closely, and comparing a few names is cheaper than hashing one.
func indexFrom(l *record.NodeList, name string, from int32) int32 {
	const near = 4
	for k := int32(0); k < near && len(l.Names) > 0; k++ {
		j := (from + k) % int32(len(l.Names))
		if l.Names[j] == name {
			return j
		}
	}
	return l.Index(name)
}

// scores stores one column per plugin that ran, in feasible order (which
// is the order RunScorePlugins was given); normalized scores are kept for
// plugins that normalize.
func (r *recorder) scores(nodes int, plugins []framework.PluginScores) {
	r.a.Scored = true
	if nodes == 0 || r.linesOnly {
		return
	}
	cols := make([]record.ScoreColumn, len(plugins))
	for p, ps := range plugins {
		cols[p] = record.ScoreColumn{Plugin: ps.Name, Weight: int32(ps.Weight)}
		cols[p].SetRawScores(ps.Raw)
		if ps.Normalized != nil {
			cols[p].Normalized = make([]uint8, len(ps.Normalized))
			for i, v := range ps.Normalized {
				cols[p].Normalized[i] = uint8(v)
			}
		}
	}
	r.a.Scores = cols
}
