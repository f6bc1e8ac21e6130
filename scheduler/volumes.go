package scheduler

import (
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/volumebinding"
)

// applyVolumeDecision writes what VolumeBinding's PreBind decided, playing
// the PV controller too: pre-bound claims and volumes end up Bound, claims
// to provision carry the selected-node annotation (no provisioner runs in
// schedtui, so they stay pending until a recording says otherwise).
// New objects replace the stored ones; the plugin's assume cache relies on
// that to see its assumptions confirmed.
func (s *Scheduler) applyVolumeDecision(state *framework.CycleState) {
	d := volumebinding.DecisionFromState(state)
	if d == nil {
		return
	}
	pvs, pvcs := d.BoundObjects()
	for _, pv := range pvs {
		s.objects.Add(pv)
	}
	for _, pvc := range pvcs {
		s.objects.Add(pvc)
	}
	for _, pvc := range d.Provisions {
		s.objects.Add(pvc)
	}
}
