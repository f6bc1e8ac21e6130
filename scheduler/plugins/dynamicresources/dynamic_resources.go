// Package dynamicresources stands in for upstream's DynamicResources (DRA)
// plugin. schedtui does NOT simulate dynamic resource allocation: there are
// no ResourceClaims, DeviceClasses or ResourceSlices in its world. This is
// a deliberate non-simulation, not a fidelity claim.
//
// What is faithful is the plugin's shape and its behaviour for pods that
// reference no claims, which is every pod schedtui can model: the same
// extension points as upstream, PreFilter Skip, a zero Score normalized to
// zero, PostFilter Unschedulable without a message, PreBindPreFlight Skip,
// and the same state-missing errors (see PostFilter). A pod that does
// reference claims (spec.resourceClaims non-empty) is rejected at PreFilter
// with UnschedulableAndUnresolvable and NotSimulatedReason, where upstream
// would have looked its claims up, possibly gated it at PreEnqueue, and
// tried to allocate devices.
package dynamicresources

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.DynamicResources
	// NotSimulatedReason rejects pods with resource claims.
	NotSimulatedReason = "schedtui: DynamicResources (resource claims) is not simulated"

	// stateKey is upstream's key (the plugin name).
	stateKey framework.StateKey = Name
)

// DynamicResources is the non-simulating DRA plugin.
type DynamicResources struct{}

var (
	_ framework.PreEnqueuePlugin  = &DynamicResources{}
	_ framework.PreFilterPlugin   = &DynamicResources{}
	_ framework.FilterPlugin      = &DynamicResources{}
	_ framework.PostFilterPlugin  = &DynamicResources{}
	_ framework.ScorePlugin       = &DynamicResources{}
	_ framework.ScoreExtensions   = &DynamicResources{}
	_ framework.ReservePlugin     = &DynamicResources{}
	_ framework.PreBindPlugin     = &DynamicResources{}
	_ framework.EnqueueExtensions = &DynamicResources{}
)

// New takes *configv1.DynamicResourcesArgs or nil; the timeouts it
// carries have nothing to time here and are ignored.
func New(args runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	switch args.(type) {
	case nil, *configv1.DynamicResourcesArgs:
		return &DynamicResources{}, nil
	default:
		return nil, fmt.Errorf("got args of type %T, want *DynamicResourcesArgs", args)
	}
}

// Name returns the plugin's name.
func (pl *DynamicResources) Name() string { return Name }

// stateData records whether the pod references claims. Upstream writes it
// at the very start of PreFilter, before deciding to Skip, so its presence
// later tells that PreFilter ran.
type stateData struct {
	hasClaims bool
}

// Clone shares the state: nothing modifies it after PreFilter.
func (d *stateData) Clone() framework.StateData { return d }

func getStateData(cs *framework.CycleState) (*stateData, error) {
	if cs == nil {
		return nil, errors.New("no cycle state")
	}
	s, err := cs.Read(stateKey)
	if err != nil {
		return nil, err
	}
	d, ok := s.(*stateData)
	if !ok {
		return nil, errors.New("unable to convert state into stateData")
	}
	return d, nil
}

func hasClaims(pod *v1.Pod) bool { return len(pod.Spec.ResourceClaims) > 0 }

// PreEnqueue never gates. Upstream gates a pod whose claims cannot be
// resolved yet; schedtui instead lets such a pod reach PreFilter so that
// the non-simulation is reported where the user looks for it.
func (pl *DynamicResources) PreEnqueue(_ context.Context, _ *v1.Pod) *framework.Status {
	return nil
}

// PreFilter records the pod's state, then Skips a pod without claims and
// rejects one with claims.
func (pl *DynamicResources) PreFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	d := &stateData{hasClaims: hasClaims(pod)}
	cs.Write(stateKey, d)
	if !d.hasClaims {
		return nil, framework.NewStatus(framework.Skip)
	}
	return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, NotSimulatedReason)
}

// PreFilterExtensions: none, as upstream.
func (pl *DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter only runs when PreFilter did not Skip, which here means never in
// a normal cycle; it repeats PreFilter's verdict for safety.
func (pl *DynamicResources) Filter(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ *framework.NodeInfo) *framework.Status {
	d, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !d.hasClaims {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, NotSimulatedReason)
}

// PostFilter runs first among PostFilter plugins, before preemption. With
// nothing to deallocate it returns Unschedulable without a message, which
// lets DefaultPreemption run next.
//
// When PreFilter never ran (an earlier PreFilter plugin returned
// UnschedulableAndUnresolvable, or PreFilterResults left no node), the
// state is missing and upstream returns the read error as an Error
// status: the framework then stops the PostFilter chain (no preemption)
// and the FitError message gets " not found" appended. That is mirrored.
func (pl *DynamicResources) PostFilter(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if _, err := getStateData(cs); err != nil {
		return nil, framework.AsStatus(err)
	}
	return nil, framework.NewStatus(framework.Unschedulable)
}

// Score is 0 on every node: upstream only scores prioritized-list device
// allocations, which need claims. There is no PreScore, so the plugin
// takes part in scoring (weight 2) with all-zero scores, as upstream.
func (pl *DynamicResources) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ *framework.NodeInfo) (int64, *framework.Status) {
	if _, err := getStateData(cs); err != nil {
		return 0, framework.AsStatus(err)
	}
	return 0, nil
}

// ScoreExtensions returns the plugin itself, which normalizes.
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore is the default (all zeros stay zero).
func (pl *DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// Reserve has no claims to reserve.
func (pl *DynamicResources) Reserve(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	if _, err := getStateData(cs); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// Unreserve has nothing to undo.
func (pl *DynamicResources) Unreserve(_ context.Context, _ *framework.CycleState, _ *v1.Pod, _ string) {
}

// PreBindPreFlight Skips: no claims to bind, so PreBind has no work and
// does not by itself make the binding cycle wait.
func (pl *DynamicResources) PreBindPreFlight(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	d, err := getStateData(cs)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !d.hasClaims {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// PreBind has no claims to bind.
func (pl *DynamicResources) PreBind(_ context.Context, cs *framework.CycleState, _ *v1.Pod, _ string) *framework.Status {
	if _, err := getStateData(cs); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}
