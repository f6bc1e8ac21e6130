// Package nodedeclaredfeatures is upstream's NodeDeclaredFeatures plugin:
// a pod whose spec needs a node feature (as inferred by
// k8s.io/component-helpers/nodedeclaredfeatures) only fits nodes listing
// that feature in status.declaredFeatures. With the NodeDeclaredFeatures
// gate off (before 1.37) the plugin is not in the default set, and if a
// profile enables it anyway it does nothing: PreFilter Skips, Filter
// passes and it registers no events, as upstream.
package nodedeclaredfeatures

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.NodeDeclaredFeatures
	// ErrReasonUnsatisfiedRequirements is upstream's Filter reason.
	ErrReasonUnsatisfiedRequirements = "node(s) didn't match Pod's required features"

	preFilterStateKey framework.StateKey = "PreFilter" + Name
)

// schedulerVersion stands in for the kube-scheduler binary version that
// upstream passes to inference: a feature whose MaxVersion is below it is
// no longer required. No registered feature has a MaxVersion in 1.37, so
// only the presence of a version matters today.
var schedulerVersion = version.MustParseSemantic("v1.37.1")

// NodeDeclaredFeatures matches pod feature requirements to nodes.
type NodeDeclaredFeatures struct {
	features *ndf.Framework
	version  *version.Version
	// enabled is the NodeDeclaredFeatures gate.
	enabled bool
}

var (
	_ framework.PreFilterPlugin   = &NodeDeclaredFeatures{}
	_ framework.FilterPlugin      = &NodeDeclaredFeatures{}
	_ framework.EnqueueExtensions = &NodeDeclaredFeatures{}
)

// New is the plugin's factory; it takes no args and uses the library's
// default feature registry.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &NodeDeclaredFeatures{features: ndf.DefaultFramework, version: schedulerVersion, enabled: h.Features().EnableNodeDeclaredFeatures}, nil
}

// Name returns the plugin's name.
func (pl *NodeDeclaredFeatures) Name() string { return Name }

type preFilterState struct {
	reqs ndf.FeatureSet
}

// Clone shares the state: other pods never change it.
func (s *preFilterState) Clone() framework.StateData { return s }

// requirements infers from the pod's spec only, as upstream does: the
// status is deliberately not passed (it is not final before binding).
func (pl *NodeDeclaredFeatures) requirements(pod *v1.Pod) (ndf.FeatureSet, error) {
	return pl.features.InferForPodScheduling(&ndf.PodInfo{Spec: &pod.Spec}, pl.version)
}

// PreFilter Skips pods that need no feature.
func (pl *NodeDeclaredFeatures) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !pl.enabled {
		return nil, framework.NewStatus(framework.Skip)
	}
	reqs, err := pl.requirements(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if reqs.IsEmpty() {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(preFilterStateKey, &preFilterState{reqs: reqs})
	return nil, nil
}

// PreFilterExtensions: the state does not depend on other pods.
func (pl *NodeDeclaredFeatures) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter requires every inferred feature in the node's declared features.
// The node's list is mapped with TryMap, which expects it sorted (the
// kubelet publishes it sorted) and silently drops names it does not know,
// exactly as the upstream NodeInfo does.
func (pl *NodeDeclaredFeatures) Filter(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !pl.enabled {
		return nil
	}
	s, err := getPreFilterState(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	match, err := s.reqs.IsSubset(pl.features.TryMap(nodeInfo.DeclaredFeatures))
	if err != nil {
		return framework.AsStatus(err)
	}
	if !match {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnsatisfiedRequirements)
	}
	return nil
}

func getPreFilterState(cs *framework.CycleState) (*preFilterState, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	c, err := cs.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("error reading %q from cycle-state: %w", preFilterStateKey, err)
	}
	s, ok := c.(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("invalid PreFilter state, got type %T, expected %T", c, &preFilterState{})
	}
	return s, nil
}
