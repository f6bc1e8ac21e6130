package upstream

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// extenderRecorder wraps one of upstream's HTTPExtenders: every call goes
// to it unchanged, and what Filter and Prioritize answered is kept,
// because SchedulePod returns neither on success (the rejected nodes and
// the extender's scores are needed to render the attempt).
type extenderRecorder struct {
	fwk.Extender

	mu          sync.Mutex
	filters     []extenderFilter
	prioritized []extenderScores
}

type extenderFilter struct {
	failed, unresolvable extenderv1.FailedNodesMap
}

type extenderScores struct {
	list   extenderv1.HostPriorityList
	weight int64
}

func (r *extenderRecorder) Filter(pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	kept, failed, unresolvable, err := r.Extender.Filter(pod, nodes)
	if err == nil {
		r.mu.Lock()
		r.filters = append(r.filters, extenderFilter{failed: failed, unresolvable: unresolvable})
		r.mu.Unlock()
	}
	return kept, failed, unresolvable, err
}

func (r *extenderRecorder) Prioritize(pod *v1.Pod, nodes []fwk.NodeInfo) (*extenderv1.HostPriorityList, int64, error) {
	list, weight, err := r.Extender.Prioritize(pod, nodes)
	if err == nil && r.IsPrioritizer() {
		r.mu.Lock()
		r.prioritized = append(r.prioritized, extenderScores{list: append(extenderv1.HostPriorityList(nil), (*list)...), weight: weight})
		r.mu.Unlock()
	}
	return list, weight, err
}

func (r *extenderRecorder) reset() {
	r.mu.Lock()
	r.filters, r.prioritized = nil, nil
	r.mu.Unlock()
}

// hookExtenders puts a recorder around each of the scheduler's extenders
// (the frameworks share the slice, so preemption sees them too).
func (h *harness) hookExtenders() {
	for i, e := range h.sched.Extenders {
		r := &extenderRecorder{Extender: e}
		h.sched.Extenders[i] = r
		h.extenders = append(h.extenders, r)
	}
}

// applyExtenderFilters sets the statuses the extenders' Filter answers
// gave, in call order, as findNodesThatPassExtenders sets them.
func (h *harness) applyExtenderFilters(nts *framework.NodeToStatus) {
	for _, r := range h.extenders {
		r.mu.Lock()
		for _, f := range r.filters {
			for name, msg := range f.unresolvable {
				nts.Set(name, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg))
			}
			for name, msg := range f.failed {
				if _, both := f.unresolvable[name]; !both {
					nts.Set(name, fwk.NewStatus(fwk.Unschedulable, msg))
				}
			}
		}
		r.mu.Unlock()
	}
}

// extenderRejections maps each node an extender's Filter rejected in this
// cycle to that extender's name (its URL prefix).
func (h *harness) extenderRejections() map[string]string {
	by := map[string]string{}
	for _, r := range h.extenders {
		r.mu.Lock()
		for _, f := range r.filters {
			for _, m := range []extenderv1.FailedNodesMap{f.failed, f.unresolvable} {
				for name := range m {
					by[name] = r.Name()
				}
			}
		}
		r.mu.Unlock()
	}
	return by
}

// extenderScores returns, per extender that prioritized (named by its URL
// prefix), each node's raw score (duplicates added) and the extender's
// weight × MaxNodeScore/MaxExtenderPriority, as prioritizeNodes scales it.
func (h *harness) extenderScores() (names []string, raw []map[string]int64, weights []int64) {
	for _, r := range h.extenders {
		r.mu.Lock()
		for _, p := range r.prioritized {
			m := map[string]int64{}
			for _, hp := range p.list {
				m[hp.Host] += hp.Score
			}
			names = append(names, r.Name())
			raw = append(raw, m)
			weights = append(weights, p.weight*(fwk.MaxNodeScore/extenderv1.MaxExtenderPriority))
		}
		r.mu.Unlock()
	}
	return names, raw, weights
}
