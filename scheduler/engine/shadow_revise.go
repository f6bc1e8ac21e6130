package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/history"
)

// recentDecision is a decision judged within ShadowWindow of the last
// one: a pod counted on its node after it may make it judged again
// (reviseRecent).
type recentDecision struct {
	at  time.Time
	pod string
	uid types.UID
	d   decision
	// judged is the pod as judged (before the decision).
	judged *v1.Pod
	// ev numbers the observation among every event the timeline was
	// given (history.Log.EventNumber), which compaction does not move; event is
	// its content when the checkpoint was taken (restore puts it back).
	ev    int
	event history.Event
}

// recentRemoval is a change that arrived at at: the deletion of a bound
// pod, as it was, or, with nomination set, a pending pod's nomination to
// that node cleared.
type recentRemoval struct {
	at         time.Time
	pod        *v1.Pod
	nomination string
}

// pastChange is a change of another pod that arrived shortly before a
// decision, undone for an alternative: a binding (the pod is taken off
// its node), a deletion (the pod is put back on its node), a cleared
// nomination (the pod is nominated there again) or, with claim set, a
// claim's selected-node annotation (the pod it put in flight on node is
// not counted there).
type pastChange struct {
	at         time.Time
	pod        *v1.Pod
	deleted    bool
	nomination string
	claim      string
	node       string
}

func (c pastChange) String() string {
	switch {
	case c.claim != "":
		return "the annotation of claim " + c.claim + " with selected node " + c.node + " (" + key(c.pod) + " in flight there)"
	case c.nomination != "":
		return "the clearing of " + key(c.pod) + "'s nomination to " + c.nomination
	case c.deleted:
		return "the deletion of " + key(c.pod)
	}
	return key(c.pod)
}

// terminatingOn are the deletions among cs of pods that were terminating
// on node.
func terminatingOn(cs []pastChange, node string) []pastChange {
	var out []pastChange
	for _, c := range cs {
		if node != "" && c.deleted && c.pod.DeletionTimestamp != nil && c.pod.Spec.NodeName == node {
			out = append(out, c)
		}
	}
	return out
}

// windows says how far back the changes doubted reach.
func (s *shadow) windows() string {
	lag := fmt.Sprintf("deletions and cleared nominations within %s", s.lagWindow())
	if len(s.reactions) > 0 {
		lag += fmt.Sprintf(" (the median of the cluster's scheduler's %d latest reaction times to a new pod)", len(s.reactions))
	}
	return fmt.Sprintf("bindings and claims' selected nodes within %s, %s", ShadowWindow, lag)
}

func changeList(cs []pastChange) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}

// recentChanges are the changes of other pods that arrived shortly before
// now, in arrival order: the bindings of pods still bound there (within
// ShadowWindow: their binding cycles commit out of attempt order), the
// selected-node annotations of claims whose pods are still in flight
// (within ShadowWindow, as bindings: the cluster's scheduler assumed the
// pod before it wrote the annotation, maybe after it attempted this one;
// and claims and pods come through separate watches, so a claim's update
// written after the decision may arrive before it, in a live session and
// not in the recording of the same run, or the other way round), the
// deletions of bound pods not back since, and the nominations cleared of
// pods still pending without one (within lagWindow: the cluster's
// scheduler may not have seen them yet).
func (s *shadow) recentChanges(uid types.UID) []pastChange {
	e := s.e
	var out []pastChange
	for _, r := range s.recent {
		if r.d.node == "" || r.uid == uid || s.arrived.Sub(r.at) > ShadowWindow {
			continue
		}
		if p := e.Pod(r.pod); p != nil && p.UID == r.uid && p.Spec.NodeName == r.d.node {
			out = append(out, pastChange{at: r.at, pod: p})
		}
	}
	for _, f := range s.inflightPods(uid) {
		if f.claim != "" && f.atTrace != nil && s.arrived.Sub(f.atTrace.at) <= ShadowWindow {
			out = append(out, pastChange{at: f.atTrace.at, pod: e.Pod(f.pod), claim: f.claim, node: f.node})
		}
	}
	for _, d := range s.removed {
		if d.pod.UID == uid || s.arrived.Sub(d.at) > s.lagWindow() {
			continue
		}
		p := e.Pod(key(d.pod))
		switch {
		case d.nomination == "" && p == nil:
			out = append(out, pastChange{at: d.at, pod: d.pod, deleted: true})
		case d.nomination != "" && p != nil && p.UID == d.pod.UID && p.Spec.NodeName == "" && p.Status.NominatedNodeName == "":
			out = append(out, pastChange{at: d.at, pod: p, nomination: d.nomination})
		}
	}
	// Stable: a binding and a removal at the same instant keep the
	// bindings first (both orders are doubted alike).
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// reviseRecent judges again the recent disagreements the cluster's
// scheduler may have decided after it assumed pod (uid), which is now
// counted on its node: bound, or in flight; what says how it got there.
// A verdict that turns replaces the observation, flagged uncertain.
func (s *shadow) reviseRecent(uid types.UID, pod, what string, bound bool) {
	e := s.e
	for i := range s.recent {
		r := &s.recent[i]
		ev, ok := e.hist.Numbered(r.ev)
		if r.uid == uid || s.arrived.Sub(r.at) > ShadowWindow || !ok || ev.Reason != string(Disagree) {
			continue
		}
		p := e.Pod(r.pod)
		if p == nil || p.UID != r.uid || p.Spec.NodeName != r.d.node {
			continue
		}
		var undo []pastChange
		if r.d.node != "" {
			undo = []pastChange{{at: r.at, pod: p}}
		}
		res := s.evaluate(r.judged, undo)
		v, why := shadowVerdict(res.a, r.d)
		if v == Disagree {
			continue
		}
		idx := s.recordAttempt(res)
		judged := res.judged
		if bound {
			judged.Bound--
			judged.InFlight = append(judged.InFlight, pod+"→"+e.Pod(pod).Spec.NodeName)
		}
		ev.Attempt, ev.Predicted, ev.Reason, ev.Message, ev.Judged = idx, res.a.Node, string(v), why, &judged
		ev.Uncertain = joinNotes(fmt.Sprintf("%s only if the cluster's scheduler assumed %s (%s %s later) before it attempted the pod: judged again with it",
			v, pod, what, s.arrived.Sub(r.at)), res.notes)
		e.hist.Revise(r.ev, ev)
	}
}

// reconsider judges a disagreement j (of pod, traced saying how it
// disagreed on the state when it went in flight, if it did) again on
// backward alternatives: the changes of other pods that arrived shortly
// before the decision undone (recentChanges), the most recent first, up
// to maxShadowAlternatives, then the deletions alone, then the claims'
// annotations alone, then the deletions of the pods terminating on the
// pod's nominated node together. The first that does not disagree is the
// verdict, flagged uncertain; when none does, the disagreement stands,
// flagged uncertain when such changes arrived.
func (s *shadow) reconsider(j *judgement, pod *v1.Pod, traced string) *judgement {
	d := j.d
	recent := s.recentChanges(pod.UID)
	var alternatives [][]pastChange
	for k := 1; k <= len(recent) && k <= maxShadowAlternatives; k++ {
		alternatives = append(alternatives, recent[len(recent)-k:])
	}
	var deletions, annotations []pastChange
	for _, c := range recent {
		switch {
		case c.deleted:
			deletions = append(deletions, c)
		case c.claim != "":
			annotations = append(annotations, c)
		}
	}
	if len(deletions) > 0 && len(deletions) < len(recent) {
		// The cluster's scheduler assumed its own bindings before they
		// arrived; the kubelet's deletions it may not have seen yet.
		for k := 1; k <= len(deletions) && k <= maxShadowAlternatives; k++ {
			alternatives = append(alternatives, deletions[len(deletions)-k:])
		}
	}
	if len(annotations) > 0 && len(annotations) < len(recent) {
		// Whatever else arrived after them: the claims come through
		// another watch than the pods (recentChanges).
		alternatives = append(alternatives, annotations)
	}
	if victims := terminatingOn(recent, pod.Status.NominatedNodeName); len(victims) > 0 {
		// A preemptor is not eligible to preempt again while a victim
		// still terminates on its nominated node: the cluster's
		// scheduler may not have seen any of their deletions yet.
		alternatives = append(alternatives, victims)
	}
	for _, undo := range alternatives {
		alt := s.evaluate(pod, undo)
		if v, why := shadowVerdict(alt.a, d); v != Disagree {
			j.res, j.verdict, j.why = alt, v, why
			j.uncertain = joinNotes(fmt.Sprintf("%s only if the cluster's scheduler attempted the pod before it saw %s (up to %s before; %s): judged without them",
				v, changeList(undo), s.arrived.Sub(undo[0].at), s.windows()), []string{traced})
			return j
		}
	}
	if len(recent) > 0 {
		j.uncertain = fmt.Sprintf("%s arrived shortly before (%s): the cluster's scheduler may have attempted the pod before them (without them it disagrees too)",
			changeList(recent), s.windows())
	}
	return j
}
