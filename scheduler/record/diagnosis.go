package record

// FullDiagnosis is every Filter plugin's verdict on every node for one pod,
// the map upstream never computes (it stops at each node's first failure).
type FullDiagnosis struct {
	Pod     string
	Nodes   *NodeList
	Plugins []string
	// PreFilter is the PreFilter phase's outcome; when it rejected the pod
	// no Filter ran and Cells is empty.
	PreFilter PhaseStatus
	// SkippedPlugins marks plugins whose PreFilter returned Skip.
	SkippedPlugins []bool
	// Narrowed marks nodes a PreFilterResult left out.
	Narrowed []bool
	// Cells[node*len(Plugins)+plugin] indexes Statuses; 0 is Success.
	Cells    []uint16
	Statuses []Status
}

// Cell returns the status of plugin p on node n.
func (d *FullDiagnosis) Cell(n, p int) Status {
	return d.Statuses[d.Cells[n*len(d.Plugins)+p]]
}
