package record

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
	// that rejected it and that plugin's reasons, in upstream's order.
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
