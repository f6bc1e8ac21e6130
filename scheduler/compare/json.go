package compare

// JSON is the comparison as `schedtui compare -o json` prints it: one
// object, stable for scripts.
type JSON struct {
	Left  SummaryJSON `json:"left"`
	Right SummaryJSON `json:"right"`
	Pods  []PodJSON   `json:"pods"`
}

// SummaryJSON is one side's summary.
type SummaryJSON struct {
	Side        string       `json:"side"`
	Scheduler   string       `json:"scheduler"`
	Scheduled   int          `json:"scheduled"`
	Pending     int          `json:"pending"`
	Preemptions int          `json:"preemptions"`
	Victims     int          `json:"victims"`
	Packing     PackingJSON  `json:"packing"`
	Spread      []SpreadJSON `json:"spread"`
}

// PackingJSON: nodes, nodes used, and per resource the number of nodes in
// each 10 % bucket of requested/allocatable.
type PackingJSON struct {
	Nodes     int                     `json:"nodes"`
	NodesUsed int                     `json:"nodesUsed"`
	Histogram map[string][Buckets]int `json:"histogram"`
}

// SpreadJSON is one workload's skew over one topology key.
type SpreadJSON struct {
	TopologyKey string         `json:"topologyKey"`
	Workload    string         `json:"workload"`
	MaxSkew     int32          `json:"maxSkew"`
	Skew        int            `json:"skew"`
	Domains     map[string]int `json:"domains"`
}

// PodJSON is one pod on both sides.
type PodJSON struct {
	Pod        string     `json:"pod"`
	Left       ResultJSON `json:"left"`
	Right      ResultJSON `json:"right"`
	DivergedAt *int       `json:"divergedAt"`
	DecidedBy  string     `json:"decidedBy"`
}

// ResultJSON is what one side did with a pod.
type ResultJSON struct {
	Outcome  string `json:"outcome"`
	Node     string `json:"node"`
	Attempts int    `json:"attempts"`
}

// JSON renders the report.
func (r *Report) JSON() JSON {
	out := JSON{Left: r.Left.JSON(), Right: r.Right.JSON(), Pods: []PodJSON{}}
	for _, p := range r.Pods {
		pj := PodJSON{Pod: p.Pod, Left: p.Left.JSON(), Right: p.Right.JSON()}
		if d := p.Divergence; d != nil {
			at := d.Attempt
			pj.DivergedAt, pj.DecidedBy = &at, d.Plugin
		}
		out.Pods = append(out.Pods, pj)
	}
	return out
}

// JSON renders a side's result for a pod.
func (r Result) JSON() ResultJSON {
	return ResultJSON{Outcome: r.Outcome, Node: r.Node, Attempts: r.Attempts}
}

// JSON renders a side's summary.
func (s Summary) JSON() SummaryJSON {
	out := SummaryJSON{Side: s.Label, Scheduler: s.Describe, Scheduled: s.Scheduled, Pending: s.Pending,
		Preemptions: s.Preemptions, Victims: s.Victims, Spread: []SpreadJSON{},
		Packing: PackingJSON{Nodes: s.Packing.Nodes, NodesUsed: s.Packing.NodesUsed, Histogram: map[string][Buckets]int{}}}
	for _, h := range s.Packing.Resources {
		out.Packing.Histogram[h.Resource] = h.Nodes
	}
	for _, sp := range s.Spread {
		out.Spread = append(out.Spread, SpreadJSON{TopologyKey: sp.TopologyKey, Workload: sp.Workload, MaxSkew: sp.MaxSkew, Skew: sp.Skew, Domains: sp.Domains})
	}
	return out
}
