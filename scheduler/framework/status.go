// Package framework holds the scheduling framework's vocabulary: statuses,
// the per-cycle state, node and pod bookkeeping, the plugin interfaces and
// the snapshot every cycle reads. It mirrors kube-scheduler v1.37's
// framework (k8s.io/kube-scheduler/framework and pkg/scheduler/framework)
// closely enough that plugin code reads the same, without client-go.
package framework

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Code is a plugin's verdict. The values and names are upstream's.
type Code int

const (
	Success Code = iota
	Error
	Unschedulable
	UnschedulableAndUnresolvable
	Wait
	Skip
	Pending
)

var codeNames = []string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Score bounds.
const (
	MaxNodeScore  int64 = 100
	MinNodeScore  int64 = 0
	MaxTotalScore int64 = 1<<63 - 1
)

// Status is the result of running a plugin. A nil *Status means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus makes a status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps an error into an Error status; nil stays nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, err: err}
}

// WithError attaches an error; its text leads the reasons.
func (s *Status) WithError(err error) *Status {
	s.err = err
	return s
}

// Code returns the status code; a nil status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Message joins the reasons with ", " as upstream does.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons(), ", ")
}

// Reasons returns the error text (if any) followed by the reasons.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	if s.err != nil {
		return append([]string{s.err.Error()}, s.reasons...)
	}
	return s.reasons
}

// Err returns the attached error, if any.
func (s *Status) Err() error {
	if s == nil {
		return nil
	}
	return s.err
}

// SetPlugin records which plugin produced the status.
func (s *Status) SetPlugin(plugin string) {
	if s != nil {
		s.plugin = plugin
	}
}

// WithPlugin is SetPlugin that returns the status.
func (s *Status) WithPlugin(plugin string) *Status {
	s.SetPlugin(plugin)
	return s
}

// Plugin returns the plugin that produced the status.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// AppendReason adds a reason.
func (s *Status) AppendReason(reason string) {
	s.reasons = append(s.reasons, reason)
}

func (s *Status) IsSuccess() bool { return s.Code() == Success }
func (s *Status) IsWait() bool    { return s.Code() == Wait }
func (s *Status) IsSkip() bool    { return s.Code() == Skip }

// IsRejected reports Unschedulable, UnschedulableAndUnresolvable or Pending.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
}

// IsError reports the Error code.
func (s *Status) IsError() bool { return s.Code() == Error }

// AsError returns nil for Success, Wait and Skip; otherwise an error.
func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsWait() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Clone copies the status.
func (s *Status) Clone() *Status {
	if s == nil {
		return nil
	}
	c := *s
	c.reasons = append([]string(nil), s.reasons...)
	return &c
}

func (s *Status) String() string { return s.Message() }

// NodeScore is one node's score from one plugin.
type NodeScore struct {
	Name  string
	Score int64
}

// NodeScoreList is the scores of one plugin over the feasible nodes.
type NodeScoreList []NodeScore

// PluginScores is one Score plugin's scores over the scored nodes, in
// their order: kept per plugin rather than per node, so that a cycle makes
// a handful of allocations for the whole matrix.
type PluginScores struct {
	Name   string
	Weight int64
	// Raw is what Score returned, before NormalizeScore.
	Raw []int64
	// Normalized is the scores after NormalizeScore; nil for a plugin
	// without ScoreExtensions, whose normalized scores are Raw.
	Normalized []int64
}

// Final is node i's normalized score (before the weight).
func (p *PluginScores) Final(i int) int64 {
	if p.Normalized != nil {
		return p.Normalized[i]
	}
	return p.Raw[i]
}

// NodePluginScores is a node's total score.
type NodePluginScores struct {
	Name       string
	TotalScore int64
	// Randomizer breaks ties; 0 unless extenders scored the node (1.37).
	Randomizer int
}

// NominatingMode says whether a PostFilter result changes the nomination.
type NominatingMode int

const (
	ModeNoop NominatingMode = iota
	ModeOverride
)

// NominatingInfo carries a nomination decided by PostFilter.
type NominatingInfo struct {
	NominatedNodeName string
	NominatingMode    NominatingMode
}

// Mode is ModeNoop for a nil receiver.
func (ni *NominatingInfo) Mode() NominatingMode {
	if ni == nil {
		return ModeNoop
	}
	return ni.NominatingMode
}

// PreFilterResult narrows the nodes to evaluate; nil NodeNames means all.
type PreFilterResult struct {
	NodeNames sets.Set[string]
}

// AllNodes reports whether the result leaves every node in play.
func (p *PreFilterResult) AllNodes() bool {
	return p == nil || p.NodeNames == nil
}

// Merge intersects two results; nil means all nodes.
func (p *PreFilterResult) Merge(in *PreFilterResult) *PreFilterResult {
	if p.AllNodes() && in.AllNodes() {
		return nil
	}
	r := sets.New[string]()
	switch {
	case p.AllNodes():
		r.Insert(sets.List(in.NodeNames)...)
	case in.AllNodes():
		r.Insert(sets.List(p.NodeNames)...)
	default:
		r = p.NodeNames.Intersection(in.NodeNames)
	}
	return &PreFilterResult{NodeNames: r}
}

// PostFilterResult carries PostFilter's nomination.
type PostFilterResult struct {
	*NominatingInfo
}

// NewPostFilterResultWithNominatedNode nominates name (ModeOverride).
func NewPostFilterResultWithNominatedNode(name string) *PostFilterResult {
	return &PostFilterResult{&NominatingInfo{NominatedNodeName: name, NominatingMode: ModeOverride}}
}

// NodeToStatus maps node names to their Filter statuses; nodes not in the
// map have the absent-nodes status.
type NodeToStatus struct {
	nodeToStatus map[string]*Status
	absentStatus *Status
}

// NewDefaultNodeToStatus has an absent status of UnschedulableAndUnresolvable
// without reasons, as upstream's.
func NewDefaultNodeToStatus() *NodeToStatus {
	return NewNodeToStatus(map[string]*Status{}, NewStatus(UnschedulableAndUnresolvable))
}

// NewNodeToStatus builds a map with the given absent status.
func NewNodeToStatus(m map[string]*Status, absent *Status) *NodeToStatus {
	return &NodeToStatus{nodeToStatus: m, absentStatus: absent}
}

// Get returns the node's status, or the absent status.
func (m *NodeToStatus) Get(name string) *Status {
	if s, ok := m.nodeToStatus[name]; ok {
		return s
	}
	return m.absentStatus
}

// Lookup returns the explicit status of a node.
func (m *NodeToStatus) Lookup(name string) (*Status, bool) {
	s, ok := m.nodeToStatus[name]
	return s, ok
}

// Set records a node's status.
func (m *NodeToStatus) Set(name string, s *Status) { m.nodeToStatus[name] = s }

// Len counts explicit entries.
func (m *NodeToStatus) Len() int { return len(m.nodeToStatus) }

// AbsentNodesStatus is the status of nodes without an entry.
func (m *NodeToStatus) AbsentNodesStatus() *Status { return m.absentStatus }

// SetAbsentNodesStatus replaces the absent status.
func (m *NodeToStatus) SetAbsentNodesStatus(s *Status) { m.absentStatus = s }

// ForEachExplicitNode visits explicit entries in name order (upstream visits
// a Go map; every consumer of this order is order-insensitive).
func (m *NodeToStatus) ForEachExplicitNode(fn func(name string, s *Status)) {
	names := make([]string, 0, len(m.nodeToStatus))
	for n := range m.nodeToStatus {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fn(n, m.nodeToStatus[n])
	}
}

// NodesForStatusCode returns the nodes whose effective status has code:
// every node when the absent status has it, else only explicit entries.
func (m *NodeToStatus) NodesForStatusCode(nodes []*NodeInfo, code Code) []*NodeInfo {
	var out []*NodeInfo
	if m.AbsentNodesStatus().Code() == code {
		for _, n := range nodes {
			if m.Get(n.Name()).Code() == code {
				out = append(out, n)
			}
		}
		return out
	}
	for _, n := range nodes {
		if s, ok := m.nodeToStatus[n.Name()]; ok && s.Code() == code {
			out = append(out, n)
		}
	}
	return out
}

// Diagnosis explains why a pod fit no node.
type Diagnosis struct {
	NodeToStatus         *NodeToStatus
	UnschedulablePlugins sets.Set[string]
	PendingPlugins       sets.Set[string]
	PreFilterMsg         string
	PostFilterMsg        string
}

// AddPluginStatus records the plugin of a rejecting status.
func (d *Diagnosis) AddPluginStatus(s *Status) {
	if s.Plugin() == "" {
		return
	}
	if s.IsRejected() {
		if d.UnschedulablePlugins == nil {
			d.UnschedulablePlugins = sets.New[string]()
		}
		d.UnschedulablePlugins.Insert(s.Plugin())
	}
	if s.Code() == Pending {
		if d.PendingPlugins == nil {
			d.PendingPlugins = sets.New[string]()
		}
		d.PendingPlugins.Insert(s.Plugin())
	}
}

// FitError is the error of a pod that fit no node.
type FitError struct {
	Pod         *v1.Pod
	NumAllNodes int
	Diagnosis   Diagnosis
}

// NoNodeAvailableMsg starts every FitError message.
const NoNodeAvailableMsg = "0/%v nodes are available"

// Error renders the message exactly as upstream: reasons counted over nodes,
// "<count> <reason>" strings sorted lexicographically.
func (f *FitError) Error() string {
	msg := fmt.Sprintf(NoNodeAvailableMsg+":", f.NumAllNodes)
	if f.Diagnosis.PreFilterMsg != "" {
		msg += " " + f.Diagnosis.PreFilterMsg + "."
	} else {
		counts := map[string]int{}
		nts := f.Diagnosis.NodeToStatus
		if nts != nil {
			for _, s := range nts.nodeToStatus {
				for _, r := range s.Reasons() {
					counts[r]++
				}
			}
			if nts.Len() < f.NumAllNodes {
				for _, r := range nts.AbsentNodesStatus().Reasons() {
					counts[r] += f.NumAllNodes - nts.Len()
				}
			}
		}
		list := make([]string, 0, len(counts))
		for r, n := range counts {
			list = append(list, fmt.Sprintf("%v %v", n, r))
		}
		sort.Strings(list)
		if len(list) > 0 {
			msg += " " + strings.Join(list, ", ") + "."
		}
	}
	if f.Diagnosis.PostFilterMsg != "" {
		msg += " " + f.Diagnosis.PostFilterMsg
	}
	return msg
}

// ErrNoNodesAvailable is returned when the cluster has no nodes.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")
