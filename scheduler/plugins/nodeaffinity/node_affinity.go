// Package nodeaffinity is upstream's NodeAffinity plugin: Filter on the
// pod's nodeSelector and required node affinity (plus the profile's
// scheduler-enforced addedAffinity), Score on preferred node affinity.
package nodeaffinity

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.NodeAffinity
	// ErrReasonPod is the Filter reason when nodeSelector or required node
	// affinity does not match.
	ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonEnforced is the Filter reason when addedAffinity does not match.
	ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ErrReasonConflict is the PreFilter reason when the metadata.name
	// matchFields of the required terms leave no node at all.
	ErrReasonConflict = "pod affinity terms conflict"

	preFilterStateKey framework.StateKey = "PreFilter" + Name
	preScoreStateKey  framework.StateKey = "PreScore" + Name
)

// NodeAffinity matches pods to node labels and names.
type NodeAffinity struct {
	addedNodeSelector   *nodeaffinity.NodeSelector
	addedPrefSchedTerms *nodeaffinity.PreferredSchedulingTerms
}

var (
	_ framework.PreFilterPlugin   = &NodeAffinity{}
	_ framework.FilterPlugin      = &NodeAffinity{}
	_ framework.PreScorePlugin    = &NodeAffinity{}
	_ framework.ScorePlugin       = &NodeAffinity{}
	_ framework.ScoreExtensions   = &NodeAffinity{}
	_ framework.EnqueueExtensions = &NodeAffinity{}
)

// New takes *configv1.NodeAffinityArgs (nil: no added affinity). An
// addedAffinity that does not parse is an error, as in upstream's
// validation, with the same field paths.
func New(args runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	var added *v1.NodeAffinity
	switch a := args.(type) {
	case nil:
	case *configv1.NodeAffinityArgs:
		if a != nil {
			added = a.AddedAffinity
		}
	default:
		return nil, fmt.Errorf("args are not of type NodeAffinityArgs, got %T", args)
	}
	pl := &NodeAffinity{}
	if added == nil {
		return pl, nil
	}
	if err := validation.ValidateNodeAffinityArgs(nil, &configv1.NodeAffinityArgs{AddedAffinity: added}).ToAggregate(); err != nil {
		return nil, err
	}
	var err error
	if ns := added.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		if pl.addedNodeSelector, err = nodeaffinity.NewNodeSelector(ns); err != nil {
			return nil, fmt.Errorf("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: %w", err)
		}
	}
	if terms := added.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) != 0 {
		if pl.addedPrefSchedTerms, err = nodeaffinity.NewPreferredSchedulingTerms(terms); err != nil {
			return nil, fmt.Errorf("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: %w", err)
		}
	}
	return pl, nil
}

// Name returns the plugin's name.
func (pl *NodeAffinity) Name() string { return Name }

type preFilterState struct {
	requiredNodeSelectorAndAffinity nodeaffinity.RequiredNodeAffinity
}

// Clone shares the state: other pods never change it.
func (s *preFilterState) Clone() framework.StateData { return s }

// requiredTerms is nil when the pod has no required node affinity; a
// present but empty selector is returned as-is because it still matches
// no node.
func requiredTerms(pod *v1.Pod) *v1.NodeSelector {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// PreFilter Skips when there is nothing to enforce: no required node
// affinity, no addedAffinity and a nil nodeSelector (an empty but non-nil
// nodeSelector does not Skip, though it matches every node).
//
// When every required term pins metadata.name with In, the union of the
// terms' names (each term intersecting its own In lists) becomes the
// PreFilterResult; an empty union is the "pod affinity terms conflict"
// rejection. A single term without such a requirement leaves all nodes in
// play, since terms are ORed.
func (pl *NodeAffinity) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	required := requiredTerms(pod)
	if required == nil && pl.addedNodeSelector == nil && pod.Spec.NodeSelector == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(preFilterStateKey, &preFilterState{requiredNodeSelectorAndAffinity: nodeaffinity.GetRequiredNodeAffinity(pod)})

	if required == nil || len(required.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	var nodeNames sets.Set[string]
	for _, term := range required.NodeSelectorTerms {
		var termNames sets.Set[string]
		for _, r := range term.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != v1.NodeSelectorOpIn {
				continue
			}
			s := sets.New(r.Values...)
			if termNames == nil {
				termNames = s
			} else {
				termNames = termNames.Intersection(s)
			}
		}
		if termNames == nil {
			return nil, nil
		}
		// Union of a nil set yields a non-nil one, so after the first term
		// nodeNames is non-nil even when empty: that is the conflict case.
		nodeNames = nodeNames.Union(termNames)
	}
	if nodeNames != nil && len(nodeNames) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	if len(nodeNames) > 0 {
		return &framework.PreFilterResult{NodeNames: nodeNames}, nil
	}
	return nil, nil
}

// PreFilterExtensions: the state does not depend on other pods.
func (pl *NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks addedAffinity first (its own reason), then nodeSelector and
// required node affinity together. Terms that fail to parse are ignored
// rather than reported, as upstream does for backward compatibility: such
// a term simply matches nothing.
func (pl *NodeAffinity) Filter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	if pl.addedNodeSelector != nil && !pl.addedNodeSelector.Match(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonEnforced)
	}
	s, err := getPreFilterState(cs)
	if err != nil {
		// PreFilter did not run (e.g. preemption on a state without it).
		s = &preFilterState{requiredNodeSelectorAndAffinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
	}
	if match, _ := s.requiredNodeSelectorAndAffinity.Match(node); !match {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

func getPreFilterState(cs *framework.CycleState) (*preFilterState, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	c, err := cs.Read(preFilterStateKey)
	if err != nil {
		return nil, fmt.Errorf("reading %q from cycleState: %v", preFilterStateKey, err)
	}
	s, ok := c.(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("invalid PreFilter state, got type %T", c)
	}
	return s, nil
}

// NodeLocal: Filter and Score read the pod's node selector and node
// affinity, the plugin's addedAffinity and the node's labels and fields.
func (pl *NodeAffinity) NodeLocal() bool { return true }
