package record

import "time"

// GroupResult is how a pod-group cycle ended, as upstream's
// submitPodGroupAlgorithmResult tells the cases apart.
type GroupResult uint8

const (
	// GroupScheduled: the group's constraints are met; its placed members
	// went to binding (PodGroupInitiallyScheduled True).
	GroupScheduled GroupResult = iota
	// GroupUnschedulable: every member went back to the queue
	// (PodGroupInitiallyScheduled False, reason Unschedulable).
	GroupUnschedulable
	// GroupWaitingOnPreemption: PodGroupPostFilter found victims; every
	// member went back to the queue, nominated, and the next group cycle
	// verifies the preemption.
	GroupWaitingOnPreemption
	// GroupError: the cycle failed with an error (reason SchedulerError).
	GroupError
	// GroupSkipped: no member was left to try (all being deleted or
	// already assumed); nothing was written.
	GroupSkipped
)

var groupResultNames = [...]string{"Scheduled", "Unschedulable", "WaitingOnPreemption", "Error", "Skipped"}

func (r GroupResult) String() string {
	if int(r) < len(groupResultNames) {
		return groupResultNames[r]
	}
	return "GroupResult?"
}

// GroupAttempt is one pod-group scheduling cycle: the group, every member
// it tried (each also recorded as an ordinary Attempt, with its node
// verdicts and scores, in the engine's attempt log), and the outcome.
type GroupAttempt struct {
	// Seq numbers group cycles, from 1.
	Seq       int
	Time      time.Time
	Namespace string
	Name      string
	// Policy is "Gang" or "Basic" (framework.PolicyGang, PolicyBasic).
	Policy   string
	MinCount int
	Priority int32
	Profile  string
	// Members are the members the cycle tried, in the order it tried them.
	Members []GroupMember
	// FirstAttempt is the index in the engine's attempt log of the first
	// member's attempt: the members' attempts follow it in member order.
	FirstAttempt int
	// Scheduled counts the members already assumed or bound before the
	// cycle (they count towards minCount).
	Scheduled int
	Result    GroupResult
	// Message is the PodGroupInitiallyScheduled condition's message, as
	// upstream writes it (e.g. "minCount (2) cannot be satisfied: 1
	// scheduled, 0 remaining"); empty when scheduled.
	Message string
	// Placements are the placements the cycle tried
	// (TopologyAwareWorkloadScheduling), in the order tried; the members'
	// attempts are those of the chosen one (or of the first, when none
	// was feasible).
	Placements []PlacementTried
	// Preemption is PodGroupPostFilter's record, when it evaluated
	// preemption for the group; Victims the pods it chose to evict.
	Preemption *Preemption
	Victims    []string
	// Summarized mirrors the members' attempts' retention.
	Summarized bool
	// Composite is set when the group is a CompositePodGroup, the root of
	// a hierarchy (CompositePodGroup): Policy and MinCount are then its
	// (minCount counts children: its minGroupCount), Message its status's,
	// and Children says how each group below it ended.
	Composite bool
	Children  []GroupChild
}

// GroupChild is one group below a composite root in a cycle: a PodGroup
// (whose PodGroupInitiallyScheduled condition the cycle writes) or a
// CompositePodGroup, depth first in the cycle's order.
type GroupChild struct {
	Name      string
	Parent    string
	Composite bool
	// Depth is 1 for the root's children.
	Depth    int
	Policy   string
	MinCount int
	Result   GroupResult
	Message  string
}

// Key is namespace/name.
func (g *GroupAttempt) Key() string { return g.Namespace + "/" + g.Name }

// Placed counts the members this cycle placed on a node.
func (g *GroupAttempt) Placed() int {
	n := 0
	for _, m := range g.Members {
		if m.Node != "" {
			n++
		}
	}
	return n
}

// GroupMember is one member in a group cycle.
type GroupMember struct {
	Pod    string // namespace/name
	PodUID string
	// AttemptSeq is the Seq of this member's ordinary Attempt; Attempt its
	// index in the engine's attempt log (-1 until the engine logs it).
	AttemptSeq int
	Attempt    int
	// Node is where the algorithm placed the member ("" if nowhere), kept
	// whatever the group's outcome: a gang too small still shows which
	// members found a node.
	Node string
	// Nominated is the member's nominated node after the cycle.
	Nominated string
	// Unschedulable is set when the member itself found no node (its own
	// FitError), as opposed to a member rejected with its group.
	Unschedulable bool
	// Evaluated is false for a member the cycle never tried (it stopped
	// early once minCount could not be met).
	Evaluated bool
	// Group is the member's PodGroup when the cycle's group is composite.
	Group string
}

// PlacementTried is one placement a group cycle tried: a topology domain
// (Name, "" for all nodes) and how the group fared there.
type PlacementTried struct {
	Name  string
	Nodes int
	// Placed counts the members placed; Feasible says whether the group's
	// constraints were met; Message is the group's status there.
	Placed   int
	Feasible bool
	Message  string
	// Score is the PlacementScore total, set when several placements were
	// feasible; Chosen marks the one the cycle went with.
	Score  int64
	Chosen bool
}
