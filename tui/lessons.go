package tui

import (
	"strings"

	"github.com/schedtui/schedtui/scheduler/history"
)

// Lessons is schedtui learn's tour, in order. Each lesson's scenario is
// its own small snapshot under testdata/learn.
func Lessons() []Lesson {
	return []Lesson{
		{
			ID: "queues", Title: "The queues", Scenario: "01-queues.yaml",
			Question: "After every attempt has run, in which queue does default/big wait?",
			Keys:     "n twice (two attempts), 1 for Queues, j/k to select default/big, e to explain it; then A and type the queue's name",
			Answers:  []string{"unschedulable", "unschedulablePods", "unschedulableQ"},
			Reached:  func(s *lessonState) bool { return s.queued("default/big") == "unschedulable" },
			Hint:     "run both attempts (n, n), press 1 and read the heading default/big is listed under; select it and press e for why",
			Plugin:   "NodeResourcesFit",
		},
		{
			ID: "gates", Title: "Scheduling gates", Scenario: "02-gates.yaml",
			Question: "The node has room, yet default/held is never attempted. Which plugin holds it back?",
			Keys:     "n (web's attempt), 1 for Queues, j/k to select default/held under Gated, e to explain; then A and type the plugin's name",
			Answers:  []string{"SchedulingGates"},
			Reached:  func(s *lessonState) bool { return s.view(viewQueues) && s.queued("default/held") == "gated" },
			Hint:     "open Queues (1) and select default/held: the teaching pane (e) names the plugin that gates it at PreEnqueue",
			Plugin:   "SchedulingGates",
		},
		{
			ID: "filter", Title: "Filter", Scenario: "03-filter.yaml",
			Question: "default/api fits no node. Which Filter plugin rejects node-2? Select its cell.",
			Keys:     "n to run the attempt, 3 for the Filter map, j/k to node-2's row, h/l to the ✗ column (f: every plugin's verdict), e to explain",
			Reached:  selects(viewFilter, "TaintToleration on node-2"),
			Hint:     "in the Filter view (3) select node-2's row and move with h/l to the column marked ✗",
			Plugin:   "TaintToleration",
		},
		{
			ID: "diagnosis", Title: "The full diagnosis", Scenario: "04-diagnosis.yaml",
			Question: "node-1 fails two Filter plugins, but the faithful map shows only the first. Select the second failure.",
			Keys:     "n to run the attempt, 3 for the Filter map, f for the full diagnosis (every plugin's verdict), a for all columns, h/l to NodeResourcesFit",
			Reached: func(s *lessonState) bool {
				return selects(viewFilter, "NodeResourcesFit on node-1")(s) && len(s.body) > 0 && !strings.HasPrefix(s.body[0], "Not run")
			},
			Hint:   "in the faithful map the second plugin did not run on node-1: press f for the full diagnosis, then select node-1's NodeResourcesFit cell",
			Plugin: "NodeResourcesFit",
		},
		{
			ID: "score", Title: "Score", Scenario: "05-score.yaml",
			Question: "Both nodes fit default/web and node-2 wins. Select the winner's NodeResourcesFit cell to see its formula.",
			Keys:     "n to run the attempt, 4 for Scores, j/k to node-2's row, h/l to the NodeResourcesFit column, m: raw/normalized/weighted, e to explain",
			Reached:  selects(viewScores, "NodeResourcesFit on node-2"),
			Hint:     "in the Scores view (4) select node-2's row and move with h/l to the NodeResourcesFit column",
			Plugin:   "NodeResourcesFit",
		},
		{
			ID: "totals", Title: "Weights and totals", Scenario: "06-totals.yaml",
			Question: "node-2 has no taint: TaintToleration rates it 0 (raw). How many points does that add to node-2's total?",
			Keys:     "n to run the attempt, 4 for Scores, m: raw → normalized → weighted, l to the Taint×3 column, e to explain; then A and type the points",
			Answers:  []string{"300"},
			Reached:  func(s *lessonState) bool { return s.view(viewScores) },
			Hint:     "in Scores (4) press m until the cells are weighted and read node-2's Taint×3 cell: fewer untolerated taints normalize higher, then × the weight",
			Plugin:   "TaintToleration",
		},
		{
			ID: "antiaffinity", Title: "Pod anti-affinity", Scenario: "07-antiaffinity.yaml",
			Question: "default/db-1 must not share a node with another app=db pod. Which plugin filtered out node-2? Select its cell.",
			Keys:     "n to run the attempt, 3 for the Filter map (a: all columns), j/k to node-2's row, h/l to the ✗ column, e to explain",
			Reached:  selects(viewFilter, "InterPodAffinity on node-2"),
			Hint:     "in the Filter view (3) select node-2's row and the column that rejected it (a shows every column)",
			Plugin:   "InterPodAffinity",
		},
		{
			ID: "spread", Title: "Topology spread", Scenario: "08-spread.yaml",
			Question: "default/web-new lands in zone-b. Which plugin filtered out node-2, in zone-a? Select its cell.",
			Keys:     "n to run the attempt, 3 for the Filter map (a: all columns), j/k to node-2's row, h/l to the ✗ column, e to explain",
			Reached:  selects(viewFilter, "PodTopologySpread on node-2"),
			Hint:     "in the Filter view (3) select node-2's row and the column that rejected it (a shows every column)",
			Plugin:   "PodTopologySpread",
		},
		{
			ID: "volumes", Title: "Volumes", Scenario: "09-volumes.yaml",
			Question: "default/db's claim waits for its first consumer. Which plugin keeps it off the big node-2? Select its cell.",
			Keys:     "n to run the attempt, 3 for the Filter map (a: all columns), j/k to node-2's row, h/l to the ✗ column, e to explain",
			Reached:  selects(viewFilter, "VolumeBinding on node-2"),
			Hint:     "in the Filter view (3) select node-2's row and the column that rejected it (a shows every column)",
			Plugin:   "VolumeBinding",
		},
		{
			ID: "preemption", Title: "Preemption", Scenario: "10-preemption.yaml",
			Question: "default/urgent fits nowhere until a lower-priority pod goes. Which pod is the victim?",
			Keys:     "n to run the attempt, 5 for Preempt (candidates, victims, the nomination), e to explain; then A and type the victim's name",
			Answers:  []string{"default/batch", "batch"},
			Reached:  func(s *lessonState) bool { return s.view(viewPreempt) },
			Hint:     "run the attempt (n), open Preempt (5) and read the victims of the chosen node (★)",
		},
		{
			ID: "dra", Title: "Dynamic resources", Scenario: "11-dra.yaml",
			Question: "default/inference asks for an A100 first, else an L4. On which node does it get a device?",
			Keys:     "n until the header shows default/inference, 2 for its Pod view (the allocator's choice), 6 for Nodes' devices; then A and type the node",
			Answers:  []string{"gpu-b"},
			Reached:  func(s *lessonState) bool { return s.pod() == "default/inference" },
			Hint:     "press n until the attempt in the header is default/inference's, then read its verdict in the Pod view (2)",
			Plugin:   "DynamicResources",
		},
		{
			ID: "config", Title: "Configuration", Scenario: "12-config.yaml",
			Question: "Scored with MostAllocated instead of LeastAllocated, where would default/web go?",
			Keys:     "C, type demo-packing and enter (compare with the packing configuration), n to run both sides, 2 or 4 side by side; then A and type the node",
			Answers:  []string{"node-1"},
			Reached:  func(s *lessonState) bool { return s.c.Right != nil },
			Hint:     "compare first (C, demo-packing, enter), run the attempt (n) and read the right side's node in the Pod view (2)",
			Plugin:   "NodeResourcesFit",
		},
		{
			ID: "queuemoves", Title: "The queues' moves", Scenario: "13-queue-moves.yaml",
			Question: "A recording: default/big (3 cpu) and default/huge (16 cpu) fail on node-1 (2 cpu); node-1 gets a label at +200ms, node-2 (4 cpu) joins at +500ms. Which cluster event moves big out of the unschedulable pods?",
			Keys:     "n three times (big, huge, then big again: the clock runs on, replaying the changes), 7 for Events, j/k to big's move out of Unschedulable, e to explain (n once more: huge's 5-minute flush); then A and type the event",
			Answers:  []string{"NodeAdd"},
			Reached:  func(s *lessonState) bool { return s.movedOutOf("default/big", history.Unschedulable) != "" },
			Hint:     "run to big's second attempt (n, n, n), open Events (7) and read big's queue move from Unschedulable: its label in parentheses is the event whose queueing hint said Queue",
			Plugin:   "NodeResourcesFit",
		},
		{
			ID: "extenders", Title: "Extenders", Scenario: "14-extenders.yaml",
			Question: "Two extenders: one rejects and rates nodes by their labels, the other (ignorable) cannot be reached. How many points does the labels extender add to node-3's total for default/web?",
			Keys:     "n to run the attempt (the recorded answers replay: 7 and e on the attempt show each call), 3 for the Filter map (the extender's column), 4 for Scores, l to the extender's column, j/k to node-3, e to explain; then A and type the points",
			Answers:  []string{"160"},
			Reached:  selects(viewScores, lessonExtender+" on node-3"),
			Hint:     "in Scores (4) move with l to the column named " + lessonExtender + " and to node-3's row: the teaching pane (e) shows answer × weight × 10",
		},
		{
			ID: "ties", Title: "Score ties", Scenario: "15-ties.yaml",
			Question: "default/web goes to node-1, but another node has the same total. Select the tied node's row in Scores.",
			Keys:     "n to run the attempt, 4 for Scores (= marks the nodes tied at the top), j/k to the other tied row, e to explain",
			Reached: func(s *lessonState) bool {
				return s.view(viewScores) && strings.HasSuffix(s.selected, " on node-2")
			},
			Hint: "in Scores (4) compare the TOTAL column: the rows marked = share the top total; select the one that is not the winner (★)",
		},
		{
			ID: "gangs", Title: "Gangs and pod groups", Scenario: "16-gangs.yaml", FeatureGates: "GenericWorkload=true",
			Question: "default/trainer's five workers form a gang (minCount 5) and none is placed. What minCount would let the gang schedule?",
			Keys:     "n (one group cycle tries every worker), 2 for the Pod view: the group's verdict, its members × nodes and its proven hints; 1 shows the group's queue entry; then A and type the number",
			Answers:  []string{"4"},
			Reached:  func(s *lessonState) bool { return len(s.c.World.groups) > 0 },
			Hint:     "run the group cycle (n) and read the Pod view (2): the verdict counts the members placeable, and a hint says which minCount schedules the gang",
			Plugin:   "GangScheduling",
		},
	}
}

// lessonExtender is the extenders lesson's extender, as its recording
// names it.
const lessonExtender = "http://labels.extender.invalid"

// selects is the check that view v is active with the cell titled cell
// ("TaintToleration on node-2") selected.
func selects(v viewID, cell string) func(*lessonState) bool {
	return func(s *lessonState) bool { return s.view(v) && s.selected == cell }
}
