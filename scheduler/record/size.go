package record

import "unsafe"

// RetainedBytes estimates the memory an Attempt keeps alive: its own
// struct and everything it owns (slices at capacity, strings). The node
// list is shared between attempts and not counted.
func (a *Attempt) RetainedBytes() int {
	n := int(unsafe.Sizeof(*a))
	n += len(a.Pod) + len(a.PodUID) + len(a.Profile) + len(a.Node) + len(a.Message) + len(a.Nominated)
	n += stringsBytes(a.Victims) + stringsBytes(a.UnschedulablePlugins) + stringsBytes(a.PendingPlugins)
	for i := range a.Phases {
		n += len(a.Phases[i].Plugin) + len(a.Phases[i].Message)
	}
	n += cap(a.PreFilterNarrowed) * 4
	n += cap(a.Statuses) * int(unsafe.Sizeof(Status{}))
	for _, s := range a.Statuses {
		n += len(s.Plugin) + stringsBytes(s.Reasons)
	}
	n += cap(a.Rejected) * int(unsafe.Sizeof(NodeStatus{}))
	n += cap(a.Feasible) * 4
	n += cap(a.Scores) * int(unsafe.Sizeof(ScoreColumn{}))
	for _, c := range a.Scores {
		n += len(c.Plugin) + cap(c.Raw) + cap(c.Normalized)
	}
	if p := a.Preemption; p != nil {
		n += int(unsafe.Sizeof(*p)) + len(p.Reason) + len(p.DecidedBy) + stringsBytes(p.Tied) + stringsBytes(p.NominatedPodsCleared)
		for _, c := range p.Candidates {
			n += int(unsafe.Sizeof(c)) + len(c.Node)
			for _, v := range c.Victims {
				n += int(unsafe.Sizeof(v)) + len(v.Pod) + stringsBytes(v.PDBs) + len(v.Node) + len(v.Group)
			}
		}
	}
	n += cap(a.ExtenderCalls) * int(unsafe.Sizeof(ExtenderCall{}))
	for _, c := range a.ExtenderCalls {
		n += len(c.Extender) + len(c.Verb) + len(c.Error) + len(c.Response) + stringsBytes(c.Passed)
		n += mapBytes(c.Failed) + mapBytes(c.FailedAndUnresolvable) + len(c.Scores)*24
	}
	return n
}

// mapBytes estimates a string map's keys and values.
func mapBytes(m map[string]string) int {
	n := 0
	for k, v := range m {
		n += len(k) + len(v) + 2*int(unsafe.Sizeof(""))
	}
	return n
}

// EvaluatedNodes counts the nodes the attempt's Filter looked at.
func (a *Attempt) EvaluatedNodes() int { return len(a.Feasible) + len(a.Rejected) }

func stringsBytes(ss []string) int {
	n := cap(ss) * int(unsafe.Sizeof(""))
	for _, s := range ss {
		n += len(s)
	}
	return n
}
