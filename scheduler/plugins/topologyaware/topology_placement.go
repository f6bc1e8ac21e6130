// Package topologyaware is upstream's TopologyPlacementGenerator
// (TopologyAwareWorkloadScheduling): a pod group with a topology
// constraint is tried on one placement per domain of the constraint's key
// (nodes without the label take no part); once some of its pods are
// scheduled (with CompositePodGroup, some pods of its hierarchy), only
// their domain.
package topologyaware

import (
	"context"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.TopologyPlacementGenerator

// TopologyPlacement generates the placements of topology domains.
type TopologyPlacement struct {
	handle framework.Handle
}

var _ framework.PlacementGeneratePlugin = &TopologyPlacement{}

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &TopologyPlacement{handle: h}, nil
}

// Name returns the plugin's name.
func (pl *TopologyPlacement) Name() string { return Name }

// GeneratePlacements splits the parent placement by the group's first
// topology key. Upstream lists the domains in Go map order; schedtui
// sorts them by name so that runs are reproducible (the placement scorers
// pick among them; equal scores are a tie upstream breaks at random).
func (pl *TopologyPlacement) GeneratePlacements(_ context.Context, _ *framework.CycleState, group *framework.PodGroupInfo, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	key, ok := topologyKey(group)
	if !ok {
		return []*framework.Placement{parent}, nil
	}
	var required *string
	scheduled, err := framework.ScheduledPodsOfGroup(pl.handle, group)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(scheduled) > 0 {
		domain, err := pl.scheduledDomain(key, scheduled)
		if err != nil {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: %w", err))
		}
		required = &domain
	}
	byDomain := map[string][]*framework.NodeInfo{}
	for _, ni := range parent.Nodes {
		if domain, ok := ni.Node().Labels[key]; ok && (required == nil || *required == domain) {
			byDomain[domain] = append(byDomain[domain], ni)
		}
	}
	domains := make([]string, 0, len(byDomain))
	for d := range byDomain {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	placements := make([]*framework.Placement, 0, len(domains))
	for _, d := range domains {
		placements = append(placements, &framework.Placement{Name: d, Nodes: byDomain[d]})
	}
	return placements, nil
}

// scheduledDomain is the one domain of the group's scheduled pods.
func (pl *TopologyPlacement) scheduledDomain(key string, pods []*v1.Pod) (string, error) {
	found := ""
	for _, pod := range pods {
		ni, err := pl.handle.Snapshot().Get(pod.Spec.NodeName)
		if err != nil {
			return "", fmt.Errorf("getting node for pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		domain, ok := ni.Node().Labels[key]
		if !ok {
			return "", fmt.Errorf("no topology domain found for pod %s/%s", pod.Namespace, pod.Name)
		}
		if found != "" && found != domain {
			return "", fmt.Errorf("more than 1 domain found for pod group: %v, %v", found, domain)
		}
		found = domain
	}
	return found, nil
}

// topologyKey is the group's first topology constraint's key: a
// PodGroup's or a CompositePodGroup's.
func topologyKey(group *framework.PodGroupInfo) (string, bool) {
	if pg := group.PodGroup; pg != nil {
		if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
			return c.Topology[0].Key, true
		}
	} else if cpg := group.CompositePodGroup; cpg != nil {
		if c := cpg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
			return c.Topology[0].Key, true
		}
	}
	return "", false
}
