package record

import (
	"encoding/json"
	"fmt"
)

// Detail is how much of an attempt the JSON form carries (`run -o json
// --detail`). Every level keeps AttemptJSON's field names; a lower level
// leaves fields out, it never renames or reshapes one, so a reader of the
// full form reads the others too (absent fields read as empty).
type Detail uint8

const (
	// DetailFull is AttemptJSON whole.
	DetailFull Detail = iota
	// DetailFailed keeps what failed: the Filter map (the nodes Filter
	// rejected, each with its first rejecting plugin and reasons), and
	// leaves out what passed: feasible, scores and total. At 5000 nodes
	// those are the bulk of a scheduled attempt.
	DetailFailed
	// DetailSummary is the attempt's line: outcome, node, message,
	// nomination and victims.
	DetailSummary
)

// DetailNames are the --detail values, in Detail order.
var DetailNames = []string{"full", "failed", "summary"}

func (d Detail) String() string {
	if int(d) < len(DetailNames) {
		return DetailNames[d]
	}
	return fmt.Sprintf("Detail(%d)", d)
}

// ParseDetail reads a --detail value.
func ParseDetail(s string) (Detail, error) {
	for i, n := range DetailNames {
		if s == n {
			return Detail(i), nil
		}
	}
	return 0, fmt.Errorf("unknown detail %q: want full, failed or summary", s)
}

// attemptFailedJSON is AttemptJSON at DetailFailed: the same fields in the
// same order, minus feasible, scores and total.
type attemptFailedJSON struct {
	Kind          string                `json:"kind"`
	Pod           string                `json:"pod"`
	Outcome       string                `json:"outcome"`
	Node          string                `json:"node"`
	Filter        map[string]FilterJSON `json:"filter"`
	Top           []string              `json:"top"`
	Message       string                `json:"message"`
	NominatedNode string                `json:"nominatedNode"`
	Victims       []string              `json:"victims"`
}

// attemptSummaryJSON is AttemptJSON at DetailSummary.
type attemptSummaryJSON struct {
	Kind          string   `json:"kind"`
	Pod           string   `json:"pod"`
	Outcome       string   `json:"outcome"`
	Node          string   `json:"node"`
	Message       string   `json:"message"`
	NominatedNode string   `json:"nominatedNode"`
	Victims       []string `json:"victims"`
}

// MarshalDetail renders the attempt's JSON form at detail d. The summary
// is built without the per-node maps, so it costs nothing per node.
func (a *Attempt) MarshalDetail(d Detail) ([]byte, error) {
	switch d {
	case DetailFull:
		return json.Marshal(a.JSON())
	case DetailFailed:
		filter := map[string]FilterJSON{}
		a.fillFilter(filter)
		return json.Marshal(attemptFailedJSON{Kind: "attempt", Pod: a.Pod, Outcome: a.Outcome.String(), Node: a.Node, Filter: filter,
			Top: a.topNames(), Message: a.Message, NominatedNode: a.Nominated, Victims: orEmpty(a.Victims)})
	case DetailSummary:
		return json.Marshal(attemptSummaryJSON{Kind: "attempt", Pod: a.Pod, Outcome: a.Outcome.String(), Node: a.Node,
			Message: a.Message, NominatedNode: a.Nominated, Victims: orEmpty(a.Victims)})
	}
	return nil, fmt.Errorf("unknown detail %d", d)
}

// orEmpty is ss, or [] for nil: the JSON form writes empty lists, not null.
func orEmpty(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Summarize drops the attempt's per-node detail in place, keeping its line
// (pod, time, outcome, node, message, nomination, victims), its phases and
// the plugins that rejected it: what a retention policy keeps of an
// attempt outside its detailed window. In place, so that every holder of
// the attempt (indexes by pointer, the timeline) sees one attempt.
func (a *Attempt) Summarize() {
	a.Nodes, a.PreFilterNarrowed, a.Statuses, a.Rejected, a.Feasible = nil, nil, nil, nil, nil
	a.Scored, a.Scores, a.Preemption, a.ExtenderCalls = false, nil, nil, nil
	a.AbsentStatus, a.Chosen, a.StartIndex, a.NodesToFind = -1, -1, 0, 0
	a.Summarized = true
}

// Summary is a summarized copy of the attempt (see Summarize), for holders
// that may not see the attempt change under them.
func (a *Attempt) Summary() *Attempt {
	c := *a
	c.Summarize()
	return &c
}
