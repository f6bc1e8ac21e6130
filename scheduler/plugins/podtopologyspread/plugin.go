// Package podtopologyspread is kube-scheduler v1.37's PodTopologySpread
// plugin: hard constraints (DoNotSchedule) filter, soft ones
// (ScheduleAnyway, and the system defaults) score.
//
// It honours the NodeInclusionPolicyInPodTopologySpread,
// MatchLabelKeysInPodTopologySpread and TaintTolerationComparisonOperators
// gates of the handle. Upstream's SignPod
// (opportunistic batching) is not implemented: the default profile never
// produces a signature, because the system defaults make every pod
// unsignable.
package podtopologyspread

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/scheduler/apis/config/validation"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

// Name is the plugin's name in profiles.
const Name = names.PodTopologySpread

const (
	// ErrReasonConstraintsNotMatch is the Filter reason when skew exceeds maxSkew.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch is the Filter reason when the node lacks a topology key.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// systemDefaultConstraints apply, with defaultingType System, to pods that
// declare no constraints of their own. Both are soft, so they only score.
var systemDefaultConstraints = []v1.TopologySpreadConstraint{
	{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
}

// PodTopologySpread spreads pods of a workload across topology domains.
type PodTopologySpread struct {
	handle framework.Handle
	// systemDefaulted relaxes scoring: nodes missing a topology key are
	// still scored (hostname spreading works in zoneless clusters).
	systemDefaulted    bool
	defaultConstraints []v1.TopologySpreadConstraint
	gates              features.Features
}

var (
	_ framework.PreFilterPlugin     = &PodTopologySpread{}
	_ framework.PreFilterExtensions = &PodTopologySpread{}
	_ framework.FilterPlugin        = &PodTopologySpread{}
	_ framework.PreScorePlugin      = &PodTopologySpread{}
	_ framework.ScorePlugin         = &PodTopologySpread{}
	_ framework.ScoreExtensions     = &PodTopologySpread{}
	_ framework.EnqueueExtensions   = &PodTopologySpread{}
)

// Name returns the plugin's name.
func (pl *PodTopologySpread) Name() string { return Name }

// New builds the plugin from *configv1.PodTopologySpreadArgs; nil args
// mean upstream's defaults (defaultingType System).
func New(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
	a, err := getArgs(args)
	if err != nil {
		return nil, err
	}
	if err := validation.ValidatePodTopologySpreadArgs(nil, a).ToAggregate(); err != nil {
		return nil, err
	}
	pl := &PodTopologySpread{handle: h, defaultConstraints: a.DefaultConstraints, gates: features.Default()}
	if h != nil {
		pl.gates = h.Features()
	}
	if a.DefaultingType == configv1.SystemDefaulting {
		pl.defaultConstraints = systemDefaultConstraints
		pl.systemDefaulted = true
	}
	return pl, nil
}

// SignsNoPod: upstream's SignPod refuses every pod while default
// constraints are configured, so a profile with them never batches pods
// (OpportunisticBatching).
func (pl *PodTopologySpread) SignsNoPod() bool { return len(pl.defaultConstraints) > 0 }

// getArgs returns a defaulted copy of the args.
func getArgs(obj runtime.Object) (*configv1.PodTopologySpreadArgs, error) {
	a := &configv1.PodTopologySpreadArgs{}
	if obj != nil {
		in, ok := obj.(*configv1.PodTopologySpreadArgs)
		if !ok {
			return nil, fmt.Errorf("want args to be of type PodTopologySpreadArgs, got %T", obj)
		}
		if in != nil {
			a = in.DeepCopy()
		}
	}
	// SetDefaults_PodTopologySpreadArgs.
	if a.DefaultingType == "" {
		a.DefaultingType = configv1.SystemDefaulting
	}
	return a, nil
}

// objects is the handle's object lister, nil without a handle.
func (pl *PodTopologySpread) objects() framework.ObjectLister {
	if pl.handle == nil {
		return nil
	}
	return pl.handle.Objects()
}
