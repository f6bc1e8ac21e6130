package record

import "sort"

// AttemptJSON is one scheduling attempt in schedtui's stable machine interface
// (`schedtui run -o json`, one object per line). The conformance suite renders
// upstream kube-scheduler's answers into the same shape and compares field by
// field, so every field here must mean exactly what it means upstream.
type AttemptJSON struct {
	Kind    string `json:"kind"` // always "attempt"
	Pod     string `json:"pod"`  // namespace/name
	Outcome string `json:"outcome"`
	Node    string `json:"node"`
	// Feasible lists the nodes that passed every Filter plugin, sorted by name.
	Feasible []string `json:"feasible"`
	// Filter maps each rejected node to the first Filter (or PreFilter) plugin
	// that rejected it and that plugin's reasons, in upstream's order. Where
	// upstream's status names no plugin, the record names who decided: the
	// plugins whose PreFilterResult left the node out (sorted,
	// comma-joined), or the extender (its URL prefix) that rejected it.
	Filter map[string]FilterJSON `json:"filter"`
	// Scores maps node -> Score plugin -> scores, for the plugins that ran.
	Scores map[string]map[string]ScoreJSON `json:"scores"`
	// Total is the weighted sum per scored node.
	Total map[string]int64 `json:"total"`
	// Top lists the nodes tied at the highest total, sorted by name.
	Top           []string `json:"top"`
	Message       string   `json:"message"`
	NominatedNode string   `json:"nominatedNode"`
	// Victims lists namespace/name of the pods preemption would evict, sorted.
	Victims []string `json:"victims"`
}

// Outcome values of AttemptJSON.Outcome.
const (
	OutcomeScheduled     = "Scheduled"
	OutcomeUnschedulable = "Unschedulable"
	OutcomeError         = "Error"
	OutcomeWaiting       = "Waiting"
)

// FilterJSON is the status of the first plugin that rejected a node.
type FilterJSON struct {
	Plugin  string   `json:"plugin"`
	Reasons []string `json:"reasons"`
}

// ScoreJSON is one plugin's score for one node: Raw is what Score returned,
// Normalized is after NormalizeScore (equal to Raw for plugins without it),
// Final is Normalized times the plugin's weight.
type ScoreJSON struct {
	Raw        int64 `json:"raw"`
	Normalized int64 `json:"normalized"`
	Final      int64 `json:"final"`
}

// JSON renders the attempt in the stable machine interface.
func (a *Attempt) JSON() AttemptJSON {
	out := AttemptJSON{
		Kind: "attempt", Pod: a.Pod, Outcome: a.Outcome.String(), Node: a.Node,
		Feasible: []string{}, Filter: map[string]FilterJSON{}, Scores: map[string]map[string]ScoreJSON{},
		Total: map[string]int64{}, Top: []string{}, Message: a.Message, NominatedNode: a.Nominated,
		Victims: []string{},
	}
	if a.Victims != nil {
		out.Victims = a.Victims
	}
	if a.Nodes == nil {
		return out
	}
	names := a.Nodes.Names
	for _, n := range a.Feasible {
		out.Feasible = append(out.Feasible, names[n])
	}
	sort.Strings(out.Feasible)
	a.fillFilter(out.Filter)
	for _, t := range a.Totals() {
		out.Total[names[t.Node]] = t.Total
	}
	for p := range a.Scores {
		col := &a.Scores[p]
		raw, norm := col.RawScores(), col.NormalizedScores()
		for i, n := range a.Feasible {
			if i >= len(raw) {
				break
			}
			m := out.Scores[names[n]]
			if m == nil {
				m = map[string]ScoreJSON{}
				out.Scores[names[n]] = m
			}
			m[col.Plugin] = ScoreJSON{Raw: raw[i], Normalized: norm[i], Final: norm[i] * int64(col.Weight)}
		}
	}
	out.Top = a.topNames()
	return out
}

// fillFilter puts each rejected node's first rejecting plugin into m.
func (a *Attempt) fillFilter(m map[string]FilterJSON) {
	if a.Nodes == nil {
		return
	}
	names := a.Nodes.Names
	explicit := make(map[int32]bool, len(a.Rejected))
	for _, r := range a.Rejected {
		explicit[r.Node] = true
		m[names[r.Node]] = filterJSON(a.Statuses[r.Status])
	}
	if a.AbsentStatus >= 0 {
		feasible := make(map[int32]bool, len(a.Feasible))
		for _, n := range a.Feasible {
			feasible[n] = true
		}
		abs := filterJSON(a.Statuses[a.AbsentStatus])
		for i := range names {
			if n := int32(i); !feasible[n] && !explicit[n] {
				m[names[i]] = abs
			}
		}
	}
}

// topNames is Top by name, sorted.
func (a *Attempt) topNames() []string {
	out := []string{}
	if a.Nodes == nil {
		return out
	}
	for _, n := range a.Top() {
		out = append(out, a.Nodes.Names[n])
	}
	sort.Strings(out)
	return out
}

func filterJSON(s Status) FilterJSON {
	reasons := s.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	return FilterJSON{Plugin: s.Plugin, Reasons: reasons}
}

// NodeTotal is a scored node's total.
type NodeTotal struct {
	Node  int32
	Total int64
}

// Totals returns each scored node's weighted total, in Feasible order.
func (a *Attempt) Totals() []NodeTotal {
	if !a.Scored {
		return nil
	}
	out := make([]NodeTotal, len(a.Feasible))
	for i, n := range a.Feasible {
		out[i].Node = n
	}
	for p := range a.Scores {
		col := &a.Scores[p]
		for i, v := range col.NormalizedScores() {
			if i < len(out) {
				out[i].Total += v * int64(col.Weight)
			}
		}
	}
	return out
}

// Top returns the nodes tied at the highest total; with a single feasible
// node (no scoring) it is that node.
func (a *Attempt) Top() []int32 {
	if !a.Scored {
		if a.Outcome == Scheduled && a.Chosen >= 0 && len(a.Feasible) <= 1 {
			return []int32{a.Chosen}
		}
		if len(a.Feasible) == 1 {
			return []int32{a.Feasible[0]}
		}
		return nil
	}
	var top []int32
	best := int64(-1)
	for _, t := range a.Totals() {
		switch {
		case t.Total > best:
			best, top = t.Total, []int32{t.Node}
		case t.Total == best:
			top = append(top, t.Node)
		}
	}
	return top
}
