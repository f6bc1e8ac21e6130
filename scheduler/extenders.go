package scheduler

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/extender"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
	"github.com/schedtui/schedtui/scheduler/record"
)

// ignoreExtendedResources is the second half of upstream's buildExtenders:
// the extended resources extenders manage with ignoredByScheduler replace
// NodeResourcesFit's ignoredResources in the profile (the user's list is
// overwritten, ignoredResourceGroups kept). A profile without
// NodeResourcesFit args gets the defaulted ones, which is what upstream's
// defaulting would have put there. The caller's configuration is not
// changed.
func ignoreExtendedResources(p *configv1.KubeSchedulerProfile, ignored []string, gates features.Features) {
	if len(ignored) == 0 {
		return
	}
	pcs := append([]configv1.PluginConfig(nil), p.PluginConfig...)
	for i := range pcs {
		if pcs[i].Name != names.NodeResourcesFit {
			continue
		}
		args, ok := pcs[i].Args.Object.(*configv1.NodeResourcesFitArgs)
		if !ok || args == nil {
			// Left as it is: the plugin refuses it with upstream's error.
			p.PluginConfig = pcs
			return
		}
		args = args.DeepCopy()
		args.IgnoredResources = append([]string(nil), ignored...)
		pcs[i].Args = runtime.RawExtension{Object: args}
		p.PluginConfig = pcs
		return
	}
	args := &configv1.NodeResourcesFitArgs{}
	config.SetPluginArgsDefaults(args, gates)
	args.IgnoredResources = append([]string(nil), ignored...)
	p.PluginConfig = append(pcs, configv1.PluginConfig{Name: names.NodeResourcesFit, Args: runtime.RawExtension{Object: args}})
}

// Extenders are the configuration's extenders in the order the cycle
// calls them (ignorable ones last).
func (s *Scheduler) Extenders() []framework.Extender { return s.frameworkExtenders }

func (s *Scheduler) hasExtenderFilters() bool {
	for _, e := range s.extenders {
		if e.IsFilter() {
			return true
		}
	}
	return false
}

func (s *Scheduler) hasExtenderPrioritizers() bool {
	for _, e := range s.extenders {
		if e.IsPrioritizer() {
			return true
		}
	}
	return false
}

// takeExtenderCalls moves the calls the attempt made to extenders into its
// record.
func (s *Scheduler) takeExtenderCalls(a *record.Attempt) {
	for _, e := range s.extenders {
		a.ExtenderCalls = append(a.ExtenderCalls, e.TakeCalls()...)
	}
}

// findNodesThatPassExtenders is upstream's: each interested filter
// extender in turn narrows the feasible nodes; an error fails the cycle
// unless the extender is ignorable; the nodes it rejects get its message
// as their status (FailedAndUnresolvable first), with no plugin, as
// upstream's; rec notes which extender rejected them, for the record. A
// node dropped without an entry gets no status.
func (s *Scheduler) findNodesThatPassExtenders(pod *v1.Pod, feasible []*framework.NodeInfo, statuses *framework.NodeToStatus, rec *recorder) ([]*framework.NodeInfo, error) {
	for _, e := range s.extenders {
		if len(feasible) == 0 {
			break
		}
		if !e.IsInterested(pod) {
			continue
		}
		kept, failed, unresolvable, err := e.Filter(pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				continue
			}
			return nil, err
		}
		for name, msg := range unresolvable {
			statuses.Set(name, framework.NewStatus(framework.UnschedulableAndUnresolvable, msg))
			rec.rejectedByExtender(name, e.Name())
		}
		for name, msg := range failed {
			if _, both := unresolvable[name]; both {
				continue
			}
			statuses.Set(name, framework.NewStatus(framework.Unschedulable, msg))
			rec.rejectedByExtender(name, e.Name())
		}
		feasible = kept
	}
	return feasible, nil
}

// addExtenderScores is the extenders' half of upstream's prioritizeNodes:
// every interested extender scores the nodes (an error only loses its
// scores, whatever ignorable says); each answer adds score × weight × 10
// to the node's total, and every node that got an answer draws a random
// tie-breaker. The extenders run one after the other here (upstream runs
// them in goroutines and adds in completion order; the sums are the same).
func (s *Scheduler) addExtenderScores(pod *v1.Pod, nodes []*framework.NodeInfo, scores []framework.NodePluginScores) []record.ScoreColumn {
	if len(s.extenders) == 0 || nodes == nil {
		return nil
	}
	total := map[string]int64{}
	var cols []record.ScoreColumn
	for _, e := range s.extenders {
		if !e.IsInterested(pod) {
			continue
		}
		list, weight, err := e.Prioritize(pod, nodes)
		if err != nil {
			continue
		}
		col := map[string]int64{}
		for _, hp := range *list {
			final := hp.Score * weight * (framework.MaxNodeScore / extenderv1.MaxExtenderPriority)
			total[hp.Host] += final
			col[hp.Host] += hp.Score
		}
		if e.IsPrioritizer() {
			c := record.ScoreColumn{Plugin: e.Name(), Weight: int32(weight * (framework.MaxNodeScore / extenderv1.MaxExtenderPriority)), Extender: true}
			for _, ni := range nodes {
				c.AppendScore(col[ni.Name()])
			}
			cols = append(cols, c)
		}
	}
	for i := range scores {
		if t, ok := total[nodes[i].Name()]; ok {
			scores[i].TotalScore += t
			scores[i].Randomizer = s.rand.Int()
		}
	}
	return cols
}

// bindThroughExtenders is upstream's extendersBinding: the first
// interested binder extender binds the pod (an ignorable one that fails
// hands over to the next, then to the Bind plugins). Only with a real
// cluster to bind in (--bind): otherwise no binding leaves schedtui, and
// the Bind plugins bind in memory.
func (s *Scheduler) bindThroughExtenders(_ context.Context, pod *v1.Pod, node string) (bool, error) {
	if s.hooks.extenderBinding == nil || !s.hooks.extenderBinding() {
		return false, nil
	}
	for _, e := range s.extenders {
		if !e.IsBinder() || !e.IsInterested(pod) {
			continue
		}
		err := e.Bind(&v1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			Target:     v1.ObjectReference{Kind: "Node", Name: node},
		})
		if err != nil && e.IsIgnorable() {
			continue
		}
		if err == nil && s.hooks.extenderBound != nil {
			s.hooks.extenderBound(pod, node)
		}
		return true, err
	}
	return false, nil
}

// buildExtenders makes the clients of the configuration's extenders.
func buildExtenders(cfgs []configv1.Extender) ([]*extender.HTTPExtender, []framework.Extender, []string, error) {
	exts, ignored, err := extender.Build(cfgs)
	if err != nil {
		return nil, nil, nil, err
	}
	fe := make([]framework.Extender, len(exts))
	for i, e := range exts {
		fe[i] = e
	}
	return exts, fe, ignored, nil
}

// noteExtenderRejections adds the Extender pseudo-plugin to the pod's
// unschedulable plugins when the extenders shrank the feasible list.
func noteExtenderRejections(before, after int, d *framework.Diagnosis) {
	if before == after {
		return
	}
	if d.UnschedulablePlugins == nil {
		d.UnschedulablePlugins = sets.New[string]()
	}
	d.UnschedulablePlugins.Insert(framework.ExtenderName)
}

// checkExtenderNodes refuses nodes an extender returned that the cluster
// does not have. Upstream would go on and score such a node (a NodeInfo
// made from the returned Node, see HTTPExtender.Filter); schedtui's record
// has no place for a node outside the cluster, so the attempt fails with
// this error instead of quietly leaving the node out.
func (s *Scheduler) checkExtenderNodes(nodes []*framework.NodeInfo) error {
	if len(s.extenders) == 0 {
		// Every node came from the snapshot, whose nodes the node list
		// names.
		return nil
	}
	for _, ni := range nodes {
		if s.nodeList.Index(ni.Name()) < 0 {
			return fmt.Errorf("an extender returned node %q, which is not in the cluster; schedtui cannot simulate scheduling onto it", ni.Name())
		}
	}
	return nil
}

// PassExtenders keeps the nodes (names, in the order given) that the
// extenders' Filter keeps for pod, as the cycle asks them after the Filter
// plugins: hints are proven with it. An extender that fails and is not
// ignorable is an error. The calls are not part of any attempt's record.
func (s *Scheduler) PassExtenders(pod *v1.Pod, nodes []string) ([]string, error) {
	if len(s.extenders) == 0 {
		return nodes, nil
	}
	infos := make([]*framework.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		if ni, err := s.snapshot.Get(n); err == nil {
			infos = append(infos, ni)
		}
	}
	kept, err := s.findNodesThatPassExtenders(pod, infos, framework.NewDefaultNodeToStatus(), nil)
	s.takeExtenderCalls(&record.Attempt{})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(kept))
	for i, ni := range kept {
		out[i] = ni.Name()
	}
	return out, nil
}
