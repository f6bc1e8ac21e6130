// Package record holds what one scheduling attempt did, compactly enough to
// keep every attempt of a long run, and renders it for the views and the
// JSON output.
package record

import (
	"time"
)

// Outcome of an attempt.
type Outcome uint8

const (
	Scheduled Outcome = iota
	Unschedulable
	Error
	// Skipped: popped but not scheduled (a pod being deleted, or no
	// profile for its schedulerName), as upstream drops such pods.
	Skipped
	// Waiting: the binding cycle is parked in PreBind, the pod assumed
	// on Node (a device's binding conditions); the attempt's outcome is
	// set when the wait ends.
	Waiting
)

func (o Outcome) String() string {
	switch o {
	case Scheduled:
		return OutcomeScheduled
	case Unschedulable:
		return OutcomeUnschedulable
	case Error:
		return OutcomeError
	case Waiting:
		return OutcomeWaiting
	}
	return "Skipped"
}

// Phase is an extension point of the cycle, in execution order.
type Phase uint8

const (
	PhasePreEnqueue Phase = iota
	PhasePop
	PhasePreFilter
	PhaseFilter
	PhasePostFilter
	PhasePreScore
	PhaseScore
	PhaseNormalizeScore
	PhaseReserve
	PhasePermit
	PhasePreBind
	PhaseBind
	NumPhases
)

var phaseNames = [...]string{"PreEnqueue", "Pop", "PreFilter", "Filter", "PostFilter", "PreScore", "Score", "NormalizeScore", "Reserve", "Permit", "PreBind", "Bind"}

func (p Phase) String() string {
	if p < NumPhases {
		return phaseNames[p]
	}
	return "Phase?"
}

// Code mirrors framework.Code without importing the framework (the views
// read records only).
type Code uint8

const (
	CodeSuccess Code = iota
	CodeError
	CodeUnschedulable
	CodeUnschedulableAndUnresolvable
	CodeWait
	CodeSkip
	CodePending
	// CodeNotRun marks a phase the attempt never reached.
	CodeNotRun Code = 255
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "NotRun"
}

// Status is an interned plugin status: several nodes that failed the same
// way share one.
type Status struct {
	Code    Code
	Plugin  string
	Reasons []string
}

// PhaseStatus is how one phase ended.
type PhaseStatus struct {
	Code    Code
	Plugin  string
	Message string
}

// NodeStatus is a rejected node: its index in the attempt's node list and
// the index of its status in Statuses.
type NodeStatus struct {
	Node   int32
	Status uint16
}

// ScoreColumn is one Score plugin's scores over the feasible nodes, in
// Feasible order. Raw holds zigzag varints; Normalized is nil when the
// plugin has no NormalizeScore (normalized equals raw).
//
// An extender's column (Extender set) is named by its URL prefix; Raw is
// its answer and Weight its weight × MaxNodeScore/MaxExtenderPriority, so
// that final = raw × weight × 10 as upstream's prioritizeNodes adds it.
type ScoreColumn struct {
	Plugin     string
	Weight     int32
	Raw        []byte
	Normalized []uint8
	Extender   bool
}

// Attempt is one scheduling attempt.
type Attempt struct {
	Seq       int
	Time      time.Time
	Pod       string // namespace/name
	PodUID    string
	Priority  int32
	Profile   string
	Outcome   Outcome
	Node      string
	Message   string
	Nominated string
	Victims   []string
	// Nodes is the node list of the cycle, in node-tree order; shared by
	// attempts while the node set does not change.
	Nodes *NodeList
	// StartIndex is where the Filter search began (the rotating index).
	StartIndex int32
	// NodesToFind is numFeasibleNodesToFind for this attempt.
	NodesToFind int32
	Phases      [NumPhases]PhaseStatus
	// PreFilterNarrowed lists the nodes PreFilter results left in play;
	// nil means all.
	PreFilterNarrowed []int32
	// NominatedFastPath is set when the nominated node was tried first.
	NominatedFastPath bool
	// Statuses are the distinct rejection statuses of this attempt.
	Statuses []Status
	// Rejected lists the nodes Filter (or PreFilter) rejected, with their
	// status; AbsentStatus, when >= 0, applies to every node not in
	// Rejected or Feasible that was in play (PreFilter rejection or
	// narrowing), as upstream's absent-nodes status.
	Rejected     []NodeStatus
	AbsentStatus int32
	// Feasible lists the nodes that passed, in the order found.
	Feasible []int32
	// Scored is set when Score ran (more than one feasible node); Scores
	// then holds a column per plugin not skipped at PreScore.
	Scored bool
	Scores []ScoreColumn
	// Chosen is the index of the chosen node in Nodes, or -1.
	Chosen int32
	// Preemption is set when PostFilter evaluated preemption.
	Preemption *Preemption
	// UnschedulablePlugins and PendingPlugins rejected the pod (the
	// diagnosis' sets, sorted); the queue requeues the pod only on events
	// these plugins registered.
	UnschedulablePlugins []string
	PendingPlugins       []string
	// ExtenderCalls are the calls made to scheduler extenders, in order.
	ExtenderCalls []ExtenderCall
	// Summarized is set when retention dropped the per-node detail (see
	// Summarize): what is left is the attempt's line.
	Summarized bool
}

// LastPhase is the last phase the attempt ran: where a step-by-step
// cursor stands once the attempt is fully revealed.
func (a *Attempt) LastPhase() Phase {
	last := PhasePreEnqueue
	for p := PhasePreEnqueue; p < NumPhases; p++ {
		if a.Phases[p].Code != CodeNotRun {
			last = p
		}
	}
	return last
}

// NodeList is an immutable list of node names in node-tree order.
type NodeList struct {
	Names []string
	index map[string]int32
}

// NewNodeList indexes names.
func NewNodeList(names []string) *NodeList {
	l := &NodeList{Names: names, index: make(map[string]int32, len(names))}
	for i, n := range names {
		l.index[n] = int32(i)
	}
	return l
}

// Index returns a node's index or -1.
func (l *NodeList) Index(name string) int32 {
	if i, ok := l.index[name]; ok {
		return i
	}
	return -1
}

// Preemption is what DefaultPreemption considered and decided.
type Preemption struct {
	Eligible   bool
	Reason     string
	Candidates []Candidate
	// Chosen indexes Candidates, or -1.
	Chosen int
	// DecidedBy names the pickOneNodeForPreemption criterion that left one
	// candidate (e.g. "minimum number of PDB violations"), "single
	// candidate", or "" when all criteria tied.
	DecidedBy string
	// Tied lists the candidates still tied after every criterion; upstream
	// picks any of them (Go map order), schedtui the first found.
	Tied []string
	// NominatedPodsCleared lists lower-priority pods whose nomination to
	// the chosen node was cleared.
	NominatedPodsCleared []string
	// TiedPlacements, for a pod group's preemption, counts the members its
	// scheduling run (every victim taken off) placed on one of several
	// nodes tied at the top total score. kube-scheduler takes the tied
	// node its parallel Filter happened to return first (the order its
	// goroutines finished in), so where those members go, and with it
	// which victims are given back, varies from run to run.
	TiedPlacements int
}

// Candidate is a node where evicting Victims would let the pod fit.
type Candidate struct {
	Node          string
	Victims       []Victim
	PDBViolations int
}

// Victim is a pod preemption would evict.
type Victim struct {
	Pod       string
	Priority  int32
	StartTime time.Time
	// PDBs names the PodDisruptionBudgets (namespace/name) the eviction
	// violates: those it takes below zero allowed disruptions, counting
	// the candidate's victims before it. Empty: the eviction violates none.
	PDBs []string
	// Node is the node the victim runs on when it is not the candidate's:
	// every victim of a pod group's preemption (its candidate is
	// "cluster"), or a pod of a group victim running elsewhere.
	Node string
	// Group is the PodGroup or CompositePodGroup (namespace/name) whose
	// disruptionMode all takes the victim with every scheduled pod of
	// the group (GenericWorkload); empty for a pod evicted on its own.
	Group string
}

// ExtenderCall is one call the attempt made to a scheduler extender.
type ExtenderCall struct {
	// Extender is the extender's URL prefix (its name, as upstream's).
	Extender string
	// Verb is filter, prioritize, preempt or bind.
	Verb string
	// Nodes is how many nodes (candidates, for preempt) were sent.
	Nodes   int
	Latency time.Duration
	// Replayed: the answer was not asked for but replayed, without
	// calling out: the attempt was made again (a rewind, a fork) and got
	// the answer it got the first time, or a recording's attempt got the
	// answer schedtui record kept (snapshot's ExtenderAnswer documents);
	// Latency is the first call's.
	Replayed bool
	// Error is why the call failed ("" when it did not); an ignorable
	// extender's failure is skipped, as is every prioritize failure.
	Error     string
	Ignorable bool
	// Response is the raw answer (the first 64 KiB).
	Response string
	// Filter: the nodes the extender kept, in its order, and those it
	// rejected with its messages. Preempt: Passed lists the nodes kept.
	Passed                []string
	Failed                map[string]string
	FailedAndUnresolvable map[string]string
	// Prioritize: the score per node as the extender answered (duplicates
	// added, as upstream adds them) and the extender's weight.
	Scores map[string]int64
	Weight int64
}

// Skipped reports a failed call the cycle went on without.
func (c *ExtenderCall) Skipped() bool {
	return c.Error != "" && (c.Ignorable || c.Verb == "prioritize")
}

// AbsentFromPreFilterResult reports whether the absent-nodes status is
// the PreFilterResults' narrowing (nodes outside the results, or every node
// when the results left none), which upstream's status attributes to no
// plugin and the record to the narrowing plugins, rather than one PreFilter
// plugin's rejection of every node.
func (a *Attempt) AbsentFromPreFilterResult() bool {
	if a.AbsentStatus < 0 {
		return false
	}
	pre := a.Phases[PhasePreFilter]
	return a.PreFilterNarrowed != nil || pre.Code != CodeSuccess && pre.Plugin == ""
}

// RejectingExtender names the extender (its URL prefix) whose filter
// answer rejected node in this attempt, or "" when none did. The node's
// status in the record is named after the extender too (upstream's has no
// plugin).
func (a *Attempt) RejectingExtender(node string) string {
	for i := len(a.ExtenderCalls) - 1; i >= 0; i-- {
		c := &a.ExtenderCalls[i]
		if c.Verb != "filter" || c.Error != "" {
			continue
		}
		if _, ok := c.FailedAndUnresolvable[node]; ok {
			return c.Extender
		}
		if _, ok := c.Failed[node]; ok {
			return c.Extender
		}
	}
	return ""
}
