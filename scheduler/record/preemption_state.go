package record

import (
	"sort"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// PreemptionStateKey is the CycleState key under which DefaultPreemption
// leaves what it considered, for the recorder to pick up.
const PreemptionStateKey framework.StateKey = "schedtui.io/preemption-record"

// PreemptionState wraps a Preemption as CycleState data.
type PreemptionState struct {
	Preemption *Preemption
}

// Clone shares the record: it is written once, at the end of PostFilter.
func (p *PreemptionState) Clone() framework.StateData { return p }

// VictimNames lists the chosen candidate's victims, sorted.
func (p *Preemption) VictimNames() []string {
	if p == nil || p.Chosen < 0 || p.Chosen >= len(p.Candidates) {
		return nil
	}
	var out []string
	for _, v := range p.Candidates[p.Chosen].Victims {
		out = append(out, v.Pod)
	}
	sort.Strings(out)
	return out
}
