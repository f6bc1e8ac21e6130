package queue

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedtui/schedtui/scheduler/framework"
)

// Nominator is upstream's nominator: the pods nominated to nodes
// (status.nominatedNodeName or a preemption's decision), in nomination
// order per node. The scheduling cycle reads it (Filter with nominated
// pods) and writes it (assume, failure handling, preemption); the queue
// keeps it current as pending pods are added, updated and deleted.
type Nominator struct {
	byNode map[string][]*framework.PodInfo
	byUID  map[types.UID]string
	// podLister is upstream's pod lister: a pod that is gone or already
	// has a node is not nominated (AddNominatedPod).
	podLister framework.ObjectLister
	// resolve, when the engine sets it, maps a stored entry to the queue's
	// current PodInfo (see SetResolver).
	resolve func(*framework.PodInfo) *framework.PodInfo
}

// NewNominator returns an empty nominator checking pods against
// podLister.
func NewNominator(podLister framework.ObjectLister) *Nominator {
	return &Nominator{byNode: map[string][]*framework.PodInfo{}, byUID: map[types.UID]string{}, podLister: podLister}
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

// AddNominatedPod nominates pi per ni: ModeOverride names the node, else
// the pod's status.nominatedNodeName does; empty removes the nomination.
func (n *Nominator) AddNominatedPod(pi *framework.PodInfo, ni *framework.NominatingInfo) {
	n.Delete(pi.Pod.UID)
	node := pi.Pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		node = ni.NominatedNodeName
	}
	if node == "" {
		return
	}
	cur, err := n.podLister.Pod(pi.Pod.Namespace, pi.Pod.Name)
	if err != nil || cur.Spec.NodeName != "" {
		return
	}
	n.Add(pi, node)
}

// UpdateNominatedPod re-adds the pod with its new PodInfo; a nomination
// only held in memory (both old and new status empty) is kept.
func (n *Nominator) UpdateNominatedPod(oldPod *v1.Pod, newPI *framework.PodInfo) {
	var ni *framework.NominatingInfo
	if oldPod.Status.NominatedNodeName == "" && newPI.Pod.Status.NominatedNodeName == "" {
		if node := n.NominatedNode(oldPod.UID); node != "" {
			ni = &framework.NominatingInfo{NominatingMode: framework.ModeOverride, NominatedNodeName: node}
		}
	}
	n.Delete(oldPod.UID)
	n.AddNominatedPod(newPI, ni)
}

// DeleteNominatedPodIfExists drops the pod's nomination.
func (n *Nominator) DeleteNominatedPodIfExists(pod *v1.Pod) { n.Delete(pod.UID) }

// SetResolver makes NominatedPodsForNode map each nominated pod through
// fn, as upstream resolves its refs to the queue's current PodInfo (or a
// stub for a pod in flight).
func (n *Nominator) SetResolver(fn func(*framework.PodInfo) *framework.PodInfo) { n.resolve = fn }

// Reset forgets every nomination.
func (n *Nominator) Reset() {
	n.byNode = map[string][]*framework.PodInfo{}
	n.byUID = map[types.UID]string{}
}

// Nominations are a copy of a Nominator's nominations, for checkpoints.
type Nominations struct {
	byNode map[string][]*framework.PodInfo
	byUID  map[types.UID]string
}

func (c *Nominations) clone() *Nominations {
	out := &Nominations{
		byNode: make(map[string][]*framework.PodInfo, len(c.byNode)),
		byUID:  make(map[types.UID]string, len(c.byUID)),
	}
	for k, v := range c.byNode {
		out.byNode[k] = append([]*framework.PodInfo(nil), v...)
	}
	for k, v := range c.byUID {
		out.byUID[k] = v
	}
	return out
}

// Export copies the nominations.
func (n *Nominator) Export() *Nominations {
	return (&Nominations{byNode: n.byNode, byUID: n.byUID}).clone()
}

// Import replaces the nominations with a copy of c.
func (n *Nominator) Import(c *Nominations) {
	cp := c.clone()
	n.byNode, n.byUID = cp.byNode, cp.byUID
}
