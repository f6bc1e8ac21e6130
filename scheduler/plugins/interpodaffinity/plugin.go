// Package interpodaffinity is kube-scheduler v1.37's InterPodAffinity
// plugin: required pod (anti-)affinity as a Filter and preferred pod
// (anti-)affinity, plus existing pods' terms, as a Score. The
// InterPodAffinityHostnameFastPath gate selects the Filter's hostname fast
// path (hostname.go); InPlacePodVerticalScalingSchedulerPreemption is
// refused when a profile is built.
package interpodaffinity

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.InterPodAffinity

// Upstream's validation bounds for hardPodAffinityWeight.
const (
	minHardPodAffinityWeight = 0
	maxHardPodAffinityWeight = 100
)

var (
	_ framework.PreFilterPlugin   = &InterPodAffinity{}
	_ framework.FilterPlugin      = &InterPodAffinity{}
	_ framework.PreScorePlugin    = &InterPodAffinity{}
	_ framework.ScorePlugin       = &InterPodAffinity{}
	_ framework.EnqueueExtensions = &InterPodAffinity{}
)

// InterPodAffinity checks and scores pod (anti-)affinity.
type InterPodAffinity struct {
	handle                             framework.Handle
	hardPodAffinityWeight              int32
	ignorePreferredTermsOfExistingPods bool
	// hostnameFastPath is the InterPodAffinityHostnameFastPath gate.
	hostnameFastPath bool
	// memo keeps the walks over every node from one cycle to the next.
	memo affinityMemos
}

// New builds the plugin from *configv1.InterPodAffinityArgs (nil means
// upstream's defaults), validated as upstream validates them.
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	if h == nil {
		return nil, errors.New("SnapshotSharedlister is nil")
	}
	a, err := getArgs(args)
	if err != nil {
		return nil, err
	}
	weight := int32(1) // SetDefaults_InterPodAffinityArgs
	if a.HardPodAffinityWeight != nil {
		weight = *a.HardPodAffinityWeight
	}
	if weight < minHardPodAffinityWeight || weight > maxHardPodAffinityWeight {
		msg := fmt.Sprintf("not in valid range [%d, %d]", minHardPodAffinityWeight, maxHardPodAffinityWeight)
		return nil, field.Invalid(field.NewPath("hardPodAffinityWeight"), weight, msg)
	}
	return &InterPodAffinity{
		handle:                             h,
		hardPodAffinityWeight:              weight,
		ignorePreferredTermsOfExistingPods: a.IgnorePreferredTermsOfExistingPods,
		hostnameFastPath:                   h.Features().EnableInterPodAffinityHostnameFastPath,
	}, nil
}

func getArgs(obj runtime.Object) (configv1.InterPodAffinityArgs, error) {
	switch a := obj.(type) {
	case nil:
		return configv1.InterPodAffinityArgs{}, nil
	case *configv1.InterPodAffinityArgs:
		if a == nil {
			return configv1.InterPodAffinityArgs{}, nil
		}
		return *a, nil
	default:
		return configv1.InterPodAffinityArgs{}, fmt.Errorf("want args to be of type InterPodAffinityArgs, got %T", obj)
	}
}

// Name returns the plugin's name.
func (pl *InterPodAffinity) Name() string { return Name }

// EventsToRegister lists the events after which a pod this plugin rejected
// may fit: an assigned pod appearing, changing labels or going away (it may
// satisfy affinity or stop violating anti-affinity), the pod's own labels
// changing (existing anti-affinity may no longer match it), and a node
// gaining or changing the topology labels the terms use.
func (pl *InterPodAffinity) EventsToRegister(_ context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}, QueueingHintFn: pl.isSchedulableAfterAssignedPodChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodLabel}, QueueingHintFn: pl.isSchedulableAfterTargetPodUpdateLabel},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, QueueingHintFn: pl.isSchedulableAfterNodeChange},
	}, nil
}

// mergeTermNamespaces folds the namespaces a non-empty namespaceSelector
// selects into the term's Namespaces and makes the selector match nothing.
// The incoming pod's terms are thus matched against existing pods without
// looking up each existing pod's namespace labels. An empty selector ({})
// is kept: it matches every namespace, even one with no Namespace object.
func (pl *InterPodAffinity) mergeTermNamespaces(at *framework.AffinityTerm) {
	if at.NamespaceSelector.Empty() {
		return
	}
	if objs := pl.handle.Objects(); objs != nil {
		for _, ns := range objs.Namespaces() {
			if at.NamespaceSelector.Matches(labels.Set(ns.Labels)) {
				at.Namespaces.Insert(ns.Name)
			}
		}
	}
	at.NamespaceSelector = labels.Nothing()
}

// namespaceLabels returns a copy of the labels of namespace ns. A namespace
// without an object yields nil labels, as upstream assumes when its lister
// misses; selectors such as DoesNotExist still match nil labels.
func (pl *InterPodAffinity) namespaceLabels(ns string) labels.Set {
	objs := pl.handle.Objects()
	if objs == nil {
		return nil
	}
	obj, err := objs.Namespace(ns)
	if err != nil || obj == nil {
		return nil
	}
	return labels.Merge(obj.Labels, nil)
}

// nodeLabels tolerates a NodeInfo without a node.
func nodeLabels(node *v1.Node) map[string]string {
	if node == nil {
		return nil
	}
	return node.Labels
}
