package engine

// Predicted against actual: when the cluster's own scheduler binds a pod
// (a live cluster, or a recording being replayed), the engine records what
// it predicted next to what happened, so a disagreement is visible.

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/history"
	"github.com/schedtui/schedtui/scheduler/record"
)

// Observations returns the observation events of the timeline, archived
// ones included.
func (e *Engine) Observations() []history.Event {
	var out []history.Event
	for _, ev := range e.Timeline().All() {
		if ev.Kind == history.EventObserved {
			out = append(out, ev)
		}
	}
	return out
}

// ObservationJSON is an observation line (kind "observed").
type ObservationJSON struct {
	Kind string `json:"kind"`
	Time string `json:"time"`
	Pod  string `json:"pod"`
	// Node is where the cluster bound the pod; "" when its scheduler
	// reported the pod unschedulable.
	Node string `json:"node"`
	// Predicted is the node schedtui chose; "" when it found none.
	Predicted string `json:"predicted"`
	// Verdict is agree, tie or disagree; Message says why.
	Verdict string `json:"verdict"`
	Message string `json:"message"`
	// JudgedOn is the state schedtui's attempt was judged on, in shadow
	// mode: the pods bound, and those in flight counted on their node.
	JudgedOn *history.JudgedOn `json:"judgedOn,omitempty"`
	// Uncertain says why that state may not be the one the cluster's
	// scheduler had (shadow mode); absent when it is not in doubt.
	Uncertain string `json:"uncertain,omitempty"`
	// Attempt numbers the attempt line the verdict was made by, counting
	// the run's attempt lines from 1; absent when none (0). In shadow mode
	// it is the attempt line right before the observation, or a later one
	// when a later change made schedtui judge the decision again.
	Attempt int `json:"attempt,omitempty"`
}

// observeUpdate looks at a pod update for a decision of the cluster's
// scheduler and records an observation. ignore is set for the update of a
// pod the engine bound while the cluster still has it pending: the
// engine's binding stands as its prediction until the cluster decides.
func (m *simulation) observeUpdate(old, cur *v1.Pod) (ignore bool) {
	e := m.e
	if !e.responsible(old) {
		return false
	}
	i, a := e.lastAttemptOf(old.UID)
	simBound := old.Spec.NodeName != "" && a != nil && a.Outcome == record.Scheduled && a.Node == old.Spec.NodeName
	switch {
	case simBound && e.boundInCluster[old.UID] != "":
		// schedtui --bind made this binding itself.
		return cur.Spec.NodeName == ""
	case simBound && cur.Spec.NodeName == "":
		if msg, ok := m.newUnschedulable(cur); ok {
			e.observe(cur, i, a, "", msg)
		}
		return true
	case simBound && !m.observedAttempt(i):
		e.observe(cur, i, a, cur.Spec.NodeName, "")
	case old.Spec.NodeName == "" && cur.Spec.NodeName != "":
		e.observe(cur, -1, e.sched.Evaluate(old, scheduler.Prediction), cur.Spec.NodeName, "")
	case old.Spec.NodeName == "" && cur.Spec.NodeName == "":
		if msg, ok := m.newUnschedulable(cur); ok {
			e.observe(cur, -1, e.sched.Evaluate(old, scheduler.Prediction), "", msg)
		}
	}
	return false
}

// newUnschedulable returns the message of the PodScheduled=False
// condition the cluster's scheduler set, once per distinct message.
func (m *simulation) newUnschedulable(p *v1.Pod) (string, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type != v1.PodScheduled || c.Status != v1.ConditionFalse || c.Reason != v1.PodReasonUnschedulable {
			continue
		}
		if m.seenUnschedulable == nil {
			m.seenUnschedulable = map[types.UID]string{}
		}
		if m.seenUnschedulable[p.UID] == c.Message {
			return "", false
		}
		m.seenUnschedulable[p.UID] = c.Message
		return c.Message, true
	}
	return "", false
}

// observe records an observation: attempt a (index i, or -1 for a
// prediction made now) against the node the cluster bound the pod to, or
// against its scheduler's unschedulable message.
func (e *Engine) observe(p *v1.Pod, i int, a *record.Attempt, actual, unschedulable string) {
	v, why := judge(a, actual, unschedulable)
	e.event(history.Event{Kind: history.EventObserved, Pod: key(p), Node: actual, Predicted: a.Node, Reason: string(v), Message: why, Attempt: i, ClusterMessage: unschedulable})
}

// observedAttempt reports whether the timeline holds an observation of
// attempt i (a binding is observed once; later updates of the bound pod
// are plain updates).
func (m *simulation) observedAttempt(i int) bool {
	e := m.e
	tail := e.hist.Tail()
	for j := len(tail) - 1; j >= 0; j-- {
		ev := tail[j]
		if ev.Kind == history.EventAttempt && ev.Attempt == i {
			return false
		}
		if ev.Kind == history.EventObserved && ev.Attempt == i {
			return true
		}
	}
	return false
}
