package framework

import (
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// QueueingParams is an entity's bookkeeping in the scheduling queue (a
// pod, or a pod group as one unit), as upstream's framework.QueueingParams:
// attempt and failure counts for the backoff, the plugins that rejected it
// for the queueing hints, and its gating plugin.
type QueueingParams struct {
	// Timestamp is when the entity was added, refreshed on every failure.
	Timestamp               time.Time
	InitialAttemptTimestamp *time.Time
	Attempts                int
	UnschedulableCount      int
	ConsecutiveErrorsCount  int
	// BackoffExpiration is unused for the members of a pod group: the
	// group's own is.
	BackoffExpiration    time.Time
	UnschedulablePlugins sets.Set[string]
	PendingPlugins       sets.Set[string]
	GatingPlugin         string
	// WasFlushedFromUnschedulable and FlushTimestamp are set by the
	// unschedulable leftover flush.
	WasFlushedFromUnschedulable bool
	FlushTimestamp              time.Time
}

// Gated reports whether a PreEnqueue plugin holds the entity back.
func (q *QueueingParams) Gated() bool { return q.GatingPlugin != "" }

// Params is the entity's bookkeeping.
func (q *QueueingParams) Params() *QueueingParams { return q }

// QueuedEntity is what the scheduling queue orders (upstream's
// QueuedEntityInfo): a queued pod, or a pod group with its queued members.
type QueuedEntity interface {
	Priority() int32
	Params() *QueueingParams
}

// QueuedPodInfo is a pod in the scheduling queue with its bookkeeping, as
// upstream's framework.QueuedPodInfo.
type QueuedPodInfo struct {
	*PodInfo
	QueueingParams
}

// Priority is the pod's priority (0 when unset).
func (q *QueuedPodInfo) Priority() int32 { return corev1helpers.PodPriority(q.Pod) }
