package why

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/schedtui/schedtui/scheduler/record"
)

// The Filter matrix: nodes × Filter plugins, each cell a plugin's verdict
// on a node. The faithful matrix is what kube-scheduler computed (each
// node stops at its first failing plugin; the extenders that filtered
// after the plugins are columns too); the full one is the full diagnosis
// (every plugin on every node).

// FilterSort orders the Filter matrix's rows.
type FilterSort uint8

const (
	// FilterByNodeOrder keeps the node-tree order Filter visits nodes in.
	FilterByNodeOrder FilterSort = iota
	// FilterByName orders by node name.
	FilterByName
	// FilterByReason groups the nodes rejected by the same column for the
	// same reasons, in column order; the others follow.
	FilterByReason
	numFilterSorts
)

var filterSortNames = [numFilterSorts]string{"node order", "name", "reason"}

func (s FilterSort) String() string { return filterSortNames[s] }

// Next is the order after s, round to the first.
func (s FilterSort) Next() FilterSort { return (s + 1) % numFilterSorts }

// NodeVerdict is a node's verdict in the Filter matrix.
type NodeVerdict uint8

const (
	// NotEvaluated: upstream's search stopped before the node
	// (percentageOfNodesToScore).
	NotEvaluated NodeVerdict = iota
	// Feasible and Rejected are the faithful matrix's.
	Feasible
	Rejected
	// Passes, Fails and Narrowed (left out by a PreFilterResult) are the
	// full diagnosis's.
	Passes
	Fails
	Narrowed
)

var nodeVerdictNames = [...]string{"not eval", "feasible", "rejected", "passes", "fails", "narrowed"}

func (v NodeVerdict) String() string { return nodeVerdictNames[v] }

// Fits: the node passed every plugin.
func (v NodeVerdict) Fits() bool { return v == Feasible || v == Passes }

// Unfit: some plugin rejected the node.
func (v NodeVerdict) Unfit() bool { return v == Rejected || v == Fails }

// CellState is one plugin's verdict on one node.
type CellState uint8

const (
	// CellNotRun: an earlier plugin rejected the node (upstream stops at
	// the first), or upstream never evaluated it.
	CellNotRun CellState = iota
	CellPass
	CellFail
	// CellSkip: the plugin's PreFilter said it has nothing to check.
	CellSkip
)

// FilterCell is one cell of the matrix.
type FilterCell struct {
	State CellState
	// Status indexes the matrix's Statuses when State is CellFail.
	Status int32
}

// ColumnKind says what a column of the matrix is.
type ColumnKind uint8

const (
	PluginColumn ColumnKind = iota
	// PreFilterColumn holds the rejections of no Filter plugin: a
	// PreFilter-only plugin's, or the narrowing of a PreFilterResult.
	PreFilterColumn
	// ExtenderColumn is an extender that filtered after the plugins.
	ExtenderColumn
)

// FilterColumn is one column of the matrix.
type FilterColumn struct {
	// Name is the plugin's name or the extender's URL prefix ("" for the
	// PreFilter column).
	Name string
	Kind ColumnKind
}

// Title is the column's header.
func (c FilterColumn) Title() string {
	if c.Kind == PreFilterColumn {
		return "PreFilter"
	}
	return c.Name
}

// FilterRow is one node's verdicts.
type FilterRow struct {
	// Node indexes the attempt's nodes.
	Node    int
	Verdict NodeVerdict
	// Cells are the node's verdicts in the matrix's columns.
	Cells []FilterCell
	// Text is what a search matches: the node's name and its reasons.
	Text string
	// reasonKey orders the row under FilterByReason.
	reasonKey string
}

// FilterOptions say which matrix to build.
type FilterOptions struct {
	// Plugins are the profile's Filter plugins in run order (the
	// faithful matrix's columns).
	Plugins []string
	// Diag is the full diagnosis; nil for the faithful matrix.
	Diag *record.FullDiagnosis
	// AllColumns keeps every column, not only those that rejected a node.
	AllColumns bool
	Sort       FilterSort
	// Match keeps the rows whose Text it accepts; nil keeps every row.
	Match func(text string) bool
}

// FilterMatrix is an attempt's Filter verdicts, node by node.
type FilterMatrix struct {
	Columns []FilterColumn
	// Rows are every node's, in node order.
	Rows []FilterRow
	// Order lists the rows shown (Match), sorted.
	Order []int
	// Statuses are what the failed cells index: the attempt's, or the
	// full diagnosis's.
	Statuses []record.Status
}

// Status is a failed cell's status.
func (m *FilterMatrix) Status(c FilterCell) record.Status { return m.Statuses[c.Status] }

// NewFilterMatrix builds attempt a's Filter matrix (a must have run
// Filter: a.Nodes set).
func NewFilterMatrix(a *record.Attempt, opt FilterOptions) *FilterMatrix {
	m := &FilterMatrix{Statuses: a.Statuses}
	var cols []FilterColumn
	var failed []bool
	if opt.Diag != nil {
		m.Statuses = opt.Diag.Statuses
		cols, failed = m.fullRows(a, opt.Diag)
	} else {
		cols, failed = m.faithfulRows(a, opt.Plugins)
	}
	keep := make([]int, 0, len(cols))
	for i, c := range cols {
		if opt.AllColumns || failed[i] {
			keep = append(keep, i)
			m.Columns = append(m.Columns, c)
		}
	}
	if len(keep) < len(cols) {
		for ri := range m.Rows {
			cells := make([]FilterCell, len(keep))
			for j, i := range keep {
				cells[j] = m.Rows[ri].Cells[i]
			}
			m.Rows[ri].Cells = cells
		}
	}
	for i := range m.Rows {
		if opt.Match == nil || opt.Match(m.Rows[i].Text) {
			m.Order = append(m.Order, i)
		}
	}
	switch opt.Sort {
	case FilterByName:
		sort.SliceStable(m.Order, func(x, y int) bool {
			return a.Nodes.Names[m.Rows[m.Order[x]].Node] < a.Nodes.Names[m.Rows[m.Order[y]].Node]
		})
	case FilterByReason:
		sort.SliceStable(m.Order, func(x, y int) bool { return m.Rows[m.Order[x]].reasonKey < m.Rows[m.Order[y]].reasonKey })
	}
	return m
}

// upstreamVerdicts is each node's verdict as upstream left it, with the
// status of each rejected node: those the record names, and the nodes
// the absent status stands for (every node not named, when set).
func upstreamVerdicts(a *record.Attempt) ([]NodeVerdict, []int32) {
	n := len(a.Nodes.Names)
	verdicts, statuses := make([]NodeVerdict, n), make([]int32, n)
	for _, f := range a.Feasible {
		verdicts[f] = Feasible
	}
	for _, r := range a.Rejected {
		verdicts[r.Node], statuses[r.Node] = Rejected, int32(r.Status)
	}
	if a.AbsentStatus >= 0 {
		for i := range verdicts {
			if verdicts[i] == NotEvaluated {
				verdicts[i], statuses[i] = Rejected, a.AbsentStatus
			}
		}
	}
	return verdicts, statuses
}

// faithfulRows fills the rows from the record: each rejected node's
// first failing column, the columns before it passed. It returns every
// column and which rejected a node.
func (m *FilterMatrix) faithfulRows(a *record.Attempt, plugins []string) ([]FilterColumn, []bool) {
	colOf := map[string]int{}
	for i, p := range plugins {
		colOf[p] = i
	}
	// Each extender that filtered is a column after the plugins, named by
	// its URL prefix, as the nodes it rejected name it.
	extenders := filteringExtenders(a)
	for i, e := range extenders {
		colOf[e] = len(plugins) + i
	}
	// A status from a plugin that is not a Filter plugin (PreFilter-only)
	// and the PreFilterResults' narrowing, whose nodes no Filter plugin
	// saw, go in a PreFilter column.
	narrowing := a.AbsentFromPreFilterResult()
	needPre := narrowing
	for _, r := range a.Rejected {
		if _, ok := colOf[a.Statuses[r.Status].Plugin]; !ok {
			needPre = true
		}
	}
	if a.AbsentStatus >= 0 {
		if _, ok := colOf[a.Statuses[a.AbsentStatus].Plugin]; !ok {
			needPre = true
		}
	}
	var cols []FilterColumn
	off := 0
	if needPre {
		cols = append(cols, FilterColumn{Kind: PreFilterColumn})
		off = 1
	}
	for _, p := range plugins {
		cols = append(cols, FilterColumn{Name: p})
	}
	for _, e := range extenders {
		cols = append(cols, FilterColumn{Name: e, Kind: ExtenderColumn})
	}
	failed := make([]bool, len(cols))
	verdicts, statuses := upstreamVerdicts(a)
	m.Rows = make([]FilterRow, len(verdicts))
	for node, verdict := range verdicts {
		r := FilterRow{Node: node, Verdict: verdict, Cells: make([]FilterCell, len(cols))}
		var reasons string
		switch verdict {
		case Feasible:
			for i := off; i < len(cols); i++ {
				r.Cells[i].State = CellPass
			}
		case Rejected:
			st := a.Statuses[statuses[node]]
			col, ok := colOf[st.Plugin]
			if narrowing && statuses[node] == a.AbsentStatus {
				ok = false
			}
			if ok {
				col += off
			} else {
				col = 0
			}
			for i := off; i < col; i++ {
				r.Cells[i].State = CellPass
			}
			r.Cells[col] = FilterCell{State: CellFail, Status: statuses[node]}
			failed[col] = true
			reasons = strings.Join(st.Reasons, "; ")
			r.reasonKey = fmt.Sprintf("%03d %s", col, strings.Join(st.Reasons, ";"))
		}
		if r.reasonKey == "" {
			r.reasonKey = "~" + reasons
		}
		r.Text = a.Nodes.Names[node] + " " + reasons
		m.Rows[node] = r
	}
	return cols, failed
}

// fullRows fills the rows from the full diagnosis: every plugin's verdict
// on every node. It returns every column and which rejected a node.
func (m *FilterMatrix) fullRows(a *record.Attempt, d *record.FullDiagnosis) ([]FilterColumn, []bool) {
	cols := make([]FilterColumn, len(d.Plugins))
	for i, p := range d.Plugins {
		cols[i] = FilterColumn{Name: p}
	}
	failed := make([]bool, len(cols))
	upstream, _ := upstreamVerdicts(a)
	m.Rows = make([]FilterRow, len(upstream))
	for node := range upstream {
		r := FilterRow{Node: node, Verdict: Passes, Cells: make([]FilterCell, len(cols))}
		var reasons []string
		for p := range d.Plugins {
			c := &r.Cells[p]
			if d.SkippedPlugins[p] {
				c.State = CellSkip
				continue
			}
			st := d.Cell(node, p)
			if st.Code == record.CodeSuccess {
				c.State = CellPass
				continue
			}
			*c = FilterCell{State: CellFail, Status: int32(d.Cells[node*len(d.Plugins)+p])}
			r.Verdict = Fails
			failed[p] = true
			reasons = append(reasons, strings.Join(st.Reasons, "; "))
		}
		switch {
		case d.Narrowed[node]:
			r.Verdict = Narrowed
		case upstream[node] == NotEvaluated:
			r.Verdict = NotEvaluated
		}
		r.reasonKey = "~" + strings.Join(reasons, ";")
		r.Text = a.Nodes.Names[node] + " " + strings.Join(reasons, " ")
		m.Rows[node] = r
	}
	return cols, failed
}

// filteringExtenders lists the extenders whose filter call answered, in
// call order.
func filteringExtenders(a *record.Attempt) []string {
	var names []string
	for i := range a.ExtenderCalls {
		c := &a.ExtenderCalls[i]
		if c.Verb == "filter" && c.Error == "" && !slices.Contains(names, c.Extender) {
			names = append(names, c.Extender)
		}
	}
	return names
}
