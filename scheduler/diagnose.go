package scheduler

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Diagnose runs every Filter plugin on every node for pod, against the
// current state, without changing it. Each cell is the plugin's verdict as
// the two-pass nominated-pod check would give it: with higher-or-equal
// priority nominated pods on the node, and, where that passes, without.
func (s *Scheduler) Diagnose(pod *v1.Pod) (*record.FullDiagnosis, error) {
	fwk := s.profiles[pod.Spec.SchedulerName]
	if fwk == nil {
		return nil, fmt.Errorf("no profile for scheduler name %q", pod.Spec.SchedulerName)
	}
	ctx := s.ctx()
	plugins := fwk.FilterPluginNames()
	d := &record.FullDiagnosis{
		Pod: pod.Namespace + "/" + pod.Name, Nodes: s.nodeList, Plugins: plugins,
		SkippedPlugins: make([]bool, len(plugins)), Narrowed: make([]bool, len(s.nodeList.Names)),
	}
	// Interning nil first makes status 0 Success.
	rec := &recorder{a: &record.Attempt{}, index: map[string]uint16{}}
	rec.intern(nil)
	state := framework.NewCycleState()
	preRes, st, _ := fwk.RunPreFilterPlugins(ctx, state, pod)
	d.PreFilter = record.PhaseStatus{Code: record.Code(st.Code()), Plugin: st.Plugin(), Message: st.Message()}
	if !st.IsSuccess() {
		d.Statuses = rec.a.Statuses
		return d, nil
	}
	for i, name := range plugins {
		d.SkippedPlugins[i] = state.SkipFilterPlugins.Has(name)
	}
	d.Cells = make([]uint16, len(s.nodeList.Names)*len(plugins))
	for n, ni := range s.snapshot.List() {
		d.Narrowed[n] = !preRes.AllNodes() && !preRes.NodeNames.Has(ni.Name())
		_, stateWith, niWith, err := fwk.AddNominatedPods(ctx, pod, state, ni)
		if err != nil {
			return nil, err
		}
		with := fwk.RunFilterPluginsEach(ctx, stateWith, pod, niWith)
		var without []*framework.Status
		if niWith != ni {
			without = fwk.RunFilterPluginsEach(ctx, state, pod, ni)
		}
		for p := range plugins {
			cell := with[p]
			if cell.IsSuccess() && without != nil {
				cell = without[p]
			}
			if cell.IsSkip() {
				cell = nil
			}
			d.Cells[n*len(plugins)+p] = rec.intern(cell)
		}
	}
	d.Statuses = rec.a.Statuses
	return d, nil
}
