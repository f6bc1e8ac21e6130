package engine

import (
	"container/heap"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/scheduler"
	"github.com/schedtui/schedtui/scheduler/change"
)

// shadowChurn is churn as a live cluster delivers it to a debugger in
// shadow mode: pods arrive (churn's), and the cluster's own scheduler
// decides about each: a binding decisionDelay after the pod arrived, to
// the node holding the fewest of the pods it placed (the lowest index on a
// tie: what schedtui's scoring picks on identical nodes, or ties with),
// or, for every badEvery-th pod, to the node half the cluster away (a
// disagreement, judged again within ShadowWindow as later bindings
// arrive); every prebindEvery-th pod is nominated to its node for PreBind
// first (in flight), and every lostEvery-th of those is deleted in flight,
// never bound. The pods churn makes fit nowhere get the Unschedulable
// condition instead. Every pod is deleted lifetime after it arrived.
type shadowChurn struct {
	churn
	nodes                             []string
	badEvery, prebindEvery, lostEvery int
	decisionDelay                     time.Duration
}

// shadowFeed hands an engine a shadowChurn second by second, generating
// the changes as it goes (a day of them would not fit in memory).
type shadowFeed struct {
	c       shadowChurn
	arrived int // pods arrived so far
	due     changeHeap
	seq     int
	// held counts the pods the cluster's scheduler placed on each node
	// and not deleted since; where is each such pod's node.
	held  []int
	where map[string]int
}

func newShadowFeed(c shadowChurn) *shadowFeed {
	return &shadowFeed{c: c, held: make([]int, len(c.nodes)), where: map[string]int{}}
}

// dueChange is a change of the churn, at its offset from the engine's
// start; nodeFrom says how its pod's node is filled in when it is due:
// "choose" (a decision), "where" (the binding after a PreBind nomination),
// or "" (as it is).
type dueChange struct {
	at       time.Duration
	seq      int
	kind     change.Kind
	pod      *v1.Pod
	nodeFrom string
}

type changeHeap []dueChange

func (h changeHeap) Len() int { return len(h) }
func (h changeHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h changeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *changeHeap) Push(x any)   { *h = append(*h, x.(dueChange)) }
func (h *changeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (f *shadowFeed) push(at time.Duration, kind change.Kind, p *v1.Pod, nodeFrom string) {
	f.seq++
	heap.Push(&f.due, dueChange{at: at, seq: f.seq, kind: kind, pod: p, nodeFrom: nodeFrom})
}

// arrive schedules pod i's changes.
func (f *shadowFeed) arrive(i int) {
	c := f.c
	at := time.Duration(i) * (time.Second / time.Duration(c.rate))
	p := c.pod(i)
	p.CreationTimestamp = metav1.NewTime(scheduler.Epoch.Add(at))
	p.ResourceVersion = "1"
	f.push(at, change.PodAdd, p, "")
	decide := at + c.decisionDelay
	switch {
	case p.Spec.NodeSelector != nil:
		u := p.DeepCopy()
		u.ResourceVersion = "3"
		u.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
			Message: fmt.Sprintf("0/%d nodes are available: %d node(s) didn't match Pod's node affinity/selector.", len(c.nodes), len(c.nodes))}}
		f.push(decide, change.PodUpdate, u, "")
	case c.prebindEvery > 0 && i%c.prebindEvery == 0:
		n := p.DeepCopy()
		n.ResourceVersion = "2"
		f.push(decide-c.decisionDelay/2, change.PodUpdate, n, "choose")
		if c.lostEvery > 0 && (i/c.prebindEvery)%c.lostEvery == c.lostEvery-1 {
			f.push(decide-c.decisionDelay/4, change.PodDelete, p, "")
			return
		}
		b := p.DeepCopy()
		b.ResourceVersion = "3"
		f.push(decide, change.PodUpdate, b, "where")
	default:
		b := p.DeepCopy()
		b.ResourceVersion = "3"
		f.push(decide, change.PodUpdate, b, "choose")
	}
	f.push(at+c.lifetime, change.PodDelete, p, "")
}

// second applies the changes arriving in second s to e (scheduled at their
// times, in arrival order) and runs e to the second's end; it returns the
// number of changes applied.
func (f *shadowFeed) second(e *Engine, s int) (int, error) {
	end := time.Duration(s+1) * time.Second
	for ; f.arrived < (s+1)*f.c.rate; f.arrived++ {
		f.arrive(f.arrived)
	}
	n := 0
	for f.due.Len() > 0 && f.due[0].at < end {
		ch := heap.Pop(&f.due).(dueChange)
		p := ch.pod
		switch ch.nodeFrom {
		case "choose":
			k := 0
			for j := range f.held {
				if f.held[j] < f.held[k] {
					k = j
				}
			}
			var i int
			if _, err := fmt.Sscanf(p.Name, "churn-%d", &i); err != nil {
				return n, err
			}
			if f.c.badEvery > 0 && i%f.c.badEvery == f.c.badEvery-1 {
				k = (k + len(f.held)/2) % len(f.held)
			}
			f.held[k]++
			f.where[p.Name] = k
			if p.ResourceVersion == "2" {
				p.Status.NominatedNodeName = f.c.nodes[k]
			} else {
				p.Spec.NodeName = f.c.nodes[k]
			}
		case "where":
			p.Spec.NodeName = f.c.nodes[f.where[p.Name]]
			p.Status.NominatedNodeName = p.Spec.NodeName
		}
		if ch.kind == change.PodDelete {
			if k, ok := f.where[p.Name]; ok {
				f.held[k]--
				delete(f.where, p.Name)
			}
		}
		if err := e.Apply(change.Change{Kind: ch.kind, Pod: p, At: e.Start().Add(ch.at)}); err != nil {
			return n, fmt.Errorf("%s %s at %s: %w", ch.kind, p.Name, ch.at, err)
		}
		n++
	}
	e.RunUntil(end)
	return n, nil
}
