package tui

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
			ID: "filter", Title: "Filter", Scenario: "02-filter.yaml",
			Question: "default/api fits no node. Which Filter plugin rejects node-2? Select its cell.",
			Keys:     "n to run the attempt, 3 for the Filter map, j/k to node-2's row, h/l to the ✗ column (f: every plugin's verdict), e to explain",
			Reached: func(s *lessonState) bool {
				return s.view(viewFilter) && s.selected == "TaintToleration on node-2"
			},
			Hint:   "in the Filter view (3) select node-2's row and move with h/l to the column marked ✗",
			Plugin: "TaintToleration",
		},
	}
}
