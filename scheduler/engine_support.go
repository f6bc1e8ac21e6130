package scheduler

import (
	"fmt"
	"math/rand/v2"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
	"github.com/schedtui/schedtui/scheduler/framework/runtime"
	"github.com/schedtui/schedtui/scheduler/record"
)

// This file is what the queue engine (scheduler/engine) needs from a
// Scheduler: hooks into the cycle, the informer-side cluster mutations, the
// nominator interface the queue keeps current, and state capture/restore
// for rewinding. A Scheduler used without an engine (conformance mode, a
// ScheduleOne loop) never touches any of it.

// engineHooks are installed by the engine; the zero value is standalone
// behaviour.
type engineHooks struct {
	// preempt receives a preemption decision instead of the immediate
	// deletion of the victims.
	preempt func(preemptor *v1.Pod, p *record.Preemption)
	// bound is told of every successful binding, with the cycle state
	// (VolumeBinding leaves its decision there).
	bound func(state *framework.CycleState, pod *v1.Pod, node string)
	// pcg is the random source behind s.rand, kept to checkpoint it.
	pcg *rand.PCG
}

func (s *Scheduler) afterBind(state *framework.CycleState, pod *v1.Pod, node string) {
	if s.hooks.bound != nil {
		s.hooks.bound(state, pod, node)
	}
}

// SetPreemptionActuator selects engine-driven preemption: a chosen
// candidate is handed to fn (the engine marks the victims, lets them
// terminate in virtual time and clears nominations) instead of being
// deleted at once. nil restores immediate deletion, the default.
func (s *Scheduler) SetPreemptionActuator(fn func(preemptor *v1.Pod, p *record.Preemption)) {
	s.hooks.preempt = fn
}

// SetBindObserver installs fn, called after every successful binding with
// the attempt's cycle state.
func (s *Scheduler) SetBindObserver(fn func(state *framework.CycleState, pod *v1.Pod, node string)) {
	s.hooks.bound = fn
}

// NewPCG is the random source New seeds from opts.Seed.
func NewPCG(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

// UsePCG makes p the scheduler's random source, in place, so that the
// plugins holding s.rand draw from it; the engine keeps p to checkpoint it.
func (s *Scheduler) UsePCG(p *rand.PCG) {
	*s.rand = *rand.New(p)
	s.hooks.pcg = p
}

// ProfileNames lists the profiles' scheduler names, sorted.
func (s *Scheduler) ProfileNames() []string {
	out := make([]string, 0, len(s.profiles))
	for name := range s.profiles {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Profiles returns the frameworks by scheduler name.
func (s *Scheduler) Profiles() map[string]*runtime.Framework { return s.profiles }

// QueueNominator adapts the nominator to the queue's interface, with
// upstream's pod-lister check: a pod that is gone or already has a node is
// not nominated.
func (s *Scheduler) QueueNominator() *QueueNominator { return &QueueNominator{s: s} }

// QueueNominator is the queue's view of the nominator.
type QueueNominator struct{ s *Scheduler }

// AddNominatedPod nominates pi per ni: ModeOverride names the node, else
// the pod's status.nominatedNodeName does; empty removes the nomination.
func (q *QueueNominator) AddNominatedPod(pi *framework.PodInfo, ni *framework.NominatingInfo) {
	n := q.s.nominator
	n.Delete(pi.Pod.UID)
	node := pi.Pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		node = ni.NominatedNodeName
	}
	if node == "" {
		return
	}
	cur, err := q.s.objects.Pod(pi.Pod.Namespace, pi.Pod.Name)
	if err != nil || cur.Spec.NodeName != "" {
		return
	}
	n.Add(pi, node)
}

// UpdateNominatedPod re-adds the pod with its new PodInfo; a nomination
// only held in memory (both old and new status empty) is kept.
func (q *QueueNominator) UpdateNominatedPod(oldPod *v1.Pod, newPI *framework.PodInfo) {
	var ni *framework.NominatingInfo
	if oldPod.Status.NominatedNodeName == "" && newPI.Pod.Status.NominatedNodeName == "" {
		if node := q.s.nominator.NominatedNode(oldPod.UID); node != "" {
			ni = &framework.NominatingInfo{NominatingMode: framework.ModeOverride, NominatedNodeName: node}
		}
	}
	q.s.nominator.Delete(oldPod.UID)
	q.AddNominatedPod(newPI, ni)
}

// DeleteNominatedPodIfExists drops the pod's nomination.
func (q *QueueNominator) DeleteNominatedPodIfExists(pod *v1.Pod) { q.s.nominator.Delete(pod.UID) }

// SetResolver makes NominatedPodsForNode map each nominated pod through
// fn, as upstream resolves its refs to the queue's current PodInfo (or a
// stub for a pod in flight).
func (n *Nominator) SetResolver(fn func(*framework.PodInfo) *framework.PodInfo) { n.resolve = fn }

// Reset forgets every nomination.
func (n *Nominator) Reset() {
	n.byNode = map[string][]*framework.PodInfo{}
	n.byUID = map[types.UID]string{}
}

// Cluster mutations, as the informers' event handlers apply them to the
// scheduler cache and the listers.

// AddAssignedPod stores a bound pod and puts it on its node (a pod naming
// a node that does not exist waits in the store until the node appears).
func (s *Scheduler) AddAssignedPod(pod *v1.Pod) {
	s.objects.Add(pod)
	if _, err := s.snapshot.Get(pod.Spec.NodeName); err == nil {
		_ = s.snapshot.AddPod(pod)
	}
}

// UpdateAssignedPod replaces a bound pod, on its node too.
func (s *Scheduler) UpdateAssignedPod(oldPod, newPod *v1.Pod) {
	if _, err := s.snapshot.Get(oldPod.Spec.NodeName); err == nil {
		_ = s.snapshot.RemovePod(oldPod)
	}
	s.AddAssignedPod(newPod)
}

// RemoveAssignedPod deletes a bound pod.
func (s *Scheduler) RemoveAssignedPod(pod *v1.Pod) {
	s.objects.Delete(pod)
	if _, err := s.snapshot.Get(pod.Spec.NodeName); err == nil {
		_ = s.snapshot.RemovePod(pod)
	}
}

// SetPendingPod stores (adds or replaces) a pod without a node.
func (s *Scheduler) SetPendingPod(pod *v1.Pod) { s.objects.Add(pod) }

// DeletePendingPod removes a pod without a node from the store.
func (s *Scheduler) DeletePendingPod(pod *v1.Pod) { s.objects.Delete(pod) }

// SetNodes rebuilds the node set from nodes in add order: surviving nodes
// keep their pods, new nodes receive the stored pods bound to them, and
// the node list of later attempts follows the new node-tree order.
func (s *Scheduler) SetNodes(nodes []*v1.Node) {
	old := s.snapshot
	var fresh []string
	snap := framework.RebuildSnapshot(nodes, func(name string) *framework.NodeInfo {
		if ni, err := old.Get(name); err == nil {
			return ni
		}
		fresh = append(fresh, name)
		return nil
	})
	if len(fresh) > 0 {
		isFresh := map[string]bool{}
		for _, n := range fresh {
			isFresh[n] = true
		}
		for _, p := range s.objects.Pods() {
			if p.Spec.NodeName != "" && isFresh[p.Spec.NodeName] {
				if ni, err := snap.Get(p.Spec.NodeName); err == nil {
					ni.AddPod(p)
				}
			}
		}
		snap.RefreshLists()
	}
	s.snapshot = snap
	names := make([]string, 0, snap.NumNodes())
	for _, ni := range snap.List() {
		names = append(names, ni.Name())
	}
	s.nodeList = record.NewNodeList(names)
	if s.nextStartNodeIndex >= len(names) {
		s.nextStartNodeIndex = 0
	}
}

// State is a Scheduler's mutable state at one moment, for checkpoints:
// NodeInfo copies (shared with the previous checkpoint where unchanged),
// the object store, nominations, the rotating node index, the attempt
// counter and the random source.
type State struct {
	infos     []*framework.NodeInfo
	byName    map[string]*framework.NodeInfo
	objects   *framework.ObjectStore
	byNode    map[string][]*framework.PodInfo
	byUID     map[types.UID]string
	nodeList  *record.NodeList
	nextStart int
	seq       int
	pcg       []byte
}

// CaptureState copies the scheduler's state. NodeInfos that did not change
// since prev (same generation) share prev's copy, so a checkpoint costs
// O(nodes) pointers plus the nodes that changed.
func (s *Scheduler) CaptureState(prev *State) (*State, error) {
	st := &State{
		objects: s.objects.Clone(), byNode: make(map[string][]*framework.PodInfo, len(s.nominator.byNode)),
		byUID: make(map[types.UID]string, len(s.nominator.byUID)), nodeList: s.nodeList,
		nextStart: s.nextStartNodeIndex, seq: s.seq,
	}
	list := s.snapshot.List()
	st.infos = make([]*framework.NodeInfo, len(list))
	st.byName = make(map[string]*framework.NodeInfo, len(list))
	for i, ni := range list {
		var c *framework.NodeInfo
		if prev != nil {
			if p := prev.byName[ni.Name()]; p != nil && p.Generation == ni.Generation && p.Node() == ni.Node() {
				c = p
			}
		}
		if c == nil {
			c = ni.Clone()
		}
		st.infos[i] = c
		st.byName[ni.Name()] = c
	}
	for k, v := range s.nominator.byNode {
		st.byNode[k] = append([]*framework.PodInfo(nil), v...)
	}
	for k, v := range s.nominator.byUID {
		st.byUID[k] = v
	}
	if s.hooks.pcg != nil {
		b, err := s.hooks.pcg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		st.pcg = b
	}
	return st, nil
}

// RestoreState puts a captured state into s, normally a Scheduler freshly
// built by New with the same options (so that no plugin keeps memory of
// the future). The checkpoint itself is left intact.
func (s *Scheduler) RestoreState(st *State) error {
	infos := make([]*framework.NodeInfo, len(st.infos))
	for i, ni := range st.infos {
		infos[i] = ni.Clone()
	}
	s.snapshot = framework.SnapshotFromNodeInfos(infos)
	s.objects.CopyFrom(st.objects)
	s.nominator.byNode = make(map[string][]*framework.PodInfo, len(st.byNode))
	for k, v := range st.byNode {
		s.nominator.byNode[k] = append([]*framework.PodInfo(nil), v...)
	}
	s.nominator.byUID = make(map[types.UID]string, len(st.byUID))
	for k, v := range st.byUID {
		s.nominator.byUID[k] = v
	}
	s.nodeList = st.nodeList
	s.nextStartNodeIndex = st.nextStart
	s.seq = st.seq
	if st.pcg != nil {
		p := &rand.PCG{}
		if err := p.UnmarshalBinary(st.pcg); err != nil {
			return fmt.Errorf("restoring the random source: %w", err)
		}
		s.UsePCG(p)
	}
	return nil
}
