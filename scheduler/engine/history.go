package engine

import "github.com/schedtui/schedtui/scheduler/history"

// Histories returns the history of every pod that went through the queue
// (it arrived pending, or was attempted), sorted by namespace/name.
func (e *Engine) Histories() []history.PodHistory {
	q := e.Queue()
	var waiting []history.Waiting
	for _, list := range [][]QueuedPod{q.ActiveQ, q.BackoffQ, q.Unschedulable, q.Gated} {
		for _, p := range list {
			waiting = append(waiting, history.Waiting{Pod: p.Pod, Queue: p.Queue, GatingPlugin: p.GatingPlugin, GatingMessage: p.GatingMessage,
				NominatedNode: p.NominatedNode, UnschedulablePlugins: p.UnschedulablePlugins})
		}
	}
	return history.Pods(e.Timeline(), e.Attempts(), waiting)
}

// History is one pod's history; ok is false when the pod never went
// through the queue.
func (e *Engine) History(pod string) (history.PodHistory, bool) {
	for _, h := range e.Histories() {
		if h.Pod == pod {
			return h, true
		}
	}
	return history.PodHistory{}, false
}
