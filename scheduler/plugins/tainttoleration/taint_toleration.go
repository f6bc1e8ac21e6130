// Package tainttoleration is upstream's TaintToleration plugin: Filter on
// NoSchedule/NoExecute taints, Score on PreferNoSchedule taints (fewer
// untolerated ones score higher after the reversed normalization).
package tainttoleration

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/plugins/helper"
	"github.com/schedtui/schedtui/scheduler/plugins/names"
)

const (
	// Name is the plugin's name in profiles.
	Name = names.TaintToleration
	// ErrReasonNotMatch is exported by upstream but unused since 1.37 made
	// the Filter reason generic.
	ErrReasonNotMatch = "node(s) had taints that the pod didn't tolerate"
	// ErrReasonUntolerated is the Filter reason in 1.37. It no longer names
	// the taint, so all such nodes aggregate into one FitError entry.
	ErrReasonUntolerated = "node(s) had untolerated taint(s)"

	preScoreStateKey framework.StateKey = "PreScore" + Name
)

// The toleration helpers only log when comparison operators are on; the
// zero logger discards.
var noLog klog.Logger

// TaintToleration checks taints against the pod's tolerations.
type TaintToleration struct {
	// comparisonOperators is the TaintTolerationComparisonOperators gate
	// (alpha, off by default in 1.37): off, Lt/Gt tolerations tolerate
	// nothing.
	comparisonOperators bool
}

var (
	_ framework.PreFilterPlugin   = &TaintToleration{}
	_ framework.FilterPlugin      = &TaintToleration{}
	_ framework.PreScorePlugin    = &TaintToleration{}
	_ framework.ScorePlugin       = &TaintToleration{}
	_ framework.ScoreExtensions   = &TaintToleration{}
	_ framework.EnqueueExtensions = &TaintToleration{}
)

// New is the plugin's factory; it takes no args.
func New(_ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	return &TaintToleration{comparisonOperators: h.Features().EnableTaintTolerationComparisonOperators}, nil
}

// Name returns the plugin's name.
func (pl *TaintToleration) Name() string { return Name }

// doNotSchedule selects the taints Filter enforces; PreferNoSchedule only
// affects scoring.
func doNotSchedule(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// PreFilter exists because upstream has one; it only Skips deferred-resize
// pods when the alpha InPlacePodVerticalScalingSchedulerPreemption gate is
// on, which it is not in 1.37, so it never does anything.
func (pl *TaintToleration) PreFilter(_ context.Context, _ *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// PreFilterExtensions: no state to maintain.
func (pl *TaintToleration) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node with any untolerated NoSchedule/NoExecute taint.
func (pl *TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if node == nil {
		return framework.AsStatus(errors.New("node not found"))
	}
	if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(noLog, node.Spec.Taints, pod.Spec.Tolerations, doNotSchedule, pl.comparisonOperators); untolerated {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUntolerated)
	}
	return nil
}

type preScoreState struct {
	tolerationsPreferNoSchedule []v1.Toleration
}

// Clone shares the state: it is never modified after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore keeps the tolerations that can match a PreferNoSchedule taint:
// those with that effect or with no effect (which matches every effect).
// It never Skips, so every pod gets TaintToleration scores.
func (pl *TaintToleration) PreScore(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	var tols []v1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if len(t.Effect) == 0 || t.Effect == v1.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	cs.Write(preScoreStateKey, &preScoreState{tolerationsPreferNoSchedule: tols})
	return nil
}

func getPreScoreState(cs *framework.CycleState) (*preScoreState, error) {
	c, err := cs.Read(preScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("failed to read %q from cycleState: %w", preScoreStateKey, err)
	}
	s, ok := c.(*preScoreState)
	if !ok {
		return nil, fmt.Errorf("%+v convert to tainttoleration.preScoreState error", c)
	}
	return s, nil
}

// Score counts the node's untolerated PreferNoSchedule taints; the
// reversed normalization turns "more" into "worse".
func (pl *TaintToleration) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, framework.AsStatus(errors.New("node not found"))
	}
	s, err := getPreScoreState(cs)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	var count int64
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != v1.TaintEffectPreferNoSchedule {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(noLog, s.tolerationsPreferNoSchedule, taint, pl.comparisonOperators) {
			count++
		}
	}
	return count, nil
}

// NormalizeScore reverses: 100 - 100*count/maxCount, and 100 everywhere when
// no node has such a taint.
func (pl *TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

// ScoreExtensions returns the plugin itself, which normalizes.
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NodeLocal: Filter and Score read the pod's tolerations and the node's
// taints.
func (pl *TaintToleration) NodeLocal() bool { return true }
