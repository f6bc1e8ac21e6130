package upstream

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedtui/schedtui/snapshot"
)

// Feasible builds a real kube-scheduler v1.37.1 over the cluster c as Run
// does, its informers listing every object at once (pending pods queued,
// and nominated from their
// status.nominatedNodeName, by upstream's own event handlers) and returns
// the nodes where the pending pod namespace/name passes Filter: the
// profile's RunPreFilterPlugins once (a PreFilter rejection means no node;
// its node set limits the nodes), then RunFilterPluginsWithNominatedPods on
// each node of the cache's snapshot, as findNodesThatPassFilters runs them
// but without stopping early. Nothing is scheduled. The nodes are sorted.
func Feasible(ctx context.Context, c *snapshot.Cluster, cfg *configv1.KubeSchedulerConfiguration, namespace, name string) (nodes []string, err error) {
	if c == nil {
		return nil, errors.New("upstream: nil cluster")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("upstream: panic while running the upstream scheduler: %v\n%s", r, debug.Stack())
		}
	}()
	h, err := start(ctx, c, cfg, nil, false, 1)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	cached, err := h.podLister.Pods(namespace).Get(name)
	if err != nil {
		return nil, fmt.Errorf("upstream: pod %s/%s: %w", namespace, name, err)
	}
	pod := cached.DeepCopy()
	fw, ok := h.sched.Profiles[pod.Spec.SchedulerName]
	if !ok {
		return nil, fmt.Errorf("upstream: no profile for scheduler name %q", pod.Spec.SchedulerName)
	}
	if err := h.sched.Cache.UpdateSnapshot(h.logger, h.snap); err != nil {
		return nil, fmt.Errorf("upstream: updating the snapshot: %w", err)
	}
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	preRes, st, _ := fw.RunPreFilterPlugins(h.ctx, state, pod)
	if !st.IsSuccess() {
		return nil, nil
	}
	infos, err := h.snap.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	for _, ni := range infos {
		n := ni.Node().Name
		if !preRes.AllNodes() && !preRes.NodeNames.Has(n) {
			continue
		}
		if fw.RunFilterPluginsWithNominatedPods(h.ctx, state, pod, ni).IsSuccess() {
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	return nodes, nil
}
