package interpodaffinity

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/schedtui/schedtui/scheduler/framework"
)

var errNoObject = errors.New("event carries neither an old nor a new object")

// asPair converts an event's old and new objects, unwrapping nothing: the
// engine delivers typed objects. A wrong type is an error (the queue then
// requeues), as upstream's util.As.
func asPair[T any](oldObj, newObj any) (T, T, error) {
	var oldT, newT T
	var ok bool
	if newObj != nil {
		if newT, ok = newObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, but got %T", newT, newObj)
		}
	}
	if oldObj != nil {
		if oldT, ok = oldObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, but got %T", oldT, oldObj)
		}
	}
	return oldT, newT, nil
}

func unscheduled(p *v1.Pod) bool {
	return p != nil && p.Spec.NodeName == "" && p.Status.NominatedNodeName == ""
}

// isSchedulableAfterAssignedPodChange requeues when an assigned (or
// nominated) pod starts matching all of the pod's affinity terms, stops
// matching any of its anti-affinity terms, or, when deleted, matched its
// anti-affinity or had anti-affinity matching the pod. Changes of nodeName
// come as Add/Delete events, so they need no check here.
func (pl *InterPodAffinity) isSchedulableAfterAssignedPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := asPair[*v1.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if unscheduled(modified) || unscheduled(original) {
		return framework.QueueSkip, nil
	}
	if pod == nil {
		return framework.Queue, errors.New("no target pod")
	}
	terms, err := requiredTermsOf(pod, false)
	if err != nil {
		return framework.Queue, err
	}
	antiTerms, err := requiredTermsOf(pod, true)
	if err != nil {
		return framework.Queue, err
	}

	switch {
	case modified != nil && original != nil:
		// One existing pod must satisfy all affinity terms at once, so the
		// terms are checked together, not one by one.
		if !podMatchesAllAffinityTerms(terms, original) && podMatchesAllAffinityTerms(terms, modified) {
			return framework.Queue, nil
		}
		if podMatchesAnyAffinityTerms(antiTerms, original) && !podMatchesAnyAffinityTerms(antiTerms, modified) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case modified != nil:
		if podMatchesAllAffinityTerms(terms, modified) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case original == nil:
		return framework.Queue, errNoObject
	}

	if podMatchesAnyAffinityTerms(antiTerms, original) {
		return framework.Queue, nil
	}
	originalAntiTerms, err := requiredTermsOf(original, true)
	if err != nil {
		return framework.Queue, err
	}
	if podMatchesAnyAffinityTerms(originalAntiTerms, pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterTargetPodUpdateLabel always requeues: an existing pod's
// anti-affinity may have matched only the old labels.
func (pl *InterPodAffinity) isSchedulableAfterTargetPodUpdateLabel(_ *v1.Pod, _, _ any) (framework.QueueingHint, error) {
	return framework.Queue, nil
}

// isSchedulableAfterNodeChange requeues when a node brings an affinity
// term's topology key (added, label gained, or value changed), and for
// anti-affinity terms when a node is added at all (nodes without the key
// always accept), loses the key, or changes its value.
func (pl *InterPodAffinity) isSchedulableAfterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := asPair[*v1.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if pod == nil {
		return framework.Queue, errors.New("no target pod")
	}
	terms, err := requiredTermsOf(pod, false)
	if err != nil {
		return framework.Queue, err
	}
	modLabels := nodeLabels(modified)
	for _, t := range terms {
		if original == nil {
			if _, ok := modLabels[t.TopologyKey]; ok {
				return framework.Queue, nil
			}
			continue
		}
		ov, oHas := original.Labels[t.TopologyKey]
		mv, mHas := modLabels[t.TopologyKey]
		if mHas && (!oHas || ov != mv) {
			return framework.Queue, nil
		}
	}

	antiTerms, err := requiredTermsOf(pod, true)
	if err != nil {
		return framework.Queue, err
	}
	for _, t := range antiTerms {
		if original == nil {
			return framework.Queue, nil
		}
		ov, oHas := original.Labels[t.TopologyKey]
		mv, mHas := modLabels[t.TopologyKey]
		// Gaining the key cannot help: nodes without it always accept.
		if oHas && (!mHas || ov != mv) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
