package engine

// The cluster as one attempt saw it, to write out (schedtui snapshot
// --at), and restarting a run from such a state (Options.Resume).

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/queue"
)

// Resume restarts a run where a state written at an attempt left the
// scheduler. The queue's order is not part of the cluster: pods that
// waited in backoffQ or the unschedulable pool then join a fresh queue's
// activeQ and may sort ahead of the attempt's pod, so First names the pod
// the first pop takes. The scheduler's own state between attempts (the
// node scan's start, the random source) decides ties, so it is carried
// too.
type Resume struct {
	// First ("namespace/name") is popped first when it waits in activeQ
	// then (a pod group's member: its group, whose cycle makes the
	// member's attempt); otherwise the queue's order holds.
	First string
	// NextStartNodeIndex is where the first attempt's node scan starts.
	NextStartNodeIndex int
	// RandomState is the random source's state (math/rand/v2 PCG,
	// MarshalBinary); nil keeps Options.Seed's source.
	RandomState []byte
}

// resume applies Options.Resume to the freshly built scheduler.
func (e *Engine) resume() error {
	r := e.opts.Resume
	if r == nil {
		return nil
	}
	return e.sched.SetResumeState(r.NextStartNodeIndex, r.RandomState)
}

// pop pops the next pod or group: Resume.First (or the group holding
// it) for the run's first pop, else the queue's head.
func (e *Engine) pop() framework.QueuedEntity {
	if r := e.opts.Resume; r != nil && r.First != "" && e.hist.Len() == 0 {
		ns, name := splitKey(r.First)
		if en, ok := e.q.PopPod(ns, name); ok {
			return en
		}
	}
	en, _ := e.q.Pop()
	return en
}

// memberOf is the popped pod, or the popped group's member named pod
// ("namespace/name"): the pod of an attempt made in a group cycle.
func memberOf(popped framework.QueuedEntity, pod string) *framework.QueuedPodInfo {
	switch en := popped.(type) {
	case *framework.QueuedPodInfo:
		return en
	case *framework.QueuedPodGroupInfo:
		ns, name := splitKey(pod)
		return en.Member(ns, name)
	}
	return nil
}

// AttemptState is the cluster exactly as the scheduler saw it at the start
// of one attempt, with what a run needs to restart there and make the
// same attempt first.
type AttemptState struct {
	// Time is the virtual time the attempt started.
	Time time.Time
	// Pod is the attempt's pod as the queue popped it (its nomination
	// included).
	Pod *v1.Pod
	// Nodes are in the order they were added to the cluster (the node
	// tree's input).
	Nodes []*v1.Node
	// Pods are the bound pods, node by node in each node's pod order
	// (victims still terminating included, with their deletionTimestamp
	// and DisruptionTarget condition), then every other pod in the
	// scheduler's store order; pending pods the queue holds carry their
	// nomination as the nominator held it (status.nominatedNodeName).
	Pods []*v1.Pod
	// Objects are the other objects the scheduler reads (PVs and claims
	// with their bindings, storage classes, CSI objects, services,
	// workloads, PDBs, namespaces), as its store held them.
	Objects []any
	Resume  Resume
}

// StateAt is the cluster as attempt i (an index into Attempts) saw it.
func (e *Engine) StateAt(i int) (*AttemptState, error) {
	f, pi, err := e.mode.popped(i)
	if err != nil {
		return nil, err
	}
	s := f.sched
	next, random, err := s.ResumeState()
	if err != nil {
		return nil, fmt.Errorf("attempt %d: %w", i, err)
	}
	st := &AttemptState{Time: f.now, Pod: pi.Pod, Nodes: append([]*v1.Node(nil), f.nodeOrder...), Objects: s.Objects().All(),
		Resume: Resume{First: key(pi.Pod), NextStartNodeIndex: next, RandomState: random}}
	placed := map[types.UID]bool{}
	for _, n := range f.nodeOrder {
		ni, err := s.Snapshot().Get(n.Name)
		if err != nil {
			continue
		}
		for _, p := range ni.Pods {
			placed[p.Pod.UID] = true
			st.Pods = append(st.Pods, p.Pod)
		}
	}
	for _, p := range s.Objects().Pods() {
		switch {
		case placed[p.UID]:
			continue
		case p.UID == pi.Pod.UID:
			p = pi.Pod
		case p.Spec.NodeName == "":
			if _, where := f.q.Get(p.Namespace, p.Name); where != queue.NotQueued {
				if nom := s.Nominator().NominatedNode(p.UID); nom != p.Status.NominatedNodeName {
					p = p.DeepCopy()
					p.Status.NominatedNodeName = nom
				}
			}
		}
		st.Pods = append(st.Pods, p)
	}
	return st, nil
}
