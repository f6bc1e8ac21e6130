// Package noderesources holds the resource plugins of the default profile:
// NodeResourcesFit (Filter on requests vs allocatable, plus the
// LeastAllocated / MostAllocated / RequestedToCapacityRatio scores) and
// NodeResourcesBalancedAllocation (score), as kube-scheduler v1.37.1 runs
// them, honouring the InPlacePodVerticalScaling, PodLevelResources and
// InPlacePodLevelResourcesVerticalScaling gates of the handle.
package noderesources

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is NodeResourcesFit's name.
	Name = names.NodeResourcesFit

	preFilterStateKey framework.StateKey = "PreFilter" + Name
	preScoreStateKey  framework.StateKey = "PreScore" + Name
)

// Fit rejects nodes without room for the pod's requests and scores nodes by
// the configured strategy.
type Fit struct {
	ignoredResources      sets.Set[string]
	ignoredResourceGroups sets.Set[string]
	scorer                *resourceAllocationScorer
	// gates are the resource gates; upstream's Fit scores without them
	// (its embedded scorer never receives them), so only Filter and the
	// queueing hints read them.
	gates framework.ResourceGates
	// dra maps DRA extended resources to DeviceClasses when
	// DRAExtendedResource is on; nil otherwise.
	dra DeviceClassResolver
	// request is the pod's request PreFilter last computed, for the next
	// pod of its shape.
	request framework.ShapeMemo[framework.Resource]
}

var (
	_ framework.PreFilterPlugin   = &Fit{}
	_ framework.FilterPlugin      = &Fit{}
	_ framework.PreScorePlugin    = &Fit{}
	_ framework.ScorePlugin       = &Fit{}
	_ framework.EnqueueExtensions = &Fit{}
)

// New is NodeResourcesFit's factory (same as NewFit).
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return NewFit(args, h)
}

// NewFit builds the plugin from *configv1.NodeResourcesFitArgs (nil means
// upstream's defaults: LeastAllocated over cpu and memory, weight 1).
func NewFit(obj runtime.Object, h framework.Handle) (framework.Plugin, error) {
	args, err := fitArgs(obj)
	if err != nil {
		return nil, err
	}
	sc, err := newStrategyScorer(args.ScoringStrategy)
	if err != nil {
		return nil, err
	}
	f := &Fit{
		ignoredResources:      sets.New(args.IgnoredResources...),
		ignoredResourceGroups: sets.New(args.IgnoredResourceGroups...),
		scorer:                sc,
		gates:                 framework.ResourceGatesOf(h.Features()),
	}
	if h.Features().EnableDRAExtendedResource {
		f.dra = h.Objects()
	}
	sc.dra = newDRAScoring(h)
	return f, nil
}

// Name returns the plugin name.
func (f *Fit) Name() string { return Name }

// preFilterState is the pod's request, computed once per cycle. It is never
// modified after PreFilter, so clones share it.
type preFilterState struct {
	framework.Resource
}

func (s *preFilterState) Clone() framework.StateData { return s }

// PreFilter computes the pod's request. It never skips: even a pod that
// requests nothing must pass the pod-count check.
func (f *Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	request := f.request.Get(state, func() framework.Resource {
		return *computePodResourceRequest(pod, f.gates.PodLevelResources)
	})
	state.Write(preFilterStateKey, &preFilterState{Resource: request})
	return nil, nil
}

// PreFilterExtensions is nil: the request does not depend on other pods.
func (f *Fit) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func getPreFilterState(state *framework.CycleState) (*preFilterState, error) {
	c, err := state.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("error reading %q from cycleState: %w", preFilterStateKey, err)
	}
	s, ok := c.(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("%+v  convert to NodeResourcesFit.preFilterState error", c)
	}
	return s, nil
}

// Filter keeps every insufficiency as a reason. The status is
// UnschedulableAndUnresolvable as soon as one resource cannot fit even on
// the empty node, which tells preemption not to try this node.
func (f *Fit) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if nodeInfo == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	insufficient := fitsRequest(&s.Resource, nodeInfo, f.ignoredResources, f.ignoredResourceGroups, f.dra)
	if len(insufficient) == 0 {
		return nil
	}
	code := framework.Unschedulable
	reasons := make([]string, 0, len(insufficient))
	for _, r := range insufficient {
		reasons = append(reasons, r.Reason)
		if r.Unresolvable {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// NodeLocal: Filter reads the pod's requests and the node's NodeInfo (a
// DRA-backed extended resource, which reads the cluster's DeviceClasses,
// is only ever requested by pods the verdict memo does not take), and
// the scores are node-local unless a scoring resource may be DRA-backed.
func (f *Fit) NodeLocal() bool { return f.scorer.nodeLocal() }
