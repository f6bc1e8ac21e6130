package apiserver

// What the API server does to a pod when it is created, beyond decoding
// defaults: pkg/registry/core/pod/strategy.go PrepareForCreate (generation
// 1, pod-level resource defaulting from pkg/api/pod/util.go DefaultPodLevelResources,
// matchLabelKeys merging, the SchedulingGated condition).
//
// These run only for pods that were not read from an API server (no
// metadata.resourceVersion): a captured pod is already in its stored form,
// and re-applying create-time mutations could change it.

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// IsStored reports whether an object was read back from an API server.
func IsStored(m *metav1.ObjectMeta) bool { return m.ResourceVersion != "" }

// PrepareForCreate applies the create-time mutations above to a new pod,
// in place.
func PrepareForCreate(pod *v1.Pod) {
	pod.Generation = 1
	if pod.Status.Phase == "" {
		pod.Status.Phase = v1.PodPending
	}
	applySchedulingGatedCondition(pod)
	mergeMatchLabelKeysIntoAffinity(pod)
	mergeMatchLabelKeysIntoSpread(pod)
	defaultPodLevelResources(pod)
}

func applySchedulingGatedCondition(pod *v1.Pod) {
	if len(pod.Spec.SchedulingGates) == 0 {
		return
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{
		Type:    v1.PodScheduled,
		Status:  v1.ConditionFalse,
		Reason:  v1.PodReasonSchedulingGated,
		Message: "Scheduling is blocked due to non-empty scheduling gates",
	})
}

// addLabelKeyRequirements adds "key op (pod's value)" to the selector for
// every key the pod has a label for. A requirement already present is not
// added again, so that applying this twice changes nothing.
func addLabelKeyRequirements(sel *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator, podLabels map[string]string) {
	for _, key := range keys {
		value, ok := podLabels[key]
		if !ok {
			continue
		}
		req := metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: []string{value}}
		dup := false
		for _, e := range sel.MatchExpressions {
			if e.Key == req.Key && e.Operator == req.Operator && len(e.Values) == 1 && e.Values[0] == value {
				dup = true
				break
			}
		}
		if !dup {
			sel.MatchExpressions = append(sel.MatchExpressions, req)
		}
	}
}

func mergeTermLabelKeys(term *v1.PodAffinityTerm, podLabels map[string]string) {
	if (len(term.MatchLabelKeys) == 0 && len(term.MismatchLabelKeys) == 0) || term.LabelSelector == nil {
		return
	}
	addLabelKeyRequirements(term.LabelSelector, term.MatchLabelKeys, metav1.LabelSelectorOpIn, podLabels)
	addLabelKeyRequirements(term.LabelSelector, term.MismatchLabelKeys, metav1.LabelSelectorOpNotIn, podLabels)
}

// MatchLabelKeysInPodAffinity is GA in 1.37.
func mergeMatchLabelKeysIntoAffinity(pod *v1.Pod) {
	a := pod.Spec.Affinity
	if a == nil {
		return
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			mergeTermLabelKeys(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm, pod.Labels)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			mergeTermLabelKeys(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i], pod.Labels)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			mergeTermLabelKeys(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm, pod.Labels)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			mergeTermLabelKeys(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i], pod.Labels)
		}
	}
}

// MatchLabelKeysInPodTopologySpread and ...SelectorMerge are on in 1.37.
func mergeMatchLabelKeysIntoSpread(pod *v1.Pod) {
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if len(c.MatchLabelKeys) == 0 || c.LabelSelector == nil {
			continue
		}
		addLabelKeyRequirements(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn, pod.Labels)
	}
}

func isOvercommitAllowed(name v1.ResourceName) bool {
	return framework.IsNativeResource(name) && !framework.IsHugePageResourceName(name)
}

// defaultPodLevelResources: with pod-level resources set, default the
// pod-level hugepage limits, then requests, then limits (PodLevelResources
// and PodLevelResourcesFixDefaulting are on in 1.37).
func defaultPodLevelResources(pod *v1.Pod) {
	r := pod.Spec.Resources
	if r == nil || (len(r.Requests) == 0 && len(r.Limits) == 0) {
		return
	}
	// Ephemeral containers cannot have resources; upstream aggregates the
	// regular and init containers only.
	ctrPod := &v1.Pod{Spec: v1.PodSpec{Containers: pod.Spec.Containers, InitContainers: pod.Spec.InitContainers}}

	// 1. hugepage limits from aggregated container limits.
	lims := r.Limits
	if lims == nil {
		lims = v1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(ctrPod, resourcehelper.PodResourcesOptions{}) {
		if !resourcehelper.IsSupportedPodLevelResource(name) || !framework.IsHugePageResourceName(name) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := lims[name]; !ok {
			lims[name] = q
		}
	}
	if len(lims) > 0 {
		r.Limits = lims
	}

	// 2. requests from aggregated container requests (overcommittable
	// resources) and from pod-level limits.
	reqs := r.Requests
	if reqs == nil {
		reqs = v1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(ctrPod, resourcehelper.PodResourcesOptions{}) {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && isOvercommitAllowed(name) {
			reqs[name] = q
		}
	}
	for name, q := range r.Limits {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		r.Requests = reqs
	}

	// 3. limits = max(pod request, aggregated container limits) for
	// resources every container has a limit for.
	candidates := map[v1.ResourceName]bool{}
	for name := range r.Requests {
		if !resourcehelper.IsSupportedPodLevelResource(name) {
			continue
		}
		if _, ok := r.Limits[name]; !ok {
			candidates[name] = true
		}
	}
	// Every container, ephemeral ones included (they never have limits).
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			for name := range candidates {
				if _, ok := list[i].Resources.Limits[name]; !ok {
					delete(candidates, name)
				}
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		for name := range candidates {
			if _, ok := pod.Spec.EphemeralContainers[i].Resources.Limits[name]; !ok {
				delete(candidates, name)
			}
		}
	}
	if len(candidates) == 0 {
		return
	}
	aggr := resourcehelper.AggregateContainerLimits(ctrPod, resourcehelper.PodResourcesOptions{})
	for name := range candidates {
		val, ok := aggr[name]
		if !ok {
			continue
		}
		if req := r.Requests[name]; req.Cmp(val) > 0 {
			val = req
		}
		if r.Limits == nil {
			r.Limits = v1.ResourceList{}
		}
		r.Limits[name] = val
	}
}
