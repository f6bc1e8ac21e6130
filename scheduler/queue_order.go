package scheduler

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// sortQueueOrder orders pods as PrioritySort pops them when they were
// added in creation order: higher priority first, then older.
func sortQueueOrder(pods []*v1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		pi, pj := corev1helpers.PodPriority(pods[i]), corev1helpers.PodPriority(pods[j])
		if pi != pj {
			return pi > pj
		}
		return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp)
	})
}
