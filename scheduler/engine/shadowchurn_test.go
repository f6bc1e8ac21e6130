package engine

import (
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
)

// shadowChurn is churn as a live cluster delivers it to a debugger in
// shadow mode: pods arrive (churn's), and the cluster's own scheduler
// decides about each: a binding decisionDelay after the pod arrived, to
// the node that holds the fewest of its pods (the lowest index on a tie),
// which is what schedtui's LeastAllocated picks on identical nodes, or,
// for every badEvery-th pod, to another node (a disagreement, judged again
// within ShadowWindow as later bindings arrive); every prebindEvery-th pod
// is nominated to its node for PreBind first (a pod in flight), and every
// lostEvery-th of those is deleted while in flight, never bound. The pods
// churn makes fit nowhere get the Unschedulable condition instead. Every
// pod is deleted lifetime after it arrived.
type shadowChurn struct {
	churn
	nodes                            []string
	badEvery, prebindEvery, lostEvery int
	decisionDelay                     time.Duration
}

// change is one change of the generated churn, at its offset from the
// engine's start.
type shadowChange struct {
	at     time.Duration
	kind   ChangeKind
	pod    *v1.Pod
	seq    int
	bindTo string // the node of a binding, for the driver's count
}

// changes generates the churn's changes for the first seconds, in
// arrival order.
func (c shadowChurn) changes(seconds int) []shadowChange {
	var out []shadowChange
	add := func(at time.Duration, kind ChangeKind, p *v1.Pod, node string) {
		out = append(out, shadowChange{at: at, kind: kind, pod: p, seq: len(out), bindTo: node})
	}
	step := time.Second / time.Duration(c.rate)
	for i := 0; i < seconds*c.rate; i++ {
		arrive := time.Duration(i) * step
		p := c.pod(i)
		p.CreationTimestamp = metav1.NewTime(scheduler.Epoch.Add(arrive))
		p.ResourceVersion = "1"
		add(arrive, PodAdd, p, "")
		decide := arrive + c.decisionDelay
		switch {
		case p.Spec.NodeSelector != nil:
			u := p.DeepCopy()
			u.ResourceVersion = "3"
			u.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
				Message: fmt.Sprintf("0/%d nodes are available: %d node(s) didn't match Pod's node affinity/selector.", len(c.nodes), len(c.nodes))}}
			add(decide, PodUpdate, u, "")
		case c.prebindEvery > 0 && i%c.prebindEvery == 0:
			// The node is chosen when the nomination is written.
			n := p.DeepCopy()
			n.ResourceVersion = "2"
			add(decide-c.decisionDelay/2, PodUpdate, n, "?")
			if c.lostEvery > 0 && (i/c.prebindEvery)%c.lostEvery == c.lostEvery-1 {
				add(decide-c.decisionDelay/4, PodDelete, p, "")
				continue
			}
			b := p.DeepCopy()
			b.ResourceVersion = "3"
			add(decide, PodUpdate, b, "=")
		default:
			b := p.DeepCopy()
			b.ResourceVersion = "3"
			add(decide, PodUpdate, b, "?")
		}
		add(arrive+c.lifetime, PodDelete, p, "")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	// The cluster's scheduler places the pods in arrival order of its
	// decisions, counting the pods it placed and not deleted since.
	held := make([]int, len(c.nodes))
	where := map[string]int{}
	for k := range out {
		ch := &out[k]
		name := ch.pod.Name
		switch {
		case ch.kind == PodDelete:
			if n, ok := where[name]; ok && n >= 0 {
				held[n]--
			}
			delete(where, name)
		case ch.bindTo == "?":
			n := 0
			for j := range held {
				if held[j] < held[n] {
					n = j
				}
			}
			var i int
			fmt.Sscanf(name, "churn-%d", &i)
			if c.badEvery > 0 && i%c.badEvery == c.badEvery-1 {
				n = (n + len(held)/2) % len(held)
			}
			held[n]++
			where[name] = n
			if ch.pod.ResourceVersion == "2" {
				ch.pod.Status.NominatedNodeName = c.nodes[n]
			} else {
				ch.pod.Spec.NodeName = c.nodes[n]
			}
		case ch.bindTo == "=":
			n := where[name]
			ch.pod.Spec.NodeName = c.nodes[n]
			ch.pod.Status.NominatedNodeName = c.nodes[n]
		}
	}
	return out
}

// feedSecond applies the changes arriving in second s to e (scheduled at their
// times) and runs e to the second's end.
func feedSecond(e *Engine, all []shadowChange, next *int, s int) error {
	end := time.Duration(s+1) * time.Second
	for ; *next < len(all) && all[*next].at < end; *next++ {
		ch := all[*next]
		p := ch.pod
		if err := e.Apply(ClusterChange{Kind: ch.kind, Pod: p, At: e.Start().Add(ch.at)}); err != nil {
			return fmt.Errorf("change %d (%s %s): %w", ch.seq, ch.kind, p.Name, err)
		}
	}
	e.RunUntil(end)
	return nil
}
