package framework

import (
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// QueuedPodInfo is a pod in the scheduling queue with its bookkeeping, as
// upstream's framework.QueuedPodInfo: attempt and failure counts for the
// backoff, the plugins that rejected it for the queueing hints, and its
// gating plugin.
type QueuedPodInfo struct {
	*PodInfo
	// Timestamp is when the pod was added, refreshed on every failure.
	Timestamp               time.Time
	InitialAttemptTimestamp *time.Time
	Attempts                int
	UnschedulableCount      int
	ConsecutiveErrorsCount  int
	BackoffExpiration       time.Time
	UnschedulablePlugins    sets.Set[string]
	PendingPlugins          sets.Set[string]
	GatingPlugin            string
	// WasFlushedFromUnschedulable and FlushTimestamp are set by the
	// unschedulable leftover flush.
	WasFlushedFromUnschedulable bool
	FlushTimestamp              time.Time
}

// Priority is the pod's priority (0 when unset).
func (q *QueuedPodInfo) Priority() int32 { return corev1helpers.PodPriority(q.Pod) }

// Gated reports whether a PreEnqueue plugin holds the pod back.
func (q *QueuedPodInfo) Gated() bool { return q.GatingPlugin != "" }
