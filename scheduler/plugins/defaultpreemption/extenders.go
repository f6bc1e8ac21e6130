package defaultpreemption

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// callExtenders is upstream's Evaluator.callExtenders, after the dry run:
// each interested extender with a preempt verb gets the candidates and
// their victims and answers the ones it keeps (its answer replaces the
// map, and may change or add victims). An error fails preemption unless
// the extender is ignorable; a node left without victims too, or, for an
// ignorable extender, is dropped. Upstream rebuilds the candidates in Go
// map order; schedtui keeps the dry run's order, then the nodes the
// extenders added by name, so that runs are reproducible (pick.go records
// the ties this leaves).
func (pl *DefaultPreemption) callExtenders(exts []framework.Extender, pod *v1.Pod, cands []*candidate) ([]*candidate, *framework.Status) {
	victims := make(map[string]*extenderv1.Victims, len(cands))
	order := make([]string, 0, len(cands))
	for _, c := range cands {
		if _, dup := victims[c.node]; dup {
			continue
		}
		victims[c.node] = &extenderv1.Victims{Pods: c.victims, NumPDBViolations: int64(c.pdbViolations)}
		order = append(order, c.node)
	}
	if len(victims) == 0 {
		return cands, nil
	}
	for _, e := range exts {
		if !e.SupportsPreemption() || !e.IsInterested(pod) {
			continue
		}
		kept, err := e.ProcessPreemption(pod, victims, pl.h.Snapshot())
		if err != nil {
			if e.IsIgnorable() {
				continue
			}
			return nil, framework.AsStatus(err)
		}
		// Upstream looks at the nodes in Go map order, so which node an
		// error names is random there; schedtui looks in name order.
		nodes := make([]string, 0, len(kept))
		for node := range kept {
			nodes = append(nodes, node)
		}
		sort.Strings(nodes)
		for _, node := range nodes {
			if v := kept[node]; v == nil || len(v.Pods) == 0 {
				if e.IsIgnorable() {
					delete(kept, node)
					continue
				}
				return nil, framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", node))
			}
		}
		victims = kept
		if len(victims) == 0 {
			break
		}
	}
	var added []string
	known := map[string]bool{}
	for _, n := range order {
		known[n] = true
	}
	for n := range victims {
		if !known[n] {
			added = append(added, n)
		}
	}
	sort.Strings(added)
	out := make([]*candidate, 0, len(victims))
	for _, n := range append(order, added...) {
		if v, ok := victims[n]; ok {
			out = append(out, &candidate{node: n, victims: v.Pods, pdbViolations: int(v.NumPDBViolations)})
		}
	}
	return out, nil
}
