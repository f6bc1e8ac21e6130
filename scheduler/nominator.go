package scheduler

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Nominator tracks pods nominated to nodes (status.nominatedNodeName or a
// preemption's decision), in nomination order per node.
type Nominator struct {
	byNode map[string][]*framework.PodInfo
	byUID  map[types.UID]string
	// resolve, when the engine sets it, maps a stored entry to the queue's
	// current PodInfo (see SetResolver).
	resolve func(*framework.PodInfo) *framework.PodInfo
}

// NewNominator returns an empty nominator.
func NewNominator() *Nominator {
	return &Nominator{byNode: map[string][]*framework.PodInfo{}, byUID: map[types.UID]string{}}
}

// Add nominates pi to node, replacing any earlier nomination; an empty
// node only removes it.
func (n *Nominator) Add(pi *framework.PodInfo, node string) {
	n.Delete(pi.Pod.UID)
	if node == "" || pi.Pod.Spec.NodeName != "" {
		return
	}
	n.byUID[pi.Pod.UID] = node
	n.byNode[node] = append(n.byNode[node], pi)
}

// Delete removes a pod's nomination.
func (n *Nominator) Delete(uid types.UID) {
	node, ok := n.byUID[uid]
	if !ok {
		return
	}
	delete(n.byUID, uid)
	list := n.byNode[node]
	for i, pi := range list {
		if pi.Pod.UID == uid {
			n.byNode[node] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(n.byNode[node]) == 0 {
		delete(n.byNode, node)
	}
}

// NominatedNode returns a pod's nominated node.
func (n *Nominator) NominatedNode(uid types.UID) string { return n.byUID[uid] }

// NominatedPodsForNode lists the pods nominated to node.
func (n *Nominator) NominatedPodsForNode(node string) []*framework.PodInfo {
	list := n.byNode[node]
	if n.resolve == nil || len(list) == 0 {
		return list
	}
	out := make([]*framework.PodInfo, len(list))
	for i, pi := range list {
		out[i] = n.resolve(pi)
	}
	return out
}

// Nodes lists nodes with nominations.
func (n *Nominator) Nodes() []string {
	out := make([]string, 0, len(n.byNode))
	for k := range n.byNode {
		out = append(out, k)
	}
	return out
}

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
